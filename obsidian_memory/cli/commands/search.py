"""`obsidian_memory.py search`: the ranked vault search, or a regex over archived sessions.

`search "<query>" [...]` takes the same options as `search_vault.py` (`--mode` too) and calls the
same function (no subprocess). `search "<regex>" --sessions [--project NAME] [--since YYYY-MM-DD]
[--machine NAME | --this-machine] [--timeout S] [-n N] [--json]` searches titles, prompts,
answers, compaction summaries and outcomes in the archive (the sessions of every machine that
shares the vault), newest first, in bounded time (session_search).
"""
from __future__ import annotations

import sys

from obsidian_memory.cli.cliutil import bounded_number, refuse_outside_paths_for_the_agent
from obsidian_memory.core.errors import UserError
from obsidian_memory.search.session_search import DEADLINE_SECONDS, MAX_DEADLINE_SECONDS

PROG = "obsidian_memory.py search"


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
                       help="regex search over archived sessions: titles, prompts, answers, compaction summaries, "
                            "todos, plans, commits, pull requests, commands and errors")
    group.add_argument("--project", default=None, metavar="NAME",
                       help="with --sessions: only this project or repository (its worktrees too); globs like 'web*'")
    group.add_argument("--since", default=None, metavar="YYYY-MM-DD", help="with --sessions: started on or after")
    group.add_argument("--machine", default=None, metavar="NAME",
                       help="with --sessions: only the sessions of this machine (its id or name; globs like 'lap*')")
    group.add_argument("--this-machine", action="store_true", help="with --sessions: only this machine's sessions")
    group.add_argument("--timeout", type=bounded_number(0.1, MAX_DEADLINE_SECONDS, float), default=DEADLINE_SECONDS,
                       metavar="SECONDS", help="with --sessions: give up on a pattern that RE2 cannot run after "
                                           f"this long (default {DEADLINE_SECONDS:g}, at most {MAX_DEADLINE_SECONDS:g})")
    return parser


def run(args) -> int:
    if args.sessions:
        if args.mode:
            raise UserError("--mode ranks the vault search; --sessions is a regex over the archive")
        return run_sessions(args)
    if args.project or args.since or args.timeout != DEADLINE_SECONDS or args.machine is not None or args.this_machine:
        raise UserError("--project, --since, --machine, --this-machine and --timeout only apply with --sessions")
    from obsidian_memory.search import cli
    return cli.run_search(args)


def run_sessions(args) -> int:
    from obsidian_memory.core import machine, settings as settings_module
    from obsidian_memory.search import session_search
    from obsidian_memory.search import output

    if len(args.queries) != 1:
        raise UserError("--sessions takes one regular expression (quote it)")
    pattern = args.queries[0]
    from obsidian_memory.archive import MachineScope
    from obsidian_memory.core import session_text

    settings = settings_module.load(vault=args.vault)
    refuse_outside_paths_for_the_agent([*args.queries, args.project, args.machine], settings.vault)
    machines = MachineScope.of(settings, machine=args.machine, this_machine=args.this_machine)
    matches = session_search.grep_sessions(settings.archive, pattern, project=args.project, since=args.since,
                                           deadline=args.timeout, machines=machines,
                                           show_all=session_text.show_all(settings))
    results = [{**match.shown(), "this_machine": machine.elsewhere(match.origin, match.machine) is None}
               for match in matches[: args.limit]]
    print(output.sessions_json(pattern, results, total=len(matches)) if args.json
          else output.sessions_text(pattern, results, total=len(matches)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
