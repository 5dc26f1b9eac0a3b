"""Shared fixtures. The helpers themselves live in testkit.py (import them from there)."""
from __future__ import annotations

import pytest

from testkit import CLI, FIXTURES, REPO, SEARCH_CLI, SHARED, Env, requires_shared, shared_path  # noqa: F401


@pytest.fixture
def env(tmp_path) -> Env:
    return Env(tmp_path)
