"""`obsidian_memory.py context [--cwd DIR] [--source S] [--session-id ID] [--json]`: what the
SessionStart hook would inject here, and its size. Starts no sweep."""
from __future__ import annotations

import os
import sys


def add_arguments(parser) -> None:
    from obsidian_memory.cli.cliutil import existing_folder
    from obsidian_memory.context.session_start import SOURCES

    parser.add_argument("--cwd", metavar="DIR", type=existing_folder,
                        help="the folder of the session (default: the current one)")
    parser.add_argument("--source", choices=SOURCES, default="startup", help="the SessionStart source (default startup)")
    parser.add_argument("--session-id", metavar="ID", help="the current session, left out of the recent sessions")
    parser.add_argument("--json", action="store_true", help="print the hook's JSON output instead of the text")


def run(args) -> int:
    from obsidian_memory.core import settings as settings_module
    from obsidian_memory.context.session_start import build_context, hook_json

    settings = settings_module.load()
    cwd = args.cwd or os.getcwd()
    text = build_context(settings, cwd=cwd, source=args.source, session_id=args.session_id)
    if args.json:
        if text:
            sys.stdout.write(hook_json(text) + "\n")
        return 0
    if not text:
        sys.stdout.write(f"Nothing to inject for {cwd}: no working state, no learnings, no archived session "
                         "of this repository. (The hook prints nothing then.)\n")
        return 0
    sys.stdout.write(text if text.endswith("\n") else text + "\n")
    sys.stdout.write(f"-- {len(text):,} characters of the {settings.effective_context_budget:,}-character budget\n")
    return 0
