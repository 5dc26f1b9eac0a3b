"""`Meta/claude-sessions.base`: an Obsidian Bases view of the session notes.

Three table views over the notes in the sessions folder tagged `claude-session`: all sessions
newest first, grouped by project, and the last seven days. Its path is the sessions folder's
with `.base` (`Meta/claude-sessions` -> `Meta/claude-sessions.base`).

Written once: when the file is missing and the archive says it was never written. A file that is
there is the user's from then on (edited in Obsidian or not) and never rewritten; one the user
deleted stays deleted. The syntax is the one the Help vault's "Bases syntax" page documents:
`filters` (and/or/not of filter statements), `views` with `type`, `name`, `order`, `groupBy`
(`property`, `direction`) and view-level `filters`, plus `sort` (`property`, `direction`) as
Obsidian writes it when a view is sorted.
"""
from __future__ import annotations

import json
import os

from obsidian_memory.core import fsutil

WRITTEN_COUNTER = "bases_view_written"
COLUMNS = ("file.name", "note.title", "note.started", "note.project", "note.branch", "note.duration",
           "note.prompts", "note.commits")
DISPLAY_NAMES = {"note.title": "Title", "note.started": "Started", "note.project": "Project",
                 "note.branch": "Branch", "note.duration": "Minutes", "note.prompts": "Prompts",
                 "note.commits": "Commits"}


def base_path(settings) -> str:
    """The vault-relative path of the view: the sessions folder's path with `.base`."""
    return settings.sessions_folder.strip("/") + ".base"


def render_base(sessions_folder: str) -> str:
    folder = sessions_folder.strip("/")
    lines = [
        "# Claude Code sessions archived by obsidian-memory. Written once: edit it freely, it is never",
        "# overwritten (delete it and it stays deleted).",
        "filters:",
        "  and:",
        "    - " + _quoted(f"file.inFolder({json.dumps(folder)})"),
        "    - " + _quoted('file.hasTag("claude-session")'),
        "properties:",
    ]
    for name, shown in DISPLAY_NAMES.items():
        lines += [f"  {name}:", f"    displayName: {shown}"]
    lines.append("views:")
    lines += _view("All sessions")
    lines += _view("By project", group_by="note.project")
    lines += _view("This week", where=['note.started >= today() - "7d"'])
    return "\n".join(lines) + "\n"


def _view(name: str, *, group_by: str | None = None, where: list[str] | None = None) -> list[str]:
    lines = ["  - type: table", f"    name: {_quoted(name)}"]
    if where:
        lines += ["    filters:", "      and:"] + [f"        - {_quoted(statement)}" for statement in where]
    if group_by:
        lines += ["    groupBy:", f"      property: {group_by}", "      direction: ASC"]
    lines += ["    order:"] + [f"      - {column}" for column in COLUMNS]
    lines += ["    sort:", "      - property: note.started", "        direction: DESC"]
    return lines


def _quoted(text: str) -> str:
    """A YAML single-quoted scalar (only `'` needs escaping, by doubling)."""
    return "'" + text.replace("'", "''") + "'"


def ensure_base(settings, archive) -> str | None:
    """Write the view if it was never written and is not there; returns its path when written.
    Raises OSError for the caller to log."""
    target = fsutil.resolve_inside(settings.vault, base_path(settings))
    if archive.counters.get(WRITTEN_COUNTER):
        return None
    written = not os.path.exists(target)
    if written:
        fsutil.atomic_write_text(target, render_base(settings.sessions_folder))
    archive.counters.set(WRITTEN_COUNTER, 1)   # a file that was there already is the user's
    return target if written else None
