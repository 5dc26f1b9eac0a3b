"""Helpers for the reliability and security tests: real processes, real files, real faults."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from testkit import CLI, SEARCH_CLI, Env, without_root_powers  # noqa: F401 (re-exported)

HERE = Path(__file__).resolve().parent
NETGUARD = HERE / "netguard"


def guarded_environ(env: Env, log: Path, allow: str = "", **extra) -> dict:
    """env.environ() plus the network guard (tests/reliability/netguard/sitecustomize.py)."""
    environ = env.environ(**extra)
    environ["PYTHONPATH"] = os.pathsep.join([str(NETGUARD), *filter(None, [environ.get("PYTHONPATH")])])
    environ["OM_NETGUARD_LOG"] = str(log)
    environ["OM_NETGUARD_ALLOW"] = allow
    return environ


def network_events(log: Path) -> list[dict]:
    if not log.exists():
        return []
    return [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines() if line.strip()]


def cli(env: Env, *args, input: bytes | str | None = None, environ: dict | None = None, script: Path = CLI,
        timeout: float = 120, preexec_fn=None) -> subprocess.CompletedProcess:
    """Like Env.run, with a full environment of our own and an optional preexec_fn."""
    if isinstance(input, str):
        input = input.encode("utf-8")
    return subprocess.run([sys.executable, str(script), *map(str, args)], input=input, capture_output=True,
                          env=environ or env.environ(), timeout=timeout, cwd=str(env.root), preexec_fn=preexec_fn)


def search(env: Env, *args, **kwargs) -> subprocess.CompletedProcess:
    return cli(env, *args, script=SEARCH_CLI, **kwargs)


def hook_archive(env: Env, payload: dict, **kwargs) -> subprocess.CompletedProcess:
    return cli(env, "hook", "archive", input=json.dumps(payload), **kwargs)


def start_hook_archive(env: Env, payload: dict, environ: dict | None = None) -> subprocess.Popen:
    proc = subprocess.Popen([sys.executable, str(CLI), "hook", "archive"], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=environ or env.environ(),
                            cwd=str(env.root))
    proc.stdin.write(json.dumps(payload).encode("utf-8"))
    proc.stdin.close()
    return proc


# A child's peak RSS as Linux reports it (wait4, getrusage) includes the RSS of the process it
# was forked from, taken at exec: measured from a big test process, every child looks big. So
# the child is started by this small launcher, and its own peak is read there.
LAUNCHER = """
import os, subprocess, sys
proc = subprocess.Popen(sys.argv[2:])
_, status, usage = os.wait4(proc.pid, 0)
with open(sys.argv[1], "w") as handle:
    handle.write(str(usage.ru_maxrss * (1 if sys.platform == "darwin" else 1024)))
sys.exit(os.waitstatus_to_exitcode(status))
"""


def measured_run(argv: list[str], *, stdin: bytes, environ: dict, cwd: Path, timeout: float = 300):
    """Run `argv` and return (exit status, stdout, stderr, peak RSS in bytes, seconds), the peak
    being the process's own (see LAUNCHER)."""
    folder = Path(tempfile.mkdtemp(dir=str(cwd)))
    (folder / "in").write_bytes(stdin)
    started = time.monotonic()
    with open(folder / "in", "rb") as fin, open(folder / "out", "wb") as fout, open(folder / "err", "wb") as ferr:
        status = subprocess.run([sys.executable, "-c", LAUNCHER, str(folder / "peak"), *argv], stdin=fin,
                                stdout=fout, stderr=ferr, env=environ, cwd=str(cwd), timeout=timeout).returncode
    seconds = time.monotonic() - started
    peak = int((folder / "peak").read_text())
    return status, (folder / "out").read_bytes(), (folder / "err").read_bytes(), peak, seconds


def tree_snapshot(root: Path) -> dict[str, bytes | None]:
    """Every path under `root` with its bytes (None for a folder): to prove nothing else changed."""
    snapshot: dict[str, bytes | None] = {}
    if not root.exists():
        return snapshot
    for path in sorted(root.rglob("*")):
        key = str(path.relative_to(root))
        snapshot[key] = None if path.is_dir() and not path.is_symlink() else (
            b"->" + os.readlink(path).encode() if path.is_symlink() else path.read_bytes())
    return snapshot


def archive_counts(db_path: Path) -> dict:
    import sqlite3
    db = sqlite3.connect(db_path)
    try:
        return {
            "integrity": db.execute("PRAGMA integrity_check").fetchone()[0],
            "sessions": db.execute("SELECT session_id, COUNT(*) FROM sessions GROUP BY session_id").fetchall(),
            "notes": dict(db.execute("SELECT session_id, note_path FROM sessions").fetchall()),
            "prompts": dict(db.execute("SELECT session_id, COUNT(*) FROM prompts GROUP BY session_id").fetchall()),
        }
    finally:
        db.close()


def session_notes(vault: Path, folder: str = "Meta/claude-sessions") -> list[str]:
    return sorted(str(p.relative_to(vault)) for p in (vault / folder).rglob("*.md")) if (vault / folder).exists() else []


def history_lines(vault: Path) -> list[str]:
    path = vault / "Meta" / "claude-session-history.md"
    if not path.exists():
        return []
    return [line for line in path.read_text(encoding="utf-8").splitlines() if line.startswith("| 20")]


def temp_files(vault: Path) -> list[str]:
    from obsidian_memory.core.fsutil import TEMP_PREFIX
    return sorted(str(p.relative_to(vault)) for p in vault.rglob(f"{TEMP_PREFIX}*"))


def fake_omnisearch_module():
    """tests/fake_omnisearch.py: a real HTTP server on 127.0.0.1."""
    import fake_omnisearch
    return fake_omnisearch


CONTROL = __import__("re").compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def fenced_lines(text: str) -> set[int]:
    """Indexes of the lines of `text` that sit inside a ``` fence (the fence lines excluded)."""
    import re
    inside, fence = set(), None
    for number, line in enumerate(text.splitlines()):
        if fence is None:
            match = re.match(r"^(`{3,})\w*$", line)
            if match:
                fence = match.group(1)
        elif line == fence:
            fence = None
        else:
            inside.add(number)
    return inside


def lines_with(text: str, needle: str) -> list[int]:
    return [n for n, line in enumerate(text.splitlines()) if needle in line]
