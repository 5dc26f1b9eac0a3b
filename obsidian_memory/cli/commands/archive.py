"""`obsidian_memory.py archive PATH` (or `--transcript PATH`): archive one transcript file now."""
from __future__ import annotations

import os

from obsidian_memory.core.errors import UserError


def add_arguments(parser) -> None:
    parser.add_argument("path", nargs="?", metavar="PATH", help="the session's JSONL transcript")
    parser.add_argument("--transcript", metavar="PATH", help="the same, as an option (what the hooks once used)")
    parser.add_argument("--vault", default=None, help="the Obsidian vault (default: $OBSIDIAN_VAULT or ~/Vault)")


def run(args) -> int:
    from obsidian_memory.capture import archiving as capture
    from obsidian_memory.core import settings as settings_module

    if (args.path is None) == (args.transcript is None):
        raise UserError("give the transcript once: archive PATH (or --transcript PATH)")
    path = os.path.abspath(os.path.expanduser(args.path or args.transcript))
    if not os.path.isfile(path):
        raise UserError(f"no transcript file at {path}")
    settings = settings_module.load(vault=args.vault)
    result = capture.archive_transcript(path, settings)
    if result.status == capture.ARCHIVED:
        where = result.note_path or f"no note ({result.note_error or 'vault not written'})"
        print(f"archived {result.session_id}: {where}")
        if result.kept:
            print(f"kept {result.session_id}: {result.kept}")
        return 0
    if result.status in (capture.SKIPPED, capture.EXCLUDED):
        print(f"not archived: {result.reason}")
        return 0
    raise UserError(f"could not archive {path}: {result.reason}", code=1)
