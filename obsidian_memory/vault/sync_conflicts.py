"""Copies that sync tools make of a file changed on two machines at once.

When two machines change one file before they sync, the sync tool keeps both: the file, and a
copy named after it. We recognise the copies of our own files (session notes, the history table,
the state, learnings and log notes) so that a copy is never counted as a second session or
indexed as a second note; `doctor` lists them for the user to merge and delete. The forms:

- Syncthing:            `name.sync-conflict-20260301-101500-ABCDEF7.md`
- Dropbox:              `name (Ann's conflicted copy 2026-03-01).md`, `name (conflicted copy …).md`
- Nextcloud / ownCloud: `name (conflicted copy 2026-03-01 101500).md`, `name_conflict-20260301-101500.md`
- Obsidian Sync, other: `name (conflict 2026-03-01 10-15).md`, `name (Conflict …).md`
- iCloud, Google Drive: `name 2.md`, `name (1).md`: an ordinary name too, so only for a file whose
  original name is one of ours (`copy_of(name, ours)`).

Import-light and pure: names in, names out.
"""
from __future__ import annotations

import re

_MARKED = [
    re.compile(r"^(?P<stem>.+?)\.sync-conflict-\d{8}-\d{6}(?:-[A-Za-z0-9]+)?(?P<ext>\.[^.]*)?$"),
    re.compile(r"^(?P<stem>.+?) \([^()]*conflict[^()]*\)(?P<ext>\.[^.]*)?$", re.IGNORECASE),
    re.compile(r"^(?P<stem>.+?)_conflict-\d{8}-\d{6}(?P<ext>\.[^.]*)?$", re.IGNORECASE),
]
_NUMBERED = re.compile(r"^(?P<stem>.+?)(?: \d{1,3}| \(\d{1,3}\))(?P<ext>\.[^.]*)?$")


def copy_of(name: str, ours=None) -> str | None:
    """The name of the file that `name` is a sync conflict copy of, or None when it is none.
    With `ours` (a test of a file name), only copies of our files count, and then numbered
    names (`x 2.md`, `x (1).md`) count too."""
    for pattern in _MARKED:
        match = pattern.match(name)
        if match:
            original = match.group("stem") + (match.group("ext") or "")
            return original if ours is None or ours(original) else None
    match = _NUMBERED.match(name)
    if match and ours is not None:
        original = match.group("stem") + (match.group("ext") or "")
        if ours(original):
            return original
    return None


# The names of our notes: a session note (`YYYY-MM-DD_<id8>.md`, a longer id on a clash) and the
# default names of the notes we keep (the history table, the activity note, the memory notes).
_SESSION_NOTE = re.compile(r"^\d{4}-\d{2}-\d{2}_[0-9A-Za-z][0-9A-Za-z_-]{3,}\.md$")
OUR_NOTE_NAMES = frozenset({"claude-session-history.md", "claude-activity.md", "claude-state.md",
                            "claude-learnings.md", "claude-log.md"})


def is_session_note_name(name: str) -> bool:
    """Whether `name` is the file name of one of our session notes."""
    return bool(_SESSION_NOTE.match(name))


def is_our_name(name: str) -> bool:
    return name in OUR_NOTE_NAMES or is_session_note_name(name)


def is_copy_of_ours(name: str) -> bool:
    """Whether `name` is a sync conflict copy of one of our notes (for the search index, which
    must not index a session twice). Cheap for ordinary names: the patterns run only on names
    that could be a copy: it starts as one of ours does (`claude-`, or a session note's date).
    The index's walk asks this of every note before each search (20,000 names: 3 ms, from 33)."""
    if not (name.startswith("claude-") or (name[:4].isdigit() and name[4:5] == "-")):
        return False
    lowered = name.lower()
    if "conflict" not in lowered and not lowered.endswith(").md") and not lowered[-4:-3].isdigit():
        return False
    return copy_of(name, is_our_name) is not None
