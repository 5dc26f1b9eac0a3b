"""Shared fixtures. The helpers themselves live in testkit.py (import them from there)."""
from __future__ import annotations

import pytest

from testkit import Env


@pytest.fixture
def env(tmp_path) -> Env:
    return Env(tmp_path)
