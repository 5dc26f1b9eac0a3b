"""Memory off for one session: `OBSIDIAN_MEMORY=off claude` starts a session that gets no injected
memory (no SessionStart context, no prompt recall) and is never archived (no row, no note), by its
hooks or later by a sweep or an import.

Claude Code hands its environment to the hooks, so every hook of such a session sees the variable:
each one records the session's id in `<home>/sessions-off` (one id a line, appended) before
doing nothing, and the archiver leaves out a transcript whose session is listed there, whenever
and by whom it is read (the sweep that another session starts, `import`). Resuming the session
later without the variable does not archive it either: it stays off. What was archived before a
resume with the variable stays archived. Standard library only: every hook reads it.
"""
from __future__ import annotations

import os

ENV = "OBSIDIAN_MEMORY"
OFF = "off"
FILE = "sessions-off"
MAX_ID_CHARS = 128


def requested(environ=None) -> bool:
    """Whether this process runs for a session the user started with `OBSIDIAN_MEMORY=off`."""
    value = (os.environ if environ is None else environ).get(ENV, "")
    return value.strip().lower() == OFF


def remember(home: str, session_id: str | None) -> None:
    """Record that `session_id` is off, for good (raises OSError when it cannot be written)."""
    if not session_id or len(session_id) > MAX_ID_CHARS or any(c.isspace() for c in session_id):
        return
    if session_id in sessions(home):
        return
    os.makedirs(home, exist_ok=True)
    with open(os.path.join(home, FILE), "a", encoding="utf-8") as handle:   # one short line: appended whole
        handle.write(session_id + "\n")


def sessions(home: str) -> frozenset[str]:
    """The ids of the sessions that are off."""
    try:
        with open(os.path.join(home, FILE), encoding="utf-8", errors="replace") as handle:
            return frozenset(line.strip() for line in handle if line.strip())
    except OSError:
        return frozenset()
