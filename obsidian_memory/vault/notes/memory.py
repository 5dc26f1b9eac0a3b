"""The memory notes in the vault: working state, learnings and the agent log.

- Working state (`settings.state_note`, default `Meta/claude-state.md`): free text, "what am I
  doing now". `set_state` replaces the text and keeps a YAML frontmatter block the user added;
  `clear_state` empties it (the file stays: links to it keep working).
- Learnings (`settings.learnings_note`, default `Meta/claude-learnings.md`): one entry per
  learning, appended at the end as a top-level list item

      - 2026-03-04 10:15 — the staging database is only reachable through the VPN #infra
        further lines of the same entry are indented by two spaces

  Whatever the user wrote by hand is kept. `learning_entries` reads any list item or paragraph
  as an entry; an entry without its own date takes the date of the nearest heading above it
  that has one (so `## 2026-03-04` headings work too), and undated entries count as the oldest.
- Agent log (`settings.log_note`, default `Meta/claude-log.md`): one dated line per call,
  appended, in the same `- YYYY-MM-DD HH:MM — text` form.

Written text has its terminal escapes stripped and its secrets redacted (unless `redact: false`).
Every write is atomic and taken under a lock (two `learn` calls at once both land). Reading is
on the SessionStart path: this module imports only os and re at the top.
"""
from __future__ import annotations

import os
import re

from obsidian_memory.vault import frontmatter
from obsidian_memory.core import fsutil

DASH = "—"
LEARNINGS_HEADING = "# Claude learnings\n"
LOG_HEADING = "# Claude agent log\n"
_DATE = r"(\d{4}-\d{2}-\d{2})(?:[ T](\d{2}:\d{2}))?"
_TAG = r"[^\s#,;]+"


class Entry:
    """One learning: its text (the lines as written), its date ('' if none) and position."""

    __slots__ = ("text", "date", "position")

    def __init__(self, text: str, date: str, position: int):
        self.text, self.date, self.position = text, date, position

    def __repr__(self):
        return f"Entry({self.date!r}, {self.text[:40]!r})"


# -- reading (SessionStart path) -------------------------------------------------------------

def read_state(settings) -> str | None:
    """The state note's text, or None when the vault or the note is missing."""
    return fsutil.read_note(settings.vault, settings.state_note)


def read_note_part(settings, relative: str, max_bytes: int, *, tail: bool = False) -> tuple[str | None, bool]:
    """(the first - or, with `tail`, the last - `max_bytes` of a note as text, whether that is
    only part of it). A tail starts at a line boundary. (None, False) when it cannot be read."""
    try:
        path = fsutil.resolve_inside(settings.vault, relative)
        with fsutil.open_regular(path) as handle:
            size = os.fstat(handle.fileno()).st_size
            if size <= max_bytes:
                return handle.read().decode("utf-8", errors="replace"), False
            if tail:
                handle.seek(size - max_bytes)
            data = handle.read(max_bytes)
    except (OSError, ValueError):
        return None, False
    data = data[data.find(b"\n") + 1:] if tail else data[: data.rfind(b"\n") + 1] or data
    return data.decode("utf-8", errors="replace"), True


def state_body(text: str | None) -> str:
    """The state note without frontmatter and surrounding blank lines."""
    if not text:
        return ""
    return frontmatter.split(text)[1].strip("\n")


def learning_entries(text: str | None) -> list[Entry]:
    """The entries of a learnings note, newest first (see the module docstring)."""
    if not text:
        return []
    entries: list[Entry] = []
    current: list[str] | None = None
    current_date = heading_date = ""
    in_fence = ""
    blank_pending = False

    def finish():
        nonlocal current
        if current:
            entries.append(Entry("\n".join(current).rstrip(), current_date, len(entries)))
        current = None

    for line in frontmatter.split(text)[1].splitlines():
        line = line.rstrip()
        if in_fence:
            if current is not None:
                current.append(line)
            if line.strip().startswith(in_fence):
                in_fence = ""
            continue
        fence = _fence_marker(line)
        if not line:
            blank_pending = current is not None
            continue
        indented = line[0] in " \t"
        if current is not None and indented:
            if blank_pending:
                current.append("")
            current.append(line)
        elif _is_heading(line):
            finish()
            match = re.search(_DATE, line) if any(ch.isdigit() for ch in line) else None
            heading_date = _date_key(match) if match else heading_date
        elif current is not None and not blank_pending and not fence and _list_body(line) is None:
            current.append(line)  # a paragraph's next line
        else:
            finish()
            current = [line]
            body = _list_body(line)
            current_date = _leading_date(line if body is None else body) or heading_date
        if fence:
            in_fence = fence
        blank_pending = False
    finish()
    return sorted(entries, key=lambda e: (e.date, e.position), reverse=True)


def _date_key(match) -> str:
    return match.group(1) + (" " + match.group(2) if match.group(2) else "")


# Line tests without regexes: each compiled regex costs the SessionStart hook ~50 us.

def _list_body(line: str) -> str | None:
    """The text after a list marker (`- `, `* `, `+ `, `1. `, `1) `), or None if not a list item."""
    if line[:1] in ("-", "*", "+"):
        marker = 1
    else:
        marker = len(line) - len(line.lstrip("0123456789"))
        if not marker or line[marker:marker + 1] not in (".", ")"):
            return None
        marker += 1
    if line[marker:marker + 1] not in (" ", "\t"):
        return None
    return line[marker:].lstrip()


def _is_heading(line: str) -> bool:
    level = len(line) - len(line.lstrip("#"))
    return 1 <= level <= 6 and line[level:level + 1] in (" ", "\t")


def _fence_marker(line: str) -> str:
    """'```' or '~~~' when the line opens or closes a fenced code block, else ''."""
    stripped = line.lstrip()
    return stripped[:3] if stripped[:3] in ("```", "~~~") else ""


def _leading_date(text: str) -> str:
    """'YYYY-MM-DD' or 'YYYY-MM-DD HH:MM' at the start of `text`, else ''."""
    day = text[:10]
    if not (len(day) == 10 and day[4] == day[7] == "-" and (day[:4] + day[5:7] + day[8:]).isdigit()):
        return ""
    clock = text[11:16]
    if text[10:11] in (" ", "T") and len(clock) == 5 and clock[2] == ":" and (clock[:2] + clock[3:]).isdigit():
        return f"{day} {clock}"
    return day


# -- writing (commands) ----------------------------------------------------------------------

def set_state(settings, text: str) -> str:
    """Replace the working state; returns the note's vault-relative path."""
    path = _writable(settings, settings.state_note)
    body = _clean(settings, text).strip("\n")
    with _lock(settings):
        block, _ = frontmatter.split(fsutil.read_text(path) or "")
        fsutil.atomic_write_text(path, block + (body + "\n" if body else ""))
    return settings.state_note


def clear_state(settings) -> str:
    return set_state(settings, "")


def add_learning(settings, text: str, tags=()) -> str:
    """Append a dated entry to the learnings note; returns the entry line(s) written."""
    entry = _dated_entry(_clean(settings, text), tags)
    _append(settings, settings.learnings_note, LEARNINGS_HEADING, entry)
    return entry


def append_log(settings, text: str) -> str:
    entry = _dated_entry(_clean(settings, text), ())
    _append(settings, settings.log_note, LOG_HEADING, entry)
    return entry


def normalise_tags(tags) -> list[str]:
    """`#infra`, `infra` -> `infra`; a tag with spaces or `#` inside is a UserError."""
    from obsidian_memory.core.errors import UserError

    clean = []
    for tag in tags or ():
        name = str(tag).strip().lstrip("#")
        if not name or not re.fullmatch(_TAG, name):
            raise UserError(f"bad tag {tag!r}: a tag is one word without spaces, commas or '#'")
        if name not in clean:
            clean.append(name)
    return clean


def _clean(settings, text: str) -> str:
    """What we write: no terminal escapes, and secrets redacted unless the user turned it off."""
    from obsidian_memory.core.textclean import strip_control

    text = strip_control(text or "")
    if settings.redact:
        from obsidian_memory.capture.redact import redact_text
        text = redact_text(text)
    return text


def _dated_entry(text: str, tags) -> str:
    from obsidian_memory.core.errors import UserError

    lines = [line.rstrip() for line in text.strip().splitlines()]
    if not lines or not lines[0]:
        raise UserError("the text is empty")
    stamp = _now_stamp()
    suffix = "".join(f" #{t}" for t in normalise_tags(tags))
    first = f"- {stamp} {DASH} {lines[0]}"
    rest = [f"  {line}" if line else "" for line in lines[1:]]
    if rest:
        rest[-1] += suffix
    else:
        first += suffix
    return "\n".join([first, *rest]) + "\n"


def _now_stamp() -> str:
    from obsidian_memory.core import clock
    return clock.now().strftime("%Y-%m-%d %H:%M")


def _append(settings, relative: str, heading: str, entry: str) -> None:
    path = _writable(settings, relative)
    with _lock(settings):
        existing = fsutil.read_text(path) if os.path.exists(path) else None
        if existing is None or not existing.strip():
            text = heading + "\n" + entry
        else:
            text = existing if existing.endswith("\n") else existing + "\n"
            if not _ends_in_list_item(text):
                text += "\n"  # a list item glued to a paragraph would join the paragraph
            text += entry
        fsutil.atomic_write_text(path, text)


def _ends_in_list_item(text: str) -> bool:
    lines = text.rstrip("\n").splitlines()
    if not lines or not lines[-1].strip():
        return True
    for line in reversed(lines):
        if line and line[0] not in " \t":
            return _list_body(line) is not None
    return False


def _writable(settings, relative: str) -> str:
    """The absolute path of a memory note; the vault must exist (we never create the vault)."""
    from obsidian_memory.core.errors import UserError

    if not os.path.isdir(settings.vault):
        raise UserError(f"no vault at {settings.vault}: set OBSIDIAN_VAULT or `vault:` in {settings.config_path}")
    try:
        path = fsutil.resolve_inside(settings.vault, relative)
    except ValueError as exc:
        raise UserError(f"the memory note path {relative!r} is not inside the vault ({exc})") from None
    if os.path.isdir(path):
        raise UserError(f"{path} is a folder, not a note")
    return path


def _lock(settings):
    from obsidian_memory.core.locks import FileLock
    return FileLock(os.path.join(settings.home, "locks", "memory-notes.lock"), timeout=10.0)
