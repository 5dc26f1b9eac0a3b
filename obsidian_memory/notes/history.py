"""`Meta/claude-session-history.md`: one table row per archived session note, newest first.

The table is rebuilt from the archive every time (so a row can never be duplicated or lost to
a race between two writers that each added "their" row), between two markers; whatever the
user wrote above or below the markers is kept.
"""
from __future__ import annotations

import os

from obsidian_memory import clock, fsutil
from obsidian_memory.notes.sessions import VaultUnavailable, note_name
from obsidian_memory.textclean import markdown_inline

BEGIN = "<!-- obsidian-memory:history:begin (rebuilt from the session archive; edit outside these markers) -->"
END = "<!-- obsidian-memory:history:end -->"
HEADER = "| Started | Project | Session | Note |\n|---|---|---|---|\n"
DEFAULT_PREAMBLE = "# Claude session history\n\n"


def render_table(rows: list[dict]) -> str:
    lines = [HEADER]
    for row in rows:
        start = clock.to_local(row.get("started_at"))
        when = start.strftime("%Y-%m-%d %H:%M") if start else ""
        title = row.get("title") or row.get("session_id") or ""
        lines.append(f"| {when} | {cell(row.get('project'))} | {cell(title)} | "
                     f"[[{note_name(row['note_path'])}]] |\n")
    return "".join(lines)


def cell(value) -> str:
    """A table cell showing `value` literally (markdown_inline() escapes pipes too)."""
    return markdown_inline(value)


def render_history(rows: list[dict], existing: str | None) -> str:
    return between_markers(existing, BEGIN, END, render_table(rows), DEFAULT_PREAMBLE)


def between_markers(existing: str | None, begin: str, end: str, block: str, preamble: str) -> str:
    """`existing` with what lies between the two marker lines replaced by `block`; a new note
    (preamble + block) when there is none; the block appended below a note without the markers
    (a file we did not write, or whose markers were removed: all of it is kept)."""
    wrapped = f"{begin}\n{block}{end}\n"
    if not existing:
        return preamble + wrapped
    start = existing.find(begin)
    stop = existing.find(end, start + 1) if start >= 0 else -1
    if start < 0 or stop < 0:
        return existing.rstrip("\n") + "\n\n" + wrapped
    after = existing[stop + len(end):].lstrip("\n")
    return existing[:start] + wrapped + (("\n" + after) if after else "")


def rebuild(settings, archive) -> str:
    """Rewrite the history note from the archive; returns its absolute path. Raises OSError."""
    if not os.path.isdir(settings.vault):
        raise VaultUnavailable(f"the vault {settings.vault} does not exist")
    target = fsutil.resolve_inside(settings.vault, settings.history_note)
    if os.path.isdir(target):
        raise IsADirectoryError(f"{target} is a folder, not a note")
    existing = fsutil.read_text(target) if os.path.exists(target) else None
    changes = archive.history_changes()   # before the rows: a change landing meanwhile stays pending
    text = render_history(archive.history_rows(), existing)
    if text != existing:
        fsutil.atomic_write_text(target, text)
    archive.record_history_rendered(changes)
    return target
