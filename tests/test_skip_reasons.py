"""What someone who cloned only this repository sees when tests skip: the reason in their terms:
what is missing, where it would be, and how to leave the tests out. The suite runs
in a subprocess on a copy of tests/ that has no ../shared next to it, and without npm."""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys

import pytest

from testkit import REPO


@pytest.fixture(scope="module")
def clone(tmp_path_factory):
    """tests/ and pyproject.toml copied into a folder with nothing beside it (no ../shared)."""
    root = tmp_path_factory.mktemp("plain") / "obsidian-memory"
    shutil.copytree(REPO / "tests", root / "tests", ignore=shutil.ignore_patterns("__pycache__", ".pytest_cache"))
    shutil.copy2(REPO / "pyproject.toml", root / "pyproject.toml")
    assert not (root.parent / "shared").exists()
    return root


def skip_reasons(clone, *args, env=None) -> list[str]:
    result = subprocess.run([sys.executable, "-m", "pytest", "-rs", "-q", "-p", "no:cacheprovider", *args],
                            capture_output=True, text=True, cwd=str(clone), timeout=300,
                            env={**os.environ, **(env or {})})
    reasons = re.findall(r"^SKIPPED \[\d+\] [^:]+:\d+: (.*)$", result.stdout, re.M)
    assert reasons, result.stdout + result.stderr
    return reasons


def test_tests_that_need_the_shared_data_say_a_plain_clone_lacks_it(clone):
    reasons = skip_reasons(clone, "tests/capture/test_import_shared.py", "tests/search/test_quality_shared.py")
    for reason in reasons:
        assert "shared evaluation data" in reason and "../shared next to the repository" in reason, reason
        assert "a plain clone does not have it" in reason, reason


def test_end_to_end_tests_without_npm_say_what_they_need_and_how_to_leave_them_out(clone, tmp_path):
    empty = tmp_path / "bin"
    empty.mkdir()
    reasons = skip_reasons(clone, "tests/e2e/test_claude_code_e2e.py", "-k", "cc-2.1.332", "-x",
                           env={"PATH": str(empty), "XDG_CACHE_HOME": str(tmp_path / "cache")})
    reason = reasons[0]
    assert "the end-to-end tests need the real Claude Code client 2.1.332, installed with npm" in reason, reason
    assert "npm is not on PATH" in reason and '-m "not e2e"' in reason, reason
