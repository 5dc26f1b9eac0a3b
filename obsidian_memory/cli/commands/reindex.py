"""`obsidian_memory.py reindex [--force] [--embed] [--vault V]`: bring the local search index up to
date; with `--embed`, then start `embed` in the background for the semantic embeddings (the
optional extra: an embedding run takes minutes on a large vault, so it is not waited for;
`status` shows how far it got)."""
from __future__ import annotations

import sys

from obsidian_memory.core.errors import UserError


def add_arguments(parser) -> None:
    parser.add_argument("--force", action="store_true", help="re-read every note, not only the changed ones")
    parser.add_argument("--embed", action="store_true",
                        help="then embed new and changed notes in the background (semantic search)")
    parser.add_argument("--vault", default=None, help="the vault to index (default: settings)")


def run(args) -> int:
    from obsidian_memory.core import settings as settings_module
    from obsidian_memory.search import store

    from obsidian_memory.core.locks import LockBusy

    settings = settings_module.load(vault=args.vault)
    try:
        stats = store.update(settings, force=args.force)
    except LockBusy as exc:
        raise UserError(f"another `reindex --force` is rebuilding this vault's index ({exc})", code=1) from exc
    sys.stdout.write(f"index {'rebuilt' if stats.rebuilt else 'updated'}: {stats.summary()}\n")
    if args.embed:
        start_embedding(settings)
    return 0


def start_embedding(settings) -> None:
    from obsidian_memory.cli.commands import embed

    sys.stdout.flush()
    if not embed.start_detached(settings):
        raise UserError(f"embeddings not started: semantic search is off ({_why_off()})", code=1)
    sys.stdout.write("embeddings: started in the background (`obsidian_memory.py status` shows the progress; "
                     "errors go to the log)\n")


def _why_off() -> str:
    from obsidian_memory.search import semantic

    ok, why = semantic.available()
    return why if not ok else "the model loads here, but the embedding run could not start"
