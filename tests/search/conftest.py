"""Fixtures of the search tests: an empty vault of their own with the settings that point at it
(index and vectors in the test's own cache), or a copy of the graph fixture vault."""
from __future__ import annotations

import pytest

from testkit import fts_deletes_by_rowid_here, graph_vault


@pytest.fixture
def vault(tmp_path, monkeypatch):
    """An empty vault (tmp_path/vault); the cache folder is the test's own."""
    monkeypatch.delenv("OBSIDIAN_MEMORY_CACHE_DIR", raising=False)
    root = tmp_path / "vault"
    root.mkdir()
    return root


@pytest.fixture
def graph(tmp_path, monkeypatch):
    """A copy of tests/fixtures/graph-vault (links worked out by hand in test_graph)."""
    return graph_vault(tmp_path, monkeypatch)


@pytest.fixture
def settings(vault, tmp_path):
    from obsidian_memory.core import settings as settings_module

    return settings_module.Settings(str(tmp_path / "claude"), vault=str(vault))


@pytest.fixture(params=["rowid", "text"])
def fts_delete(request, monkeypatch):
    """Each way the index can take a note's FTS row out: by its rowid (SQLite 3.43 or later:
    Python's own or sqlean.py's), and with the note's text, which the file then keeps (older
    SQLite; forced here with OBSIDIAN_MEMORY_INDEX_SQLITE=keep-text whatever the version)."""
    from obsidian_memory.core import sqlitedb

    monkeypatch.setattr(sqlitedb, "_library", None)       # decided again, for this test
    if request.param == "text":
        monkeypatch.setenv(sqlitedb.LIBRARY_ENV, "keep-text")
    else:
        monkeypatch.delenv(sqlitedb.LIBRARY_ENV, raising=False)
        if not fts_deletes_by_rowid_here():
            pytest.skip("this Python's SQLite is older than 3.43 and sqlean.py is not installed "
                        "(`pip install sqlean.py`), so the index keeps the notes' text: tested by the other case")
    return request.param
