"""The real Claude Code CLI, pinned, installed with npm into a cache folder, and run offline.

`install(version)` returns the path of the `claude` binary or raises `Unavailable` with the reason
(no npm, the registry refused, the install timed out). `ClaudeUser` is one person's machine: a
temporary HOME whose `.claude/` is the config dir, and a git repository to work in; `run(...)` drives
`claude -p PROMPT --output-format json` against a local scripted API server.
"""
from __future__ import annotations

import fcntl
import json
import os
import shutil
import subprocess
import time
from pathlib import Path

VERSIONS = ("2.1.332", "2.1.197")
PACKAGE = "@anthropic-ai/claude-code"
INSTALL_TIMEOUT = float(os.environ.get("OBSIDIAN_MEMORY_E2E_INSTALL_TIMEOUT", "600"))

# What an offline run needs (../shared/e2e/README.md): no telemetry, no updater, no other traffic.
OFFLINE_ENV = {
    "ANTHROPIC_API_KEY": "sk-ant-offline-e2e",
    "DISABLE_TELEMETRY": "1",
    "DISABLE_ERROR_REPORTING": "1",
    "DISABLE_AUTOUPDATER": "1",
    "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
}
# Variables of the caller's own Claude Code / model setup that must not reach the client under test.
_DROPPED_PREFIXES = ("CLAUDE", "ANTHROPIC", "OBSIDIAN", "OMNISEARCH", "OTEL_", "AWS_BEARER", "VERTEX", "GOOGLE_")


class Unavailable(Exception):
    """The pinned client cannot be had here; the message says why."""


def cache_root() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "claude-code-e2e"


def binary_path(version: str) -> Path:
    return cache_root() / version / "node_modules" / ".bin" / "claude"


def install(version: str, timeout: float = INSTALL_TIMEOUT) -> Path:
    """The pinned client's binary, installed quietly into the cache folder when missing."""
    binary = binary_path(version)
    if binary.exists() and os.access(binary, os.X_OK):
        return binary
    npm = shutil.which("npm")
    if not npm:
        raise Unavailable("npm is not on PATH, so Claude Code cannot be installed")
    prefix = binary.parents[2]
    prefix.mkdir(parents=True, exist_ok=True)
    with open(prefix / ".install.lock", "w") as lock:  # two test runs at once must not install over each other
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not binary.exists():
            _npm_install(npm, prefix, version, timeout)
    if not binary.exists():
        raise Unavailable(f"npm install {PACKAGE}@{version} left no {binary}")
    return binary


def _npm_install(npm: str, prefix: Path, version: str, timeout: float) -> None:
    command = [npm, "install", "--prefix", str(prefix), "--no-audit", "--no-fund", "--silent", "--loglevel=error",
               "--fetch-retries=2", "--fetch-retry-maxtimeout=20000", f"{PACKAGE}@{version}"]
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL,
                              env={**os.environ, "npm_config_update_notifier": "false"})
    except subprocess.TimeoutExpired:
        raise Unavailable(f"npm install {PACKAGE}@{version} did not finish within {timeout:.0f} s") from None
    if done.returncode != 0:
        tail = (done.stderr or done.stdout).strip().splitlines()[-3:]
        raise Unavailable(f"npm install {PACKAGE}@{version} failed (exit {done.returncode}): {' | '.join(tail)}")


def clean_environ(**extra) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith(_DROPPED_PREFIXES)}
    env.update({k: str(v) for k, v in extra.items()})
    return env


class Result:
    """One `claude -p` run: the parsed JSON result, the process, and how long it took."""

    def __init__(self, process: subprocess.CompletedProcess, seconds: float):
        self.process, self.seconds = process, seconds
        self.stdout, self.stderr = process.stdout, process.stderr
        try:
            self.json = json.loads(process.stdout)
        except ValueError:
            self.json = {}

    @property
    def session_id(self) -> str:
        return self.json.get("session_id", "")

    @property
    def permission_denials(self) -> list:
        return self.json.get("permission_denials") or []

    @property
    def ok(self) -> bool:
        return self.process.returncode == 0 and bool(self.json) and not self.json.get("is_error")

    def describe(self) -> str:
        return (f"exit {self.process.returncode}; stdout: {self.stdout[-1500:]!r}; "
                f"stderr: {self.stderr[-1500:]!r}")


class ClaudeUser:
    """A person's machine in a temp dir: HOME (config dir HOME/.claude) and a git repository."""

    def __init__(self, root: Path, binary: Path, version: str):
        self.root = Path(root)
        self.binary, self.version = Path(binary), version
        self.home = self.root / "home"
        self.config_dir = self.home / ".claude"
        self.repo = self.home / "work" / "e2e-repo"
        self.vault = self.root / "vault"
        for folder in (self.config_dir, self.repo, self.vault):
            folder.mkdir(parents=True, exist_ok=True)
        if not (self.repo / ".git").exists():
            self._init_repo()

    def _init_repo(self) -> None:
        git = ["git", "-C", str(self.repo)]
        env = self.environ()
        subprocess.run([*git, "init", "-q", "-b", "main"], check=True, env=env)
        (self.repo / "README.md").write_text("# e2e repo\n", encoding="utf-8")
        subprocess.run([*git, "add", "README.md"], check=True, env=env)
        subprocess.run([*git, "-c", "user.name=E2E", "-c", "user.email=e2e@example.invalid",
                        "commit", "-q", "-m", "init"], check=True, env=env)

    def environ(self, base_url: str | None = None, **extra) -> dict:
        # No OBSIDIAN_VAULT: the installed config.yaml must say where the vault is. OMNISEARCH_PORT=9 (discard):
        # no Obsidian that may run on this machine answers.
        env = clean_environ(HOME=str(self.home), OMNISEARCH_PORT="9", TZ="UTC", PYTHONIOENCODING="utf-8", **extra)
        env.update(OFFLINE_ENV)
        if base_url:
            env["ANTHROPIC_BASE_URL"] = base_url
        return env

    @property
    def settings_path(self) -> Path:
        return self.config_dir / "settings.json"

    def settings(self) -> dict:
        return json.loads(self.settings_path.read_text(encoding="utf-8")) if self.settings_path.exists() else {}

    def run(self, prompt: str, base_url: str, *args: str, timeout: float = 180, cwd: Path | None = None,
            **extra_env) -> Result:
        command = [str(self.binary), "-p", prompt, "--output-format", "json", *args]
        started = time.perf_counter()
        process = subprocess.run(command, capture_output=True, text=True, timeout=timeout,
                                 cwd=str(cwd or self.repo), env=self.environ(base_url, **extra_env),
                                 stdin=subprocess.DEVNULL)
        return Result(process, time.perf_counter() - started)

    def transcripts(self) -> list[Path]:
        return sorted((self.config_dir / "projects").glob("*/*.jsonl"))

    def transcript(self, session_id: str) -> Path:
        found = list((self.config_dir / "projects").glob(f"*/{session_id}.jsonl"))
        if not found:
            raise FileNotFoundError(f"no transcript for {session_id} under {self.config_dir / 'projects'}")
        return found[0]


def read_jsonl(path: Path) -> list[dict]:
    entries = []
    for line in Path(path).read_text(encoding="utf-8", errors="replace").splitlines():
        try:
            entries.append(json.loads(line))
        except ValueError:
            continue
    return entries
