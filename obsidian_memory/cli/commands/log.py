"""`obsidian_memory.py log "TEXT"`: append a dated line to the agent log note."""
from __future__ import annotations

import sys


def add_arguments(parser) -> None:
    parser.add_argument("text", nargs="+", metavar="TEXT", help="the line to log (`-` reads stdin)")


def run(args) -> int:
    from obsidian_memory.core import settings as settings_module
    from obsidian_memory.vault.notes import memory

    settings = settings_module.load()
    text = sys.stdin.buffer.read().decode("utf-8", "replace") if args.text == ["-"] else " ".join(args.text)
    entry = memory.append_log(settings, text)
    sys.stdout.write(f"logged to {settings.log_note}: {entry}")
    return 0
