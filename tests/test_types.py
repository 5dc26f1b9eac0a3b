"""The type checker over the seams pyproject.toml's [tool.mypy] lists (strict): the archive's
stores, the index and vector stores, the engine interface and the context the hooks inject. mypy
comes with the test extra (`pip install -e '.[test]'`)."""
from __future__ import annotations

import os
import subprocess
import sys
import tempfile

from testkit import REPO

CACHE = os.path.join(tempfile.gettempdir(), f"obsidian-memory-mypy-{os.getuid() if hasattr(os, 'getuid') else 0}")


def mypy(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "mypy", "--no-error-summary", "--cache-dir", CACHE, *args],
                          capture_output=True, text=True, cwd=str(REPO), timeout=600)


def test_the_seams_pass_the_type_checker():
    done = mypy()
    assert "No module named mypy" not in done.stderr, "mypy is missing: pip install -e '.[test]'"
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_type_checker_holds_an_engine_to_the_interface(tmp_path):
    """Not a check that cannot fail: an engine without `search` is refused."""
    engine = tmp_path / "broken_engine.py"
    engine.write_text("from obsidian_memory.search.engines.protocol import Engine\n\n"
                      "class NoSearch:\n    name = 'none'\n\n"
                      "ENGINES: list[Engine] = [NoSearch()]\n", encoding="utf-8")
    done = mypy("--strict", "--follow-imports=silent", str(engine))
    assert done.returncode != 0 and "NoSearch" in done.stdout, done.stdout + done.stderr
