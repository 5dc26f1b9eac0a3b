"""`Meta/claude-session-history.md`: the newest session notes in the vault, one table row each,
newest first; and one note per month (`Meta/claude-session-history/claude-session-history
2026-03.md`) holding every session note of that month, linked from it.

The tables are rebuilt from the session notes found in the vault (their properties;
notes/vault_sessions), never from one machine's archive: every machine that shares the vault
lists every machine's sessions and, once the notes have synced, writes the very same bytes (times
are shown as each note's `started` property says, in its own machine's local time, with that
machine's UTC offset; rows are ordered by the instant). Each table is
rebuilt whole, between two markers, so a row can never be duplicated or lost to a race; whatever
the user wrote above or below the markers is kept. A writer lists the sessions folder again after
writing (names only, not a second walk of every note): if a note arrived meanwhile (another
machine writing beside it), it writes again, so that two machines rebuilding at the same time end
with the same table.

Bounded at any size: the history note shows the newest RECENT_ROWS sessions (a table
of 100,000 rows is 15 MB that Obsidian would index and the vault would sync again at every
session's end), and a month's note is rewritten only when one of its session notes came, went or
changed (vault_sessions.refresh says which months, and the archive keeps them until they are
written: the sweep's own refresh may be the one that saw the change), or the private rules
changed (then every month once). A month note with no session left, and every month note once the
history note shows every session again (the vault shrank), is removed when it is ours as we wrote
it, or says where the sessions are when the user wrote in it (_retire_month). Every row is read
from the archive's record of the vault's notes by an index on `started`, so that an archive run
reads the records of the rows it shows, not of every note.

A private session note (`privacy`) has no row and is not counted in the activity note: the
table is a note that search returns, and would quote the session's title and project. What a
note's text says of its privacy is remembered in the archive's record of the vault's notes (by the
note's stamp, under the present tag rule: vault_sessions.refresh), so that only the notes that
changed are read; the `private` folders and patterns are asked of each path every time.
"""
from __future__ import annotations

import os
import re

from obsidian_memory.core import fsutil
from obsidian_memory.vault.notes.sessions import VaultUnavailable, note_name
from obsidian_memory.vault.privacy import Privacy
from obsidian_memory.core.textclean import markdown_inline

BEGIN = "<!-- obsidian-memory:history:begin (rebuilt from the session notes; edit outside these markers) -->"
END = "<!-- obsidian-memory:history:end -->"
HEADER = "| Started | Project | Session | Machine | Note |\n|---|---|---|---|---|\n"
DEFAULT_PREAMBLE = "# Claude session history\n\n"
CONVERGE_ATTEMPTS = 3
RECENT_ROWS = 500              # the history note's rows; the older ones are in the month notes
MONTHS_RULES = "history_months_rules"   # archive meta: the private rules every month note was written under


def table_rows(notes: list[dict]) -> list[dict]:
    """The counted session notes (vault_sessions.canonical) in table order: newest first by
    the instant they started (vault_sessions.sort_key), then by session id (the same order on
    every machine)."""
    from obsidian_memory.vault.notes.vault_sessions import sort_key

    return sorted(notes, key=lambda n: (sort_key(n.get("started")), n["session_id"], n["path"]), reverse=True)


def render_table(rows: list[dict]) -> str:
    lines = [HEADER]
    for row in rows:
        when = _shown_start(row.get("started"))
        title = row.get("title") or row.get("session_id") or ""
        lines.append(f"| {cell(when)} | {cell(row.get('project'))} | {cell(title)} | {cell(row.get('machine'))} | "
                     f"[[{note_name(row['path'])}]] |\n")
    return "".join(lines)


def _shown_start(started: str | None) -> str:
    """`2026-03-05 14:30 UTC+05:30` (`… UTC` at offset zero): the writer's wall clock and its UTC
    offset (the wall clock alone for a note that did not say its offset)."""
    text = started or ""
    offset = text[19:] if len(text) > 19 and text[19] in "+-" else None
    shown = text.replace("T", " ")[:16]
    return shown if offset is None else f"{shown} UTC{'' if offset in ('+00:00', '-00:00') else offset}"


_PLAIN = re.compile(r"[A-Za-z0-9,.:;()/'\"!?+@-]+(?: [A-Za-z0-9,.:;()/'\"!?+@-]+)*")


def cell(value) -> str:
    """A table cell showing `value` literally (markdown_inline() escapes pipes too). Plain text (most
    titles, projects, machine ids) is its own cell: thousands of rows are rendered fast."""
    text = str(value or "")
    return text if _PLAIN.fullmatch(text) else markdown_inline(value)


def render_history(rows: list[dict], existing: str | None, months: list[str] = (), settings=None) -> str:
    """The history note: the table of `rows` and, when it shows only the newest, links to the
    notes of `months`."""
    block = render_table(rows)
    if months:
        links = " · ".join(f"[[{month_title(settings, m)}|{m or 'undated'}]]" for m in months)
        block += f"\nThe newest {len(rows)} sessions; every session, month by month: {links}\n"
    return between_markers(existing, BEGIN, END, block, DEFAULT_PREAMBLE)


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
    """Rewrite the history note (and the month notes whose rows changed) from the session notes in
    the vault (the archive keeps what was last read of each); returns its absolute path. Raises
    OSError (VaultUnavailable without a vault) and vault_sessions.Incomplete when `deadline`
    passes before every changed note was read: a table from part of the notes would drop rows,
    so none is written then."""
    return rebuild_from_notes(settings, archive, deadline=deadline)[0]


def rebuild_from_notes(settings, archive, *, deadline: float | None = None, since: str | None = None,
                       written=None, walked_within: float = 0, whole: bool = True,
                       row_budget: int | None = None) -> tuple[str, list[dict] | None, str]:
    """rebuild(), and the counted session notes started at `since` (a `YYYY-MM-DD` local day) or
    later (for the activity note), and what was left undone ("" when nothing). `written`,
    `walked_within` and `whole`: see vault_sessions.refresh; a rebuild that is not `whole` does
    not list the vault again either (the next sweep's does). With `row_budget` (a hook's), the
    month notes to write and the notes since `since` are read only when they hold that many
    sessions at most: else they are left (the months stay to write; the notes are None) and said."""
    if not os.path.isdir(settings.vault):
        raise VaultUnavailable(f"the vault {settings.vault} does not exist")
    target = fsutil.resolve_inside(settings.vault, settings.history_note)
    if os.path.isdir(target):
        raise IsADirectoryError(f"{target} is a folder, not a note")
    listed = _session_names(settings) if whole else None
    for _ in range(CONVERGE_ATTEMPTS):
        folder, left = _rebuild_once(settings, archive, target, deadline=deadline, written=written,
                                     walked_within=walked_within, whole=whole, row_budget=row_budget)
        if not whole:
            break
        now_listed = _session_names(settings)
        if now_listed == listed:
            break
        listed, walked_within = now_listed, 0      # a note came or went meanwhile: the vault read again
    if since and row_budget is not None and archive.vault_notes.count_sessions(folder.root, since=since) > row_budget:
        return target, None, _joined(left, f"the activity note (over {row_budget:,} sessions in its weeks)")
    counted = counted_rows(settings, archive, folder.root,
                           [sid for sid, _ in archive.vault_notes.session_ids(folder.root, since=since)]) if since else []
    return target, counted, left


def _joined(*reasons: str) -> str:
    return "; ".join(r for r in reasons if r)


def _session_names(settings) -> set[str]:
    """The names in the sessions folder and its subfolders (a cheap sign that a note came or went)."""
    names: set[str] = set()
    pending = [fsutil.resolve_inside(settings.vault, settings.sessions_folder)]
    while pending:
        folder = pending.pop()
        try:
            entries = list(os.scandir(folder))
        except OSError:
            continue
        for entry in entries:
            names.add(entry.path)
            try:
                if entry.is_dir(follow_symlinks=False):
                    pending.append(entry.path)
            except OSError:
                continue
    return names


def _rebuild_once(settings, archive, target: str, *, deadline, written, walked_within, whole, row_budget=None):
    from obsidian_memory.vault.notes import vault_sessions

    folder = vault_sessions.refresh(settings, archive, deadline=deadline, written=written, walked_within=walked_within,
                                    whole=whole)
    recent = newest_rows(settings, archive, folder.root, RECENT_ROWS + 1)
    months, changed = [], folder.months | archive.history.months_to_write()   # (also those an earlier refresh saw)
    left = ""
    if len(recent) > RECENT_ROWS:      # more sessions than the note shows: the month notes hold them all
        rules = Privacy.of(settings).signature()
        to_write = (archive.vault_notes.months(folder.root) if archive.meta.get(MONTHS_RULES) != rules
                    else sorted(changed, reverse=True))
        if row_budget is not None and sum(archive.vault_notes.count_sessions(folder.root, month=m)
                                          for m in to_write) > row_budget:
            to_write, changed = [], set()      # kept to write (HistoryState.months_to_write)
            left = f"the month notes (over {row_budget:,} sessions)"
        for month in to_write:
            _write_month(settings, month, _month_rows(settings, archive, folder.root, month))
        if archive.meta.get(MONTHS_RULES) != rules and not left:
            archive.meta.set(MONTHS_RULES, rules)
        months = [m for m in archive.vault_notes.months(folder.root) if os.path.isfile(_month_path(settings, m))]
    else:                              # the note shows every session: no month note is kept
        retired = _months_on_disk(settings)
        for month in retired:
            _retire_month(settings, month, every_session_shown=True)
        if retired:
            _remove_if_empty(fsutil.resolve_inside(settings.vault, _months_folder(settings)))
        if archive.meta.get(MONTHS_RULES):
            archive.meta.set(MONTHS_RULES, "")      # none kept up to date: all of them when they are again
    if changed:
        archive.history.months_written(changed)
    existing = fsutil.read_text(target) if os.path.exists(target) else None
    text = render_history(recent[:RECENT_ROWS], existing, months, settings)
    if text != existing:
        fsutil.atomic_write_text(target, text)
    return folder, left


def counted_rows(settings, archive, root: str, session_ids) -> list[dict]:
    """The rows that count (vault_sessions.canonical: one per session, conflict copies aside; no
    private note, nor one not judged yet: the rule errs toward private) of the sessions
    `session_ids`, from every note that holds one of them."""
    from obsidian_memory.vault.notes import vault_sessions

    privacy = Privacy.of(settings)
    notes = archive.vault_notes.of_sessions(root, session_ids)
    return [row for row in vault_sessions.canonical(notes)[0]
            if row["private"] == 0 and not privacy.path_is_private(row["path"])]


def newest_rows(settings, archive, root: str, count: int) -> list[dict]:
    """The `count` newest counted rows, in table order: the newest notes are read page by page
    until `count` rows that count are at least as new as the last note read."""
    from obsidian_memory.vault.notes import vault_sessions

    found: dict[str, dict] = {}
    offset, page = 0, count + 50
    while True:
        ids = archive.vault_notes.session_ids(root, limit=page, offset=offset)
        found.update({row["session_id"]: row for row in counted_rows(settings, archive, root, [i for i, _ in ids])})
        offset += len(ids)
        if len(ids) < page:
            break
        # the pages come in wall-clock order: a note not read yet started before the boundary's
        # wall clock plus the widest offset
        boundary = vault_sessions.latest_instant(ids[-1][1])
        if sum(1 for row in found.values() if vault_sessions.sort_key(row.get("started")) >= boundary) >= count:
            break
    return table_rows(list(found.values()))[:count]


def _month_rows(settings, archive, root: str, month: str) -> list[dict]:
    from obsidian_memory.vault.notes.vault_sessions import month_of

    ids = [sid for sid, _ in archive.vault_notes.session_ids(root, month=month)]
    return table_rows([row for row in counted_rows(settings, archive, root, ids) if month_of(row["started"]) == month])


def month_note(settings, month: str) -> str:
    """The vault-relative path of a month's note: in a folder named like the history note, beside it."""
    return f"{_months_folder(settings)}/{month_title(settings, month)}.md"


def month_title(settings, month: str) -> str:
    return f"{os.path.basename(settings.history_note.strip('/'))[:-3]} {month or 'undated'}"


def _months_folder(settings) -> str:
    return settings.history_note.strip("/")[:-3]


def _month_path(settings, month: str) -> str:
    return fsutil.resolve_inside(settings.vault, month_note(settings, month))


def _month_preamble(settings, month: str) -> str:
    return (f"# Claude sessions of {month or 'no date'}\n\nNewest first; all months: "
            f"[[{note_name(settings.history_note)}]].\n\n")


def _write_month(settings, month: str, rows: list[dict]) -> None:
    if not rows:
        _retire_month(settings, month, every_session_shown=False)
        return
    target = _month_path(settings, month)
    existing = fsutil.read_text(target) if os.path.exists(target) else None
    text = between_markers(existing, BEGIN, END, render_table(rows), _month_preamble(settings, month))
    if text != existing:
        fsutil.atomic_write_text(target, text)


# -- month notes no longer kept -----------------------------------------------------------------
# A month's note is retired when its month has no session left to list, and every month's note
# when the history note shows every session again (the vault shrank to RECENT_ROWS sessions or
# fewer). One we wrote and nobody edited (its text is our title line, our markers and a table or
# line of ours) is removed; one the user wrote in (outside the markers or inside) keeps their
# text and says, between the markers, where the sessions are now; a file of that name without our
# markers is not ours and stays as it is. The test is on the text, not on a record of this
# machine's: every machine that shares the vault makes the same choice.

_OUR_LINE = re.compile(r"\|[^\n]* \| \[\[[^\n]*\]\] \||No session notes .*|Every session .*")   # a row, our lines
_HEADER_LINES = frozenset(HEADER.splitlines())
_MONTH_NAME = re.compile(r"\d{4}-\d{2}|undated")


def _retire_month(settings, month: str, *, every_session_shown: bool) -> None:
    target = _month_path(settings, month)
    existing = fsutil.read_note(settings.vault, month_note(settings, month))     # (never a link's target, a folder or a FIFO)
    if existing is None or _marker_start(BEGIN) not in existing or END not in existing:
        return
    if _ours_unedited(settings, month, existing):
        os.unlink(target)
        return
    history = note_name(settings.history_note)
    block = (f"Every session is in [[{history}]] now: it lists all of them while there are {RECENT_ROWS} "
             "or fewer.\n" if every_session_shown else "No session notes of this month in the vault now.\n")
    text = between_markers(existing, BEGIN, END, block, _month_preamble(settings, month))
    if text != existing:
        fsutil.atomic_write_text(target, text)


def _ours_unedited(settings, month: str, text: str) -> bool:
    head, tail = _month_preamble(settings, month) + BEGIN + "\n", END + "\n"
    if not (text.startswith(head) and text.endswith(tail)) or len(text) < len(head) + len(tail):
        return False
    block = text[len(head):len(text) - len(tail)]
    return all(line in _HEADER_LINES or _OUR_LINE.fullmatch(line) for line in block.splitlines())


def _remove_if_empty(folder: str) -> None:
    """The month notes' folder, once the last of them is gone (we made it; an empty folder holds nothing)."""
    try:
        os.rmdir(folder)
    except OSError:     # not empty, or gone
        pass


def _months_on_disk(settings) -> list[str]:
    """The months whose note is in the month notes' folder (by name only)."""
    prefix = month_title(settings, "")[:-len("undated")]
    try:
        folder = fsutil.resolve_inside(settings.vault, _months_folder(settings))
        names = os.listdir(folder)
    except (OSError, ValueError):
        return []
    months = [name[len(prefix):-3] for name in names if name.startswith(prefix) and name.endswith(".md")]
    return sorted("" if month == "undated" else month for month in months if _MONTH_NAME.fullmatch(month))
