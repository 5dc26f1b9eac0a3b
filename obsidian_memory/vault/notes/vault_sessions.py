"""The session notes in the vault: the truth every machine shares.

The vault syncs between the user's machines; the archives do not. So what every machine derives
for the vault (the history table) is built from the session notes found in the vault, and each
machine learns the other machines' sessions from their notes.

Reading thousands of notes on every run would be slow, so the archive remembers each Markdown
file of the vault as last read (`vault_notes`: size, mtime, and the properties the history and
the sweep need): a run lists the vault, stats its `.md` files, and reads only those that changed
(a note's head: its properties). Notes of the user's are remembered as `other`, so that each is
read once, not on every run.

Which files count: every `.md` file of the vault (dot-files and dot-folders such as `.obsidian`
and `.trash` aside, links not followed) whose properties hold a `session_id`: in the sessions
folder, or wherever the user moved it. A sync conflict copy of a session note (sync_conflicts)
never counts; when two files hold one session (a copy the user made), one of them counts, the
same on every machine (`canonical`).
"""
from __future__ import annotations

import datetime as _dt
import os
import re
import time
from typing import NamedTuple

from obsidian_memory.vault import frontmatter, sync_conflicts
from obsidian_memory.core import clock, fsutil

SESSION, CONFLICT, OTHER = "session", "conflict", "other"
HEAD_BYTES = 16 * 1024          # a note's properties are read from its head ...
MAX_HEAD_BYTES = 1024 * 1024    # ... or, when they run on, from up to this much of it
FLUSH_EVERY = 500               # notes read between two records of progress
_SESSION_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$")


def is_note_name(name: str) -> bool:
    """Whether `name` is the file name of one of our session notes (`YYYY-MM-DD_<id8>.md`)."""
    return sync_conflicts.is_session_note_name(name)


def vault_root(settings) -> str | None:
    """The vault, absolute and resolved (None when it is not there)."""
    root = os.path.realpath(settings.vault)
    return root if os.path.isdir(root) else None


# -- listing ----------------------------------------------------------------------------------

def list_notes(root: str, deadline: float | None = None) -> dict[str, tuple[int, int, int]]:
    """{path relative to `root` (with `/`): its stamp (size, mtime_ns, ctime_ns)} of its `.md`
    files, in every subfolder; dot-files, dot-folders and links are left out. Raises Incomplete
    when `deadline` (a time.monotonic() value) passes first."""
    found: dict[str, tuple[int, int, int]] = {}
    pending = [("", root)]
    while pending:
        if deadline is not None and time.monotonic() >= deadline:
            raise Incomplete(f"the vault's listing not done in time ({len(found):,} notes listed)")
        prefix, folder = pending.pop()
        try:
            entries = list(os.scandir(folder))
        except OSError:
            continue
        for entry in entries:
            name = entry.name
            if name.startswith(".") or fsutil.undecodable(name):
                continue
            try:
                if entry.is_symlink():
                    continue
                if entry.is_dir(follow_symlinks=False):
                    pending.append((prefix + name + "/", entry.path))
                elif name[-3:].lower() == ".md" and entry.is_file(follow_symlinks=False):
                    stat = entry.stat(follow_symlinks=False)
                    found[prefix + name] = (stat.st_size, stat.st_mtime_ns, stat.st_ctime_ns)
            except OSError:
                continue
    return found


# -- what one file holds ----------------------------------------------------------------------

def read_facts(vault: str, relative: str, stamp: tuple[int, int, int], privacy=None) -> dict:
    """The cache row of the file at the vault-relative `relative` whose stamp (list_notes) is
    `stamp`: its kind (session, conflict copy, other), the properties the history table and the
    sweep need and, given the rules `privacy` (privacy.Privacy), whether a session note's text
    makes it private (`private`; an unreadable note is not: nothing of it can be quoted)."""
    name = relative.rsplit("/", 1)[-1]
    size, mtime_ns, ctime_ns = stamp
    row = {"path": relative, "size": size, "mtime": mtime_ns / 1e9, "mtime_ns": mtime_ns, "ctime_ns": ctime_ns,
           "kind": OTHER, "session_id": None, "machine": None, "started": None, "project": None, "title": None,
           "commits": None, "private": None}
    path = os.path.join(vault, *relative.split("/"))
    head = read_head(path, size)
    properties = properties_of(head)
    session_id = _text(properties.get("session_id"))
    if not session_id or not _SESSION_ID.match(session_id):
        return row
    started = _local_not_after(note_times(properties).started_record, min(time.time(), mtime_ns / 1e9))
    row.update(session_id=session_id, machine=_text(properties.get("machine")),
               started=started, project=_text(properties.get("project")),
               title=_text(properties.get("title")), commits=_count(properties.get("commits")))
    row["kind"] = CONFLICT if sync_conflicts.copy_of(name, is_note_name) else SESSION
    if privacy is not None:
        whole = head if size <= HEAD_BYTES else fsutil.read_note(vault, relative)   # (most notes: the head is all of it)
        row["private"] = int(privacy.text_is_private(whole or ""))
    return row


def read_head(path: str, size: int) -> str:
    """The start of a note, enough to hold its properties ('' when it cannot be read; FIFOs and
    devices are never opened)."""
    try:
        with fsutil.open_regular(path) as handle:
            data = handle.read(HEAD_BYTES)
            text = data.decode("utf-8", errors="replace")
            if size > HEAD_BYTES and text.startswith("---") and frontmatter_block(text) is None:
                text += handle.read(MAX_HEAD_BYTES - HEAD_BYTES).decode("utf-8", errors="replace")
            return text
    except OSError:
        return ""


def properties_of(text: str) -> dict:
    """The note's properties, as the one YAML reader (frontmatter.load) reads its block."""
    block = frontmatter_block(text)
    if block is None:
        return {}
    try:
        data = frontmatter.load(block)
    except Exception:
        return {}       # a block the one reader refuses or cannot read: no session note
    return data if isinstance(data, dict) else {}


def frontmatter_block(text: str) -> str | None:
    """The YAML of the note's frontmatter block (frontmatter.locate: the one rule), or None."""
    found = frontmatter.locate(text.lstrip("\ufeff"))
    return text.lstrip("\ufeff")[found[0]:found[1]] if found else None


def _text(value) -> str | None:
    if value is None or isinstance(value, (dict, list, bool)):
        return None
    text = str(value)
    return text if text.strip() else None


def _count(value) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None


class NoteTimes(NamedTuple):
    """When a session note says its session ran. `started` is the note's own `started` property:
    the wall clock of the machine that wrote it (the date & time Obsidian shows); `offset` that
    machine's UTC offset then, when the note says it (its `started_utc` beside `started`, or an
    offset written into `started`); `started_at`/`ended_at` the instants, in UTC like Claude
    Code's timestamps. A note that says no offset (written before notes carried `started_utc`)
    is read in this machine's zone: nothing better is known of it."""
    started: str | None
    offset: _dt.timedelta | None
    started_at: str | None
    ended_at: str | None

    @property
    def started_record(self) -> str | None:
        """`started` with its offset when known (`2026-03-05T14:30:00+05:30`): the archive's record
        of the note, which the history table shows and orders by (sort_key)."""
        if self.started and self.offset is not None and "T" in self.started:
            return self.started + clock.offset_text(self.offset)
        return self.started


_MAX_OFFSET = _dt.timedelta(hours=18)   # the widest UTC offset ISO 8601 (and Python) allows


def note_times(properties: dict) -> NoteTimes:
    started, ended = properties.get("started"), properties.get("ended")
    local_start, local_end = _datetime_text(started), _datetime_text(ended)
    first, last = _instant(properties.get("started_utc")), _instant(properties.get("ended_utc"))
    offset = _offset_between(local_start, first) if first else _own_offset(started)
    if first is None:
        first = _at(local_start, offset)
    if last is None:
        own = _own_offset(ended)
        last = _at(local_end, own if own is not None else offset)
    return NoteTimes(local_start, offset, _claude_iso(first), _claude_iso(last))


def sort_key(started_record: str | None) -> str:
    """The order of a `started` record (NoteTimes.started_record): its instant in UTC when it
    carries an offset, else its wall-clock text (a note that never said its zone)."""
    text = started_record or ""
    if len(text) > 19 and text[19] in "+-":
        moment = clock.parse_iso(text)
        if moment is not None:
            return moment.astimezone(_dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S")
    return text[:19]


def latest_instant(started_record: str | None) -> str:
    """The latest sort_key of a note whose `started` wall clock is no later than `started_record`'s
    (the wall clock plus the widest offset)."""
    try:
        moment = _dt.datetime.fromisoformat((started_record or "")[:19])
        return (moment + _MAX_OFFSET).strftime("%Y-%m-%dT%H:%M:%S")
    except (ValueError, OverflowError):
        return sort_key(started_record)


_ZONED = re.compile(r"\d{4}-\d\d-\d\d[T ]\d\d:\d\d(?::\d\d(?:\.\d+)?)?(?:[Zz]|[+-]\d\d:?\d\d)")


def _instant(value) -> _dt.datetime | None:
    """A `started_utc`-like property as an aware time; None unless it says its zone."""
    if isinstance(value, _dt.datetime):
        return value if value.tzinfo is not None else None
    if not isinstance(value, str) or not _ZONED.fullmatch(value := value.strip()):
        return None
    return clock.parse_iso(value.replace(" ", "T", 1))


def _offset_between(local: str | None, instant: _dt.datetime) -> _dt.timedelta | None:
    """The writer's UTC offset: its wall clock minus the instant, to the minute."""
    try:
        wall = _dt.datetime.fromisoformat(local) if local and "T" in local else None
    except ValueError:
        return None
    if wall is None or wall.tzinfo is not None:
        return None
    offset = wall - instant.astimezone(_dt.timezone.utc).replace(tzinfo=None)
    offset = _dt.timedelta(minutes=round(offset.total_seconds() / 60))
    return offset if abs(offset) <= _MAX_OFFSET else None


def _own_offset(value) -> _dt.timedelta | None:
    """The offset a date & time property was written with (`2026-03-05T14:30:00+05:30`), if any."""
    if isinstance(value, _dt.datetime):
        return value.utcoffset()
    moment = _instant(value)
    return moment.utcoffset() if moment is not None else None


def _at(local: str | None, offset: _dt.timedelta | None) -> _dt.datetime | None:
    try:
        return clock.at_offset(local, offset)
    except (ValueError, OverflowError, OSError):
        return None


def utc_at(local: str | None, offset: _dt.timedelta | None) -> str | None:
    """A wall-clock time of a note (at `offset`, else in this machine's zone) as a UTC timestamp."""
    return _claude_iso(_at(local, offset))


def _claude_iso(moment: _dt.datetime | None) -> str | None:
    """An instant as Claude Code writes its timestamps (`2026-03-05T09:00:00.000Z`)."""
    if moment is None:
        return None
    try:
        utc = moment.astimezone(_dt.timezone.utc)
    except (ValueError, OverflowError, OSError):
        return None
    return utc.replace(tzinfo=None, microsecond=0).isoformat() + ".000Z"     # (isoformat: 10x strftime's speed)


_DATETIME = re.compile(r"^\d{4}-\d\d-\d\d(?:[T ]\d\d:\d\d(?::\d\d(?:\.\d+)?)?)?$")


def _datetime_text(value) -> str | None:
    """A date & time property as `YYYY-MM-DDTHH:MM:SS` text (PyYAML gives a datetime)."""
    import datetime

    if isinstance(value, datetime.datetime):
        return value.replace(tzinfo=None).isoformat(timespec="seconds")
    if isinstance(value, datetime.date):
        return value.isoformat()
    text = _text(value)
    return text.replace(" ", "T", 1) if text and _DATETIME.match(text) else None


# -- the folder as the archive last saw it ------------------------------------------------------

class Incomplete(Exception):
    """The deadline came before every changed note was read (what was read is kept)."""


class Folder:
    """The vault's notes as a refresh left them: whether a session note (or a conflict copy of
    one) came, went or changed since the last refresh, and `rows`, the record of every `.md`
    file (paths vault-relative; read from the archive when first asked for)."""

    def __init__(self, archive, root: str, sessions_changed: bool, months: set | None = None, moving: bool = False):
        self.archive, self.root, self.sessions_changed = archive, root, sessions_changed
        self.months = months or set()      # the months (month_of) of the session notes that came, went or changed
        self.moving = moving               # a file listed was gone when it was read: the record may miss a note
        self._rows: list[dict] | None = None

    @property
    def rows(self) -> list[dict]:
        if self._rows is None:
            self._rows = self.archive.vault_notes.notes(self.root)
        return self._rows


_walked: dict[str, float] = {}     # vault root -> when this process last brought its whole record up to date


def refresh(settings, archive, *, deadline: float | None = None, written=None, walked_within: float = 0,
            reading_seconds: float | None = None, whole: bool = True) -> Folder:
    """Bring the archive's record of the vault's notes up to date, reading only the files whose
    stamp changed, and the session notes whose privacy was not judged under the present text
    rules. When this process did so less than `walked_within` seconds ago, or `whole` is False (a
    hook: the rest of the vault is the sweep's), only the notes it `written` since (vault-relative
    paths) are looked at: one walk of the vault per archive run, not one per step. Raises
    Incomplete when `deadline` (a time.monotonic() value), or
    `reading_seconds` counted from the end of the walk (a walk of 100,000 notes alone may take
    longer than a hook's patience for the few notes to read), passes first, and VaultUnavailable
    when there is no vault."""
    from obsidian_memory.vault.notes.sessions import VaultUnavailable
    from obsidian_memory.vault.privacy import Privacy

    root = vault_root(settings)
    if root is None:
        raise VaultUnavailable(f"the vault {settings.vault} does not exist")
    privacy = Privacy.of(settings)
    started = time.perf_counter()      # (not monotonic(): that clock is the deadline's)
    walked = started - _walked.get(root, float("-inf")) < walked_within
    only = list(written or ()) if walked or not whole else None
    on_disk = _on_disk(settings, root, deadline) if only is None else fsutil.note_stamps(root, only)
    known = archive.vault_notes.stamps(root, privacy.text_rules(), only)   # path -> (stamp or None, kind, started)
    gone = [path for path in known if path not in on_disk]
    months = {month_of(known[path][2]) for path in gone if known[path][1] != OTHER}
    changed = sorted(path for path, stamp in on_disk.items() if path not in known or known[path][0] != stamp)
    if reading_seconds is not None:
        deadline = time.monotonic() + reading_seconds
    batch: list[dict] = []
    moving = False
    for count, path in enumerate(changed):
        if deadline is not None and time.monotonic() >= deadline:
            archive.vault_notes.update(root, batch, gone, months)
            raise Incomplete(f"{len(changed) - count} of {len(changed)} changed notes not read yet")
        row = read_facts(settings.vault, path, on_disk[path], privacy)
        moving = moving or (row["kind"] == OTHER and not os.path.lexists(os.path.join(root, *path.split("/"))))
        before = known.get(path)
        if row["kind"] != OTHER:
            months.add(month_of(row["started"]))
        if before is not None and before[1] != OTHER:
            months.add(month_of(before[2]))
        batch.append(row)
        if len(batch) == FLUSH_EVERY:   # progress survives a kill
            archive.vault_notes.update(root, batch, gone, months)
            batch, gone = [], []
    if batch or gone:
        archive.vault_notes.update(root, batch, gone, months)
    if only is None:
        _walked[root] = started
    return Folder(archive, root, bool(months), months, moving)


def record_describes(settings, archive, *, privacy_rules: str) -> bool:
    """Whether the archive's record of the vault's notes describes this vault under the present
    private text rules, and the history was last rendered under the present private rules
    `privacy_rules` (privacy.Privacy.signature) or never: then the history can be rendered from it
    with only the notes a run wrote read again."""
    from obsidian_memory.vault.privacy import Privacy

    root = vault_root(settings)
    return (root is not None and archive.vault_notes.describes(root, Privacy.of(settings).text_rules())
            and not archive.history.rendered_under_other_rules(privacy_rules))


def month_of(started: str | None) -> str:
    """The month (`YYYY-MM`) of a note's `started` property; '' for a note without one."""
    return str(started)[:7] if started else ""


def notes_of(settings, archive, session_id: str, *, reading_seconds: float | None = None) -> list[str] | None:
    """The notes of the vault that hold `session_id` (vault-relative; [] when none does), by the
    archive's record of the vault brought up to date now (a listing, and a read of the notes that
    changed); None when the notes that changed could not be read in `reading_seconds`, or one
    of them was moved or deleted between the listing and its read (the record may miss it), or
    there is no vault."""
    from obsidian_memory.vault.notes.sessions import VaultUnavailable

    try:
        folder = refresh(settings, archive, reading_seconds=reading_seconds)
    except (Incomplete, VaultUnavailable, OSError):
        return None
    return None if folder.moving else archive.vault_notes.paths(folder.root, session_id)


def survey(settings) -> list[dict]:
    """The vault's notes as they are now, without writing anything (for doctor): the archive's
    record of the files that did not change since, the others read."""
    root = vault_root(settings)
    if root is None:
        return []
    known: dict = {}
    if os.path.isfile(settings.archive):
        from obsidian_memory.archive import open_archive
        try:
            with open_archive(settings.archive, readonly=True) as archive:
                known = {row["path"]: row for row in archive.vault_notes.notes(root)}
        except Exception:   # a locked or damaged archive: every note is read
            known = {}
    rows = []
    for path, stamp in sorted(_on_disk(settings, root).items()):
        row = known.get(path)
        if row is None or _stamp(row) != stamp:
            row = read_facts(settings.vault, path, stamp)
        rows.append(row)
    return rows


def machines_in_folder(folder: str) -> dict:
    """{machine (None: not recorded): session notes} of the session notes in `folder` (the
    sessions folder: where other machines write them), conflict copies aside; for the installer,
    which has no archive to remember them in yet."""
    found: dict = {}
    if not os.path.isdir(folder):
        return found
    for relative, stamp in list_notes(folder).items():
        row = read_facts(folder, relative, stamp)
        if row["kind"] == SESSION:
            found[row["machine"]] = found.get(row["machine"], 0) + 1
    return found


def _on_disk(settings, root: str, deadline: float | None = None) -> dict[str, tuple[int, int, int]]:
    """{vault-relative path: its stamp} of the vault's notes, but the history note (rebuilt
    from them)."""
    found = list_notes(root, deadline)
    found.pop(settings.history_note.strip("/"), None)
    return found


def _stamp(row: dict) -> tuple:
    return row["size"], row["mtime_ns"], row["ctime_ns"]


def canonical(rows: list[dict], recorded: dict[str, str] | None = None) -> tuple[list[dict], list[dict], list[dict]]:
    """(the session notes that count, one per session; second notes of a session; sync conflict
    copies). Of two files holding one session, the note this machine's archive recorded for its
    own session (`recorded`: {session_id: path}) counts; else the one named as we name notes,
    then the shorter path, then the first in order: the same choice on every machine."""
    recorded = recorded or {}
    by_session: dict[str, list[dict]] = {}
    conflicts = []
    for row in rows:
        if row["kind"] == SESSION:
            by_session.setdefault(row["session_id"], []).append(row)
        elif row["kind"] == CONFLICT:
            conflicts.append(row)
    counted, duplicates = [], []
    for session_id, candidates in by_session.items():
        if len(candidates) > 1:
            candidates.sort(key=lambda r: (r["path"] != recorded.get(session_id), not _named_for(r["path"], session_id),
                                           len(r["path"]), r["path"]))
        counted.append(candidates[0])
        duplicates.extend(candidates[1:])

    def by_path(rows: list[dict]) -> list[dict]:
        return sorted(rows, key=lambda r: r["path"])
    return by_path(counted), by_path(duplicates), by_path(conflicts)


def _named_for(path: str, session_id: str) -> bool:
    name = path.rsplit("/", 1)[-1]
    return is_note_name(name) and name[len("YYYY-MM-DD_"):-3].startswith(session_id[:8])


# -- learning the other machines' sessions ------------------------------------------------------

LEARN_BATCH = 200


def learn(settings, archive, folder: Folder, *, deadline: float | None = None, missing: bool = False,
          progress=None) -> tuple[int, int]:
    """Record in the archive the sessions of the counted notes of `folder` (a refresh) that were
    not learned since they last changed (with `missing`, also those the archive lacks however it
    lost them): another machine's (or, after a lost archive, this machine's) sessions as their
    notes hold them. This machine's own sessions are left as the archive has them. Returns
    (sessions learned, notes left for later at the deadline). `progress(iterable)` may wrap the
    notes to read."""
    from obsidian_memory.capture.redact import rules

    redacted_under = rules(settings.redact)   # (as _read_note_session redacts)
    rows = folder.rows if missing else archive.vault_notes.notes(folder.root, unlearned_sessions=True)
    counted = canonical(rows)[0]
    held = archive.sessions.held_ids([row["session_id"] for row in counted]) if missing else set()
    waiting = [row for row in counted if not row.get("learned") or (missing and row["session_id"] not in held)]
    own = archive.sessions.own_ids([row["session_id"] for row in waiting])
    recorded, batch, done = 0, [], []
    for index, row in enumerate(progress(waiting) if progress else waiting):
        if deadline is not None and time.monotonic() >= deadline:
            return recorded + archive.sessions.record_learned(batch, done, redacted_under), len(waiting) - index
        if row["session_id"] not in own and where_we_write(settings, row):
            session = _read_note_session(settings, row)
            if session is not None:
                batch.append((session, row["path"]))
        done.append(row["path"])
        if len(done) >= LEARN_BATCH:   # one transaction per batch; progress survives a kill
            recorded += archive.sessions.record_learned(batch, done, redacted_under)
            batch, done = [], []
    return recorded + archive.sessions.record_learned(batch, done, redacted_under), 0


def where_we_write(settings, row: dict) -> bool:
    """Whether the note `row` is where and as another machine of ours writes a session note: in
    the sessions folder, named for its session. A note elsewhere with session properties (a
    copy, or a forgery in a shared vault) is counted in the views but never learned: what
    a learned session holds reaches later sessions' context."""
    folder = settings.sessions_folder.strip("/") + "/"
    return row["path"].startswith(folder) and _named_for(row["path"], row["session_id"])


def _read_note_session(settings, row: dict):
    """The session the note `row` holds, redacted as this machine's settings say (the owner did
    too, if its settings said so), its times no later than the note's last change, or None when
    it is not that session's note."""
    from obsidian_memory.vault.notes.session_reader import read_session

    text = fsutil.read_text(os.path.join(settings.vault, *row["path"].split("/")))
    session = read_session(text) if text else None
    if session is None or session.session_id != row["session_id"]:
        return None
    latest = min(time.time(), row.get("mtime") or time.time())   # a note cannot tell of a later time
    session.started_at, session.ended_at = _not_after(session.started_at, latest), _not_after(session.ended_at, latest)
    if settings.redact:
        from obsidian_memory.capture.redact import redact_session
        session = redact_session(session)
    return session


def _local_not_after(text: str | None, epoch: float) -> str | None:
    """A note's `started` record (NoteTimes.started_record: wall-clock `YYYY-MM-DDTHH:MM:SS`, with
    the writer's offset when known), or `epoch` in the same form when the note says a later time:
    a future date would keep a note "the latest" for good."""
    if not text:
        return text
    try:
        moment = _dt.datetime.fromisoformat(text)
    except ValueError:
        return text
    offset = moment.utcoffset()
    if moment.tzinfo is None:
        moment = moment.astimezone()     # (naive: this machine's local time)
    if moment.timestamp() <= epoch:
        return text
    if offset is None:
        return _dt.datetime.fromtimestamp(epoch).isoformat(timespec="seconds")
    wall = _dt.datetime.fromtimestamp(epoch, _dt.timezone(offset)).replace(tzinfo=None)
    return wall.isoformat(timespec="seconds") + clock.offset_text(offset)


def _not_after(iso: str | None, epoch: float) -> str | None:
    """The ISO time `iso`, or `epoch` (as ISO, UTC) when `iso` is later."""
    import datetime

    from obsidian_memory.core.clock import parse_iso

    moment = parse_iso(iso)
    if moment is None or moment.timestamp() <= epoch:
        return iso
    latest = datetime.datetime.fromtimestamp(epoch, datetime.timezone.utc)
    return latest.strftime("%Y-%m-%dT%H:%M:%S.") + f"{latest.microsecond // 1000:03d}Z"
