"""`obsidian_memory.py reindex [--force] [--vault V]`: bring the local search index up to date."""
from __future__ import annotations

import sys


def add_arguments(parser) -> None:
    parser.add_argument("--force", action="store_true", help="re-read every note, not only the changed ones")
    parser.add_argument("--vault", default=None, help="the vault to index (default: settings)")


def run(args) -> int:
    from obsidian_memory import settings as settings_module
    from obsidian_memory.search import index

    settings = settings_module.load(vault=args.vault)
    stats = index.update(settings, force=args.force)
    sys.stdout.write(f"index {'rebuilt' if stats.rebuilt else 'updated'}: {stats.summary()}\n")
    return 0
