"""`obsidian_memory.py read PATH [PATH ...] [--raw] [--max-chars N] [--json] [--vault V]`: notes from
the vault with their title, aliases, tags, links and backlinks. A path that names no note gets
the three closest existing paths; nothing outside the vault is ever read, a private note is
refused, and each body is cut at DEFAULT_MAX_CHARS unless asked otherwise. The agent runs it
pre-approved (the vault-search skill's second step), so inside Claude Code it reads only the
configured vault, as the search does."""
from __future__ import annotations

import sys

from obsidian_memory.cli.cliutil import (bounded_number, refuse_another_vault_for_the_agent,
                                         refuse_outside_paths_for_the_agent)

DEFAULT_MAX_CHARS = 20_000   # a long note stays within what the agent's shell shows at once


def add_arguments(parser) -> None:
    parser.add_argument("paths", nargs="+", metavar="PATH",
                        help="vault-relative note path, with or without .md, or a note name if unique")
    parser.add_argument("--raw", action="store_true", help="the whole file, frontmatter included")
    parser.add_argument("--max-chars", type=bounded_number(1, 100_000_000), default=DEFAULT_MAX_CHARS, metavar="N",
                        help=f"cut each body to N characters (default {DEFAULT_MAX_CHARS})")
    parser.add_argument("--json", action="store_true", help="print JSON instead of text")
    parser.add_argument("--vault", default=None, help="the vault (default: settings)")


def run(args) -> int:
    from obsidian_memory.core import settings as settings_module
    from obsidian_memory.search import output
    from obsidian_memory.search.reading import read_notes

    refuse_another_vault_for_the_agent(args.vault, None)
    settings = settings_module.load(vault=args.vault)
    refuse_outside_paths_for_the_agent(args.paths, settings.vault)
    notes = read_notes(settings, args.paths, raw=args.raw, max_chars=args.max_chars)
    sys.stdout.write((output.to_json({"notes": notes}) if args.json else format_text(notes)) + "\n")
    return 0


def format_text(notes: list[dict]) -> str:
    from obsidian_memory.core.textclean import one_line, strip_control

    blocks = []
    for note in notes:
        head = [f"=== {one_line(note['path'])} ==="]
        if note["aliases"]:
            head.append("aliases: " + ", ".join(one_line(a) for a in note["aliases"]))
        if note["tags"]:
            head.append("tags: " + " ".join("#" + one_line(t) for t in note["tags"]))
        head.append(_paths_line("links", note["links"]))
        head.append(_paths_line("backlinks", note["backlinks"]))
        body = strip_control(note["body"]).rstrip("\n")
        if note["truncated"]:
            body += f"\n[… cut at {len(note['body'])} characters: --max-chars N for more]"
        blocks.append("\n".join(head) + "\n\n" + body)
    return "\n\n".join(blocks)


def _paths_line(label: str, paths: list[str]) -> str:
    from obsidian_memory.core.textclean import one_line

    return f"{label}: " + (", ".join(one_line(p) for p in paths) if paths else "none")
