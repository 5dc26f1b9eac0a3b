"""Search-quality metrics against values computed by hand."""
from __future__ import annotations

import json

import pytest

from obsidian_memory.search import evaluation as ev

# gains 1, 0, 1, 0.5 -> DCG = 1 + 1/log2(4) + 0.5/log2(5) = 1.715338
# ideal 1, 1, 0.5    -> IDCG = 1 + 1/log2(3) + 0.5/log2(4) = 1.880930
FIRST = (["a.md", "x.md", "b.md", "c.md"], ["a.md", "b.md"], ["c.md"])
# gains 0, 0, 0.5, 1 -> DCG = 0.5/2 + 1/log2(5) = 0.680677; ideal 1, 0.5 -> 1 + 0.5/log2(3) = 1.315465
SECOND = (["x.md", "y.md", "c.md", "b.md"], ["b.md"], ["c.md"])


def test_ndcg_uses_full_gain_for_relevant_and_half_for_partial():
    assert ev.ndcg(*FIRST, k=5) == pytest.approx(1.715338 / 1.880930, abs=1e-6)
    assert ev.ndcg(*SECOND, k=5) == pytest.approx(0.680677 / 1.315465, abs=1e-6)


def test_ndcg_only_counts_the_top_k_and_cuts_the_ideal_at_k():
    assert ev.ndcg(*SECOND, k=2) == 0.0
    ranked = ["r1", "r2"]
    relevant = [f"r{i}" for i in range(1, 7)]
    # top 2 are ideal as far as they go: DCG@2 equals IDCG@2 although 6 notes are relevant
    assert ev.ndcg(ranked, relevant, [], k=2) == pytest.approx(1.0)


def test_mrr_and_hits_count_relevant_notes_only():
    ranked, relevant, partial = SECOND
    assert ev.reciprocal_rank(ranked, relevant) == 0.25
    assert [ev.hit_at(ranked, relevant, k) for k in (1, 3, 5)] == [0.0, 0.0, 1.0]


def test_recall_is_the_share_of_relevant_notes_found():
    assert ev.recall_at(["a.md", "z.md"], ["a.md", "b.md"], 10) == 0.5
    assert ev.recall_at(["z.md"] * 3, ["a.md"], 10) == 0.0


def test_duplicates_in_a_ranking_count_once():
    assert ev.ndcg(["a.md", "a.md", "b.md"], ["a.md", "b.md"], [], 5) == pytest.approx(1.0)


def test_query_metrics_are_rounded_to_three_decimals():
    metrics = ev.query_metrics(*FIRST)
    assert metrics["ndcg@5"] == 0.912 and metrics["mrr"] == 1.0 and metrics["recall@10"] == 1.0
    assert ev.query_metrics(*SECOND)["ndcg@5"] == 0.517


def test_a_query_with_nothing_found_scores_zero():
    assert set(ev.query_metrics([], ["a.md"]).values()) == {0.0}


def test_summary_averages_rounded_values_overall_and_per_category():
    results = [{"category": "keyword", "metrics": ev.query_metrics(*FIRST)},
               {"category": "typo", "metrics": ev.query_metrics(*SECOND)},
               {"category": "typo", "metrics": ev.query_metrics([], ["q.md"])}]
    summary = ev.summarise(results)
    assert summary["overall"]["queries"] == 3
    assert summary["overall"]["mrr"] == round((1 + 0.25 + 0) / 3, 3)
    assert summary["categories"]["typo"]["mrr"] == 0.125
    assert summary["categories"]["typo"]["hit@5"] == 0.5
    assert summary["categories"]["keyword"]["ndcg@5"] == 0.912


def test_golden_files_are_checked(tmp_path):
    good = tmp_path / "g.json"
    good.write_text(json.dumps([{"id": "q1", "query": "x", "relevant_paths": ["a.md"], "category": "k"}]))
    assert ev.load_golden(str(good)) == [{"id": "q1", "query": "x", "relevant_paths": ["a.md"],
                                          "partial_paths": [], "category": "k"}]
    bad = tmp_path / "b.json"
    bad.write_text(json.dumps([{"id": "q1", "relevant_paths": []}]))
    with pytest.raises(ValueError):
        ev.load_golden(str(bad))


def test_alternative_phrasings_are_kept_and_searched_only_under_fan_out(tmp_path):
    path = tmp_path / "g.json"
    path.write_text(json.dumps([{"query": "a", "queries": ["b", "a", "c"], "relevant_paths": ["x.md"]},
                                {"query": "d", "relevant_paths": ["y.md"]}]), encoding="utf-8")
    with_phrasings, without = ev.load_golden(str(path))
    assert with_phrasings["queries"] == ["b", "a", "c"] and "queries" not in without
    assert ev.phrasings(with_phrasings, fan_out=False) == ["a"]
    assert ev.phrasings(with_phrasings, fan_out=True) == ["a", "b", "c"]       # the query first, once
    assert ev.phrasings(without, fan_out=True) == ["d"]


@pytest.mark.parametrize("queries", ["b", [""], [1], {"q": "b"}])
def test_phrasings_must_be_a_list_of_non_empty_strings(tmp_path, queries):
    path = tmp_path / "g.json"
    path.write_text(json.dumps([{"query": "a", "queries": queries}]), encoding="utf-8")
    with pytest.raises(ValueError, match="'queries'"):
        ev.load_golden(str(path))


def test_the_fan_out_golden_set_reuses_the_judgements_of_its_source_entries():
    from testkit import REPO

    golden = REPO / "benchmarks" / "golden"
    sources = {e["id"]: e for name in ("obsidian-help-en.json", "obsidian-help-semantic.json",
                                       "obsidian-help-asked.json")
               for e in json.loads((golden / name).read_text(encoding="utf-8"))}
    fan = json.loads((golden / "obsidian-help-fanout.json").read_text(encoding="utf-8"))
    assert len(fan) >= 60 and len(ev.load_golden(str(golden / "obsidian-help-fanout.json"))) == len(fan)
    for entry in fan:
        if "source" not in entry:               # the fusion cases, judged on their own
            assert entry["category"] == "issue" and entry["queries"] and entry["relevant_paths"]
            continue
        source = sources[entry["source"]]
        assert 2 <= len(entry["queries"]) <= 3 and entry["query"] == source["query"]
        assert (entry["relevant_paths"], entry["partial_paths"], entry["category"], entry["split"]) == \
            (source["relevant_paths"], source["partial_paths"], source["category"], source["split"])


# -- dev and test halves ---------------------------------------------------------------------------

def _entries(category_sizes: dict[str, int]) -> list[dict]:
    return [{"id": f"{c}-{n}", "query": "q", "category": c} for c, size in category_sizes.items() for n in range(size)]


def test_splits_halve_each_category_with_dev_taking_the_odd_one():
    split = ev.assign_splits(_entries({"a": 7, "b": 4, "c": 1}))
    for category, dev in (("a", 4), ("b", 2), ("c", 1)):
        halves = [e["split"] for e in split if e["category"] == category]
        assert halves.count("dev") == dev and halves.count("test") == len(halves) - dev


def test_splits_depend_on_the_seed_and_ids_not_on_the_order_of_the_file():
    entries = _entries({"a": 30})
    forward = {e["id"]: e["split"] for e in ev.assign_splits(entries)}
    backward = {e["id"]: e["split"] for e in ev.assign_splits(list(reversed(entries)))}
    other_seed = {e["id"]: e["split"] for e in ev.assign_splits(entries, seed="another")}
    assert forward == backward and forward != other_seed


def test_splits_are_drawn_once_and_fan_out_entries_follow_their_source():
    kept = [{"id": "x", "query": "q", "category": "a", "split": "test"}]
    grown = ev.assign_splits(kept + _entries({"a": 3}))
    assert grown[0]["split"] == "test"                      # never moved
    assert [e["split"] for e in grown].count("dev") == 2    # the newcomers rebalance the halves
    fan = ev.assign_splits([{"id": "f1", "source": "x", "query": "q", "category": "a"}], inherited={"x": "test"})
    assert fan[0]["split"] == "test"


def test_split_and_ignored_paths_are_read_and_checked(tmp_path):
    path = tmp_path / "g.json"
    path.write_text(ev.dump_golden([{"id": "1", "query": "q", "relevant_paths": ["n.md"], "split": "dev",
                                     "ignore_paths": ["m.md"]}]), encoding="utf-8")
    (item,) = ev.load_golden(str(path))
    assert item["split"] == "dev" and item["ignore_paths"] == ["m.md"]
    assert ev.judged_ranking(["m.md", "x.md", "n.md"], item) == ["x.md", "n.md"]
    for bad in ({"split": "train"}, {"ignore_paths": "m.md"}):
        path.write_text(json.dumps([{"query": "q", **bad}]), encoding="utf-8")
        with pytest.raises(ValueError, match="split|ignore_paths"):
            ev.load_golden(str(path))


def test_halves_are_summarised_apart():
    results = [{"category": "k", "split": "dev", "metrics": ev.query_metrics(*FIRST)},
               {"category": "k", "split": "test", "metrics": ev.query_metrics([], ["q.md"])},
               {"category": "k", "metrics": ev.query_metrics(*FIRST)}]
    halves = ev.summarise_splits(results)
    assert halves["dev"]["overall"]["mrr"] == 1.0 and halves["test"]["overall"]["mrr"] == 0.0
    assert halves["dev"]["overall"]["queries"] == 1
    assert ev.summarise_splits(results[2:]) == {}
