"""Test helpers shared by every test file: import them with `from testkit import ...`.

(Not from `conftest`: pytest loads several conftest modules under that one name, so an import
from `conftest` can get the wrong one.)
"""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"
FIXTURES = Path(__file__).resolve().parent / "fixtures"
CLI = REPO / "scripts" / "obsidian_memory.py"
SEARCH_CLI = REPO / "scripts" / "search_vault.py"

# Said in the words of someone who cloned the repository: what is missing, where it would be, and
# that its absence is normal for a plain clone (the project's own tests do not need it).
SHARED_MISSING = ("needs the project's shared evaluation data (real Claude Code transcripts, a real Obsidian "
                  "vault) in ../shared next to the repository; a plain clone does not have it")
requires_shared = pytest.mark.skipif(not SHARED.is_dir(), reason=SHARED_MISSING)


def shared_path(*parts: str) -> Path:
    """A path under ../shared; skips the calling test cleanly when it is absent."""
    path = SHARED.joinpath(*parts)
    if not path.exists():
        what = "/".join(parts)
        pytest.skip(SHARED_MISSING.replace("in ../shared", f"({what}) in ../shared", 1) if not SHARED.is_dir()
                    else f"needs {what} in the shared evaluation data (../shared), which does not hold it")
    return path


def semantic_unavailable() -> str | None:
    """Why the tests of semantic search skip here, or None (they run). Only what semantic.Unavailable
    says is a reason: the [semantic] extra not installed, a machine its wheels do not cover. The model
    failing to load for any other reason is a defect of ours, raised here: it fails the tests instead
    of skipping them (semantic.available() says False for it as for the others)."""
    from obsidian_memory.search import semantic

    try:
        semantic.token_count("x")
    except semantic.Unavailable as exc:
        return f"semantic search unavailable here: {exc}"
    return None


def requires_semantic() -> pytest.MarkDecorator:
    why = semantic_unavailable()
    return pytest.mark.skipif(why is not None, reason=why or "")


def skip_without_semantic() -> None:
    why = semantic_unavailable()
    if why is not None:
        pytest.skip(why)


def local_linux_only(reason: str) -> pytest.MarkDecorator:
    """Skips (saying `reason`) unless the temporary folders are on a local file system of Linux, where
    inotify hears every change. Decided by the platform and the mount table, never by whether our
    watch starts: on Linux, a watch that fails to start fails the tests."""
    import tempfile

    from obsidian_memory.search.store.watch import foreign_filesystem

    local = sys.platform.startswith("linux") and foreign_filesystem(tempfile.gettempdir()) is None
    return pytest.mark.skipif(not local, reason=reason)


def fts_deletes_by_rowid_here() -> bool:
    """Whether a SQLite that deletes an FTS5 row by its rowid (3.43 or later) is here: Python's own,
    or sqlean.py's (a dependency where it has wheels). Asked of the libraries themselves, not of
    sqlitedb, so that an index that does not take one that is here fails its tests."""
    import sqlite3

    from obsidian_memory.core.sqlitedb import DELETE_BY_ID

    if sqlite3.sqlite_version_info >= DELETE_BY_ID:
        return True
    try:
        import sqlean
    except ImportError:
        return False
    return bool(sqlean.sqlite_version_info >= DELETE_BY_ID)


class Env:
    """An isolated user: HOME, CLAUDE_CONFIG_DIR, a vault, a fixed timezone."""

    def __init__(self, root: Path):
        self.root = root
        self.home = root / "home"
        self.config_dir = self.home / ".claude"
        self.vault = root / "vault"
        for folder in (self.home, self.config_dir, self.vault):
            folder.mkdir(parents=True, exist_ok=True)
        self.vars = {
            "HOME": str(self.home),
            "CLAUDE_CONFIG_DIR": str(self.config_dir),
            "OBSIDIAN_VAULT": str(self.vault),
            "OMNISEARCH_PORT": "9",  # discard port: nothing answers, so no test reaches a real Obsidian
            "TZ": "UTC",
            "PYTHONIOENCODING": "utf-8",
        }

    @property
    def archive_db(self) -> Path:
        return self.config_dir / "session-archive.db"

    @property
    def log_file(self) -> Path:
        return self.config_dir / "obsidian-memory" / "obsidian-memory.log"

    def environ(self, **extra) -> dict:
        env = {k: v for k, v in os.environ.items() if not k.startswith(("CLAUDE", "OBSIDIAN", "OMNISEARCH"))}
        env.update(self.vars)
        env.update({k: str(v) for k, v in extra.items()})
        return env

    def run(self, *args, input: bytes | str | None = None, env: dict | None = None, script: Path = CLI,
            timeout: float = 120, cwd: str | Path | None = None) -> subprocess.CompletedProcess:
        """Run a CLI as a user would: a real subprocess, stdin as UTF-8 bytes."""
        if isinstance(input, str):
            input = input.encode("utf-8")
        return subprocess.run([sys.executable, str(script), *map(str, args)], input=input,
                              capture_output=True, env=self.environ(**(env or {})), timeout=timeout,
                              cwd=str(cwd or self.root))

    def search(self, *args, **kwargs) -> subprocess.CompletedProcess:
        return self.run(*args, script=SEARCH_CLI, **kwargs)

    def hook(self, event_args: list[str], payload: dict | bytes | str, **kwargs) -> subprocess.CompletedProcess:
        data = json.dumps(payload) if isinstance(payload, dict) else payload
        return self.run("hook", *event_args, input=data, **kwargs)

    def follow_ups_done(self, timeout: float = 120) -> list[int]:
        """Wait for the detached processes hooks left their work to (a sweep, an archive of a long
        transcript: the log names their pids) to end; returns their pids."""
        import time

        from obsidian_memory.core import fsutil

        text = self.log_file.read_text(encoding="utf-8") if self.log_file.exists() else ""
        pids = [int(pid) for pid in re.findall(r"started now \(pid (\d+)\)", text)]
        deadline = time.monotonic() + timeout
        for pid in pids:
            while fsutil.process_alive(pid):
                assert time.monotonic() < deadline, f"the follow-up sweep {pid} still runs after {timeout} s"
                time.sleep(0.05)
        return pids

    def apply(self, monkeypatch) -> "Env":
        """Point this test process at the isolated user too (for in-process tests)."""
        for key in [k for k in os.environ if k.startswith(("CLAUDE", "OBSIDIAN", "OMNISEARCH"))]:
            monkeypatch.delenv(key, raising=False)
        for key, value in self.vars.items():
            monkeypatch.setenv(key, value)
        return self


# Linux capabilities that let root ignore file modes (capability.h numbers)
_ROOT_FILE_POWERS = {"CAP_CHOWN": 0, "CAP_DAC_OVERRIDE": 1, "CAP_DAC_READ_SEARCH": 2, "CAP_FOWNER": 3,
                     "CAP_LINUX_IMMUTABLE": 9}
_PR_CAPBSET_DROP = 24


def index_file(path: str, **options):
    """A connection to a vault index file through the SQLite library the index uses
    (`sqlitedb.index_library`: its FTS5 table may need a newer SQLite than Python's own)."""
    from obsidian_memory.core import sqlitedb

    return sqlitedb.index_library()[0].connect(path, **options)


def write_note(vault: Path, relative: str, text: str, *, bump: float = 0) -> None:
    """Write a note (folders made as needed); `bump` moves its mtime that many seconds ahead, for a
    distinct mtime even on filesystems with coarse timestamps."""
    import time

    path = vault / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    if bump:
        stamp = time.time() + bump
        os.utime(path, (stamp, stamp))


def open_fence_at_end(text: str) -> bool:
    """Whether a code fence is still open at the end of a Markdown text (CommonMark's rule, written
    here independently of the package's grammar, as the oracle of the note tests)."""
    fence = None
    for line in text.splitlines():
        match = re.match(r"^ {0,3}(`{3,}|~{3,})(.*)$", line)
        if fence is None and match:
            fence = match.group(1)
        elif fence is not None and match and match.group(1)[0] == fence[0] and len(match.group(1)) >= len(fence) \
                and not match.group(2).strip():
            fence = None
    return fence is not None


def graph_vault(tmp_path: Path, monkeypatch) -> Path:
    """A copy of the graph fixture vault (tests/fixtures/graph-vault), indexed in its own cache."""
    import shutil

    monkeypatch.delenv("OBSIDIAN_MEMORY_CACHE_DIR", raising=False)
    root = tmp_path / "vault"
    shutil.copytree(FIXTURES / "graph-vault", root)
    return root


def without_root_powers():
    """preexec_fn for a subprocess that must obey file modes. Root writes into read-only
    folders, so as root the capabilities that override modes are dropped from the bounding
    set before exec (the process stays uid 0 and can still reach the interpreter under /root).
    Not root: nothing to drop (None)."""
    if not hasattr(os, "geteuid") or os.geteuid() != 0:
        return None

    def drop():
        import ctypes
        libc = ctypes.CDLL(None, use_errno=True)
        for cap in _ROOT_FILE_POWERS.values():
            if libc.prctl(_PR_CAPBSET_DROP, cap, 0, 0, 0) != 0:
                raise OSError(ctypes.get_errno(), "prctl(PR_CAPBSET_DROP) failed")
    return drop


MCP_INITIALIZE = [
    {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "test", "version": "0"}}},
    {"jsonrpc": "2.0", "method": "notifications/initialized"},
]


def mcp_session_lines(argv: list[str], requests: list[dict], *, env: dict, cwd: str,
                      timeout: float = 60) -> tuple[list[bytes], int, str]:
    """Raw stdio, no SDK in between: MCP_INITIALIZE + `requests` written to the server, stdout read
    until every request with an id is answered (each line must be one JSON-RPC answer), then stdin
    closed (not before: on EOF the SDK drops requests still in flight). (stdout lines, exit code,
    stderr). A server that hangs is killed after `timeout` and fails the test."""
    import tempfile
    import threading

    waiting = {r["id"] for r in MCP_INITIALIZE + requests if "id" in r}
    with tempfile.TemporaryFile() as stderr:
        server = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=stderr,
                                  env=env, cwd=cwd)
        watchdog = threading.Timer(timeout, server.kill)
        watchdog.start()
        try:
            server.stdin.write("".join(json.dumps(r) + "\n" for r in MCP_INITIALIZE + requests).encode())
            server.stdin.flush()
            lines = []
            while waiting:
                line = server.stdout.readline()
                if not line:
                    stderr.seek(0)
                    raise AssertionError("the MCP server ended without answering: " + stderr.read().decode(errors="replace"))
                lines.append(line)
                message = json.loads(line)
                assert message["jsonrpc"] == "2.0" and ("result" in message or "error" in message)
                waiting.discard(message["id"])
            server.stdin.close()
            code = server.wait(timeout=timeout)
            lines += server.stdout.read().splitlines(keepends=True)
        finally:
            watchdog.cancel()
            if server.poll() is None:
                server.kill()
                server.wait()
        stderr.seek(0)
        return lines, code, stderr.read().decode("utf-8", errors="replace")


def mcp_exchange(argv: list[str], requests: list[dict], *, env: dict, cwd: str, timeout: float = 60) -> dict:
    """{id: answer} of a raw exchange with a server that must then exit 0."""
    lines, code, stderr = mcp_session_lines(argv, requests, env=env, cwd=cwd, timeout=timeout)
    assert code == 0, stderr
    return {message.get("id"): message for message in map(json.loads, lines)}


RUN_CLI = "from obsidian_memory.cli import main\nsys.exit(main(sys.argv[1:]))\n"


def without_package(name: str, then: str = RUN_CLI) -> str:
    """Python source (for `python -c`) in which `name` refuses to import, as on an install without
    that optional extra, with this checkout on the path; `then` runs after (default: our CLI)."""
    return f"""
import sys
class Refuse:
    def find_spec(self, fullname, path=None, target=None):
        if fullname == {name!r} or fullname.startswith({name + "."!r}):
            raise ModuleNotFoundError(f"No module named {{fullname!r}}", name=fullname)
        return None
sys.meta_path.insert(0, Refuse())
sys.path.insert(0, {str(REPO)!r})
""" + then
