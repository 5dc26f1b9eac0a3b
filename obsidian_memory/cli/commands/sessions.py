"""`obsidian_memory.py sessions [--project NAME] [--machine NAME | --this-machine] [-n N] [--json]`:
recent archived sessions, of every machine that shares the vault (another machine's marked
`on <machine>`)."""
from __future__ import annotations

import json

from obsidian_memory.cli.cliutil import bounded_number

MAX_LIST = 1_000_000
JSON_KEYS = ("session_id", "title", "project", "cwd", "started_at", "ended_at", "prompt_count", "note_path",
             "machine", "repo_id", "this_machine")


def add_arguments(parser) -> None:
    parser.add_argument("--project", default=None, metavar="NAME",
                        help="only this project or repository (its worktrees too); globs like 'web*'")
    parser.add_argument("--machine", default=None, metavar="NAME",
                        help="only the sessions of this machine (its id or name; globs like 'lap*')")
    parser.add_argument("--this-machine", action="store_true", help="only this machine's own sessions")
    parser.add_argument("-n", "--limit", type=bounded_number(1, MAX_LIST), default=20, metavar="N",
                        help="how many (default 20)")
    parser.add_argument("--json", action="store_true", help="a JSON list instead of text")


def run(args) -> int:
    from obsidian_memory.core import clock, fsutil, machine, settings as settings_module
    from obsidian_memory.archive import MachineScope, open_archive
    from obsidian_memory.core.textclean import strip_control

    settings = settings_module.load()
    machines = MachineScope.of(settings, machine=args.machine, this_machine=args.this_machine)
    try:
        with open_archive(settings.archive, readonly=True) as archive:
            rows = archive.sessions.recent(project=args.project, limit=args.limit, machines=machines)
    except FileNotFoundError:
        rows = []
    rows = [{key: strip_control(value) if isinstance(value, str) else value for key, value in row.as_dict().items()}
            for row in rows]   # the archive holds cleaned text; an archive written by other means may not
    for row in rows:
        row["this_machine"] = machine.elsewhere(row["origin"], row["machine"]) is None
        if row["note_path"] and not fsutil.note_present(settings.vault, row["note_path"]):
            row["note_path"] = None     # a note is named only while it is in the vault
    if args.json:
        print(json.dumps([{key: row[key] for key in JSON_KEYS} for row in rows], ensure_ascii=False, indent=2))
        return 0
    if not rows:
        scope = (f" in project {args.project!r}" if args.project else "") + \
            (f" of machine {args.machine!r}" if args.machine else " of this machine" if args.this_machine else "")
        print("no archived sessions yet" + scope)
        return 0
    for row in rows:
        start = clock.to_local(row["started_at"])
        when = start.strftime("%Y-%m-%d %H:%M") if start else "????-??-?? ??:??"
        title = " ".join((row["title"] or "(untitled)").split())
        where = "" if row["this_machine"] else f"  on {row['machine'] or 'another machine'}"
        print(f"{when}  {row['session_id'][:8]}  {row['project'] or '-'}  {title}  "
              f"({row['prompt_count']} prompt{'' if row['prompt_count'] == 1 else 's'}){where}  {row['note_path'] or '(no note in the vault)'}")
    return 0
