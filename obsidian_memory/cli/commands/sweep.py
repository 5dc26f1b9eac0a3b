"""`obsidian_memory.py sweep [--quiet-seconds N] [--exclude-session ID] [--wait S]`: archive transcripts that
changed since their last archive and have been quiet for a while (missed end hooks). The
SessionStart hook starts it in the background (`start_in_background`, import-light, returning at
once when one runs already); one sweep runs at a time, and one run by hand waits for the one
running."""
from __future__ import annotations

import os

from obsidian_memory.core.settings import SWEEP_STAMP as STAMP  # noqa: F401 (the file's name, for its users)

INTERVAL_SECONDS = 600   # at most one background sweep per 10 minutes
HAND_WAIT_SECONDS = 60   # a sweep run by hand waits this long for one a hook started in the background


def add_arguments(parser) -> None:
    from obsidian_memory.cli.cliutil import bounded_number   # (not at the top: SessionStart imports this module)

    parser.add_argument("--quiet-seconds", type=bounded_number(0, 10 * 365 * 86400, float), default=300, metavar="N",
                        help="only transcripts unmodified for N seconds (default 300)")
    parser.add_argument("--exclude-session", action="append", default=[], metavar="ID",
                        help="a session to leave alone (the one running now); repeatable")
    parser.add_argument("--deadline", type=bounded_number(0, 24 * 3600, float), default=None, metavar="SECONDS",
                        help="start no new transcript after this long (default 300)")
    parser.add_argument("--wait", type=bounded_number(0, 3600, float), default=HAND_WAIT_SECONDS, metavar="SECONDS",
                        help=f"wait this long for a sweep running already, one a hook started (default "
                             f"{HAND_WAIT_SECONDS:g}; 0: return at once)")


def run(args) -> int:
    from obsidian_memory.capture import archiving as capture
    from obsidian_memory.core import settings as settings_module

    settings = settings_module.load()
    deadline = capture.SWEEP_DEADLINE_SECONDS if args.deadline is None else args.deadline
    summary = capture.sweep(settings, exclude_session_ids=args.exclude_session, quiet_seconds=args.quiet_seconds,
                             deadline_seconds=deadline, wait_seconds=args.wait)
    print(summary.line())
    return 0


def start_in_background(settings, session_id: str | None, *, now: float | None = None) -> bool:
    """Start `sweep --exclude-session <id>` detached, at most once per INTERVAL_SECONDS (the stamp
    file's time says when the last one started; a stamp from the future, left by a clock that was
    wrong, is stale), or sooner when a hook marked its vault work pending since then (a hook
    killed before it was done: settings.pending_marks). Returns whether a sweep was
    started."""
    import time

    from obsidian_memory.core import clock

    stamp = settings.sweep_stamp
    now = time.time() if now is None else now
    try:
        stamped = os.stat(stamp).st_mtime
        if (now - stamped < INTERVAL_SECONDS and not clock.from_the_future(stamped, now)
                and not _marked_since(settings, stamped)):
            return False
    except OSError:
        pass
    os.makedirs(settings.home, exist_ok=True)
    with open(stamp, "w", encoding="utf-8") as handle:
        handle.write(f"{int(now)}\n")
    os.utime(stamp, (now, now))
    from obsidian_memory.core import spawn   # (only when one starts: most session starts start none)

    spawn.start(spawn.command("sweep", "--wait", "0", *(["--exclude-session", session_id] if session_id else [])))
    return True


def _marked_since(settings, stamped: float) -> bool:
    """Whether a hook marked its vault work pending after the sweep of `stamped` started."""
    try:
        with os.scandir(settings.pending_marks) as entries:
            return any(entry.stat().st_mtime >= stamped for entry in entries)
    except OSError:
        return False
