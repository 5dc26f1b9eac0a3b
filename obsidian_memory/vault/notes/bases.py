"""`Meta/claude-sessions.base`: an Obsidian Bases view of the session notes.

Three table views over the session notes: all sessions newest first, grouped by project, and
the last seven days. A session note is chosen by what it is, not where it is (the user may move
it anywhere in the vault): tagged `claude-session` and carrying a `session_id` property. Its path
is the sessions folder's with `.base` (`Meta/claude-sessions` -> `Meta/claude-sessions.base`).

Written once: when the file is missing and the archive says it was never written. A file that is
there is the user's from then on (edited in Obsidian or not) and never rewritten; one the user
deleted stays deleted. The one exception: a view exactly as an earlier version wrote it (which
chose the notes by their folder) is ours, unchanged, and is brought up to this one once. The syntax is the one the Help vault's "Bases syntax" page documents:
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


SESSION_NOTES = ('file.hasTag("claude-session")', 'file.hasProperty("session_id")')
VERSION_COUNTER = "bases_view_version"
VERSION = 2                    # 1: the notes chosen by their folder (render_base(folder=...))


def render_base(folder: str | None = None) -> str:
    """The view; with `folder`, as version 1 wrote it (the notes in that folder): what an upgrade
    compares the file with."""
    chosen = [f"file.inFolder({json.dumps(folder.strip('/'))})", SESSION_NOTES[0]] if folder is not None \
        else list(SESSION_NOTES)
    lines = [
        "# Claude Code sessions archived by obsidian-memory. Written once: edit it freely, it is never",
        "# overwritten (delete it and it stays deleted).",
        "filters:",
        "  and:",
    ] + ["    - " + _quoted(statement) for statement in chosen] + ["properties:"]
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
    """Write the view if it was never written and is not there, or bring a version 1 view that is
    exactly as we wrote it up to this version; returns its path when written. Raises OSError for
    the caller to log."""
    target = fsutil.resolve_inside(settings.vault, base_path(settings))
    if archive.counters.get(WRITTEN_COUNTER):
        if archive.counters.get(VERSION_COUNTER) >= VERSION:
            return None
        written = _upgrade(target, settings.sessions_folder)
        archive.counters.set(VERSION_COUNTER, VERSION)
        return target if written else None
    written = not os.path.exists(target)
    if written:
        fsutil.atomic_write_text(target, render_base())
    archive.counters.set(WRITTEN_COUNTER, 1)   # a file that was there already is the user's
    archive.counters.set(VERSION_COUNTER, VERSION)
    return target if written else None


def _upgrade(target: str, sessions_folder: str) -> bool:
    """Replace a version 1 view that holds exactly what version 1 wrote: compare-and-swap
    (fsutil.swap_file), and what the user wrote in it meanwhile goes back in place."""
    ours, new = render_base(folder=sessions_folder).encode("utf-8"), render_base().encode("utf-8")
    try:
        with fsutil.open_regular(target) as handle:
            if handle.read() != ours:
                return False
        done, there, in_place = fsutil.swap_file(target, new, ours)
        if not done and in_place:
            fsutil.swap_file(target, there, new)
    except OSError:
        return False
    return done
