"""A person who runs the installer (`python3 install.py`, or `./install.sh`) in a temporary HOME
holding their own settings.json and CLAUDE.md; shared by the tests in this folder."""
from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

from testkit import REPO
from obsidian_memory.setup import install

INSTALL_PY = REPO / "install.py"
INSTALL_SH = REPO / "install.sh"
# The interpreter a user has on their system (this test venv's base), which then runs the installer.
SYSTEM_PYTHON = os.path.realpath(sys.executable)

USER_SETTINGS = {
    "$schema": "https://json.schemastore.org/claude-code-settings.json",
    "model": "opus",
    "env": {"GREETING": "grüß dich — 你好"},
    "hooks": {
        "SessionStart": [{"matcher": "startup", "hooks": [{"type": "command", "command": "other-tool context"}]}],
        "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "guard.sh", "timeout": 5}]}],
    },
    "permissions": {"allow": ["Bash(git status *)"], "deny": ["Read(./.env)"]},
    "statusLine": {"type": "command", "command": "status.sh"},
}
USER_SETTINGS_BYTES = (json.dumps(USER_SETTINGS, indent=2, ensure_ascii=False) + "\n").encode("utf-8")
USER_CLAUDE_MD = "# My rules\n\nAnswer tersely. Prefer `uv` — ünïcödé ✓\n".encode("utf-8")
SKILL_RULE = "Skill(vault-search)"

# Tools that pip runs keep their own state under HOME (pip asks `rustc --version` for its user agent,
# and rustup then writes ~/.rustup/settings.toml): pointed at the machine's real folders, so that the
# fake HOME holds only what the installer itself writes there, and every file of it is compared.
_REAL_HOME = Path.home()
TOOL_STATE = {
    "RUSTUP_HOME": os.environ.get("RUSTUP_HOME") or str(_REAL_HOME / ".rustup"),
    "CARGO_HOME": os.environ.get("CARGO_HOME") or str(_REAL_HOME / ".cargo"),
    "PIP_CACHE_DIR": os.environ.get("PIP_CACHE_DIR")
    or os.path.join(os.environ.get("XDG_CACHE_HOME") or str(_REAL_HOME / ".cache"), "pip"),
}
TRANSCRIPT_ID = "11111111-2222-3333-4444-555555555555"
TRANSCRIPT = [
    {"type": "user", "uuid": "u1", "parentUuid": None, "sessionId": TRANSCRIPT_ID,
     "timestamp": "2026-12-02T10:00:00Z", "cwd": "/tmp", "version": "2.1.332", "gitBranch": "",
     "message": {"role": "user", "content": "Why does the parser choke on ünïcode?"}},
    {"type": "assistant", "uuid": "a1", "parentUuid": "u1", "sessionId": TRANSCRIPT_ID,
     "timestamp": "2026-12-02T10:00:05Z", "cwd": "/tmp", "version": "2.1.332",
     "message": {"id": "m1", "role": "assistant", "model": "claude", "content": [{"type": "text", "text": "A BOM."}]}},
]


class User:
    """A person with a HOME, a Claude config dir and a vault, who runs the installer."""

    def __init__(self, root: Path, config_dir: Path | None = None, home: Path | None = None):
        self.root = root
        self.home = home or root / "home"
        self.config_dir = config_dir or self.home / ".claude"
        self.vault = root / "vault"
        self.config_dir.mkdir(parents=True, exist_ok=True)
        self.layout = install.Layout(str(self.config_dir))
        self.python = SYSTEM_PYTHON

    @property
    def settings_json(self) -> Path:
        return self.config_dir / "settings.json"

    @property
    def claude_md(self) -> Path:
        return self.config_dir / "CLAUDE.md"

    @property
    def skill_md(self) -> Path:
        return self.config_dir / "skills" / "vault-search" / "SKILL.md"

    @property
    def log(self) -> Path:
        return self.config_dir / "obsidian-memory" / "obsidian-memory.log"

    def environ(self, **extra) -> dict:
        env = {k: v for k, v in os.environ.items()
               if not k.startswith(("CLAUDE", "OBSIDIAN", "OMNISEARCH", "PYTHON", "VIRTUAL_ENV"))}
        env.update(TOOL_STATE, HOME=str(self.home), CLAUDE_CONFIG_DIR=str(self.config_dir), OMNISEARCH_PORT="9",
                   TZ="UTC")
        env.update({k: str(v) for k, v in extra.items()})
        return env

    def install(self, *args, check: bool = True, env: dict | None = None, python: str | None = None,
                timeout: float = 300) -> subprocess.CompletedProcess:
        """`python3 install.py ARGS` as the user types it (no terminal: stdin is empty)."""
        command = [python or self.python, str(INSTALL_PY), *map(str, args)]
        result = subprocess.run(command, capture_output=True, stdin=subprocess.DEVNULL,
                                env=env or self.environ(), cwd=str(self.root), timeout=timeout)
        if check:
            assert result.returncode == 0, result.stdout.decode() + result.stderr.decode()
        return result

    def install_sh(self, *args, check: bool = True, script: Path = INSTALL_SH) -> subprocess.CompletedProcess:
        result = subprocess.run(["bash", str(script), *map(str, args)], capture_output=True,
                                stdin=subprocess.DEVNULL, env=self.environ(), cwd=str(self.root), timeout=300)
        if check:
            assert result.returncode == 0, result.stdout.decode() + result.stderr.decode()
        return result

    def install_default(self, *more) -> subprocess.CompletedProcess:
        return self.install("--vault", self.vault, "--create-vault", "--no-import", "--yes", *more)

    def settings(self) -> dict:
        return json.loads(self.settings_json.read_text(encoding="utf-8"))

    def give_own_files(self) -> None:
        self.settings_json.write_bytes(USER_SETTINGS_BYTES)
        self.claude_md.write_bytes(USER_CLAUDE_MD)

    def transcript(self) -> Path:
        path = self.config_dir / "projects" / "-tmp" / f"{TRANSCRIPT_ID}.jsonl"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("".join(json.dumps(e) + "\n" for e in TRANSCRIPT), encoding="utf-8")
        return path


def snapshot(root: Path, skip: tuple[str, ...] = ()) -> dict:
    """Every file and folder under root: content digest and mtime (folders: mtime)."""
    state = {}
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root).as_posix()
        if any(rel == s or rel.startswith(s + "/") for s in skip):
            continue
        stat = path.lstat()
        if path.is_file() and not path.is_symlink():
            state[rel] = (hashlib.sha256(path.read_bytes()).hexdigest(), stat.st_mtime_ns)
        else:
            state[rel] = ("dir-or-link", stat.st_mtime_ns)
    return state


def skill_allowed_tools(skill: str) -> list[str]:
    import yaml
    front = yaml.safe_load(skill.split("---\n")[1])
    tools = front["allowed-tools"]
    return tools if isinstance(tools, list) else tools.split()


def our_handlers(settings: dict, event: str) -> list[dict]:
    return [h for g in settings.get("hooks", {}).get(event, []) for h in g["hooks"] if install.is_ours(h)]


def run_hook_as_written(handler: dict, payload: dict, env: dict, cwd) -> subprocess.CompletedProcess:
    """A handler of settings.json run as Claude Code runs it: exec form without any shell, shell
    form through `sh -c`; the payload as UTF-8 JSON on stdin."""
    data = json.dumps(payload).encode("utf-8")
    if isinstance(handler.get("args"), list):
        argv = [handler["command"], *handler["args"]]
    else:
        argv = ["sh", "-c", handler["command"]]
    return subprocess.run(argv, input=data, capture_output=True, env=env, cwd=str(cwd), timeout=60)


def only_python_on_path(folder: Path, python: str = SYSTEM_PYTHON) -> str:
    """A PATH holding one folder with `python3` in it, and nothing else: no bash, no sh, no cp."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "python3").symlink_to(python)
    return str(folder)
