"""`search_vault.py` and `obsidian_memory.py search` as a user (or the skill) runs them."""
from __future__ import annotations

import json
import re

import pytest
from fake_omnisearch import FakeOmnisearch, item

ESCAPES = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


@pytest.fixture
def vault(env):
    notes = {
        "Runbooks/Deploy checklist.md": "# Deploy checklist\nRun the deploy script on staging first.\n",
        "Meta/claude-sessions/2026-03-01 deploy.md": "We fixed the deploy script together.\n",
        "Notes/draft idea.md": "---\ntags: [draft]\n---\nA deploy idea, not ready.\n",
        "Notes/Other.md": "Nothing about it.\n",
    }
    for relative, text in notes.items():
        path = env.vault / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return env


def as_json(result):
    assert result.returncode == 0, result.stderr.decode()
    return json.loads(result.stdout)


def test_json_has_exactly_the_contract_keys(vault):
    data = as_json(vault.search("deploy script", "--json", "--source", "scan"))
    assert list(data) == ["query", "engine", "mode", "elapsed_seconds", "vault", "total_results", "results"]
    assert data["query"] == "deploy script" and data["engine"] == "scan" and data["mode"] == "fulltext"
    assert data["vault"] == str(vault.vault) and data["total_results"] == 3
    assert isinstance(data["elapsed_seconds"], float)
    first = data["results"][0]
    assert list(first) == ["path", "basename", "score", "excerpt", "engine", "links", "backlinks"]
    assert first["path"] == "Runbooks/Deploy checklist.md" and first["basename"] == "Deploy checklist"
    assert first["engine"] == "scan" and "deploy script" in first["excerpt"]


def test_auto_falls_back_to_a_local_engine_when_omnisearch_is_down(vault):
    # the env points OMNISEARCH_PORT at the discard port, where nothing answers
    result = vault.search("deploy script", "--json")
    data = as_json(result)
    assert data["engine"] in ("index", "scan")
    assert data["results"][0]["path"] == "Runbooks/Deploy checklist.md"
    assert "Omnisearch did not answer" in result.stderr.decode()


def test_why_omnisearch_did_not_answer_is_said_once_not_at_every_search_until_it_changes(vault):
    said = "Omnisearch did not answer on port"

    def printed(*args):
        done = vault.search(*args)
        assert done.returncode == 0
        return done.stdout.decode() + done.stderr.decode()

    assert said in printed("deploy script")
    second = printed("deploy script")
    assert said not in second and "| engine: index |" in second   # the header still names the engine
    assert said in printed("deploy", "--source", "omnisearch")   # asked for by name: always said
    with FakeOmnisearch() as fake:   # Omnisearch answers once: the next time it does not is news again
        fake.items = [item("Runbooks/Deploy checklist.md", 7.25)]
        assert as_json(vault.search("deploy", "--json", "--port", str(fake.port)))["engine"] == "omnisearch"
    assert said in printed("deploy script")


def test_text_mode_has_a_header_then_numbered_hits_with_excerpts(vault):
    result = vault.search("deploy script", "--source", "scan", "-n", "2")
    lines = result.stdout.decode().splitlines()
    assert result.returncode == 0
    assert re.fullmatch(r'search: "deploy script" \| engine: scan \| \d+\.\d{3} s \| 2 of 3 results', lines[0])
    # deploy (name) 20 + script 20 + all 50 + phrase in body 30 + deploy in name 15 + 1 heading 8 + frequency 3
    assert lines[1] == "1. Runbooks/Deploy checklist.md (146.00)"   # every score in one format, whole or not
    assert lines[2].startswith("   ") and "deploy script" in lines[2]
    assert re.fullmatch(r"2\. .+\.md \(\d+\.\d\d\)", lines[3]), lines[3]
    assert len(lines) == 5


def test_text_mode_says_no_results(vault):
    result = vault.search("zeppelin", "--source", "scan")
    assert result.returncode == 0
    assert result.stdout.decode().splitlines()[-1] == "No results."


def test_offline_omnisearch_is_said_not_hidden(vault):
    text = vault.search("deploy", "--source", "omnisearch").stdout.decode()
    assert "engine: omnisearch (offline)" in text
    assert "Omnisearch did not answer" in text and "No results." not in text
    data = as_json(vault.search("deploy", "--source", "omnisearch", "--json"))
    assert data["engine"] == "omnisearch (offline)" and data["results"] == [] and data["total_results"] == 0


def test_omnisearch_answers_through_the_port_flag(vault):
    with FakeOmnisearch() as fake:
        fake.items = [item("Runbooks/Deploy checklist.md", 7.25, excerpt="Run the <mark>deploy</mark> script&nbsp;on staging")]
        data = as_json(vault.search("deploy", "--json", "--port", str(fake.port)))
    assert data["engine"] == "omnisearch"
    assert data["results"] == [{"path": "Runbooks/Deploy checklist.md", "basename": "Deploy checklist",
                                "score": 7.25, "excerpt": "Run the deploy script on staging", "engine": "omnisearch",
                                "links": [], "backlinks": []}]


def test_folder_and_exclude_scope_the_results(vault):
    paths = lambda *args: [r["path"] for r in as_json(vault.search("deploy", "--json", "--source", "scan", *args))["results"]]  # noqa: E731
    assert paths("--folder", "Meta/claude-sessions") == ["Meta/claude-sessions/2026-03-01 deploy.md"]
    assert "Meta/claude-sessions/2026-03-01 deploy.md" not in paths("--exclude", "Meta/claude-sessions/")
    assert paths("--folder", "Notes", "--folder", "Runbooks") == ["Runbooks/Deploy checklist.md", "Notes/draft idea.md"]
    assert paths("--folder", str(vault.vault / "Runbooks")) == ["Runbooks/Deploy checklist.md"]


@pytest.mark.parametrize("flag", ["--folder", "--exclude"])
@pytest.mark.parametrize("value", ["../..", "Notes/../../x", "/etc", "C:\\Users"])
def test_a_scope_leaving_the_vault_is_refused_in_one_line(vault, flag, value):
    result = vault.search("deploy", flag, value, "--source", "scan")
    err = result.stderr.decode()
    assert result.returncode == 2 and result.stdout == b""
    assert len(err.strip().splitlines()) == 1 and "vault" in err and "Traceback" not in err


def test_tag_exclusion_with_a_leading_dash(vault):
    for args in (["--tag", "-draft"], ["--tag=-draft"]):
        data = as_json(vault.search("deploy", "--json", "--source", "scan", *args))
        assert "Notes/draft idea.md" not in [r["path"] for r in data["results"]]
    data = as_json(vault.search("deploy", "--json", "--source", "scan", "--tag", "draft"))
    assert [r["path"] for r in data["results"]] == ["Notes/draft idea.md"]


def test_a_tag_filter_under_auto_says_why_omnisearch_was_skipped(vault):
    text = vault.search("deploy", "--frontmatter", "-tags:draft").stdout.decode()
    assert "Omnisearch cannot filter by tag or frontmatter" in text
    assert "Notes/draft idea.md" not in text and "Runbooks/Deploy checklist.md" in text


def test_several_queries_are_fused(vault):
    data = as_json(vault.search("checklist", "fixed together", "--json", "--source", "scan"))
    assert data["query"] == "checklist | fixed together" and data["engine"] == "scan"
    assert {r["path"] for r in data["results"]} == {"Runbooks/Deploy checklist.md",
                                                   "Meta/claude-sessions/2026-03-01 deploy.md"}


def test_missing_vault_is_one_line_and_exit_2(env, tmp_path):
    for result in (env.search("x", "--vault", str(tmp_path / "nope")),
                   env.search("x", env={"OBSIDIAN_VAULT": str(tmp_path / "gone")})):
        err = result.stderr.decode()
        assert result.returncode == 2 and "vault not found" in err and len(err.strip().splitlines()) == 1


@pytest.mark.parametrize("args", [["-n", "0", "x"], ["--bogus", "x"], [], ["x", "--source", "google"], ["  "],
                                  ["x", "--port", "99999"], ["x", "--frontmatter", "nocolon"]])
def test_bad_arguments_are_one_line_and_exit_2(vault, args):
    result = vault.search(*args)
    err = result.stderr.decode()
    assert result.returncode == 2 and len(err.strip().splitlines()) == 1, err


def test_escape_sequences_never_reach_the_output(vault):
    evil = "\x1b]0;pwned\x07\x1b[2J\x1b[31mdeploy\x1b[0m \x9b31m \x07"
    (vault.vault / "Notes" / "evil\x1b[5m name.md").write_text(f"# {evil}\n{evil} body\n", encoding="utf-8")
    with FakeOmnisearch() as fake:
        fake.items = [item("Notes/evil\x1b[5m name.md", 1.0, excerpt=evil, basename="evil\x1b[5m name")]
        runs = [vault.search("deploy", "--source", source, *fmt, "--port", str(fake.port))
                for source in ("scan", "omnisearch", "local") for fmt in ([], ["--json"])]
    runs.append(vault.run("search", "deploy", "--source", "scan"))
    for result in runs:
        assert result.returncode == 0
        out = result.stdout.decode() + result.stderr.decode()
        assert not ESCAPES.search(out.replace("\n", "")), repr(out)
    assert all("evil" in r.stdout.decode() for i, r in enumerate(runs) if i not in (4, 5))  # (the index may skip it)


def test_obsidian_memory_search_gives_the_same_results_as_search_vault(vault):
    args = ["deploy", "--json", "--source", "scan", "--exclude", "Notes"]
    direct = as_json(vault.search(*args))
    via_cli = as_json(vault.run("search", *args))
    direct.pop("elapsed_seconds"), via_cli.pop("elapsed_seconds")
    assert via_cli == direct and direct["results"]


def test_a_broken_index_falls_back_to_the_scanner_under_local_and_is_an_error_under_index(vault, tmp_path):
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("", encoding="utf-8")
    broken = {"OBSIDIAN_MEMORY_CACHE_DIR": str(blocker)}  # the index cannot create its file here
    local = vault.search("deploy script", "--source", "local", env=broken)
    text = local.stdout.decode()
    assert local.returncode == 0 and "engine: scan" in text and "the local index failed" in text
    assert "Runbooks/Deploy checklist.md" in text
    strict = vault.search("deploy script", "--source", "index", env=broken)
    err = strict.stderr.decode()
    assert strict.returncode == 2 and "the index engine failed" in err and len(err.strip().splitlines()) == 1


# -- --mode ---------------------------------------------------------------------------------------

def test_title_mode_finds_a_note_by_its_misspelt_name(vault):
    data = as_json(vault.search("deploy cheklist", "--mode", "title", "--source", "local", "--json"))
    assert data["mode"] == "title" and data["engine"] == "index"
    assert [r["path"] for r in data["results"]] == ["Runbooks/Deploy checklist.md"]


def test_the_text_header_names_a_ranking_other_than_fulltext(vault):
    titled = vault.search("deploy cheklist", "--mode", "title", "--source", "local").stdout.decode()
    plain = vault.search("deploy checklist", "--source", "local").stdout.decode()
    assert titled.splitlines()[0].startswith('search: "deploy cheklist" | engine: index | mode: title | ')
    assert "mode:" not in plain.splitlines()[0]


def test_without_embeddings_the_default_is_fulltext_and_hybrid_says_why_it_fell_back(vault):
    default = as_json(vault.search("deploy script", "--source", "local", "--json"))
    assert default["mode"] == "fulltext" and default["engine"] == "index"
    asked = vault.search("deploy script", "--source", "local", "--mode", "hybrid", "--json")
    assert as_json(asked)["mode"] == "fulltext"
    assert as_json(asked)["results"] == default["results"]
    assert "semantic search is off" in asked.stderr.decode()


def test_semantic_mode_without_embeddings_is_one_line_and_exit_2(vault):
    result = vault.search("deploy script", "--mode", "semantic", "--source", "local")
    err = result.stderr.decode()
    assert result.returncode == 2 and "semantic search is off" in err and len(err.strip().splitlines()) == 1


def test_omnisearch_and_the_scanner_rank_by_words_whatever_the_mode_and_say_so(vault):
    scan = vault.search("deploy script", "--source", "scan", "--mode", "semantic", "--json")
    assert as_json(scan)["mode"] == "fulltext" and as_json(scan)["engine"] == "scan"
    assert "ranks the local index only" in scan.stderr.decode()
    with FakeOmnisearch() as fake:
        fake.items = [item("Runbooks/Deploy checklist.md", 3.0)]
        omni = vault.search("deploy", "--source", "omnisearch", "--mode", "hybrid", "--json", "--port", str(fake.port))
    assert as_json(omni)["engine"] == "omnisearch" and as_json(omni)["mode"] == "fulltext"
    assert "ranks the local index only" in omni.stderr.decode()


def test_an_explicit_mode_under_auto_searches_the_local_index_without_asking_omnisearch(vault):
    with FakeOmnisearch() as fake:
        fake.items = [item("Notes/Other.md", 9.0)]
        titled = vault.search("deploy checklist", "--mode", "title", "--json", "--port", str(fake.port))
        default = vault.search("deploy checklist", "--json", "--port", str(fake.port))
        asked = list(fake.queries)
    assert as_json(titled)["mode"] == "title" and as_json(titled)["engine"] == "index"
    assert "Omnisearch has no title ranking" in titled.stderr.decode()
    assert as_json(default)["engine"] == "omnisearch" and as_json(default)["mode"] == "fulltext"
    assert asked == ["deploy checklist"]                 # only the search without --mode reached Omnisearch


def test_obsidian_memory_search_takes_the_mode_too_but_not_with_sessions(vault):
    args = ["deploy cheklist", "--json", "--source", "local", "--mode", "title"]
    direct, via_cli = as_json(vault.search(*args)), as_json(vault.run("search", *args))
    direct.pop("elapsed_seconds"), via_cli.pop("elapsed_seconds")
    assert via_cli == direct and direct["mode"] == "title"
    sessions = vault.run("search", "deploy", "--sessions", "--mode", "hybrid")
    err = sessions.stderr.decode()
    assert sessions.returncode == 2 and "--sessions" in err and len(err.strip().splitlines()) == 1


def test_an_unknown_mode_is_one_line_and_exit_2(vault):
    for run in (vault.search, lambda *a: vault.run("search", *a)):
        result = run("deploy", "--mode", "vector")
        err = result.stderr.decode()
        assert result.returncode == 2 and "vector" in err and len(err.strip().splitlines()) == 1


@pytest.mark.parametrize("query", ["🙂", "!!!", "-- ..."])
def test_a_query_without_a_word_is_one_clear_error_not_the_whole_vault(vault, query):
    for source in ("scan", "index"):
        result = vault.search(query, "--source", source)
        assert result.returncode == 2 and result.stdout == b""
        assert b"has no word to search for" in result.stderr and len(result.stderr.splitlines()) == 1


@pytest.mark.parametrize("source", ["scan", "index"])
def test_a_folder_in_another_case_is_taken_when_it_names_one_folder_and_says_so(vault, source):
    found = vault.search("deploy", "--source", source, "--folder", "runbooks", "--json")
    assert [h["path"] for h in as_json(found)["results"]] == ["Runbooks/Deploy checklist.md"]
    assert b"--folder 'runbooks' taken as Runbooks (the case differs)" in found.stderr
    missing = vault.search("deploy", "--source", source, "--folder", "Nowhere", "--json")
    assert missing.returncode == 2 and missing.stdout == b""
    assert missing.stderr.decode().splitlines() == [
        "search_vault.py: error: --folder 'Nowhere': no such folder in the vault (give a vault-relative folder, "
        "e.g. Meta/claude-sessions)"]


@pytest.mark.parametrize("source", ["scan", "index"])
def test_folders_differing_only_in_case_are_told_apart(vault, source):
    (vault.vault / "notes").mkdir()
    (vault.vault / "notes" / "lower.md").write_text("Another deploy idea.\n", encoding="utf-8")
    exact = as_json(vault.search("deploy", "--source", source, "--folder", "Notes", "--json"))
    assert [h["path"] for h in exact["results"]] == ["Notes/draft idea.md"]
    ambiguous = vault.search("deploy", "--source", source, "--folder", "NOTES")
    assert ambiguous.returncode == 2 and b"names 2 folders that differ only in case" in ambiguous.stderr


def test_explain_shows_the_signals_in_text_and_json(vault):
    text = vault.search("deploy checklist", "--source", "index", "--explain")
    assert text.returncode == 0, text.stderr.decode()
    lines = text.stdout.decode().splitlines()
    assert lines[1] == "1. Runbooks/Deploy checklist.md (" + lines[1].split("(", 1)[1]
    why = next(line for line in lines if line.startswith("   why: "))
    assert "title" in why and "bm25" in why
    data = as_json(vault.search("deploy checklist", "--source", "index", "--explain", "--json"))
    first = data["results"][0]
    assert set(first["explain"]["signals"]) >= {"bm25", "title", "title_exact"}
    assert sum(first["explain"]["signals"].values()) == pytest.approx(first["score"], abs=1e-3)
    assert "explain" not in as_json(vault.search("deploy checklist", "--source", "index", "--json"))["results"][0]


def test_explain_with_several_queries_shows_each_ranking_s_place(vault):
    data = as_json(vault.search("deploy script", "staging", "--source", "index", "--explain", "--json"))
    placed = {p["ranking"]: p for p in data["results"][0]["explain"]["fused"]}
    assert data["results"][0]["path"] == "Runbooks/Deploy checklist.md"
    assert set(placed) == {"deploy script", "staging"} and placed["staging"]["rank"] == 1
    assert "signals" in placed["staging"]
    text = vault.search("deploy script", "staging", "--source", "index", "--explain").stdout.decode()
    assert '#1 in "staging"' in text


def test_filters_without_a_query_list_the_matching_notes_newest_first(vault):
    import os
    import time

    now = time.time()
    for age, relative in enumerate(["Notes/Other.md", "Notes/draft idea.md", "Runbooks/Deploy checklist.md"]):
        os.utime(vault.vault / relative, (now - 100 * age, now - 100 * age))
    data = as_json(vault.search("--folder", "Notes", "--json"))
    assert [r["path"] for r in data["results"]] == ["Notes/Other.md", "Notes/draft idea.md"]
    assert data["total_results"] == 2 and data["engine"] == "index"
    assert [r["path"] for r in as_json(vault.search("--tag", "draft", "--json"))["results"]] == ["Notes/draft idea.md"]
    text = vault.search("--tag", "-draft", "-n", "1").stdout.decode().splitlines()
    assert "1 of 3 results" in text[0] and text[1] == "1. Notes/Other.md"   # no score: nothing ranked it
    assert text[0].startswith("list: notes in scope | engine: index | order: newest first | ")
    for source in ("scan", "omnisearch"):
        refused = vault.search("--folder", "Notes", "--source", source)
        assert refused.returncode == 2 and b"needs the local index" in refused.stderr
        assert len(refused.stderr.splitlines()) == 1


# -- the repository the search runs in ------------------------------------------------------------

def _session_note(repo: str, text: str) -> str:
    return f"---\nrepo: {repo}\ntags: [claude-session]\n---\n# pgbouncer prepared statement errors\n{text}\n"


def _repository(path, remote: str):
    import subprocess

    path.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(path)], check=True)
    subprocess.run(["git", "-C", str(path), "remote", "add", "origin", remote], check=True)
    return path


def test_sessions_of_the_repository_the_search_runs_in_come_first_among_equals(env):
    sessions = env.vault / "Meta" / "claude-sessions"
    sessions.mkdir(parents=True)
    same = "prepared statement already exists behind pgbouncer; fixed in the pool settings."
    (sessions / "a.md").write_text(_session_note("github.com/acme/payments", same), encoding="utf-8")
    (sessions / "b.md").write_text(_session_note("github.com/acme/orders", same), encoding="utf-8")
    (sessions / "c.md").write_text(_session_note("github.com/acme/payments", same + " Host pgb-eu-2."),
                                   encoding="utf-8")
    orders = _repository(env.root / "work" / "orders", "git@github.com:acme/orders.git")
    payments = _repository(env.root / "work" / "payments", "https://github.com/acme/payments.git")

    def first(query: str, cwd) -> list[str]:
        hits = as_json(env.search("--source", "index", "--json", query, cwd=cwd))["results"]
        return [h["path"].rsplit("/", 1)[-1] for h in hits]

    assert first("pgbouncer prepared statement", orders)[0] == "b.md"
    assert first("pgbouncer prepared statement", payments)[:2] in (["a.md", "c.md"], ["c.md", "a.md"])
    assert first("pgbouncer prepared statement", env.root)[0] == "a.md"       # no repository: by words, then path
    assert first("pgbouncer prepared statement pgb-eu-2", orders)[0] == "c.md"   # the words decide over the place


def test_a_search_omnisearch_answers_runs_no_git(vault, tmp_path):
    """The repository the search runs in matters to the local index only: it is not looked for (a
    repository without a remote is known by its root commit: git runs) when Omnisearch answers."""
    import subprocess

    folder = vault.root / "work" / "local-only"
    folder.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(folder)], check=True)
    trace = tmp_path / "git-trace.log"          # every git this search runs writes here
    with FakeOmnisearch() as fake:
        fake.items = [item("Runbooks/Deploy checklist.md", 7.25)]
        answered = as_json(vault.search("deploy", "--json", "--port", str(fake.port), cwd=folder,
                                        env={"GIT_TRACE": trace}))
    assert answered["engine"] == "omnisearch" and not trace.exists()
    indexed = as_json(vault.search("deploy", "--json", "--source", "index", cwd=folder, env={"GIT_TRACE": trace}))
    assert indexed["engine"] == "index" and "rev-list" in trace.read_text(encoding="utf-8")


def test_session_notes_are_listed_newest_first_by_the_sessions_own_start_not_the_files_time(vault):
    import os
    import time

    folder = vault.vault / "Meta" / "claude-sessions" / "2026-02"
    folder.mkdir(parents=True)
    for day, started in (("01", "2026-01-20T09:00:00Z"), ("02", "2026-02-03T09:00:00Z"), ("03", "2026-02-14T09:00:00Z")):
        (folder / f"{day}.md").write_text(f'---\nstarted_utc: "{started}"\ntags: [claude-session]\n---\n# s{day}\n',
                                          encoding="utf-8")
    now = time.time()
    os.utime(folder / "01.md", (now, now))                 # the January session, re-rendered just now
    os.utime(folder / "03.md", (now - 86400, now - 86400))
    listed = as_json(vault.search("--tag", "claude-session", "--json"))["results"]
    assert [r["path"].rsplit("/", 1)[-1] for r in listed] == ["03.md", "02.md", "01.md"]
