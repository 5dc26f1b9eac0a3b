"""`obsidian_memory.py learn "TEXT" [--tag T]...`: append a dated entry to the learnings note."""
from __future__ import annotations

import sys


def add_arguments(parser) -> None:
    parser.add_argument("text", nargs="+", metavar="TEXT", help="what was learned (`-` reads stdin)")
    parser.add_argument("--tag", action="append", default=[], metavar="T", help="a tag (repeatable)")


def run(args) -> int:
    from obsidian_memory.core import settings as settings_module
    from obsidian_memory.vault.notes import memory

    settings = settings_module.load()
    text = sys.stdin.buffer.read().decode("utf-8", "replace") if args.text == ["-"] else " ".join(args.text)
    entry = memory.add_learning(settings, text, args.tag)
    sys.stdout.write(f"added to {settings.learnings_note}:\n{entry}")
    return 0
