"""Fixtures of the installer tests: one real install (venv + pip) per test session, made with
nothing but Python on PATH, and a user per test who gets a copy of that venv (install.py finds it
current, by its source digest, and skips pip)."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from install_kit import User, only_python_on_path


@pytest.fixture(scope="session")
def built_venv(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("first-install")
    user = User(root)
    path = only_python_on_path(root / "only-python")
    user.install("--vault", user.vault, "--create-vault", "--no-import", "--yes", python=f"{path}/python3",
                 env=user.environ(PATH=path))
    return Path(user.layout.venv)


@pytest.fixture
def user(tmp_path, built_venv) -> User:
    person = User(tmp_path)
    shutil.copytree(built_venv, person.layout.venv, symlinks=True)
    return person
