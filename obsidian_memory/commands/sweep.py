"""`obsidian_memory.py sweep [--quiet-seconds N] [--exclude-session ID]`: archive transcripts that
changed since their last archive and have been quiet for a while (missed end hooks). The
SessionStart hook starts it detached; one sweep runs at a time."""
from __future__ import annotations


def add_arguments(parser) -> None:
    parser.add_argument("--quiet-seconds", type=float, default=300, metavar="N",
                        help="only transcripts unmodified for N seconds (default 300)")
    parser.add_argument("--exclude-session", action="append", default=[], metavar="ID",
                        help="a session to leave alone (the one running now); repeatable")


def run(args) -> int:
    from obsidian_memory import archiver, settings as settings_module

    settings = settings_module.load()
    summary = archiver.sweep(settings, exclude_session_ids=args.exclude_session, quiet_seconds=args.quiet_seconds)
    print(summary.line())
    return 0
