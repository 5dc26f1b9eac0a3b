"""`Meta/claude-session-history.md`: one table row per session note in the vault, newest first.

The table is rebuilt from the session notes found in the vault's sessions folder (their
properties; notes/vault_sessions), never from one machine's archive: every machine that shares
the vault lists every machine's sessions and, once the notes have synced, writes the very same
bytes (times are shown as each note's `started` property says, in its own machine's local time).
It is rebuilt whole every time, between two markers, so a row can never be duplicated or lost
to a race; whatever the user wrote above or below the markers is kept. A writer reads the
folder again after writing: if a note arrived meanwhile (another machine writing beside it), it
writes again, so that two machines rebuilding at the same time end with the same table.

A private session note (`privacy`) has no row and is not counted in the activity note: the
table is a note that search returns, and would quote the session's title and project. What a
note's text says of its privacy is remembered in the archive's record of the vault's notes (by the
note's stamp, under the present tag rule: vault_sessions.refresh), so that only the notes that
changed are read; the `private` folders and patterns are asked of each path every time.
"""
from __future__ import annotations

import os
import re

from obsidian_memory import fsutil
from obsidian_memory.notes.sessions import VaultUnavailable, note_name
from obsidian_memory.privacy import Privacy
from obsidian_memory.textclean import markdown_inline

BEGIN = "<!-- obsidian-memory:history:begin (rebuilt from the session notes; edit outside these markers) -->"
END = "<!-- obsidian-memory:history:end -->"
HEADER = "| Started | Project | Session | Machine | Note |\n|---|---|---|---|---|\n"
DEFAULT_PREAMBLE = "# Claude session history\n\n"
CONVERGE_ATTEMPTS = 3


def table_rows(notes: list[dict]) -> list[dict]:
    """The counted session notes (vault_sessions.canonical) in table order: newest first by
    their `started` property, then by session id (the same order on every machine)."""
    return sorted(notes, key=lambda n: (n.get("started") or "", n["session_id"], n["path"]), reverse=True)


def render_table(rows: list[dict]) -> str:
    lines = [HEADER]
    for row in rows:
        when = (row.get("started") or "").replace("T", " ")[:16]
        title = row.get("title") or row.get("session_id") or ""
        lines.append(f"| {cell(when)} | {cell(row.get('project'))} | {cell(title)} | {cell(row.get('machine'))} | "
                     f"[[{note_name(row['path'])}]] |\n")
    return "".join(lines)


_PLAIN = re.compile(r"[A-Za-z0-9,.:;()/'\"!?+@-]+(?: [A-Za-z0-9,.:;()/'\"!?+@-]+)*")


def cell(value) -> str:
    """A table cell showing `value` literally (markdown_inline() escapes pipes too). Plain text (most
    titles, projects, machine ids) is its own cell: thousands of rows are rendered fast."""
    text = str(value or "")
    return text if _PLAIN.fullmatch(text) else markdown_inline(value)


def render_history(rows: list[dict], existing: str | None) -> str:
    return between_markers(existing, BEGIN, END, render_table(rows), DEFAULT_PREAMBLE)


def between_markers(existing: str | None, begin: str, end: str, block: str, preamble: str) -> str:
    """`existing` with what lies between the two marker lines replaced by `block`; a new note
    (preamble + block) when there is none; the block appended below a note without the markers
    (a file we did not write, or whose markers were removed: all of it is kept)."""
    wrapped = f"{begin}\n{block}{end}\n"
    if not existing:
        return preamble + wrapped
    start = existing.find(_marker_start(begin))
    begin_end = existing.find("-->", start) if start >= 0 else -1
    stop = existing.find(end, begin_end) if begin_end >= 0 else -1
    if start < 0 or stop < 0:
        return existing.rstrip("\n") + "\n\n" + wrapped
    after = existing[stop + len(end):].lstrip("\n")
    return existing[:start] + wrapped + (("\n" + after) if after else "")


def _marker_start(begin: str) -> str:
    """`<!-- obsidian-memory:history:begin` of a begin marker: the words after it changed between
    versions ("rebuilt from the session archive" became "... from the session notes")."""
    return begin.split(" (", 1)[0]


def rebuild(settings, archive, *, deadline: float | None = None) -> str:
    """Rewrite the history note from the session notes in the vault (the archive keeps what was
    last read of each); returns its absolute path. Raises OSError (VaultUnavailable without a
    vault) and vault_sessions.Incomplete when `deadline` passes before every changed note was
    read: a table from part of the notes would drop rows, so none is written then."""
    return rebuild_from_notes(settings, archive, deadline=deadline)[0]


def rebuild_from_notes(settings, archive, *, deadline: float | None = None) -> tuple[str, list[dict]]:
    """rebuild(), and the counted session notes the table was made of (for the activity note)."""
    from obsidian_memory.notes import vault_sessions

    if not os.path.isdir(settings.vault):
        raise VaultUnavailable(f"the vault {settings.vault} does not exist")
    target = fsutil.resolve_inside(settings.vault, settings.history_note)
    if os.path.isdir(target):
        raise IsADirectoryError(f"{target} is a folder, not a note")
    privacy = Privacy.of(settings)
    for _ in range(CONVERGE_ATTEMPTS):
        notes = vault_sessions.refresh(settings, archive, deadline=deadline).rows
        counted = [row for row in vault_sessions.canonical(notes)[0]
                   if not (row["private"] or privacy.path_is_private(row["path"]))]
        existing = fsutil.read_text(target) if os.path.exists(target) else None
        text = render_history(table_rows(counted), existing)
        if text == existing:
            break
        fsutil.atomic_write_text(target, text)
        if vault_sessions.unchanged_since(settings, notes):
            break
    return target, counted
