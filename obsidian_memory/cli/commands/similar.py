"""`obsidian_memory.py similar PATH [-n N] [--json] [--vault V]`: the notes most like a note, from
the index's lexical signals (shared rare words, shared tags, links in common); no model needed."""
from __future__ import annotations

import sys

from obsidian_memory.cli.cliutil import bounded_number


def add_arguments(parser) -> None:
    parser.add_argument("path", help="the note: vault-relative path, with or without .md, or its name if unique")
    parser.add_argument("-n", "--limit", type=bounded_number(1, 10_000), default=10, help="number of notes (default 10)")
    parser.add_argument("--json", action="store_true", help="print JSON instead of text")
    parser.add_argument("--vault", default=None, help="the vault (default: settings)")


def run(args) -> int:
    from obsidian_memory.core import settings as settings_module
    from obsidian_memory.core.errors import UserError
    from obsidian_memory.search import graph, output

    if args.limit < 1:
        raise UserError("-n must be 1 or more")
    settings = settings_module.load(vault=args.vault)
    result = graph.similar(settings, args.path, limit=args.limit)
    sys.stdout.write((output.to_json(result) if args.json else format_text(result)) + "\n")
    return 0


def format_text(result: dict) -> str:
    from obsidian_memory.core.textclean import one_line
    from obsidian_memory.search.output import format_score

    lines = [f"similar to {one_line(result['path'])} | engine: {one_line(result['engine'])} | "
             f"{len(result['results'])} result{'s' if len(result['results']) != 1 else ''}"]
    if not result["results"]:
        lines.append("No similar notes.")
    for number, hit in enumerate(result["results"], start=1):
        lines.append(f"{number}. {one_line(hit['path'])} ({format_score(hit['score'])})")
        for reason in hit["why"]:
            lines.append(f"   {one_line(reason)}")
    return "\n".join(lines)
