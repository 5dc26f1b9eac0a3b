"""Obsidian's "Excluded files" (`.obsidian/app.json`, `userIgnoreFilters`: path prefixes and
`/regex/` entries) are left out as Obsidian's own search leaves them out: by every search engine
(index in each mode, scanner, Omnisearch's hits), by related and similar; doctor counts them; the
`excluded_files` setting turns it off. The real CLIs as subprocesses, a real HTTP server for
Omnisearch; the rule itself as a property against Obsidian's (startsWith / RegExp.test)."""
from __future__ import annotations

import json
import re

import pytest
from fake_omnisearch import FakeOmnisearch, item
from hypothesis import given, settings as hypothesis_settings, strategies as st
from testkit import write_note

from obsidian_memory.vault.excluded import ExcludedFiles

FILTERS = ["Archive/", "Drafts/old deploy.md", "/\\.excalidraw\\.md$/", "/^Clients/[^/]+/private/"]
KEPT = {"Notes/deploy.md", "Archived deploy.md", "Clients/acme/deploy plan.md", "Drafts/deploy now.md"}
LEFT_OUT = {"Archive/deploy 2019.md", "Archive/2020/deploy.md", "Drafts/old deploy.md",
            "Sketches/deploy.excalidraw.md", "Clients/acme/private/deploy.md"}


@pytest.fixture
def vault(env):
    for relative in KEPT | LEFT_OUT:
        write_note(env.vault, relative, f"# {relative}\n\nhow we deploy the service [[Notes/deploy]]\n")
    (env.vault / ".obsidian").mkdir()
    (env.vault / ".obsidian" / "app.json").write_text(json.dumps({"userIgnoreFilters": FILTERS}), encoding="utf-8")
    return env


def found(env, *args, **extra) -> set[str]:
    done = env.search("deploy", "--json", "-n", "50", *args, **extra)
    assert done.returncode == 0, done.stderr.decode()
    return {hit["path"] for hit in json.loads(done.stdout)["results"]}


@pytest.mark.parametrize("args", [["--source", "index"], ["--source", "index", "--mode", "title"],
                                  ["--source", "scan"], ["--source", "local"]])
def test_every_local_engine_leaves_the_excluded_notes_out(vault, args):
    assert found(vault, *args) == KEPT


def test_omnisearch_hits_of_excluded_notes_are_left_out(vault):
    with FakeOmnisearch() as fake:
        fake.items = [item(path, vault=vault.vault.name) for path in sorted(KEPT | LEFT_OUT)]
        assert found(vault, "--source", "omnisearch", "--port", str(fake.port)) == KEPT


def test_related_and_similar_leave_them_out(vault):
    related = vault.run("related", "Notes/deploy", "--json")
    assert related.returncode == 0, related.stderr.decode()
    shown = json.dumps(json.loads(related.stdout))
    assert "Archive/" not in shown and "private/deploy" not in shown and "Notes/deploy" in shown
    assert "Clients/acme/deploy plan.md" in shown
    similar = vault.run("similar", "Clients/acme/deploy plan", "--json", "-n", "20")
    assert similar.returncode == 0, similar.stderr.decode()
    paths = {hit["path"] for hit in json.loads(similar.stdout)["results"]}
    assert paths and paths <= KEPT


def test_the_setting_turns_it_off_and_a_changed_app_json_is_followed(vault):
    config = vault.config_dir / "obsidian-memory"
    config.mkdir(parents=True, exist_ok=True)
    (config / "config.yaml").write_text("excluded_files: false\n", encoding="utf-8")
    assert found(vault, "--source", "index") == KEPT | LEFT_OUT
    (config / "config.yaml").unlink()
    assert found(vault, "--source", "index") == KEPT
    (vault.vault / ".obsidian" / "app.json").write_text(json.dumps({"userIgnoreFilters": ["Notes/"]}), encoding="utf-8")
    assert found(vault, "--source", "index") == (KEPT | LEFT_OUT) - {"Notes/deploy.md"}


def test_doctor_says_how_many_notes_they_cover_and_names_an_entry_that_cannot_run(vault):
    (vault.vault / ".obsidian" / "app.json").write_text(json.dumps({"userIgnoreFilters": FILTERS + ["/(/"]}),
                                                        encoding="utf-8")
    checks = {c["name"]: c for c in json.loads(vault.run("doctor", "--json").stdout)["checks"]}
    check = checks["excluded files"]
    assert f"cover {len(LEFT_OUT)} note(s)" in check["detail"]
    assert check["status"] == "warn" and "'/(/'" in check["detail"]


def test_a_hostile_app_json_is_bounded_and_never_fails_a_search(vault):
    (vault.vault / ".obsidian" / "app.json").write_text(json.dumps({"userIgnoreFilters": [
        "/(a+)+$/", "/(x|x)*y/", 7, None, {"a": 1}, "x" * 5000]}), encoding="utf-8")
    write_note(vault.vault, "a" * 40 + "b.md", "deploy")
    assert "a" * 40 + "b.md" in found(vault, "--source", "index")   # (RE2 runs them, or they are refused)
    (vault.vault / ".obsidian" / "app.json").write_bytes(b"\xff{not json")
    assert found(vault, "--source", "index") >= KEPT


SEGMENT = st.text(alphabet="abAB .-_", min_size=1, max_size=4)
PATH = st.lists(SEGMENT, min_size=1, max_size=3).map(lambda parts: "/".join(parts) + ".md")


@hypothesis_settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(st.lists(SEGMENT, min_size=1, max_size=2).map(lambda p: "/".join(p) + "/"), PATH,
                          SEGMENT), max_size=4),
       st.lists(st.sampled_from(["^a", "b\\.md$", "A/", "[ab]{2}"]), max_size=2), st.lists(PATH, max_size=8))
def test_a_note_is_excluded_exactly_when_obsidian_would_exclude_it(prefixes, expressions, paths):
    rules = ExcludedFiles(prefixes + [f"/{e}/" for e in expressions])
    for path in paths:
        obsidian = any(path.startswith(p) for p in prefixes) or any(re.search(e, path) for e in expressions)
        assert rules.covers(path) == obsidian, path
