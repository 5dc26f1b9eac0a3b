"""Vaults, git repositories and archives for the SessionStart context tests (helper E's)."""
from __future__ import annotations

import os
import subprocess
from pathlib import Path

from obsidian_memory.core import gitinfo
from obsidian_memory.core import settings as settings_module
from obsidian_memory.archive import open_archive
from obsidian_memory.capture.session_records import CompactSummary, Prompt, Session

PREAMBLE = ("This session is being continued from a previous conversation that ran out of context. "
            "The conversation is summarized below:\n")


def make_settings(env, **changes):
    settings = settings_module.load(vault=str(env.vault), config_dir=str(env.config_dir))
    return settings.replace(**changes) if changes else settings


def session_id(n: int) -> str:
    return f"{n:08x}-eeee-4ccc-8ddd-{n:012x}"


def started(n: int) -> str:
    """Distinct start times, later for larger n."""
    day, minute = divmod(n, 24 * 60)
    return f"2026-{1 + day // 28 % 12:02d}-{1 + day % 28:02d}T{minute // 60:02d}:{minute % 60:02d}:00.000Z"


def add_sessions(archive_path, cwd: str, numbers, *, title=None, summary=None, note=True):
    """Archive one session per number, stored with the repository of `cwd` as capture does."""
    toplevel, repo_root = gitinfo.find_repo(cwd)
    with open_archive(str(archive_path)) as archive:
        for n in numbers:
            sid = session_id(n)
            session = Session(
                session_id=sid, project=os.path.basename(toplevel or cwd), cwd=cwd, repo_root=repo_root,
                git_branch="main", started_at=started(n), title=title(n) if title else f"session {n}",
                prompts=[Prompt(f"prompt of session {n}")],
                compact_summaries=[CompactSummary(summary(n))] if summary else [])
            archive.sessions.upsert(session, note_path=f"Meta/claude-sessions/2026-01/2026-01-01_{sid[:8]}.md"
                                   if note else None)


def git(*args, cwd):
    subprocess.run(["git", *args], cwd=str(cwd), check=True, capture_output=True,
                   env={**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.org",
                        "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.org"})


def make_repo(path: Path) -> Path:
    """A real git repository with one commit (a worktree needs one)."""
    path.mkdir(parents=True)
    git("init", "-q", "-b", "main", cwd=path)
    (path / "README.md").write_text("demo\n", encoding="utf-8")
    (path / "src").mkdir()
    git("add", "README.md", cwd=path)
    git("commit", "-q", "-m", "init", cwd=path)
    return path


def write_note(env, relative: str, text: str) -> Path:
    path = env.vault.joinpath(*relative.split("/"))
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def sections(text: str) -> dict[str, str]:
    """The context split at its section headings (the headings context.py writes)."""
    names = {"## Working state": "state", "## Recent learnings": "learnings", "## Recent sessions": "sessions"}
    found, current = {}, None
    for line in text.splitlines(keepends=True):
        for prefix, name in names.items():
            if line.startswith(prefix):
                current = name
                found[name] = ""
        if line.startswith("Searching the vault:"):
            current = None
        if current:
            found[current] += line
    return found
