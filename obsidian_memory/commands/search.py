"""`obsidian_memory.py search`: the ranked vault search, or a regex over archived sessions.

`search "<query>" [...]` takes the same options as `search_vault.py` (`--mode` too) and calls the
same function (no subprocess). `search "<regex>" --sessions [--project NAME] [--since YYYY-MM-DD] [-n N] [--json]`
searches titles, prompts and compaction summaries in the archive, newest first.
"""
from __future__ import annotations

import os
import re
import sys

from obsidian_memory.errors import UserError

PROG = "obsidian_memory.py search"
ALL = 1 << 62   # grep_sessions needs a limit; the total is worth knowing and the regex runs on every row anyway


def main(argv: list[str]) -> int:
    from obsidian_memory.search import cli

    parser = build_parser()
    return cli.guarded(PROG, lambda: run(parser.parse_args(cli.join_dash_values(list(argv)))))


def build_parser():
    from obsidian_memory.search import cli

    parser = cli.build_parser(PROG)
    parser.description = ("Ranked vault search (like search_vault.py), or with --sessions a regex "
                          "(Python syntax, case-insensitive) over archived sessions.")
    group = parser.add_argument_group("archived sessions")
    group.add_argument("--sessions", action="store_true",
                       help="regex search over titles, prompts and compaction summaries of archived sessions")
    group.add_argument("--project", default=None, help="with --sessions: only this project")
    group.add_argument("--since", default=None, metavar="YYYY-MM-DD", help="with --sessions: started on or after")
    return parser


def run(args) -> int:
    if args.sessions:
        if args.mode:
            raise UserError("--mode ranks the vault search; --sessions is a regex over the archive")
        return run_sessions(args)
    if args.project or args.since:
        raise UserError("--project and --since only apply with --sessions")
    from obsidian_memory.search import cli
    return cli.run_search(args)


def run_sessions(args) -> int:
    from obsidian_memory import settings as settings_module
    from obsidian_memory.search import output

    if len(args.queries) != 1:
        raise UserError("--sessions takes one regular expression (quote it)")
    pattern = args.queries[0]
    _check_pattern(pattern)
    if args.limit < 1:
        raise UserError("the number of results (-n) must be at least 1")
    since = _check_date(args.since)
    settings = settings_module.load(vault=args.vault)
    matches = grep_sessions(settings.archive, pattern, project=args.project, since=since)
    results = matches[: args.limit]
    print(output.sessions_json(pattern, results, total=len(matches)) if args.json
          else output.sessions_text(pattern, results, total=len(matches)))
    return 0


def grep_sessions(archive_path: str, pattern: str, *, project=None, since=None, limit=None) -> list[dict]:
    """Matching sessions, newest first (all of them unless `limit`); a missing archive has none."""
    if not os.path.exists(archive_path):
        return []
    from obsidian_memory.archive import open_archive

    try:
        archive = open_archive(archive_path, readonly=True)
    except FileNotFoundError:  # a file that was never initialised as an archive
        return []
    try:
        rows = archive.grep_sessions(pattern, project=project, since=since, limit=limit or ALL)
    finally:
        close = getattr(archive, "close", None)
        if close:
            close()
    rows = [dict(row) for row in rows]
    rows.sort(key=lambda row: str(row.get("started_at") or ""), reverse=True)
    return rows[:limit] if limit else rows


def _check_pattern(pattern: str) -> None:
    try:
        re.compile(pattern, re.IGNORECASE)
    except re.error as exc:
        raise UserError(f"bad regular expression {pattern!r}: {exc}") from exc


def _check_date(value):
    if value is None:
        return None
    if not re.fullmatch(r"\d{4}-\d{2}-\d{2}", value):
        raise UserError(f"--since {value!r}: expected a date YYYY-MM-DD")
    import datetime
    try:
        datetime.date.fromisoformat(value)
    except ValueError as exc:
        raise UserError(f"--since {value!r}: {exc}") from exc
    return value


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
