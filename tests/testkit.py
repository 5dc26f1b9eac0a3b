"""Test helpers shared by every test file: import them with `from testkit import ...`.

(Not from `conftest`: pytest loads several conftest modules under that one name, so an import
from `conftest` can get the wrong one.)
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"
FIXTURES = Path(__file__).resolve().parent / "fixtures"
CLI = REPO / "scripts" / "obsidian_memory.py"
SEARCH_CLI = REPO / "scripts" / "search_vault.py"

requires_shared = pytest.mark.skipif(not SHARED.is_dir(), reason="../shared is not beside this checkout")


def shared_path(*parts: str) -> Path:
    """A path under ../shared; skips the calling test cleanly when it is absent."""
    path = SHARED.joinpath(*parts)
    if not path.exists():
        pytest.skip(f"{path} is not available (../shared is absent)")
    return path


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
