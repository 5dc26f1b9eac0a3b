"""`obsidian_memory.py import [--since YYYY-MM-DD] [--project NAME] [--dry-run]`: backfill every
transcript under $CLAUDE_CONFIG_DIR/projects/*/, skipping those archived and unchanged since.

`obsidian_memory.py import --from-vault`: fill the archive from the session notes in the vault
(every machine's), for a new machine or an archive that was lost; no transcript is read."""
from __future__ import annotations

from obsidian_memory.core.errors import UserError


def add_arguments(parser) -> None:
    parser.add_argument("--since", default=None, metavar="YYYY-MM-DD",
                        help="only transcripts modified on or after this day")
    parser.add_argument("--project", default=None, metavar="NAME", help="only sessions of this project")
    parser.add_argument("--dry-run", action="store_true", help="say what would be archived, write nothing")
    parser.add_argument("--from-vault", action="store_true",
                        help="instead of transcripts, record the sessions that the session notes in the vault hold "
                             "(every machine's) and the archive lacks")
    parser.add_argument("--vault", default=None, help="the Obsidian vault (default: $OBSIDIAN_VAULT or ~/Vault)")


def run(args) -> int:
    from obsidian_memory.capture import archiving as capture
    from obsidian_memory.core import settings as settings_module

    settings = settings_module.load(vault=args.vault)
    if args.from_vault:
        if args.since or args.project or args.dry_run:
            raise UserError("--from-vault reads every session note; --since, --project and --dry-run are for transcripts")
        return _from_vault(settings)
    summary = capture.import_transcripts(settings, since=args.since, project=args.project,
                                          dry_run=args.dry_run, progress=True)
    if args.dry_run:
        for path in summary.would_archive:
            print(f"would archive {path}")
        print(f"dry run: would archive {len(summary.would_archive)} / unchanged {summary.unchanged}")
        return 0
    for result in summary.results:
        if result.status == capture.FAILED:
            print(f"failed {result.transcript_path}: {result.reason}")
        elif result.status == capture.ARCHIVED and result.note_error:
            print(f"archived {result.session_id} without a note: {result.note_error}")
        if result.kept:
            print(f"kept {result.session_id}: {result.kept}")
    print(summary.line())
    return 1 if summary.failed or summary.halted else 0


def _from_vault(settings) -> int:
    from obsidian_memory.capture import archiving as capture

    try:
        found = capture.import_from_vault(settings, progress=True)
    except OSError as exc:
        raise UserError(f"cannot read the session notes: {exc}") from None
    machines = sorted(found["machines"].items(), key=lambda item: (-item[1], item[0] or ""))
    for machine, count in machines:
        print(f"{machine or '(no machine recorded)'}: {count} session note(s)")
    extra = []
    if found["conflicts"]:
        extra.append(f"{found['conflicts']} sync conflict copies left out")
    if found["duplicates"]:
        extra.append(f"{found['duplicates']} second notes of a session left out")
    print(f"learned {found['learned']} of {found['notes']} session(s) from the vault"
          + (f" ({'; '.join(extra)}: `obsidian_memory.py doctor` lists them)" if extra else ""))
    return 0
