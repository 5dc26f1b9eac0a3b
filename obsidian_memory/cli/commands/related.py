"""`obsidian_memory.py related PATH [--depth N] [--direction outgoing|backlinks|both] [--json] [--vault V]`:
the notes linked from and to a note, breadth-first, with the line of each link."""
from __future__ import annotations

import sys

from obsidian_memory.cli.cliutil import bounded_number


def add_arguments(parser) -> None:
    from obsidian_memory.search.graph import DIRECTIONS, MAX_DEPTH

    parser.add_argument("path", help="the note: vault-relative path, with or without .md, or its name if unique")
    parser.add_argument("--depth", type=bounded_number(1, MAX_DEPTH), default=1,
                        help=f"links to follow from the note (1-{MAX_DEPTH}, default 1)")
    parser.add_argument("--direction", default="both", choices=DIRECTIONS,
                        help="outgoing links, backlinks or both (default both)")
    parser.add_argument("--json", action="store_true", help="print JSON instead of text")
    parser.add_argument("--vault", default=None, help="the vault (default: settings)")


def run(args) -> int:
    from obsidian_memory.core import settings as settings_module
    from obsidian_memory.search import graph, output

    settings = settings_module.load(vault=args.vault)
    result = graph.related(settings, args.path, depth=args.depth, direction=args.direction)
    sys.stdout.write((output.to_json(result) if args.json else format_text(result)) + "\n")
    return 0


def format_text(result: dict) -> str:
    from obsidian_memory.core.textclean import one_line

    notes = result["notes"]
    lines = [f"related to {one_line(result['path'])} | {result['direction']}, depth {result['depth']} | "
             f"{len(notes)} note{'s' if len(notes) != 1 else ''}"]
    if not notes:
        lines.append("No linked notes.")
    for note in notes:
        arrow = "->" if note["depth"] > 0 else "<-"
        lines.append(f"{note['depth']:>+3} {arrow} {one_line(note['path'])}")
        if note["context"]:
            lines.append(f"       {one_line(note['context'])}")
    if result["unresolved"]:
        lines.append(f"unresolved links ({len(result['unresolved'])}):")
        for link in result["unresolved"]:
            lines.append(f"    [[{one_line(link['target'])}]]  {one_line(link['context'])}")
    return "\n".join(lines)
