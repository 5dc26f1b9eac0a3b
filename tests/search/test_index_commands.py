"""`reindex`, `status` and `eval` as a user runs them."""
from __future__ import annotations

import json

from fake_omnisearch import FakeOmnisearch


def _notes(env):
    (env.vault / "Animals").mkdir()
    (env.vault / "Animals" / "Zebra.md").write_text("---\ntags: [mammal]\n---\nStripes and grass.", encoding="utf-8")
    (env.vault / "Animals" / "Heron.md").write_text("A bird that wades. Not a zebra.", encoding="utf-8")
    (env.vault / "Plants.md").write_text("Grass and trees.", encoding="utf-8")


def test_reindex_prints_a_one_line_summary_then_finds_nothing_to_do(env):
    _notes(env)
    first = env.run("reindex")
    second = env.run("reindex")
    forced = env.run("reindex", "--force")
    assert first.returncode == 0, first.stderr
    lines = first.stdout.decode().strip().splitlines()
    assert len(lines) == 1 and "3 added" in lines[0] and "rebuilt" in lines[0]
    assert "0 added, 0 updated, 0 removed, 3 unchanged" in second.stdout.decode()
    assert "3 updated" in forced.stdout.decode()
    assert first.stderr == b""                     # no progress bar when stderr is not a terminal


def test_reindex_of_a_missing_vault_is_one_clear_error(env):
    result = env.run("reindex", "--vault", str(env.root / "nowhere"))
    assert result.returncode == 2
    assert b"vault not found" in result.stderr and b"Traceback" not in result.stderr


def test_status_json_reports_index_engines_and_archive(env):
    _notes(env)
    env.run("reindex")
    result = env.run("status", "--json")
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["index"]["notes_indexed"] == 3 and report["index"]["size_bytes"] > 0
    assert report["index"]["last_update"] is not None
    assert report["engines"]["omnisearch"]["answers"] is False       # port 9: nothing answers
    assert report["archive"]["exists"] is False


def test_status_text_before_any_index(env):
    result = env.run("status")
    assert result.returncode == 0, result.stderr
    text = result.stdout.decode()
    assert "not built yet" in text and "omnisearch: not answering" in text


def test_status_sees_an_omnisearch_that_answers(env):
    with FakeOmnisearch() as server:
        result = env.run("status", "--json", env={"OMNISEARCH_PORT": server.port})
    assert json.loads(result.stdout)["engines"]["omnisearch"]["answers"] is True


def _golden(env, entries):
    path = env.root / "golden.json"
    path.write_text(json.dumps(entries), encoding="utf-8")
    return path


def test_eval_prints_figures_overall_and_per_category(env):
    _notes(env)
    golden = _golden(env, [
        {"id": "1", "query": "zebra stripes", "relevant_paths": ["Animals/Zebra.md"], "partial_paths": [],
         "category": "keyword"},
        {"id": "2", "query": "wading bird", "relevant_paths": ["Animals/Heron.md"],
         "partial_paths": ["Animals/Zebra.md"], "category": "conceptual"},
        {"id": "3", "query": "unicorn", "relevant_paths": ["Plants.md"], "partial_paths": [], "category": "keyword"},
    ])
    result = env.run("eval", "--golden", golden, "--source", "index", "--json")
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["engines"] == ["index"]
    by_id = {q["id"]: q for q in report["queries"]}
    assert by_id["1"]["metrics"]["mrr"] == 1.0 and by_id["3"]["metrics"]["mrr"] == 0.0
    assert report["categories"]["keyword"]["hit@1"] == 0.5
    assert report["overall"]["queries"] == 3
    text = env.run("eval", "--golden", golden, "--source", "index").stdout.decode()
    assert "ndcg@5" in text and "conceptual" in text and "'unicorn'" in text


def test_eval_prints_the_dev_and_test_halves_side_by_side_and_measures_one_half_alone(env):
    _notes(env)
    golden = _golden(env, [
        {"id": "1", "query": "zebra stripes", "relevant_paths": ["Animals/Zebra.md"], "category": "keyword",
         "split": "dev"},
        {"id": "2", "query": "unicorn", "relevant_paths": ["Plants.md"], "category": "keyword", "split": "test"},
        {"id": "3", "query": "grass", "relevant_paths": ["Plants.md"], "ignore_paths": ["Animals/Zebra.md"],
         "category": "anchor", "split": "test"},
    ])
    report = json.loads(env.run("eval", "--golden", golden, "--source", "index", "--json").stdout)
    assert report["splits"]["dev"]["overall"]["mrr"] == 1.0 and report["splits"]["test"]["overall"]["queries"] == 2
    assert report["splits"]["test"]["categories"]["anchor"]["hit@1"] == 1.0     # Zebra.md ignored, Plants.md first
    assert all("Animals/Zebra.md" not in q["ranked"] for q in report["queries"] if q["id"] == "3")
    text = env.run("eval", "--golden", golden, "--source", "index").stdout.decode()
    header = next(line for line in text.splitlines() if line.split().count("test") == 4)
    assert header.split().count("dev") == 4 and "n dev/test" in text and " 1/2 " in text
    assert "[keyword/test] 'unicorn'" in text
    dev_only = json.loads(env.run("eval", "--golden", golden, "--source", "index", "--split", "dev", "--json").stdout)
    assert dev_only["overall"]["queries"] == 1 and dev_only["split"] == "dev" and list(dev_only["splits"]) == ["dev"]
    unsplit = _golden(env, [{"id": "1", "query": "zebra", "relevant_paths": ["Animals/Zebra.md"]}])
    result = env.run("eval", "--golden", unsplit, "--split", "test")
    assert result.returncode == 2 and b"no queries in the test half" in result.stderr


def test_eval_with_a_bad_golden_file_is_one_clear_error(env):
    bad = env.root / "bad.json"
    bad.write_text("{not json", encoding="utf-8")
    for path in (bad, env.root / "missing.json"):
        result = env.run("eval", "--golden", path)
        assert result.returncode == 2 and b"Traceback" not in result.stderr
        assert b"golden" in result.stderr


def test_status_says_semantic_search_is_off_and_why_before_anything_is_embedded(env):
    _notes(env)
    text = env.run("status").stdout.decode()
    line = [line for line in text.splitlines() if line.startswith("semantic:")]
    assert len(line) == 1 and line[0].startswith("semantic:   off (") and "embed" in line[0]
    report = json.loads(env.run("status", "--json").stdout)["semantic"]
    assert report["on"] is False and report["default_mode"] == "fulltext" and report["embedded"] == 0


FAN_GOLDEN = [
    {"id": "z", "query": "zebra stripes", "relevant_paths": ["Animals/Zebra.md"], "category": "keyword"},
    {"id": "h", "query": "long legged fisher", "queries": ["heron"], "relevant_paths": ["Animals/Heron.md"],
     "category": "fan"},
    {"id": "p", "query": "Plants", "relevant_paths": ["Plants.md"], "category": "title"},
]


def test_eval_fan_out_searches_the_alternative_phrasings_fused(env):
    _notes(env)
    golden = _golden(env, FAN_GOLDEN)
    alone = json.loads(env.run("eval", "--golden", golden, "--source", "index", "--json").stdout)
    fanned = json.loads(env.run("eval", "--golden", golden, "--source", "index", "--fan-out", "--json").stdout)
    by_id = {q["id"]: q for q in fanned["queries"]}
    assert alone["fan_out"] is False and fanned["fan_out"] is True and fanned["fanned_out"] == 1
    assert by_id["h"]["searched"] == ["long legged fisher", "heron"] and by_id["z"]["searched"] == ["zebra stripes"]
    assert alone["categories"]["fan"]["hit@1"] == 0.0 and fanned["categories"]["fan"]["hit@1"] == 1.0
    assert fanned["categories"]["keyword"] == alone["categories"]["keyword"]
    assert "fan-out over 1 queries" in env.run("eval", "--golden", golden, "--fan-out").stdout.decode()


def test_eval_modes_side_by_side_without_the_model(env):
    _notes(env)
    golden = _golden(env, FAN_GOLDEN)
    result = env.run("eval", "--golden", golden, "--source", "local", "--mode", "fulltext", "--mode", "title", "--json")
    assert result.returncode == 0, result.stderr
    reports = json.loads(result.stdout)["reports"]
    assert [r["mode"] for r in reports] == ["fulltext", "title"]
    assert [r["answered_modes"] for r in reports] == [["fulltext"], ["title"]]
    assert reports[1]["categories"]["title"]["mrr"] == 1.0 and reports[1]["categories"]["keyword"]["mrr"] == 0.0
    text = env.run("eval", "--golden", golden, "--mode", "fulltext", "--mode", "title").stdout.decode()
    assert "mode fulltext" in text and "mode title" in text and "no relevant note in the top 5 in mode title" in text


def test_eval_with_bad_phrasings_or_mode_is_one_clear_error(env):
    bad = env.root / "bad-phrasings.json"
    bad.write_text(json.dumps([{"id": "x", "query": "zebra", "queries": "zebra stripes", "relevant_paths": []}]),
                   encoding="utf-8")
    for args in (["--golden", bad], ["--golden", _golden(env, FAN_GOLDEN), "--mode", "vector"]):
        result = env.run("eval", *args)
        assert result.returncode == 2 and b"Traceback" not in result.stderr, result.stderr
    assert b"'queries' is a list" in env.run("eval", "--golden", bad).stderr
