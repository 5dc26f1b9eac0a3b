"""`search_vault.py "query" ["query2" ...] [options]`: ranked search over the vault.

The skill pre-approves this command, so its interface is a contract (see `build_parser`).
Errors are one line on stderr and exit status 2; output never carries escape sequences.
"""
from __future__ import annotations

import argparse
import sys

from obsidian_memory.cli.cliutil import (OneLineParser, bounded_number, guarded, refuse_another_vault_for_the_agent,
                                         refuse_outside_paths_for_the_agent)
from obsidian_memory.search.dispatch import MODES, SOURCES

PROG = "search_vault.py"
DASH_VALUE_OPTIONS = ("--tag", "--frontmatter")


def add_search_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("queries", nargs="*", metavar="query",
                        help="search words (2-5 distinctive keywords); several queries are fused; none with "
                             "--tag, --folder or --frontmatter lists the matching notes, newest first")
    parser.add_argument("-n", "--limit", type=bounded_number(1, 10_000), default=10, help="number of results (default 10)")
    parser.add_argument("--folder", action="append", default=[], metavar="F",
                        help="only notes under this vault-relative folder (repeatable: any of them)")
    parser.add_argument("--exclude", action="append", default=[], metavar="X",
                        help="drop notes under this vault-relative folder (repeatable)")
    parser.add_argument("--tag", action="append", default=[], metavar="T",
                        help="only notes with this tag; -T excludes it (repeatable; local engines)")
    parser.add_argument("--frontmatter", action="append", default=[], metavar="KEY:VALUE",
                        help="only notes whose frontmatter has key: value; -key:value excludes (repeatable)")
    parser.add_argument("--source", default="auto", choices=SOURCES,
                        help="engine: auto = Omnisearch, else the local index, else the scanner (default auto)")
    parser.add_argument("--mode", default=None, choices=MODES,
                        help="ranking of the local index: hybrid (words + meaning), semantic, fulltext or "
                             "title (fuzzy note names); default hybrid when embeddings exist, else fulltext")
    parser.add_argument("--port", type=bounded_number(1, 65535), default=None, help="Omnisearch HTTP port (default $OMNISEARCH_PORT or 51361)")
    parser.add_argument("--vault", default=None, help="vault folder (default $OBSIDIAN_VAULT or ~/Vault)")
    parser.add_argument("--json", action="store_true", help="print JSON instead of text")
    parser.add_argument("--explain", action="store_true",
                        help="show what placed each hit: the ranking signals and, for several queries or "
                             "hybrid, each ranking's place")


def build_parser(prog: str = PROG) -> OneLineParser:
    parser = OneLineParser(prog=prog, allow_abbrev=False,
                           description="Ranked search over the Obsidian vault (Omnisearch when Obsidian "
                                       "runs, the local engines when not).")
    add_search_arguments(parser)
    return parser


def join_dash_values(argv: list[str]) -> list[str]:
    """`--tag -draft` -> `--tag=-draft`, so that argparse takes an exclusion for a value, not an option."""
    out, i = [], 0
    while i < len(argv):
        arg = argv[i]
        following = argv[i + 1] if i + 1 < len(argv) else None
        if arg in DASH_VALUE_OPTIONS and following and following.startswith("-") and not following.startswith("--"):
            out.append(f"{arg}={following}")
            i += 2
            continue
        out.append(arg)
        i += 1
    return out


def split_exclusions(values: list[str]) -> tuple[list[str], list[str]]:
    """(wanted, excluded): a leading `-` marks an exclusion."""
    wanted, excluded = [], []
    for value in values:
        (excluded if value.startswith("-") else wanted).append(value[1:] if value.startswith("-") else value)
    return wanted, excluded


def run_search(args) -> int:
    from obsidian_memory.core import settings as settings_module
    from obsidian_memory.search import output, search
    from obsidian_memory.search.dispatch import working_repository

    settings_module.warn_on(sys.stderr)
    refuse_another_vault_for_the_agent(args.vault, args.port)
    settings = settings_module.load(vault=args.vault, port=args.port)
    refuse_outside_paths_for_the_agent([*args.queries, *args.folder, *args.exclude, *args.tag, *args.frontmatter],
                                       settings.vault)
    tags, not_tags = split_exclusions(args.tag)
    frontmatter, not_frontmatter = split_exclusions(args.frontmatter)
    response = search(args.queries, settings, source=args.source, limit=args.limit, folders=args.folder,
                      excludes=args.exclude, tags=tags, not_tags=not_tags, frontmatter=frontmatter,
                      not_frontmatter=not_frontmatter, port=args.port, mode=args.mode, links=args.json,
                      explain=args.explain, repo_identity=working_repository)
    if args.json:
        for note in response.notes:
            sys.stderr.write(f"note: {output.clean(note)}\n")
        print(output.response_json(response))
    else:
        print(output.response_text(response))
    return 0


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser()
    return guarded(PROG, lambda: run_search(parser.parse_args(join_dash_values(argv))))


if __name__ == "__main__":
    sys.exit(main())
