"""One person's machine for the end-to-end scenarios: a temporary HOME with the user's own Claude Code
settings and CLAUDE.md, a git repository, a vault, the pinned Claude Code client, our `install.sh`,
and the scripted model server. Everything a scenario checks is read from real files: the vault, the
archive (SQLite), the log, the transcripts, the server's request log and the client's debug log.
"""
from __future__ import annotations

import json
import re
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

from claude_code import ClaudeUser, Result, read_jsonl
from mock_messages_api import MockMessagesAPI

REPO = Path(__file__).resolve().parents[2]
OWN_MARK = "obsidian-memory/bin/"   # in every command our installer writes

# The user's own hook: logs every payload it receives, prints nothing. It must survive our install.
USER_LOGGER = """import json, sys, time
payload = json.loads(sys.stdin.buffer.read().decode("utf-8"))
with open(sys.argv[1], "a", encoding="utf-8") as log:
    log.write(json.dumps({"at": time.time(), "payload": payload}) + "\\n")
"""
FIRST_PROMPT = "Fix the zebrafish cache warmup in src/cache.py"
FIRST_TITLE = "Zebrafish cache warmup"
USER_CLAUDE_MD = "# My own rules\n\nAnswer in English. Prefer small commits.\n"


class World:
    def __init__(self, root: Path, binary: Path, version: str):
        self.version = version
        self.user = ClaudeUser(root, binary, version)
        self.user.vault.mkdir(parents=True, exist_ok=True)
        self.hook_log = self.user.root / "user-hooks.jsonl"
        self.debug_dir = self.user.root / "debug"
        self.debug_dir.mkdir(exist_ok=True)
        self.api = MockMessagesAPI(log_path=str(self.user.root / "requests.jsonl")).start()
        self.installed = False
        self.install_seconds: list[float] = []
        self.hook_timings: list[dict] = []
        self.runs = 0
        self._write_user_files()
        self.settings_before = self.user.settings_path.read_bytes()
        self.claude_md_before = self.claude_md.read_bytes()

    # -- the user's own files, before we come ---------------------------------------------------
    @property
    def claude_md(self) -> Path:
        return self.user.config_dir / "CLAUDE.md"

    def _write_user_files(self) -> None:
        logger = self.user.root / "user_logger.py"
        logger.write_text(USER_LOGGER, encoding="utf-8")
        handler = {"type": "command", "command": f'"{sys.executable}" "{logger}" "{self.hook_log}"', "timeout": 20}
        events = ("SessionStart", "UserPromptSubmit", "Stop", "PreCompact", "PostCompact", "SessionEnd")
        settings = {
            "cleanupPeriodDays": 3650,
            "permissions": {"allow": ["Bash(git status:*)"], "deny": []},
            "hooks": {event: [{"hooks": [dict(handler)]}] for event in events},
        }
        self.user.settings_path.write_text(json.dumps(settings, indent=2) + "\n", encoding="utf-8")
        self.claude_md.write_text(USER_CLAUDE_MD, encoding="utf-8")

    # -- install.sh -----------------------------------------------------------------------------
    def environ(self, **extra) -> dict:
        return self.user.environ(self.api.base_url, **extra)

    def install_sh(self, *args: str, timeout: float = 900) -> subprocess.CompletedProcess:
        started = time.perf_counter()
        done = subprocess.run(["bash", str(REPO / "install.sh"), *args], capture_output=True, text=True,
                              env=self.environ(), cwd=str(self.user.home), timeout=timeout,
                              stdin=subprocess.DEVNULL)
        self.install_seconds.append(time.perf_counter() - started)
        return done

    def install(self) -> subprocess.CompletedProcess:
        done = self.install_sh("--vault", str(self.user.vault), "--no-import", "--yes")
        self.installed = done.returncode == 0
        return done

    def ensure_installed(self) -> "World":
        """Installed (again, if a scenario before uninstalled it); fails with install.sh's output."""
        if not self.installed:
            done = self.install()
            assert done.returncode == 0, (f"./install.sh --vault {self.user.vault} --no-import --yes failed "
                                          f"(exit {done.returncode}):\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}")
        return self

    def uninstall(self) -> subprocess.CompletedProcess:
        done = self.install_sh("--uninstall", "--yes")
        self.installed = self.installed and done.returncode != 0
        return done

    # -- our installed commands --------------------------------------------------------------------
    @property
    def our_home(self) -> Path:
        return self.user.config_dir / "obsidian-memory"

    @property
    def venv_python(self) -> Path:
        return self.our_home / "venv" / "bin" / "python"

    def om(self, *args: str, timeout: float = 120) -> subprocess.CompletedProcess:
        """`obsidian_memory.py ...` as installed (the venv's interpreter, the launcher in bin/)."""
        launcher = self.our_home / "bin" / "obsidian_memory.py"
        return subprocess.run([str(self.venv_python), str(launcher), *args], capture_output=True, text=True,
                              env=self.environ(), cwd=str(self.user.repo), timeout=timeout,
                              stdin=subprocess.DEVNULL)

    @property
    def skill_md(self) -> Path:
        return self.user.config_dir / "skills" / "vault-search" / "SKILL.md"

    # -- sessions -------------------------------------------------------------------------------
    def session(self, prompt: str, steps, *args: str, fallback: str = "OK.", summary: str | None = None,
                timeout: float = 240, cwd: Path | None = None, env: dict | None = None) -> "Run":
        """One `claude -p` run with a fresh script (in the repository, or `cwd`; `env`: variables
        the client starts with); the requests it caused are in `run.requests`."""
        self.runs += 1
        debug = self.debug_dir / f"run-{self.runs}.txt"
        first_request = len(self.api.requests)
        self.api.script(steps, fallback)
        if summary is not None:
            self.api.summary = summary
        hooks_before = len(self.user_hook_events())
        result = self.user.run(prompt, self.api.base_url, *args, "--debug-file", str(debug), timeout=timeout, cwd=cwd,
                               **(env or {}))
        run = Run(self, result, self.api.requests[first_request:], debug, self.user_hook_events()[hooks_before:])
        self.hook_timings.extend(run.our_hook_timings())
        return run

    # -- what the user's own logging hook saw -------------------------------------------------------
    def user_hook_events(self) -> list[dict]:
        if not self.hook_log.exists():
            return []
        return [entry["payload"] for entry in read_jsonl(self.hook_log)]

    # -- the vault and the archive ------------------------------------------------------------------
    def notes_of(self, session_id: str) -> list[Path]:
        # not our temporary files (`.obsidian-memory-tmp-…`), seen while a detached hook writes the note
        return sorted(p for p in self.user.vault.rglob(f"*_{session_id[:8]}.md") if not p.name.startswith("."))

    def wait_for_note(self, session_id: str, seconds: float = 10) -> list[Path]:
        """The session's notes; waits a little in case capture finishes after the client exits."""
        deadline = time.monotonic() + seconds
        while not self.notes_of(session_id) and time.monotonic() < deadline:
            time.sleep(0.2)
        return self.notes_of(session_id)

    def vault_snapshot(self) -> dict:
        return {str(p.relative_to(self.user.vault)): p.read_bytes() for p in sorted(self.user.vault.rglob("*"))
                if p.is_file()}

    @property
    def archive_path(self) -> Path:
        return self.user.config_dir / "session-archive.db"

    def archive_rows_containing(self, needle: str) -> list[tuple]:
        """(table, row) pairs of every archive table whose text mentions `needle`: schema-agnostic."""
        if not self.archive_path.exists():
            return []
        found = []
        with sqlite3.connect(f"file:{self.archive_path}?mode=ro", uri=True) as db:
            tables = [r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")]
            for table in tables:
                try:
                    rows = db.execute(f'SELECT * FROM "{table}"').fetchall()
                except sqlite3.DatabaseError:
                    continue  # FTS shadow tables and the like
                found += [(table, row) for row in rows if any(needle in str(value) for value in row)]
        return found

    def log_text(self) -> str:
        log = self.our_home / "obsidian-memory.log"
        return log.read_text(encoding="utf-8", errors="replace") if log.exists() else "(no log file)"

    def evidence(self, *extra: str) -> str:
        """What to show when a scenario fails: our log, and the vault's files."""
        files = "\n".join(f"  {name}" for name in self.vault_snapshot()) or "  (empty)"
        return "\n".join([*extra, f"--- obsidian-memory.log:\n{self.log_text()[-3000:]}", f"--- vault files:\n{files}"])

    def close(self) -> None:
        self.api.stop()


class Run:
    """A finished `claude -p` run with everything it left behind."""

    def __init__(self, world: World, result: Result, requests: list, debug_file: Path, user_hooks: list[dict]):
        self.world, self.result, self.requests = world, result, requests
        self.debug_file, self.user_hooks = debug_file, user_hooks

    @property
    def session_id(self) -> str:
        return self.result.session_id

    def main_requests(self) -> list:
        return [r for r in self.requests if r.kind == "main"]

    def all_text(self) -> str:
        return "\n".join(r.text() for r in self.requests)

    def transcript_entries(self) -> list[dict]:
        return read_jsonl(self.world.user.transcript(self.session_id))

    def hook_additional_context(self, event: str = "SessionStart") -> list[str]:
        """The additionalContext strings the client accepted from hooks, as its transcript records them."""
        texts = []
        for entry in self.transcript_entries():
            attachment = entry.get("attachment") or {}
            if attachment.get("type") == "hook_additional_context" and attachment.get("hookEvent") == event:
                content = attachment.get("content")
                texts += content if isinstance(content, list) else [str(content)]
        return texts

    def debug_text(self) -> str:
        return self.debug_file.read_text(encoding="utf-8", errors="replace") if self.debug_file.exists() else ""

    def our_hook_timings(self) -> list[dict]:
        return [t for t in hook_timings(self.debug_text()) if OWN_MARK in t["command"].replace("\\", "/")]

    def describe(self) -> str:
        return f"claude {self.world.version}: {self.result.describe()}"


# `Hooks: SessionStart:startup [cmd] finished with status 0 (113ms)` and, for the events the client
# runs at the edges (PreCompact, PostCompact, SessionEnd), `SessionEnd:other [cmd] completed with status 0`.
_HOOK_LINE = re.compile(r"^(?P<at>\S+) \[DEBUG\] (?:Hooks: )?(?P<event>[A-Za-z]+)(?::(?P<matcher>\w+))? "
                        r"(?P<command>\[.*\]) (?:finished|completed) with status (?P<status>-?\d+)"
                        r"(?: \((?P<ms>\d+)ms\))?")


def hook_timings(debug_text: str) -> list[dict]:
    """The hook runs the client logged: event, matcher, command, exit status, duration (ms or None)."""
    runs = []
    for line in debug_text.splitlines():
        match = _HOOK_LINE.match(line)
        if match:
            runs.append({"event": match["event"], "matcher": match["matcher"] or "", "command": match["command"],
                         "status": int(match["status"]), "ms": int(match["ms"]) if match["ms"] else None,
                         "at": match["at"]})
    return runs


def skill_search_command(skill_text: str, word: str) -> str:
    """The ranked-search command exactly as SKILL.md teaches it, with `word` as the query.

    The command is the first code span or code line of the body that starts with a prefix the skill's
    `allowed-tools` pre-approves and calls search_vault.py; its query placeholder (`"<...>"`, `<...>`
    or `"..."`) becomes the word."""
    frontmatter, body = _split_frontmatter(skill_text)
    prefixes = [m.group(1).strip() for m in re.finditer(r"Bash\((.+?)(?::\*| \*)\)", frontmatter)]
    search_prefixes = [p for p in prefixes if "search_vault" in p]
    if not search_prefixes:
        raise AssertionError(f"SKILL.md pre-approves no search_vault.py command; allowed-tools: {prefixes}")
    candidates = re.findall(r"`([^`\n]+)`", body) + [line.strip() for line in body.splitlines()]
    for candidate in candidates:
        for prefix in search_prefixes:
            if candidate.startswith(prefix + " "):
                rest = candidate[len(prefix) + 1:]
                query = re.sub(r'"<[^>]*>"|<[^>]*>|"[^"]*"', f'"{word}"', rest, count=1)
                if query == rest:
                    query = f'"{word}" {rest}'.strip()
                return f"{prefix} {query}"
    raise AssertionError(f"SKILL.md's body shows no command starting with {search_prefixes[0]!r}")


def skill_read_command(skill_text: str, path: str) -> str:
    """The `read` command exactly as SKILL.md teaches it (its first code line that starts with a
    pre-approved `... read` prefix), with `path` (vault-relative, as the search printed it)."""
    frontmatter, body = _split_frontmatter(skill_text)
    prefixes = [m.group(1).strip() for m in re.finditer(r"Bash\((.+?)(?::\*| \*)\)", frontmatter)]
    read_prefixes = [p for p in prefixes if p.endswith(" read")]
    if not read_prefixes:
        raise AssertionError(f"SKILL.md pre-approves no `read` command; allowed-tools: {prefixes}")
    for line in [line.strip() for line in body.splitlines()] + re.findall(r"`([^`\n]+)`", body):
        for prefix in read_prefixes:
            if line.startswith(prefix + " "):
                return f'{prefix} "{path}"'
    raise AssertionError(f"SKILL.md's body shows no command starting with {read_prefixes[0]!r}")


def _split_frontmatter(text: str) -> tuple[str, str]:
    if text.startswith("---"):
        end = text.find("\n---", 3)
        if end != -1:
            return text[3:end], text[end + 4:]
    return "", text
