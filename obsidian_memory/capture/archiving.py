"""Capture, the archiving service: transcript → (redacted) Session → archive row → vault note + history.

Used by the `hook archive` handler (SessionEnd, PreCompact, PostCompact, Stop), by `archive`,
`import` and `sweep`. Order matters: the session is redacted before anything is persisted, the
archive row is written before the vault is touched (a vault problem never costs the row), and
the note is rendered from what the archive holds (so it includes PostCompact summaries and the
last writer renders the newest state).
"""
from __future__ import annotations

import errno
import fnmatch
import glob
import os
import re
import sqlite3
import time
from contextlib import contextmanager
from dataclasses import dataclass, field

from obsidian_memory.core import clock, logs
from obsidian_memory.core.errors import UserError
from obsidian_memory.core.locks import FileLock, LockBusy

ARCHIVED, UNCHANGED, SKIPPED, EXCLUDED, MISSING, FAILED = (
    "archived", "unchanged", "skipped", "excluded", "missing", "failed")
VAULT_LOCK_SECONDS = 10.0
BUSY_TIMEOUT = 5.0            # seconds a writer waits for another one before giving up
SWEEP_DEADLINE_SECONDS = 300.0   # a sweep starts no new transcript after this long
RECALL_BATCH = 200                # sessions indexed for prompt recall per transaction
REDACT_AGAIN_BATCH = 50           # sessions under other redaction rules looked up at a time
REDACT_AGAIN_PER_RUN = 2000       # sessions an import or a sweep redacts again at most (the next run goes on)
NOTE_LOOKUP_SECONDS = 0.5       # the notes changed since the last run are read this long at most to place a new note
RUN_WALK_SECONDS = 30.0           # a walk of the vault this recent is this run's own (placing its note): not walked again
DETACH_BYTES = 16 * 2**20         # a hook archives a transcript with more than this not read yet in a detached process
DETACHED_WAIT_SECONDS = 600.0     # a detached archive waits this long for the one before it
FOLLOW_UP_WAIT_SECONDS = 600.0    # a hook's follow-up sweep waits this long for a sweep running already
HOOK_ROWS = 2000                  # a hook renders the month notes and the activity note from at most this many sessions
HOOK_HISTORY_SECONDS = 0.5       # a hook lists and reads the vault's notes this long at most (its follow-up does the rest)
_SESSION_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$")


@dataclass
class ArchiveResult:
    status: str
    transcript_path: str | None = None
    session_id: str | None = None
    note_path: str | None = None       # vault-relative, when the note was written
    reason: str = ""                   # why it was skipped or failed
    note_error: str = ""               # the vault problem, when the row was kept but not the note
    kept: str = ""                     # why the archived record was kept or merged (it holds more)
    record_kept: bool = False          # the archived record was kept as it was: nothing new archived
    left: str = ""                     # the vault work a hook left to its detached follow-up, and why


@dataclass
class ImportSummary:
    archived: int = 0
    unchanged: int = 0
    skipped: int = 0                    # no prompt, excluded project
    kept: int = 0                       # transcripts holding less than the archived record, which was kept
    active: int = 0                     # changed transcripts left for a later sweep: still being written
    failed: int = 0
    stopped: int = 0                    # transcripts left for later at the deadline (sweep)
    halted: str = ""                    # why the run stopped early: the archive cannot be written
    learned: int = 0                    # other machines' sessions learned from their notes (sweep)
    redacted_again: int = 0             # sessions whose stored text changed, redacted again under new rules
    redaction_left: bool = False        # sessions left to redact again at the next run
    notes_left: int = 0                 # session notes left for later at the deadline (sweep)
    active_seconds: float = 0           # what `active` means: changed within this many seconds
    busy: bool = False                  # another sweep was running: this one did nothing (sweep)
    would_archive: list[str] = field(default_factory=list)   # dry run
    results: list[ArchiveResult] = field(default_factory=list)

    def add(self, result: ArchiveResult) -> None:
        self.results.append(result)
        if result.status == ARCHIVED and result.record_kept:
            self.kept += 1
        elif result.status == ARCHIVED:
            self.archived += 1
        elif result.status == UNCHANGED:
            self.unchanged += 1
        elif result.status == FAILED:
            self.failed += 1
        else:
            self.skipped += 1

    def line(self) -> str:
        if self.busy:
            return ("nothing done: a sweep is running already (a hook starts one in the background); "
                    "`sweep --wait SECONDS` waits for it and sweeps after")
        text = f"archived {self.archived} / unchanged {self.unchanged} / failed {self.failed}"
        if self.skipped:
            text += f" (skipped {self.skipped}: no prompt or excluded)"
        if self.kept:
            text += f"; kept the archived record of {self.kept} session(s) (the transcript holds less)"
        if self.active:
            text += (f"; left {self.active} transcript(s) changed in the last {self.active_seconds:g} s for a later "
                     "sweep (still being written?)")
        if self.stopped:
            text += f"; stopped at the deadline with {self.stopped} to go"
        if self.halted:
            text += f"; stopped: {self.halted}"
        if self.learned:
            text += f"; learned {self.learned} session(s) of other machines from their notes"
        if self.redacted_again:
            text += f"; redacted {self.redacted_again} archived session(s) again under the present redaction rules"
        if self.redaction_left:
            text += "; more archived sessions to redact again at the next sweep"
        if self.notes_left:
            text += "; more session notes to read at the next sweep"
        return text


# -- the archive, and when it cannot be used ----------------------------------------------------

class ArchiveDamaged(UserError):
    """The archive file is damaged, or was emptied while the vault holds its sessions' notes:
    nothing is written to it (exit status 1, one line that says what to do)."""

    def __init__(self, message: str):
        super().__init__(message, code=1)


@contextmanager
def writable_archive(settings, *, refill: bool = False):
    """The archive, opened (created, migrated) for writing, for a `with` block; any sign of a
    damaged file, at the open or later, ends the block as ArchiveDamaged (the transaction in
    progress is rolled back: nothing is written over the damage). `refill`: an archive emptied
    to 0 bytes may be written (`import --from-vault` fills it from the notes)."""
    from obsidian_memory.archive import is_damage, open_archive

    problem = "" if refill else archive_problem(settings)
    if problem:
        raise ArchiveDamaged(problem)
    try:
        with open_archive(settings.archive, busy_timeout=BUSY_TIMEOUT) as archive:
            yield archive
    except sqlite3.DatabaseError as exc:
        if is_damage(exc):
            raise _damaged(settings, exc) from None
        if cannot_write(exc):
            raise UserError(f"{cannot_write(exc)}: {settings.archive}", code=1) from None
        raise
    except UnicodeDecodeError:   # SQLite's own message quotes a schema whose bytes were overwritten
        raise _damaged(settings, "its schema is unreadable") from None


@contextmanager
def _readonly_archive(settings):
    from obsidian_memory.archive import is_damage, open_archive

    try:
        with open_archive(settings.archive, readonly=True, busy_timeout=BUSY_TIMEOUT) as archive:
            yield archive
    except sqlite3.DatabaseError as exc:
        if is_damage(exc):
            raise _damaged(settings, exc) from None
        raise
    except UnicodeDecodeError:   # SQLite's own message quotes a schema whose bytes were overwritten
        raise _damaged(settings, "its schema is unreadable") from None


def _damaged(settings, exc) -> ArchiveDamaged:
    from obsidian_memory.archive import damage_advice

    return ArchiveDamaged(f"the session archive {settings.archive} is damaged ({exc}): {damage_advice(settings.archive)}")


def archive_problem(settings) -> str:
    """Why the archive must not be written although SQLite would open it ("" when it may): an
    archive emptied to 0 bytes would be created anew and the history table would drop every
    session whose transcript is gone, while the vault still holds their notes."""
    from obsidian_memory.archive import damage_advice

    try:
        if os.path.getsize(settings.archive) > 0:
            return ""
    except OSError:
        return ""   # no archive yet: the first session creates it
    from obsidian_memory.vault.notes.sessions import session_note_ids

    if not session_note_ids(settings, limit=1):
        return ""
    return (f"the session archive {settings.archive} is empty (0 bytes) while the vault holds session notes: "
            f"it was emptied or replaced; {damage_advice(settings.archive)}")


# -- one transcript ------------------------------------------------------------------------------

def archive_transcript(path: str, settings, *, compact_summary: str | None = None,
                       trigger: str | None = None, force: bool = True,
                       session_id: str | None = None, hook: bool = False) -> ArchiveResult:
    """Archive one transcript into the archive and the vault. `force=False` skips a transcript
    whose (size, mtime) is the one recorded at its last archive; `session_id` (a hook's payload)
    is the session the file must hold. `hook`: nothing after the archive row grows with the vault
    or the archive (see _vault_work_of_a_hook)."""
    with writable_archive(settings) as archive:
        _claim_own_sessions(settings, archive)
        result = _archive_one(path, settings, archive, compact_summary=compact_summary, trigger=trigger,
                              force=force, session_id=session_id, hook=hook)
        if hook:
            if result.status == ARCHIVED:
                _vault_work_of_a_hook(settings, archive, result)
        elif not result.note_error:   # a vault fault was logged with the note: the next sweep retries
            _rebuild_history(settings, archive, force=bool(result.note_path),
                             deadline=time.monotonic() + HOOK_HISTORY_SECONDS, written=[result.note_path])
    return result


def _archive_one(path, settings, archive, *, compact_summary=None, trigger=None, force=True,
                 known_fingerprint=None, session_id=None, hook=False) -> ArchiveResult:
    import stat as stat_module

    path = os.path.abspath(path)
    try:
        stat = os.stat(path)   # before parsing: a file that grows meanwhile stays "changed"
    except OSError as exc:
        return ArchiveResult(MISSING, path, reason=f"cannot read the transcript: {exc}")
    if not stat_module.S_ISREG(stat.st_mode):
        return ArchiveResult(FAILED, path, reason="not a regular file")
    fingerprint = (stat.st_size, stat.st_mtime)
    if not force and not compact_summary:
        recorded = known_fingerprint if known_fingerprint is not None else archive.transcripts.fingerprint(path)
        if recorded == fingerprint:
            return ArchiveResult(UNCHANGED, path)
    off = _memory_off(settings, session_id or _uuid_stem(path))
    if off:
        archive.transcripts.record(path, *fingerprint, status=EXCLUDED, session_id=off)
        return ArchiveResult(EXCLUDED, path, off, reason="memory was off for this session (OBSIDIAN_MEMORY=off)")
    from obsidian_memory.capture import transcript

    session = transcript.parse(path, resume_in=settings.home)   # a growing transcript: only what is new
    session.transcript_size, session.transcript_mtime = fingerprint
    if session.oversized_lines:
        logs.log_for(settings, f"archive: {path}: {session.oversized_lines} line(s) over "
                               f"{transcript.LINE_LIMIT // 2**20} MiB skipped unread (tool results)")
    claimed = session_id or _uuid_stem(path)
    if claimed and session.session_id != claimed:
        archive.transcripts.record(path, *fingerprint, status=SKIPPED)
        reason = f"its entries belong to session {session.session_id}, not to {claimed}: not archived"
        logs.log_for(settings, f"archive: skipped {path}: {reason}")
        return ArchiveResult(SKIPPED, path, claimed, reason=reason)
    if is_excluded(session, settings):
        archive.transcripts.record(path, *fingerprint, status=EXCLUDED, session_id=session.session_id)
        return ArchiveResult(EXCLUDED, path, session.session_id, reason=f"project {session.project!r} is excluded")
    if is_empty(session) and not compact_summary:
        archive.transcripts.record(path, *fingerprint, status=SKIPPED, session_id=session.session_id or None)
        reason = "no prompt and nothing else to keep"
        logs.log_for(settings, f"archive: skipped {path}: {reason}")
        return ArchiveResult(SKIPPED, path, session.session_id, reason=reason)
    from obsidian_memory.capture import redact

    rules = redact.rules(settings.redact)
    if settings.redact:
        from obsidian_memory.archive.sessions import prompt_texts
        if archive.redaction.rules_of(session.session_id) != rules:   # stored under other rules: all of it again
            archive.sessions.redact_again(session.session_id, redact.redact_session, rules)
        session = redact.redact_session(session, archived=prompt_texts(archive.sessions, session.session_id))
        session.transcript_path = path  # the fingerprint key; a secret in a path is its own problem
    session.machine = this_machine(settings)
    session.repo_id = repo_identity(session.cwd, archive)
    from obsidian_memory.capture.session_merge import KEEP_ARCHIVED

    decision, kept = archive.sessions.upsert(session, redacted_under=rules)
    if kept:
        logs.log_for(settings, f"archive: session {session.session_id}: {kept}")
    if compact_summary:
        _store_compact_summary(archive, settings, session.session_id, compact_summary, trigger)
    result = ArchiveResult(ARCHIVED, path, session.session_id, kept=kept,
                           record_kept=decision == KEEP_ARCHIVED and not compact_summary)
    if not hook:   # (a hook's note: _vault_work_of_a_hook)
        _write_note(settings, archive, session.session_id, result)
    return result


def _memory_off(settings, session_id: str | None) -> str | None:
    """`session_id` when the user started that session with OBSIDIAN_MEMORY=off (core.memory_off)."""
    from obsidian_memory.core import memory_off

    return session_id if session_id and session_id in memory_off.sessions(settings.home) else None


_UUID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")


def _uuid_stem(path: str) -> str | None:
    """The session id a transcript's name claims (Claude Code names it `<session-id>.jsonl`):
    a file whose entries belong to another session never stands in for that one."""
    stem = os.path.basename(path)[:-len(".jsonl")] if path.endswith(".jsonl") else ""
    return stem if _UUID.match(stem) else None


def is_empty(session) -> bool:
    return not (session.prompts or session.compact_summaries or session.last_assistant_message)


def is_excluded(session, settings) -> bool:
    """An excluded entry is a project name (glob patterns allowed) or an absolute folder whose
    sessions (cwd inside it) are not archived."""
    for entry in settings.excluded_projects or ():
        entry = str(entry).strip()
        if not entry:
            continue
        if os.path.isabs(os.path.expanduser(entry)):
            folder = os.path.normpath(os.path.expanduser(entry))
            for cwd in [session.cwd, *(session.cwds or [])]:
                if cwd and (os.path.normpath(cwd) == folder or os.path.normpath(cwd).startswith(folder + os.sep)):
                    return True
        elif session.project and fnmatch.fnmatchcase(session.project.lower(), entry.lower()):
            return True
    return False


COMPACT_SUMMARY_LIMIT = 100_000   # characters of a PostCompact summary kept (real ones are ~5-20k)


def _store_compact_summary(archive, settings, session_id, text, trigger) -> None:
    from obsidian_memory.capture.redact import rules

    archive.sessions.add_compact_summary(session_id, capped_summary(text, redact=settings.redact), trigger=trigger,
                                         redacted_under=rules(settings.redact))


def capped_summary(text: str, *, redact: bool = True) -> str:
    """A PostCompact `compact_summary`, redacted and cut to COMPACT_SUMMARY_LIMIT characters under a
    visible mark (it reaches the note) when it was longer. Redaction sees a margin beyond the cut,
    so that a secret across the cut is recognised whole before it is cut away."""
    from obsidian_memory.core.textclean import strip_control

    length = len(text)
    if length > COMPACT_SUMMARY_LIMIT:
        text = text[:COMPACT_SUMMARY_LIMIT + 4096]
    if redact:
        from obsidian_memory.capture.redact import redact_text
        text = redact_text(text)
    text = strip_control(text)
    if length > COMPACT_SUMMARY_LIMIT:   # the mark first: the note and the context show a summary's start
        text = (f"[cut by obsidian-memory: this summary was {length:,} characters long; the first "
                f"{COMPACT_SUMMARY_LIMIT:,} are kept]\n\n" + text[:COMPACT_SUMMARY_LIMIT].rstrip() + "\n…")
    return text


# -- the vault side ------------------------------------------------------------------------------

def _write_note(settings, archive, session_id, result: ArchiveResult, *, hook: bool = False) -> None:
    """Render the note from the archive (under the vault lock, so that the last writer writes the
    newest state); on a vault problem keep the row, log, and touch nothing else. `hook`: the
    note is looked for only where that does not grow with the vault (_notes_a_hook_knows); a
    note no longer at its recorded path is left to the follow-up (`result.left`)."""
    from obsidian_memory.vault.notes import sessions as notes

    try:
        with FileLock(_lock_path(settings, "vault.lock"), timeout=VAULT_LOCK_SECONDS):
            revision = archive.sessions.revision(session_id)   # first: a change landing meanwhile stays pending
            session = archive.sessions.get(session_id)
            if session is None or (not session.started_at and not session.prompts):
                return  # only a PostCompact summary so far: the note waits for the transcript
            if session.origin != "transcript":
                return  # another machine's session: its note is that machine's to write
            recorded = archive.sessions.note_path(session_id)
            candidates = _notes_a_hook_knows(settings, archive, session) if hook else []
            if hook and ((recorded and not _still_findable(settings, recorded, session_id)) or candidates is None):
                result.left = "its note is not where it was (moved or deleted): looked for in the whole vault"
                return
            known = (lambda sid: candidates) if hook else (lambda sid: _known_note_paths(settings, archive, sid))
            owners = {session.machine, *archive.machines.former()} - {None}
            written = notes.write_note(session, settings, note_path=recorded,
                                       indexed=lambda sid: _indexed_note_paths(settings, sid),
                                       known=known, owners=owners,
                                       written=notes.Written.from_bytes(archive.sessions.note_written(session_id)),
                                       log=lambda message: logs.log_for(settings, f"archive: {message}"))
            archive.sessions.record_note(session_id, written.path, revision, written.to_bytes())
            result.note_path = written.path
    except (OSError, ValueError) as exc:
        result.note_error = f"{type(exc).__name__}: {exc}"
        logs.log_for(settings, f"archive: session {session_id} kept in the archive, note not written: "
                               f"{result.note_error}")


def _known_note_paths(settings, archive, session_id: str) -> list[str] | None:
    """The notes holding `session_id` by the archive's record of the vault, brought up to date
    now (vault_sessions.notes_of); None when that takes longer than NOTE_LOOKUP_SECONDS (many
    notes changed since the last run): then the note is looked for by a walk."""
    from obsidian_memory.vault.notes import vault_sessions

    return vault_sessions.notes_of(settings, archive, session_id, reading_seconds=NOTE_LOOKUP_SECONDS)


def _still_findable(settings, recorded: str, session_id: str) -> bool:
    """Whether a hook finds the session's note without a walk: at its recorded path (or evicted
    there by iCloud), or where the local index saw it last."""
    from obsidian_memory.vault.notes import sessions as notes

    return notes.evicted(settings, recorded) or notes.locate_note(
        settings, session_id, recorded, indexed=lambda sid: _indexed_note_paths(settings, sid),
        known=lambda sid: []) is not None      # (nothing known beyond: no walk)


def _notes_a_hook_knows(settings, archive, session) -> list[str] | None:
    """The notes of the session a hook knows of without a walk or a listing of the vault: those
    the archive's record of the vault gives for it (as the last sweep left it) and those at the
    paths a note of ours for it has (one a run killed before recording it wrote); None when the
    record gives one that is gone now (moved or deleted since: the follow-up's to tell). A note
    of it elsewhere that the record does not know yet is found by the next sweep."""
    from obsidian_memory.vault.notes import sessions as notes, vault_sessions

    root = vault_sessions.vault_root(settings)
    found = archive.vault_notes.paths(root, session.session_id) if root else []
    if not all(notes.note_exists(settings, path) for path in found):
        return None
    return found + [path for path in notes.note_names(session, settings)
                    if path not in found and notes.note_exists(settings, path)]


def _indexed_note_paths(settings, session_id: str) -> list[str]:
    """The notes whose `session_id` property is this one, as the local index last saw the vault
    (read-only, never brought up to date here: the caller checks each path). None known when
    there is no usable index."""
    from obsidian_memory.core import sqlitedb
    from obsidian_memory.search.store import VaultIndex

    try:
        index = VaultIndex.open_readonly(settings)
        if index is None:
            return []
        with index:
            return index.paths_with_property("session_id", session_id.lower())
    except (OSError, *sqlitedb.errors("Error")):      # (the index's library may be sqlean's)
        return []


def _rebuild_history(settings, archive, *, force: bool = False, deadline: float | None = None,
                     written=None, hook: bool = False) -> str:
    """Rewrite the history table from the session notes in the vault, and with it the activity
    note and (once) the Bases view, when this run wrote a note (`force`) or the archive changed
    since the table was last rendered (by any run, also one that was killed before it got
    here), or the private rules changed. A missing vault was logged with the note. When this run
    already brought the archive's record of the vault up to date (placing a new note: less than
    RUN_WALK_SECONDS ago), only the notes it `written` are looked at again. `hook`: only those
    are (the vault is not listed: the rest is the sweep's) while the archive's record of the vault
    describes this vault under the present private rules; when it does not (a new vault, new
    rules) and cannot be made to by `deadline`, nothing is written and the reason is returned
    (the work of the hook's follow-up; "" otherwise)."""
    from obsidian_memory.vault.privacy import Privacy

    rules = Privacy.of(settings).signature()      # a `private` folder added hides rows at the next sweep
    if not (force or archive.history.outdated(rules)) or not os.path.isdir(settings.vault):
        return ""
    from obsidian_memory.vault.notes import activity, bases, history, vault_sessions

    whole = not hook or not vault_sessions.record_describes(settings, archive, privacy_rules=rules)
    try:
        with FileLock(_lock_path(settings, "vault.lock"), timeout=VAULT_LOCK_SECONDS):
            changes = archive.history.changes()   # before the notes: a change landing meanwhile stays pending
            try:
                first_day = activity.week_starts(clock.now().date())[0].isoformat()
                _, notes, left = history.rebuild_from_notes(settings, archive, deadline=deadline, since=first_day,
                                                            written=[p for p in written or () if p],
                                                            walked_within=RUN_WALK_SECONDS if written else 0,
                                                            whole=whole, row_budget=HOOK_ROWS if hook else None)
            except vault_sessions.Incomplete as exc:
                if hook:
                    return f"the history note not updated yet ({exc})"
                logs.log_for(settings, f"archive: history note not updated yet ({exc}); the next sweep does it")
                return ""
            for what, build in (("activity note", lambda: notes is not None and activity.rebuild(settings, archive, notes)),
                                ("Bases view", lambda: bases.ensure_base(settings, archive))):
                try:
                    build()
                except (OSError, ValueError) as exc:
                    logs.log_for(settings, f"archive: {what} not updated: {type(exc).__name__}: {exc}")
            if left:     # (the table stays outdated: the follow-up renders all of it)
                return left
            archive.history.record_rendered(changes, rules)
    except (OSError, ValueError) as exc:
        logs.log_for(settings, f"archive: history note not updated: {type(exc).__name__}: {exc}")
    return ""


# -- a hook's vault work ----------------------------------------------------------------------

def _vault_work_of_a_hook(settings, archive, result: ArchiveResult) -> None:
    """A hook's vault work, once the archive row is durable: only what does not grow with the
    vault or the archive. The note is written where the archive recorded it (a session without
    one: _notes_a_hook_knows), and the history and activity notes are rendered from the
    archive's record of the vault with only this note read again. What that cannot do (a note
    moved since, a record that does not describe the vault) is left to a detached `sweep`
    started here. The session's pending mark, made before the vault is touched and removed once
    all of it is done, has the next SessionStart start a sweep too should the hook be killed
    first (cli/commands/sweep.py)."""
    mark = _mark_pending(settings, result.session_id)
    _write_note(settings, archive, result.session_id, result, hook=True)
    if not result.note_error and not result.left:
        result.left = _rebuild_history(settings, archive, force=bool(result.note_path), written=[result.note_path],
                                       deadline=time.monotonic() + HOOK_HISTORY_SECONDS, hook=True)
    if result.left:
        pid = _start_follow_up(settings)
        logs.log_for(settings, f"archive: session {result.session_id}: {result.left}; left to a sweep started now"
                               + (f" (pid {pid})" if pid else ""))
    elif not result.note_error and mark:
        from obsidian_memory.core import fsutil
        fsutil.unlink_quietly(mark)


def _mark_pending(settings, session_id: str | None) -> str | None:
    """Mark the session's vault work as pending (settings.pending_marks); the mark's path, or None
    when it cannot be made (the work goes on: the next sweep finds it by the archive anyway) or
    the id is no file name (it comes from the transcript)."""
    if not session_id or not _SESSION_ID.match(session_id):
        return None
    folder = settings.pending_marks
    path = os.path.join(folder, session_id)
    try:
        os.makedirs(folder, exist_ok=True)
        with open(path, "wb"):
            pass
        os.utime(path)
    except OSError:
        return None
    return path


def clear_pending_marks(settings, archive, older_than: float) -> None:
    """Remove the pending marks made before `older_than` (a time.time()) whose session's note is
    written and whose history is rendered (a sweep that started after them did that work)."""
    folder = settings.pending_marks
    try:
        names = os.listdir(folder)
    except OSError:
        return
    if archive.history.outdated():
        return
    waiting = {session_id for session_id, _ in archive.sessions.needing_note()}
    for name in names:
        path = os.path.join(folder, name)
        try:
            if name not in waiting and os.stat(path).st_mtime < older_than:
                os.unlink(path)
        except OSError:
            continue


def _start_follow_up(settings) -> int | None:
    """Start a detached `sweep` (spawn.start); its pid, or None when it could not start."""
    from obsidian_memory.core import spawn

    try:
        return spawn.start(spawn.command("sweep", "--wait", f"{FOLLOW_UP_WAIT_SECONDS:g}"), log_path=settings.log_path)
    except OSError as exc:
        logs.log_for(settings, f"archive: the follow-up sweep did not start ({type(exc).__name__}: {exc}); "
                               "the next session's does its work")
        return None


# -- many machines ----------------------------------------------------------------------

def this_machine(settings) -> str | None:
    """This installation's machine id (made on first use); None when machine.json is broken or
    cannot be written (logged once: `doctor` says how to fix it), so that nothing is lost."""
    from obsidian_memory.core import machine

    try:
        return machine.this_machine(settings)
    except (machine.MachineIdError, OSError) as exc:
        logs.log_once(settings.log_path, [f"machine id: {exc}; sessions are archived without one until it is fixed"])
        return None


def repo_identity(cwd: str | None, archive) -> str | None:
    """The identity of the repository of `cwd` (gitinfo.repo_identity; git runs only for a
    repository without a remote whose root commit this archive does not know yet)."""
    from obsidian_memory.core import gitinfo

    return gitinfo.repo_identity(cwd, known=archive.machines.known_repo_id, run_git=True)


def _claim_own_sessions(settings, archive) -> None:
    machine_id = this_machine(settings)
    if machine_id:
        archive.machines.claim_own_sessions(machine_id)


def _backfill_repo_ids(settings, archive) -> None:
    """This machine's sessions archived before repositories had an identity get one (from the
    repository's folder as it is now: a folder that is gone gives its name)."""
    from obsidian_memory.core import gitinfo

    for repo_root in archive.machines.repo_roots_without_id():
        identity = gitinfo.repo_identity(repo_root, run_git=True) if os.path.isdir(repo_root) else None
        name = os.path.basename(os.path.normpath(repo_root)).lower()
        archive.machines.set_repo_id(repo_root, identity or f"name:{name}")


def learn_from_vault(settings, archive, *, deadline: float | None = None) -> tuple[bool, int, int]:
    """Read the session notes that changed since last time and record the sessions this archive
    does not hold as its own (another machine's). Returns (whether any session note changed,
    sessions learned, notes left at the deadline). Raises OSError (no vault)."""
    from obsidian_memory.vault.notes import vault_sessions

    try:
        folder = vault_sessions.refresh(settings, archive, deadline=deadline)
    except vault_sessions.Incomplete:
        return True, 0, 1
    learned, left = vault_sessions.learn(settings, archive, folder, deadline=deadline)
    return folder.sessions_changed, learned, left


def _lock_path(settings, name: str) -> str:
    return os.path.join(settings.home, "locks", name)


# -- hooks ----------------------------------------------------------------------------------------

def handle_hook(payload: dict, settings, *, detached: bool = False) -> bool:
    """Archive the session a SessionEnd / PreCompact / PostCompact / Stop payload is about.
    Never raises: every problem goes to the log. A transcript with more than DETACH_BYTES not
    read yet (the first archive of a long session) is archived by a detached `hook archive
    --detached` given the same payload: a hook's budget (1.5 s by default at SessionEnd) is too
    short for the JSON of 100 MB, and Claude Code's kill at its end would leave no row. The
    detached runs take one lock: a second waits for the first, then reads on from where it
    stopped. True when the session was handed to such a process (what follows its archive is
    that process's to do)."""
    try:
        payload = payload if isinstance(payload, dict) else {}
        if detached:
            with FileLock(_lock_path(settings, "detached-archive.lock"), timeout=DETACHED_WAIT_SECONDS):
                return _handle_hook(payload, settings, detached=True)
        return _handle_hook(payload, settings)
    except Exception as exc:
        event = payload.get("hook_event_name") if isinstance(payload, dict) else None
        logs.log_for(settings, f"hook archive ({event or 'unknown event'}): {_describe(exc)}",
                     None if _is_busy(exc) else exc)
        return False


def _unread_bytes(settings, path: str) -> int:
    """How much of the transcript an archive would read (what its last read left unread)."""
    from obsidian_memory.capture import resume

    try:
        size = os.path.getsize(path)
    except OSError:
        return 0
    return size - resume.resumable_offset(settings.home, path) if size > DETACH_BYTES else 0


def _archive_detached(settings, payload: dict, path: str, unread: int) -> bool:
    """True when the detached process started (else the session is archived here)."""
    import json

    from obsidian_memory.core import spawn

    try:
        pid = spawn.start(spawn.command("hook", "archive", "--detached"), stdin_bytes=json.dumps(payload).encode(),
                          log_path=settings.log_path)
    except OSError as exc:
        logs.log_for(settings, f"hook archive: {path}: the detached archive did not start "
                               f"({type(exc).__name__}: {exc}); archived here")
        _handle_hook(payload, settings, detached=True)
        return False
    logs.log_for(settings, f"hook archive: {path}: {unread / 2**20:.0f} MB not read yet: "
                           f"archived by a detached process started now (pid {pid})")
    return True


def _handle_hook(payload: dict, settings, *, detached: bool = False) -> bool:
    """handle_hook's work; True when the session was handed to a detached process."""
    session_id = payload.get("session_id") if isinstance(payload.get("session_id"), str) else None
    path = payload.get("transcript_path") if isinstance(payload.get("transcript_path"), str) else None
    summary = payload.get("compact_summary") if isinstance(payload.get("compact_summary"), str) else None
    trigger = payload.get("trigger") if isinstance(payload.get("trigger"), str) else None
    if session_id is not None and not _SESSION_ID.match(session_id):
        logs.log_for(settings, f"hook archive: refused the payload: {session_id!r} is not a session id")
        return False
    if path:
        path = os.path.abspath(os.path.expanduser(path))
        refused = transcript_problem(settings, path, session_id)
        if refused:
            if os.path.lexists(path) or not session_id:   # (a transcript not written yet is no news)
                logs.log_for(settings, f"hook archive: transcript_path {path!r} refused: {refused}")
            path = None
    if not path and session_id:
        path = find_transcript(settings, session_id)
    if _memory_off(settings, session_id or (_uuid_stem(path) if path else None)):
        return False          # (no row, no summary, no note: whichever way the session would be kept)
    unread = _unread_bytes(settings, path) if path and not detached else 0
    if unread > DETACH_BYTES:
        return _archive_detached(settings, payload, path, unread)
    try:
        if path and os.path.getsize(path) > 0:
            # an unchanged transcript (e.g. Stop after nothing new) is not parsed again
            result = archive_transcript(path, settings, compact_summary=summary, trigger=trigger, force=False,
                                        session_id=session_id, hook=True)
            if result.status == FAILED:
                logs.log_for(settings, f"hook archive: {path}: {result.reason}")
            return False
        if summary and session_id:
            _archive_summary_only(settings, session_id, summary, trigger)
            return False
    except ArchiveDamaged as exc:
        logs.log_for(settings, f"hook archive: {exc}")
        if path:
            note_without_archive(path, settings, session_id)
        return False
    if path or session_id:
        logs.log_for(settings, f"hook archive: no transcript to archive for session {session_id!r} ({path!r})")
    return False


def note_without_archive(path: str, settings, session_id: str | None = None) -> str | None:
    """While the archive cannot be written, the session's note is rendered from its transcript
    alone (parsed, checked and redacted as for the archive) so that no session goes unrecorded.
    What is safe without the archive: no PostCompact summary is kept, the history table (rebuilt
    from the archive) is left alone, and a note showing more prompts than this transcript holds
    is not replaced (the transcript may be a shorter copy). Returns the note's path, if written."""
    from obsidian_memory.capture import transcript
    from obsidian_memory.core import fsutil
    from obsidian_memory.vault.notes import sessions as notes

    session = transcript.parse(path)
    claimed = session_id or _uuid_stem(path)
    if (claimed and session.session_id != claimed) or is_excluded(session, settings) or not session.prompts:
        return None
    if settings.redact:
        from obsidian_memory.capture.redact import redact_session
        session = redact_session(session)
    try:
        with FileLock(_lock_path(settings, "vault.lock"), timeout=VAULT_LOCK_SECONDS):
            indexed = lambda sid: _indexed_note_paths(settings, sid)   # noqa: E731
            found = notes.locate_note(settings, session.session_id, None, indexed)
            shown = notes.prompts_shown(fsutil.read_note(settings.vault, found)) if found else 0
            if shown is None or shown > len(session.prompts):
                logs.log_for(settings, f"hook archive: note {found} left as it is: it shows more than the "
                                       f"transcript {path} holds, and the archive cannot say which is right")
                return None
            relative = notes.write_note(session, settings, note_path=found, indexed=indexed,
                                        log=lambda message: logs.log_for(settings, f"hook archive: {message}")).path
    except (OSError, ValueError) as exc:
        logs.log_for(settings, f"hook archive: no note for session {session.session_id} either: "
                               f"{type(exc).__name__}: {exc}")
        return None
    logs.log_for(settings, f"hook archive: note {relative} written from the transcript alone (archive unusable)")
    return relative


def transcript_problem(settings, path: str, session_id: str | None = None) -> str:
    """Why `path` may not be read as a transcript Claude Code keeps ("" when it may): it must be a
    regular file (not a FIFO, a device, a folder) inside `$CLAUDE_CONFIG_DIR/projects/`, named
    after `session_id` when that is known. Nothing is opened to find out."""
    import stat

    root = os.path.realpath(settings.projects_dir)
    real = os.path.realpath(path)
    if not real.startswith(root + os.sep):
        return f"not inside {settings.projects_dir}"
    if not path.endswith(".jsonl"):
        return "not a .jsonl file"
    if session_id is not None and os.path.basename(path)[:-len(".jsonl")] != session_id:
        return f"not the transcript of session {session_id} (its name says otherwise)"
    try:
        mode = os.stat(real).st_mode
    except OSError as exc:
        return f"cannot be read ({exc.strerror or exc})"
    if not stat.S_ISREG(mode):
        return "not a regular file"
    return ""


def _archive_summary_only(settings, session_id, summary, trigger) -> None:
    """PostCompact without a readable transcript: keep the summary; the transcript comes later."""
    with writable_archive(settings) as archive:
        _claim_own_sessions(settings, archive)
        _store_compact_summary(archive, settings, session_id, summary, trigger)
        _vault_work_of_a_hook(settings, archive, ArchiveResult(ARCHIVED, session_id=session_id))


def find_transcript(settings, session_id: str) -> str | None:
    """`projects/*/<session_id>.jsonl`, for payloads that carry no usable transcript_path."""
    if not _SESSION_ID.match(session_id or ""):
        return None
    pattern = os.path.join(glob.escape(settings.projects_dir), "*", glob.escape(session_id) + ".jsonl")
    matches = [p for p in glob.glob(pattern) if not transcript_problem(settings, p, session_id)]
    return max(matches, key=os.path.getmtime) if matches else None


def _is_busy(exc: BaseException) -> bool:
    return isinstance(exc, sqlite3.OperationalError) and "locked" in str(exc).lower()


def _describe(exc: BaseException) -> str:
    if _is_busy(exc):
        return "the archive is locked by another writer; gave up (the next sweep archives this session)"
    return f"failed: {type(exc).__name__}: {exc}"


# -- many transcripts ------------------------------------------------------------------------------

def transcript_paths(settings) -> list[str]:
    """Every main transcript Claude Code keeps: `projects/*/*.jsonl`. Subagent sidechains are not
    sessions: newer versions keep them deeper (`<session>/subagents/agent-*.jsonl`, never
    matched), older ones beside the sessions as `agent-*.jsonl` (left out by name). Each is
    checked (transcript_problem) before it is read."""
    paths = glob.glob(os.path.join(glob.escape(settings.projects_dir), "*", "*.jsonl"))
    return sorted(p for p in paths if not is_subagent_transcript(p))


def is_subagent_transcript(path: str) -> bool:
    parent = os.path.basename(os.path.dirname(path))
    return os.path.basename(path).startswith("agent-") or parent == "subagents"


def import_transcripts(settings, *, since: str | None = None, project: str | None = None,
                       dry_run: bool = False, progress: bool = True) -> ImportSummary:
    """Backfill every transcript; unchanged ones (same size and mtime as at their last archive)
    are not parsed again, so a second run archives nothing."""

    since_epoch = clock.parse_since(since)
    paths = [p for p in transcript_paths(settings) if _modified_since(p, since_epoch)]
    return _archive_many(settings, paths, project=project, dry_run=dry_run, progress=progress)


def sweep(settings, *, exclude_session_ids=(), quiet_seconds: float = 300,
          deadline_seconds: float = SWEEP_DEADLINE_SECONDS, wait_seconds: float = 0) -> ImportSummary:
    """Archive the transcripts that are new or changed since their last archive and have been
    quiet for `quiet_seconds` (sessions whose end hooks never fired; a modification time in the
    future, left by a clock that was wrong, counts as quiet). One sweep at a time: a
    second one returns at once with an empty summary. A sweep stops starting new transcripts
    after `deadline_seconds` (the next one goes on): it runs unattended, holding its lock.
    `wait_seconds`: how long to wait for a running sweep first (a hook's follow-up, whose work a
    sweep that started before the hook may have passed)."""
    summary = ImportSummary()
    try:
        with FileLock(_lock_path(settings, "sweep.lock"), timeout=wait_seconds):
            excluded = set(exclude_session_ids or ())
            now = time.time()
            marks_before = now           # (a mark a hook makes while this sweep runs is that hook's: kept)
            paths, active = [], []
            for path in transcript_paths(settings):
                session_id = os.path.basename(path)[:-len(".jsonl")]
                try:
                    modified = os.path.getmtime(path)
                except OSError:
                    continue
                quiet = modified <= now - quiet_seconds or clock.from_the_future(modified, now)
                if session_id not in excluded:
                    (paths if quiet else active).append(path)
            summary = _archive_many(settings, paths, progress=False, learn=True,
                                    deadline=time.monotonic() + deadline_seconds, active=active)
            summary.active_seconds = quiet_seconds
            from obsidian_memory.capture import resume
            resume.forget_missing(settings.home)
            if os.path.isdir(settings.pending_marks):
                with _readonly_archive(settings) as archive:
                    clear_pending_marks(settings, archive, marks_before)
            if summary.stopped:
                logs.log_for(settings, f"sweep: stopped after {deadline_seconds:g} s with {summary.stopped} "
                                       "transcript(s) to go; the next sweep goes on")
            return summary
    except LockBusy:
        summary.busy = True
        return summary


def import_from_vault(settings, *, progress: bool = True) -> dict:
    """Fill the archive from the session notes in the vault (`import --from-vault`): every
    session a note holds that the archive lacks (an empty or lost archive, a new machine) is
    recorded as the note holds it; this machine's own archived sessions are left as they are.
    Returns {"notes": counted session notes, "learned": sessions recorded, "machines": {machine:
    notes}, "conflicts": conflict copies, "duplicates": second notes}. Raises OSError (no vault)."""
    from obsidian_memory.vault.notes import vault_sessions
    from obsidian_memory.core.progress import track

    if not os.path.isdir(settings.vault):
        from obsidian_memory.vault.notes.sessions import VaultUnavailable
        raise VaultUnavailable(f"the vault {settings.vault} does not exist")
    with writable_archive(settings, refill=True) as archive:
        _claim_own_sessions(settings, archive)
        folder = vault_sessions.refresh(settings, archive)
        counted, duplicates, conflicts = vault_sessions.canonical(folder.rows)
        def shown(items):
            return track(items, None if progress else False, desc="import", unit="note", leave=False)
        learned, _ = vault_sessions.learn(settings, archive, folder, missing=True, progress=shown)
        _rebuild_history(settings, archive, force=True)
    machines: dict = {}
    for row in counted:
        machines[row["machine"]] = machines.get(row["machine"], 0) + 1
    return {"notes": len(counted), "learned": learned, "machines": machines, "conflicts": len(conflicts),
            "duplicates": len(duplicates)}


def _archive_many(settings, paths, *, project=None, dry_run=False, progress=False, learn=False,
                  deadline: float | None = None, active=()) -> ImportSummary:
    """Archive `paths`; of `active` (transcripts left alone, being written) count those that changed
    since their last archive."""
    from obsidian_memory.archive import is_damage

    summary = ImportSummary()
    if dry_run and not os.path.exists(settings.archive):
        known = {}
    else:
        with (writable_archive(settings) if not dry_run else _readonly_archive(settings)) as archive:
            if not dry_run:
                archive.quick_check()   # (a batch: worth one read of the file before writing to it)
            known = archive.transcripts.fingerprints()
    summary.active = sum(1 for path in active if known.get(os.path.abspath(path)) != _stat_fingerprint(path))
    if dry_run:
        for path in paths:
            if known.get(os.path.abspath(path)) == _stat_fingerprint(path):
                summary.add(ArchiveResult(UNCHANGED, path))
            elif project is None or _in_project(path, project):
                summary.would_archive.append(path)
        return summary
    with writable_archive(settings) as archive:
        from obsidian_memory.core.progress import track

        _claim_own_sessions(settings, archive)
        for index, path in enumerate(track(paths, None if progress else False, desc="import", unit="transcript",
                                           leave=False)):
            if deadline is not None and time.monotonic() >= deadline:
                summary.stopped = len(paths) - index
                break
            try:
                result = _archive_path(path, settings, archive, known, project)
            except Exception as exc:
                if is_damage(exc):
                    raise   # the whole archive, not this transcript: writable_archive says what to do
                cause = cannot_write(exc)
                if cause:   # every transcript after this one would fail the same way: say it once
                    summary.halted = f"{cause}; {len(paths) - index} transcript(s) left for the next run"
                    logs.log_for(settings, f"archive: stopped at {path}: {summary.halted}")
                    return summary
                result = ArchiveResult(FAILED, path, reason=_describe(exc))
                logs.log_for(settings, f"archive: {path}: {result.reason}", None if _is_busy(exc) else exc)
            summary.add(result)
        _backfill_repo_ids(settings, archive)
        _redact_again(settings, archive, summary, deadline)
        _write_pending_notes(settings, archive, summary)
        notes_changed = False
        if learn and not summary.stopped and os.path.isdir(settings.vault):
            try:
                notes_changed, summary.learned, summary.notes_left = learn_from_vault(settings, archive,
                                                                                      deadline=deadline)
            except OSError as exc:
                logs.log_for(settings, f"sweep: session notes not read: {type(exc).__name__}: {exc}")
        _rebuild_history(settings, archive, force=notes_changed)
        _index_for_recall(settings, archive, deadline)
        if learn:   # the sweep (detached, niced): the sessions' vectors too, with the semantic extra
            embed_for_recall(settings, archive, deadline=deadline)
    return summary


_FULL = {errno.EFBIG: "a file size limit (ulimit -f) was reached", errno.ENOSPC: "the disk is full",
         errno.EROFS: "the file system is read-only", getattr(errno, "EDQUOT", -1): "the disk quota is used up"}


def cannot_write(exc: BaseException) -> str:
    """The cause, in words, when `exc` says the archive (or the vault) cannot be written at all
    (a full disk, a file size limit, a read-only file system) rather than that one transcript is
    bad; "" otherwise."""
    if isinstance(exc, OSError) and exc.errno in _FULL:
        return f"cannot write: {_FULL[exc.errno]} ({exc.strerror})"
    text = str(exc).lower()
    if isinstance(exc, sqlite3.OperationalError) and any(
            mark in text for mark in ("disk i/o error", "database or disk is full", "readonly database")):
        return (f"cannot write the archive: {exc} (a full disk, a file size limit such as `ulimit -f`, or a "
                "read-only folder)")
    return ""


def _redact_again(settings, archive, summary: ImportSummary, deadline: float | None) -> None:
    """The sessions stored under other redaction rules than the present ones (redaction turned on,
    a pattern added by an upgrade, or archived before the rules were recorded) and not archived
    again since: redacted again whole, one a transaction (a hook waits for one session at most), at
    most REDACT_AGAIN_PER_RUN a run and until `deadline`. The notes of those whose text changed
    are written again after (_write_pending_notes). Nothing to do while redaction is off."""
    if not settings.redact:
        return
    from obsidian_memory.archive import is_damage
    from obsidian_memory.capture.redact import redact_session, rules

    present = rules(True)
    done: set[str] = set()
    try:
        while len(done) < REDACT_AGAIN_PER_RUN and (deadline is None or time.monotonic() < deadline):
            batch = archive.redaction.stored_under_other_rules(present, REDACT_AGAIN_BATCH)
            if not batch:
                return
            if done.intersection(batch):   # a record that does not take its rows (damaged) would loop
                logs.log_for(settings, "archive: sessions redacted again a moment ago still count as stored "
                                       "under other rules (is the archive damaged? `obsidian_memory.py doctor`)")
                return
            for session_id in batch[:REDACT_AGAIN_PER_RUN - len(done)]:
                if deadline is not None and time.monotonic() >= deadline:
                    break
                summary.redacted_again += archive.sessions.redact_again(session_id, redact_session, present)
                done.add(session_id)
        summary.redaction_left = bool(archive.redaction.stored_under_other_rules(present, 1))
    except Exception as exc:
        if is_damage(exc):
            raise   # the whole archive: writable_archive says what to do
        logs.log_for(settings, f"archive: archived sessions not redacted again: {_describe(exc)}",
                     None if _is_busy(exc) else exc)


def _index_for_recall(settings, archive, deadline: float | None) -> None:
    """Put the sessions archived before the recall index existed (or before its term rules last
    changed: the index is then emptied first) into it, newest first, in
    batches (each its own transaction), until `deadline` (time.monotonic(); None: all). A session
    still missing after it was indexed in this run ends it: an index that does not take its rows
    (damaged) would otherwise have the loop write the same batch forever."""
    indexed: set[str] = set()
    try:
        archive.recall.renew_if_outdated()
        while deadline is None or time.monotonic() < deadline:
            batch = archive.recall.sessions_missing(RECALL_BATCH)
            if not batch:
                return
            if indexed.intersection(batch):
                logs.log_for(settings, "archive: recall index not completed: sessions indexed a moment ago are "
                                       "still missing from it (is the archive damaged? `obsidian_memory.py doctor`)")
                return
            archive.recall.index(batch)
            indexed.update(batch)
    except Exception as exc:
        from obsidian_memory.archive import is_damage
        if is_damage(exc):
            raise   # the whole archive: writable_archive says what to do
        logs.log_for(settings, f"archive: recall index not completed: {_describe(exc)}", None if _is_busy(exc) else exc)


def embed_for_recall(settings, archive, *, deadline: float | None = None) -> int | None:
    """With the semantic extra, the vectors of the sessions that lack one (context.recall.similarity),
    newest first, until `deadline` (time.monotonic(); None: all); how many were made. None when the
    extra is not installed, its model does not load (logged) or another run is at it."""
    from obsidian_memory.context.recall.similarity import embed_sessions
    from obsidian_memory.search import semantic

    try:
        if not semantic.installed():
            return None
        with FileLock(_lock_path(settings, "recall-vectors.lock"), timeout=0):
            return embed_sessions(archive, deadline=deadline)
    except LockBusy:
        return None
    except Exception as exc:
        from obsidian_memory.archive import is_damage
        if is_damage(exc):
            raise   # the whole archive: writable_archive says what to do
        logs.log_for(settings, f"archive: session vectors for recall not completed: {_describe(exc)}",
                     None if _is_busy(exc) else exc)
        return None


def _write_pending_notes(settings, archive, summary) -> None:
    """Notes that are missing or behind the archive, because the vault was missing or unwritable
    when their session was archived, or the writer was killed in between: written once the vault
    is back. A note the user moved is found by its session_id and updated where it is; one the
    user deleted is not brought back (until its session changes again: a session whose hook left
    its note here, with a pending mark, has changed, and its note is written as the hook would
    have written it)."""
    from obsidian_memory.vault.notes import sessions as notes

    if not os.path.isdir(settings.vault):
        return
    _remove_stale_temp_files(settings)
    just_tried = {r.session_id for r in summary.results if r.status == ARCHIVED}
    try:
        left_by_hooks = set(os.listdir(settings.pending_marks))   # their note is written as the hook would have
    except OSError:
        left_by_hooks = set()
    for session_id, recorded in archive.sessions.needing_note():
        if session_id in just_tried:
            continue   # its note failed a moment ago: logged already
        if recorded and session_id not in left_by_hooks and not notes.note_exists(settings, recorded):
            moved = notes.locate_note(settings, session_id, None, lambda sid: _indexed_note_paths(settings, sid),
                                      lambda sid: _known_note_paths(settings, archive, sid))
            if moved is None:   # deleted: as good as written, until the session changes again
                archive.sessions.record_note(session_id, recorded, archive.sessions.revision(session_id))
                continue
        _write_note(settings, archive, session_id, ArchiveResult(ARCHIVED, session_id=session_id))


def _remove_stale_temp_files(settings) -> None:
    """Temp files that a killed writer of ours left in the folders we write (ours by prefix and
    by a writer that is gone; nothing else is touched)."""
    from obsidian_memory.core import fsutil

    folders = set()
    for relative in (settings.sessions_folder, os.path.dirname(settings.history_note.strip("/"))):
        try:
            folders.add(fsutil.resolve_inside(settings.vault, relative))
        except ValueError:
            continue
    try:
        with FileLock(_lock_path(settings, "vault.lock"), timeout=VAULT_LOCK_SECONDS):
            for folder in sorted(folders):
                for path in fsutil.stale_temp_files(folder, recursive=folder != os.path.realpath(settings.vault)):
                    try:
                        os.unlink(path)
                    except OSError:
                        pass
    except OSError as exc:
        logs.log_for(settings, f"archive: stale temp files not checked: {type(exc).__name__}: {exc}")


def _archive_path(path, settings, archive, known, project) -> ArchiveResult:
    absolute = os.path.abspath(path)
    problem = transcript_problem(settings, absolute)
    if problem:   # a FIFO would block a reader forever, a link to /dev/zero feed it forever
        fingerprint = _stat_fingerprint(absolute)
        if fingerprint is not None and known.get(absolute) == fingerprint:
            return ArchiveResult(UNCHANGED, absolute)
        if fingerprint is not None:   # not tried again until it changes
            archive.transcripts.record(absolute, *fingerprint, status=FAILED)
        logs.log_for(settings, f"archive: {absolute}: not read: {problem}")
        return ArchiveResult(FAILED, absolute, reason=f"not read: {problem}")
    if project is not None:
        fingerprint = _stat_fingerprint(absolute)
        if known.get(absolute) == fingerprint:
            return ArchiveResult(UNCHANGED, absolute)
        if not _in_project(absolute, project):
            return ArchiveResult(SKIPPED, absolute, reason=f"not in project {project!r}")
    return _archive_one(absolute, settings, archive, force=False, known_fingerprint=known.get(absolute))


def _in_project(path: str, project: str) -> bool:
    from obsidian_memory.capture import transcript
    from obsidian_memory.archive import project_matches

    parsed = transcript.parse(path, include_subagents=False)
    return project_matches(project, parsed.project, parsed.repo_root)


def _stat_fingerprint(path: str):
    try:
        stat = os.stat(path)
    except OSError:
        return None
    return (stat.st_size, stat.st_mtime)


def _modified_since(path: str, since_epoch: float | None) -> bool:
    if since_epoch is None:
        return True
    try:
        return os.path.getmtime(path) >= since_epoch
    except OSError:
        return False
