"""Fixtures of the notes tests: the settings of an isolated user (see conftest.env)."""
from __future__ import annotations

import pytest


@pytest.fixture
def settings(env, monkeypatch):
    """The isolated user's settings, loaded as a command would (its environment applied)."""
    from obsidian_memory.core import settings as settings_module

    env.apply(monkeypatch)
    return settings_module.load()
