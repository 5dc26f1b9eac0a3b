"""Fixtures of the search tests: an empty vault of their own with the settings that point at it
(index and vectors in the test's own cache), or a copy of the graph fixture vault."""
from __future__ import annotations

import pytest

from testkit import graph_vault


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
    from obsidian_memory import settings as settings_module

    return settings_module.Settings(str(tmp_path / "claude"), vault=str(vault))
