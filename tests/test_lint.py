"""The code passes ruff (the rules in pyproject.toml): an undefined name, an unused import or a
shadowed one fails the suite, in CI and on every machine that runs the test command."""
from __future__ import annotations

import subprocess
import sys

from testkit import REPO


def test_ruff_finds_nothing():
    result = subprocess.run([sys.executable, "-m", "ruff", "check", "--no-cache", "--output-format", "concise", "."],
                            cwd=REPO, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr
