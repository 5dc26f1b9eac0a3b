"""`obsidian_memory.py import [--since YYYY-MM-DD] [--project NAME] [--dry-run]`: backfill every
transcript under $CLAUDE_CONFIG_DIR/projects/*/, skipping those archived and unchanged since."""
from __future__ import annotations


def add_arguments(parser) -> None:
    parser.add_argument("--since", default=None, metavar="YYYY-MM-DD",
                        help="only transcripts modified on or after this day")
    parser.add_argument("--project", default=None, metavar="NAME", help="only sessions of this project")
    parser.add_argument("--dry-run", action="store_true", help="say what would be archived, write nothing")
    parser.add_argument("--vault", default=None, help="the Obsidian vault (default: $OBSIDIAN_VAULT or ~/Vault)")


def run(args) -> int:
    from obsidian_memory import archiver, settings as settings_module

    settings = settings_module.load(vault=args.vault)
    summary = archiver.import_transcripts(settings, since=args.since, project=args.project,
                                          dry_run=args.dry_run, progress=True)
    if args.dry_run:
        for path in summary.would_archive:
            print(f"would archive {path}")
        print(f"dry run: would archive {len(summary.would_archive)} / unchanged {summary.unchanged}")
        return 0
    for result in summary.results:
        if result.status == archiver.FAILED:
            print(f"failed {result.transcript_path}: {result.reason}")
        elif result.status == archiver.ARCHIVED and result.note_error:
            print(f"archived {result.session_id} without a note: {result.note_error}")
        if result.kept:
            print(f"kept {result.session_id}: {result.kept}")
    print(summary.line())
    return 1 if summary.failed or summary.halted else 0
