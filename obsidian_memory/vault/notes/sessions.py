"""One Markdown note per archived session, rendered from the archive with `session.md.j2`.

The note is a rendering of the archive between two hidden markers, and around it the user's text
(note_layout: everything outside the markers is the user's and is kept byte for byte when the note
is rendered again). Every write is compare-and-swap against what was read (docs/vault-writes.md):
an editor or a sync client writing the note meanwhile is merged, never overwritten, and a note is
rewritten only when we can show we wrote it (`Written`: what the archive recorded we wrote last).
Transcript text cannot break the note: prompts and summaries go into code blocks whose fence is
longer than any backtick run they contain, single-line values are escaped, and the markers are
only recognised outside code blocks. A file the session touched
that is a private note of the vault (`privacy`), or lies in a private folder, is listed as
PRIVATE_FILE: its path is not written into a note that search returns.
"""
from __future__ import annotations

import json
import os
import re
import shlex
from dataclasses import dataclass, field

from obsidian_memory.core import clock, fsutil
from obsidian_memory.vault import frontmatter
from obsidian_memory.vault.notes import note_layout, session_view
from obsidian_memory.core.textclean import code_span, fenced, markdown_inline, quoted_prose, strip_control, yaml_scalar

TEMPLATE = "session.md.j2"
PRIVATE_FILE = "(a private note of the vault)"


class VaultUnavailable(OSError):
    """The vault folder does not exist: we never create the vault itself."""


class NotOurNote(OSError):
    """The file at the note's path holds another session, or is another machine's note: a
    machine never rewrites another machine's note."""


class NoteEvicted(OSError):
    """The note is there but iCloud evicted its content (`.Name.md.icloud`): it is written when
    it is downloaded again, never beside the placeholder."""


# -- paths ---------------------------------------------------------------------------------

def note_relative_path(session, settings, id_length: int = 8) -> str:
    """`<sessions_folder>/YYYY-MM/YYYY-MM-DD_<id8>.md`, dated by the session's local start (with
    more of the id when `id_length` says so). Nothing else of the session (its project, folder or
    title) goes into the path, and the id's part is made a valid name on every system the vault
    syncs to."""
    day = _local_start(session).strftime("%Y-%m-%d")
    folder = settings.sessions_folder.strip("/")
    return f"{folder}/{day[:7]}/{day}_{fsutil.safe_file_name(session.session_id[:id_length])}.md"


def note_name(note_path: str) -> str:
    """The wikilink name of a note: its file name without `.md`."""
    name = note_path.replace("\\", "/").rsplit("/", 1)[-1]
    return name[:-3] if name.endswith(".md") else name


def _local_start(session):
    start = clock.to_local(session.started_at)
    if start is None and session.transcript_mtime:
        import datetime as _dt
        start = _dt.datetime.fromtimestamp(session.transcript_mtime).astimezone()
    return start or clock.now()


# -- rendering -----------------------------------------------------------------------------

def render_note(session, settings=None, *, user_section: str | None = None, whole: bool = False) -> str:
    """A new note: the properties, the generated part, then `user_section` (or an empty
    `## My notes` section with a hint). `whole`: every prompt and text uncut (`show --all`),
    not the note's capped view."""
    front, region = render_parts(session, settings, whole=whole)
    return note_layout.compose(front, "", region, "\n" + user_section if user_section is not None
                               else note_layout.FRESH_TAIL)


def render_parts(session, settings=None, *, whole: bool = False) -> tuple[str, str]:
    """(our properties, the generated part with its markers) of the session's note."""
    from obsidian_memory.core import templating

    rendered = templating.render(TEMPLATE, settings, filters=FILTERS, **_context(session, settings, whole=whole))
    return note_layout.rendered_parts(rendered)


def _context(session, settings=None, *, whole: bool = False) -> dict:
    start, end = clock.to_local(session.started_at), clock.to_local(session.ended_at)
    shown = session_view.view(session, whole=whole)
    shown["files"] = _files_shown(shown["files"], settings)
    prompts = shown.pop("prompt_views")
    summary_texts = shown.pop("summary_texts")
    summaries = session.compact_summaries[len(session.compact_summaries) - len(summary_texts):]
    one_day = start is None or end is None or start.date() == end.astimezone(start.tzinfo).date()
    # the body's times on the wall clock of the session's start: the note records that one offset
    # (`started_utc`), and its reader reads every heading at it, so that a session across a change of
    # daylight saving time (01:30 twice in one night) reads back to the same instants
    zone = start.tzinfo if start is not None else None
    return {
        "session": session,
        "title": session.title or session.session_id,
        "started_iso": start.strftime("%Y-%m-%dT%H:%M:%S") if start else None,
        "ended_iso": end.strftime("%Y-%m-%dT%H:%M:%S") if end else None,
        "started_utc": clock.utc_seconds(start),     # the instants beside the wall clock (note_times)
        "ended_utc": clock.utc_seconds(end),
        "started_human": _human(start),
        "ended_human": _human(end, same_day_as=start),
        "duration": _duration(session.duration_seconds),
        "resume_command": _resume_command(session),
        "summaries": [{"text": text, "trigger": s.trigger, "when": _human(clock.to_local(s.timestamp, zone))}
                      for s, text in zip(summaries, summary_texts)],
        "prompts": [{**part, "when": _human(clock.to_local(session.prompts[part["number"] - 1].timestamp, zone),
                                            time_only=one_day)}
                    for part in prompts],
        **shown,
    }


def _files_shown(files: list[str], settings) -> list[str]:
    """The files touched, a private one of the vault replaced by PRIVATE_FILE (listed once)."""
    if settings is None or not files:
        return files
    from obsidian_memory.vault.privacy import Privacy

    privacy = Privacy.of(settings)
    roots = {os.path.abspath(settings.vault), os.path.realpath(settings.vault)}
    shown: list[str] = []
    for path in files:
        relative = _inside_vault(path, roots)
        if relative is not None and (privacy.path_is_private(relative) or (
                relative.lower().endswith(".md") and privacy.note_is_private(settings.vault, relative,
                                                                             unreadable=False))):
            path = PRIVATE_FILE
        if path != PRIVATE_FILE or path not in shown:
            shown.append(path)
    return shown


def _inside_vault(path: str, roots: set[str]) -> str | None:
    """The vault-relative form of an absolute path into the vault, else None."""
    if not isinstance(path, str) or not os.path.isabs(path):
        return None
    absolute = os.path.normpath(path)
    for root in roots:
        if absolute.startswith(root.rstrip(os.sep) + os.sep):
            return os.path.relpath(absolute, root).replace(os.sep, "/")
    return None


def _human(moment, *, same_day_as=None, time_only=False) -> str | None:
    if moment is None:
        return None
    if time_only or (same_day_as is not None and same_day_as.date() == moment.date()):
        return moment.strftime("%H:%M")
    return moment.strftime("%Y-%m-%d %H:%M")


def _duration(seconds) -> str | None:
    if not seconds or seconds < 0:
        return None
    minutes = int(round(seconds / 60))
    if minutes < 1:
        return f"{int(seconds)} s"
    hours, minutes = divmod(minutes, 60)
    return f"{hours} h {minutes:02d} min" if hours else f"{minutes} min"


def _resume_command(session) -> str:
    command = f"claude --resume {shlex.quote(session.session_id)}"
    cwd = strip_control(session.cwd or "").replace("\n", " ")
    return f"cd {shlex.quote(cwd)} && {command}" if cwd else command


# -- filters: how transcript text enters Markdown (textclean's helpers) ----------------------------

_DATETIME = r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d"


def yaml_datetime(value) -> str:
    """A date & time property as Obsidian reads it (`2026-03-04T09:00:00`, unquoted), or null."""
    return value if isinstance(value, str) and re.fullmatch(_DATETIME, value) else "null"


FILTERS = {"yaml": yaml_scalar, "inline": markdown_inline, "code": code_span, "fenced": fenced,
           "prose": quoted_prose, "datetime": yaml_datetime}


# -- writing -----------------------------------------------------------------------------------

WRITE_TRIES = 20          # compare-and-swap rounds against a note that keeps changing
RECENT_REGIONS = 8        # digests of the generated parts written before the last, kept


@dataclass
class Written:
    """What we last wrote as a session's note (the archive keeps it): where, the digest of the
    whole file, the generated part, and the digests of the generated parts written before it.
    It is how a note is shown to be ours: the markers alone can be forged or copied. `fresh`:
    the note was made anew because the one we had written could not be found (deleted, or
    moved while we looked): a note of ours found later beside it is that one, and the two are
    reconciled into one."""
    path: str
    sha256: str
    region: str
    recent: list[str] = field(default_factory=list)
    fresh: bool = False

    def to_bytes(self) -> bytes:
        import zlib
        return zlib.compress(json.dumps({"path": self.path, "sha256": self.sha256, "region": self.region,
                                         "recent": self.recent, "fresh": self.fresh}).encode("utf-8"))

    @classmethod
    def from_bytes(cls, data: bytes | None) -> "Written | None":
        if not data:
            return None
        import zlib
        try:
            value = json.loads(zlib.decompress(data).decode("utf-8"))
            return cls(str(value["path"]), str(value["sha256"]), str(value["region"]),
                       [str(d) for d in value.get("recent") or []][:RECENT_REGIONS], bool(value.get("fresh")))
        except (ValueError, KeyError, TypeError, zlib.error):
            return None

    def after(self, path: str, text: str, region: str, *, fresh: bool | None = None) -> "Written":
        recent = [self.region and note_layout.digest(self.region), *self.recent] if self.region else self.recent
        return Written(path, note_layout.digest(text), region,
                       [d for d in dict.fromkeys(recent) if d and d != note_layout.digest(region)][:RECENT_REGIONS],
                       self.fresh if fresh is None else fresh)

    def knows(self, region: str) -> bool:
        return region == self.region or note_layout.digest(region) in self.recent


def write_note(session, settings, *, note_path: str | None = None, indexed=None, known=None,
               owners: set | None = None, written: Written | None = None, log=None) -> Written:
    """Render and write the session's note; returns what was written (its path first).

    The note is found by its `session_id` property wherever the user moved it (the recorded
    `note_path` first, then `known(session_id)`'s and `indexed(session_id)`'s candidates, then,
    unless `known` could tell, a bounded walk), and rewritten only when it is ours (`_is_ours`:
    what we wrote last, `written`, shows it); the user's text around the generated part and the
    properties and tags they added are kept. A note of the user's that carries the session's id
    is left as it is (`log` says so) and ours is written at our own path. A new note goes to
    note_relative_path, with a longer name when a note of another session (the same first 8
    characters of its id) or a file of the user's is there. Every replace is compare-and-swap
    (fsutil.swap_file): what changed meanwhile is merged and tried again. With `owners` (the
    machine ids this machine has had), another machine's note of the session is never
    overwritten (NotOurNote). The vault itself is never created.
    Raises OSError (the vault is missing or read-only, the path is a folder, NoteEvicted, ...).
    """
    if not os.path.isdir(settings.vault):
        raise VaultUnavailable(f"the vault {settings.vault} does not exist")
    front, region = render_parts(session, settings)
    log = log or (lambda message: None)
    carried: str | None = None     # what our swaps displaced, merged, when the note then moved away from us
    for _ in range(WRITE_TRIES):
        try:
            relative, current = _our_note(settings, session.session_id, note_path, indexed, known, written, log,
                                          placed=region if carried is not None else None)
        except NoteMoving:
            continue
        if relative is None:
            relative = _free_note_path(session, settings, note_path)
            text = _merged(front, region, [carried], written)[0] if carried is not None \
                else note_layout.compose(front, "", region, note_layout.FRESH_TAIL)
            target = _target(settings, relative)
            try:
                fsutil.create_new(target, text.encode("utf-8"))
            except FileExistsError:
                continue     # a file appeared there meanwhile: look again
            return _record(written, relative, text, region, fresh=bool(written and written.path))
        seconds = _seconds_to_reconcile(settings, session.session_id, relative, known, written) \
            if written is not None and written.fresh and known is not None else None
        if seconds:
            relative, current = _keeper(relative, current, seconds, written)
        target = _target(settings, relative)
        existing = current.decode("utf-8", "replace")
        if owners is not None:
            _refuse_others_note(existing, session, owners, relative)
        text, moved = _merged(front, region,
                              [existing, *(data.decode("utf-8", "replace") for _, data in seconds or []),
                               *([carried] if carried is not None else [])], written)
        try:
            text = _swap_until_done(target, text, current, front, region, written)
        except NoteMovedAway as gone:
            carried = gone.text if gone.text is not None else carried
            note_path = note_path if note_path != relative else None
            continue         # moved or deleted meanwhile: look for it again
        if moved:
            log(f"note {relative}: {len(moved)} line(s) written inside the generated part moved below it")
        if seconds and _remove_reconciled(settings, target, seconds, region, written, log):
            log(f"note {relative}: the session's second note ({', '.join(path for path, _ in seconds)}), made "
                "while a note was moving, merged into it and removed")
            return _record(written, relative, fsutil.read_text(target) or text, region, fresh=False)
        return _record(written, relative, text, region, fresh=False if seconds == [] else None)
    raise OSError(f"the note of session {session.session_id} kept changing: left for the next run")


def _record(written: Written | None, relative: str, text: str, region: str, *, fresh: bool | None = None) -> Written:
    return (written or Written("", "", "")).after(relative, text, region, fresh=fresh)


# -- one session, one note: reconciling a second note made while a note was moving ----------------

def _seconds_to_reconcile(settings, session_id: str, relative: str, known,
                          written: Written) -> list[tuple[str, bytes]] | None:
    """The other notes of ours holding the session by the vault's record brought up to date now
    (`known`), once we made a note anew (`written.fresh`): they are the note that was moving and
    the one made beside it. Notes of the user's carrying the id are not among them. None when
    the record cannot tell."""
    listed = known(session_id)
    if listed is None:
        return None
    seconds = []
    for path in dict.fromkeys(listed):
        if path == relative or not is_note_of(settings, path, session_id):
            continue
        data = _read_bytes(settings, path)
        if data is not None and _is_ours(data.decode("utf-8", "replace"), path, None, written):
            seconds.append((path, data))
    return seconds


def _keeper(relative: str, current: bytes, seconds: list[tuple[str, bytes]],
            written: Written) -> tuple[str, bytes]:
    """Which of the notes stays: the one the user had (moved or renamed) rather than the one we
    made anew at the recorded path; `seconds` is left holding the others."""
    if relative != written.path:
        return relative, current
    seconds.append((relative, current))
    return seconds.pop(0)


def _remove_reconciled(settings, target: str, seconds: list[tuple[str, bytes]], region: str,
                       written: Written, log) -> bool:
    """Remove the second notes whose text is now in the note at `target`. Each is first moved
    aside (a hidden name, so that no writer opens it by its name any more) and read once no
    program holds it open; what was written into it since it was merged is appended to the
    note, as an editor appends. False when one could not be removed (it stays, for the next run)."""
    done = True
    for path, merged in seconds:
        source = fsutil.resolve_inside(settings.vault, path)
        aside = fsutil.move_aside(source)
        if aside is None:
            continue                     # gone already (the user deleted it)
        try:
            now = fsutil.read_file_when_closed(aside)
            if now != merged:
                _append_missing(target, fsutil.read_text(target) or "", now.decode("utf-8", "replace"), region,
                                written)
        except OSError as exc:
            fsutil.put_back(aside, source)
            log(f"note {path}: the session's second note could not be merged ({exc}): left for the next run")
            done = False
            continue
        fsutil.unlink_quietly(aside)
    return done


def _target(settings, relative: str) -> str:
    target = fsutil.resolve_inside(settings.vault, relative)
    if os.path.isdir(target):
        raise IsADirectoryError(f"{target} is a folder, not a note")
    return target


def _merged(front: str, region: str, versions: list[str], written: Written | None) -> tuple[str, list[str]]:
    """The note of `region` with the user's text of every one of `versions` (the file's states
    we saw in one write; usually one), their properties and tags kept. Returns (text, lines
    moved out of the generated part)."""
    before = after = None
    moved: list[str] = []
    properties = front
    for version in versions:
        mine_before, mine_after, mine_moved = note_layout.users_text(
            version, region, written.region if written else None, frozenset(written.recent) if written else frozenset())
        before = mine_before if before is None else note_layout.merge_lines(before, mine_before)
        after = mine_after if after is None else note_layout.merge_lines(after, mine_after)
        moved += mine_moved
        properties = keep_user_properties(properties, version)
    return note_layout.compose(properties, before or "", region, after or ""), moved


class NoteMovedAway(FileNotFoundError):
    """The note was moved or deleted while we wrote it. `text`: when a swap of ours had gone in
    already, the note we meant to put in place, holding what that swap displaced (the user's
    lines of the file it replaced, nowhere else now); None when nothing was displaced."""

    def __init__(self, text: str | None):
        super().__init__(2, "the note was moved or deleted meanwhile")
        self.text = text


def _swap_until_done(target: str, text: str, current: bytes, front: str, region: str,
                     written: Written | None) -> str:
    """Put `text` in place of the file that held `current`; when the file changed meanwhile,
    merge what it held and try again (WRITE_TRIES rounds, the retries without waiting for an
    fsync, so that each is quick). Returns the text put in place; raises NoteMovedAway."""
    expected = current
    placed = False
    for round_ in range(WRITE_TRIES):
        data = text.encode("utf-8")
        if data == expected:
            break
        try:
            done, there, replaced = fsutil.swap_file(target, data, expected, durable=round_ == 0)
        except FileNotFoundError:
            raise NoteMovedAway(text if placed else None) from None
        if done:
            break
        seen = there.decode("utf-8", "replace")
        placed = placed or replaced
        if replaced:   # ours is in place; `seen` is what it replaced: both users' texts are kept
            merged, _ = _merged(front, region, [text, seen], written)
            if round_ == WRITE_TRIES - 1:
                _append_missing(target, text, seen, region, written)
                break
            text, expected = merged, data
        else:
            text, _ = _merged(front, region, [seen], written)
            expected = there
    if round_:
        fsutil.sync_file(target)
    return text


def _append_missing(target: str, text: str, seen: str, region: str, written: Written | None) -> None:
    """The last round lost to a writer too: the user's lines that only `seen` (what our text
    replaced) holds are appended to the note in place, as an editor appends, so that none is lost."""
    references = [_merged("", region, [text], written)[0]]
    missing = note_layout.missing_lines(_merged("", region, [seen], written)[0], references)
    if missing:
        fsutil.append_bytes(target, ("\n" + "".join(line + "\n" for line in missing)).encode("utf-8"))


def _is_ours(text: str, relative: str, recorded: str | None, written: Written | None,
             placed: str | None = None) -> bool:
    """Whether the note at `relative` is ours to rewrite. With a record of what we wrote last:
    that file, or a note whose generated part is one we wrote (moved, with the user's text
    around it; `placed`: the one this very write put in before the note moved), or the note at
    the recorded path with our markers (the user wrote inside the generated part). Without one
    (an archive of an earlier version, or none): the note at the recorded path, a marked one,
    or one shaped as an earlier version of ours wrote it."""
    parts = note_layout.split(text)
    if placed is not None and parts.region == placed:
        return True
    if written is None or not written.region:
        return relative == recorded or parts.region is not None or note_layout.looks_like_earlier_note(text)
    if note_layout.digest(text) == written.sha256:
        return True
    if parts.region is None:
        return False
    return written.knows(parts.region) or relative == recorded


# -- finding a session's note ----------------------------------------------------------------------

WALK_FILE_LIMIT = 50_000     # notes a fallback walk looks at, at most
WALK_SECONDS = 3.0           # ... and for how long
_HEAD_BYTES = 4096           # a note's frontmatter is read from its first bytes


def note_session_id(text: str | None) -> str | None:
    """The `session_id` property of a note's frontmatter (read as the sweep reads it:
    `vault_sessions.properties_of`), or None."""
    value = _note_property(text, "session_id")
    return str(value) if value and not isinstance(value, (dict, list, bool)) else None


def is_note_of(settings, relative: str, session_id: str, *, unmarked: bool = False) -> bool:
    """The note at `relative` says it is this session's (`unmarked`: or says nothing: a note at
    the path the archive recorded, written before notes carried the property or stripped of it)."""
    try:
        target = fsutil.resolve_inside(settings.vault, relative)
    except ValueError:
        return False
    if not os.path.isfile(target):
        return False
    found = note_session_id(_head(target))
    return found == session_id or (unmarked and found is None)


def locate_note(settings, session_id: str, recorded: str | None, indexed=None, known=None) -> str | None:
    """Where the session's note is now (vault-relative), or None when no note in the vault says it
    is this session's: the recorded path when it still is; else the candidates `known` gives (the
    notes holding this session_id by a record of the vault brought up to date just now, complete:
    a list, maybe empty; None when it cannot tell) and those `indexed` gives (the local index's
    idea: it may lag); each is checked. Only when `known` could not tell, a walk of the vault
    (sessions folder first) bounded in files and time: with thousands of notes (other machines'
    too) a walk reads them all. Only when the recorded note is gone or not this session's is
    anything but that one file read."""
    return next(_notes_of(settings, session_id, recorded, indexed, known), None)


def _notes_of(settings, session_id: str, recorded: str | None, indexed=None, known=None,
              vanished: list | None = None):
    """The paths of the notes that say they are the session's, as locate_note looks for them.
    `vanished` collects the notes `known` listed that were gone a moment later (moved or
    deleted while we looked)."""
    if recorded and is_note_of(settings, recorded, session_id, unmarked=True):
        yield recorded
    complete = known(session_id) if known else None
    seen = {recorded}
    for candidate in complete or []:
        if candidate not in seen and is_note_of(settings, candidate, session_id):
            seen.add(candidate)
            yield candidate
        elif vanished is not None and not note_exists(settings, candidate):
            vanished.append(candidate)
    for candidate in (indexed(session_id) or []) if indexed else []:
        if candidate not in seen and is_note_of(settings, candidate, session_id):
            seen.add(candidate)
            yield candidate
    if complete is None:
        for candidate in _walk_for_notes(settings, session_id):
            if candidate not in seen:
                seen.add(candidate)
                yield candidate


class NoteMoving(OSError):
    """A note of the session was listed a moment ago and is gone now: it is being moved (or
    deleted); look again rather than make a second note beside it."""


def _our_note(settings, session_id: str, recorded: str | None, indexed, known, written: Written | None,
              log, placed: str | None = None) -> tuple[str | None, bytes | None]:
    """(path, bytes) of the session's note that is ours to rewrite, or (None, None). A note of the
    user's carrying the session's id is passed over (and logged); a placeholder iCloud left for
    an evicted note at the recorded path raises NoteEvicted; NoteMoving when no note was found
    but one the vault's record listed vanished as we looked."""
    if recorded and evicted(settings, recorded):
        raise NoteEvicted(f"{recorded} is evicted by iCloud (only its placeholder is in the vault): "
                          "written when it is downloaded again")
    vanished: list[str] = []
    for relative in _notes_of(settings, session_id, recorded, indexed, known, vanished):
        data = _read_bytes(settings, relative)
        if data is None:
            continue
        if _is_ours(data.decode("utf-8", "replace"), relative, recorded, written, placed):
            return relative, data
        log(f"note {relative} carries session {session_id}'s id but is not a note obsidian-memory wrote: "
            "left as it is; the session's note is written at its own path")
    if vanished:
        raise NoteMoving(f"the note of session {session_id} moved as it was looked for ({vanished[0]})")
    return None, None


def _read_bytes(settings, relative: str) -> bytes | None:
    try:
        with fsutil.open_regular(fsutil.resolve_inside(settings.vault, relative)) as handle:
            return handle.read()
    except (OSError, ValueError):
        return None


def evicted(settings, relative: str) -> bool:
    """Whether the note at `relative` is an iCloud placeholder only (`.Name.md.icloud` beside
    where the note was): the note is there, its content is in the cloud."""
    try:
        present = os.path.exists(fsutil.resolve_inside(settings.vault, relative))
    except ValueError:
        return False
    return not present and fsutil.note_present(settings.vault, relative)


def session_note_ids(settings, *, limit: int | None = None) -> set[str]:
    """The session ids of the notes in the sessions folder (by their `session_id` property);
    stops after `limit` found."""
    found: set[str] = set()
    root = os.path.join(os.path.realpath(settings.vault), *settings.sessions_folder.strip("/").split("/"))
    for folder, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames if not d.startswith(".")]
        for name in filenames:
            if name.endswith(".md") and not name.startswith("."):
                session_id = note_session_id(_head(os.path.join(folder, name)))
                if session_id:
                    found.add(session_id)
                    if limit is not None and len(found) >= limit:
                        return found
    return found


def prompts_shown(text: str | None) -> int | None:
    """The `prompts` property of a note of ours (how many prompts it shows), or None."""
    value = _note_property(text, "prompts")
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None


def _note_property(text: str | None, name: str):
    from obsidian_memory.vault.notes.vault_sessions import properties_of

    return properties_of(text).get(name) if text else None


def _walk_for_notes(settings, session_id: str):
    """The notes holding `session_id` by a walk of the vault (sessions folder first), bounded in
    files and time."""
    import time

    deadline = time.monotonic() + WALK_SECONDS
    seen = 0
    vault = os.path.realpath(settings.vault)
    needle = session_id.encode("utf-8")
    first = os.path.join(vault, *settings.sessions_folder.strip("/").split("/"))
    for top in dict.fromkeys([first, vault]):
        for folder, dirnames, filenames in os.walk(top):
            dirnames[:] = sorted(d for d in dirnames if not d.startswith(".")
                                 and os.path.join(folder, d) != first)   # (walked first)
            for name in sorted(filenames):
                if not name.endswith(".md") or name.startswith("."):
                    continue
                seen += 1
                if seen > WALK_FILE_LIMIT or time.monotonic() > deadline:
                    return
                path = os.path.join(folder, name)
                head = _head_bytes(path)
                if needle in head and note_session_id(head.decode("utf-8", "replace")) == session_id:
                    yield os.path.relpath(path, vault).replace(os.sep, "/")


def _head_bytes(path: str) -> bytes:
    try:
        with fsutil.open_regular(path) as handle:   # (a FIFO named x.md never blocks the walk)
            return handle.read(_HEAD_BYTES)
    except OSError:
        return b""


def _head(path: str) -> str:
    return _head_bytes(path).decode("utf-8", "replace")


def note_names(session, settings) -> list[str]:
    """The paths a note of ours for the session is given, in the order they are tried: the dated
    default named with 8, then 13 characters of the session id, then all of it."""
    return list(dict.fromkeys(note_relative_path(session, settings, length)
                              for length in (8, 13, len(session.session_id))))


def _free_note_path(session, settings, recorded: str | None) -> str:
    """The path for a new note: the recorded one (a note the user deleted comes back where it
    was) or the dated default, named with more of the session id while a note of another
    session or a file of the user's holds the name."""
    if recorded and not note_exists(settings, recorded):
        return recorded
    for candidate in note_names(session, settings):
        if not note_exists(settings, candidate):
            return candidate
    return f"{candidate[:-len('.md')]}-{os.getpid()}.md"   # (its own file: never someone else's)


# -- the user's properties -------------------------------------------------------------------------

_FRONT = re.compile(r"\A---\r?\n(.*?\r?\n)?---[ \t]*(?:\r?\n|\Z)", re.S)
_TOP_KEY = re.compile(r"^([^\s#:\-\[\]{}][^:\n]*?|\"[^\"\n]*\"|'[^'\n]*')[ \t]*:(?:[ \t]|$)")


def keep_user_properties(rendered: str, existing: str) -> str:
    """`rendered` with the frontmatter properties the user added to `existing` (kept verbatim,
    after ours) and their tags (added to ours). Our own properties are ours to rewrite."""
    ours, theirs = _FRONT.match(rendered), _FRONT.match(existing)
    if not ours or not theirs or not theirs.group(1):
        return rendered
    our_entries = _entries(ours.group(1) or "")
    their_entries = _entries(theirs.group(1))
    our_keys = {key for key, _ in our_entries}
    extra = [raw for key, raw in their_entries if key not in our_keys and key is not None]
    our_tags = _tag_list(our_entries)
    tags = our_tags + [tag for tag in dict.fromkeys(_tag_list(their_entries)) if tag not in our_tags]
    block = "".join(f"tags: [{', '.join(yaml_scalar(t) for t in tags)}]\n" if key == "tags" and tags != our_tags
                    else raw for key, raw in our_entries)
    block += "".join(raw if raw.endswith("\n") else raw + "\n" for raw in extra)
    return f"---\n{block}---\n" + rendered[ours.end():]


def _entries(block: str) -> list[tuple[str | None, str]]:
    """Top-level YAML entries: (key, its lines including nested and list lines)."""
    entries: list[list] = []
    for line in block.splitlines(keepends=True):
        match = _TOP_KEY.match(line)
        if match:
            entries.append([match.group(1).strip("\"'"), line])
        elif entries:
            entries[-1][1] += line
        else:
            entries.append([None, line])
    return [(key, raw) for key, raw in entries]


def _tag_list(entries) -> list[str]:
    raw = next((raw for key, raw in entries if key == "tags"), None)
    if raw is None:
        return []
    try:
        value = (frontmatter.load(raw) or {}).get("tags")
    except Exception:
        return []
    values = value if isinstance(value, list) else [value] if value is not None else []
    return [str(v).strip() for v in values if v is not None and str(v).strip()]


def _refuse_others_note(existing: str, session, owners: set, relative: str) -> None:
    from obsidian_memory.vault.notes.vault_sessions import properties_of

    properties = properties_of(existing)
    held, machine = properties.get("session_id"), properties.get("machine")
    if held and str(held) != session.session_id:
        raise NotOurNote(f"{relative} holds session {held}, not {session.session_id}: left as it is")
    if machine and str(machine) not in owners:
        raise NotOurNote(f"{relative} is the note of machine {machine}: only that machine writes it")


def note_exists(settings, note_path: str) -> bool:
    """Whether the note is in the vault (an iCloud placeholder of it counts: fsutil.note_present)."""
    return fsutil.note_present(settings.vault, note_path)


