"""`obsidian_memory.py embed [--limit N] [--threads N] [--vault V] [--quiet | --progress]`: compute
the semantic embeddings of new and changed notes (the optional `semantic` extra).

`embed --sessions` computes instead the vectors of the archived sessions that prompt recall
compares a prompt with (context.recall.similarity): those not embedded yet, newest first. The
sweep does it too, and the end hooks start it in the background (`start_detached`).

Incremental: a note already embedded is not read again, an edited one re-embeds only the
texts that changed. Resumable: work is committed every few notes, so a killed run keeps what
it did and the next run carries on. A progress bar with an ETA shows on a terminal (or on
stderr wherever, with --progress). Polite: it runs at low priority (nice 10 on POSIX, below
normal on Windows) on `embed_threads` cores (default: all but one), so the machine stays
usable. Hooks never run this; `start_detached` runs it in the background (after `reindex`).
"""
from __future__ import annotations

import os
import sys

from obsidian_memory.cli.cliutil import bounded_number
from obsidian_memory.core.errors import UserError


def add_arguments(parser) -> None:
    parser.add_argument("--limit", type=bounded_number(1, 100_000_000), default=None, metavar="N",
                        help="embed at most N notes this run (the most recently changed first)")
    parser.add_argument("--threads", default=None, metavar="N",
                        help="cores to embed on (default: the embed_threads setting; 0 = all but one)")
    parser.add_argument("--vault", default=None, help="the vault (default: settings)")
    parser.add_argument("--sessions", action="store_true",
                        help="the archived sessions' vectors for prompt recall, not the vault's notes")
    shown = parser.add_mutually_exclusive_group()
    shown.add_argument("--quiet", action="store_true", help="no progress bar and no summary line")
    shown.add_argument("--progress", action="store_true",
                       help="a progress bar with an ETA on stderr even when it is not a terminal")


def run(args) -> int:
    from obsidian_memory.core import settings as settings_module
    from obsidian_memory.search import semantic
    from obsidian_memory.search.store import vectors

    if args.limit is not None and args.limit < 0:
        raise UserError("--limit must be 0 or more")
    settings = settings_module.load(vault=args.vault, threads=args.threads)
    if args.sessions:
        return _embed_sessions(settings, quiet=args.quiet)
    if not os.path.isdir(settings.vault):
        raise UserError(f"vault not found: {settings.vault} (set OBSIDIAN_VAULT or pass --vault)")
    threads = settings.embed_threads or semantic.default_threads()
    niceness = lower_priority()
    semantic.cap_threads(threads)           # before the model (and numpy) load
    ok, why = semantic.available()
    if not ok:
        raise UserError(f"semantic search is off: {why}", code=1)
    progress = False if args.quiet else True if args.progress else None
    try:
        stats = vectors.embed_vault(settings, limit=args.limit, progress=progress, threads=threads)
    except vectors.Busy as exc:
        raise UserError(str(exc), code=1) from exc
    if not args.quiet:
        sys.stdout.write(f"embeddings: {stats.summary()}\n")
        sys.stdout.write(f"            {stats.notes - stats.remaining} of {stats.notes} notes embedded"
                         f" with {stats.model}\n")
        sys.stdout.write(f"            on {threads} {'core' if threads == 1 else 'cores'} "
                         f"({semantic.threads_per_call()} thread per model call), {niceness}\n")
    return 0


def _embed_sessions(settings, *, quiet: bool) -> int:
    from obsidian_memory.capture.archiving import embed_for_recall, writable_archive
    from obsidian_memory.search import semantic

    if not os.path.isfile(settings.archive):
        raise UserError(f"no session archive at {settings.archive}", code=1)
    lower_priority()
    semantic.cap_threads(1)                 # one call at a time: a batch of sessions is small
    ok, why = semantic.available()
    if not ok:
        raise UserError(f"semantic search is off: {why}", code=1)
    with writable_archive(settings) as archive:
        made = embed_for_recall(settings, archive)
        if made is None:
            if quiet:   # (started in the background: the run at it, or the log, says the rest)
                return 0
            raise UserError("another run is embedding the sessions now (or it failed: see the log)", code=1)
        if not quiet:
            sys.stdout.write(f"session vectors: {made} made; {archive.recall_vectors.count(semantic.model_id())} of "
                             f"{archive.sessions.count()} sessions have one ({semantic.model_id()})\n")
    return 0


BELOW_NORMAL_PRIORITY_CLASS = 0x4000
NICENESS = 10


def lower_priority() -> str:
    """Run this process at low priority (interactive work goes first): nice +10 on POSIX, the
    below-normal class on Windows. Says what it is now, as the OS reports it."""
    if hasattr(os, "nice"):
        try:
            now = os.nice(0)
            if now < NICENESS:
                now = os.nice(NICENESS - now)
        except OSError:
            return "at normal priority (the OS refused to lower it)"
        return f"at nice {now}"
    try:
        import ctypes

        kernel32 = ctypes.windll.kernel32
        if kernel32.SetPriorityClass(kernel32.GetCurrentProcess(), BELOW_NORMAL_PRIORITY_CLASS):
            return "at below-normal priority"
    except (AttributeError, OSError):
        pass
    return "at normal priority (the OS refused to lower it)"


def start_detached(settings, *, sessions: bool = False) -> bool:
    """Start `embed --quiet` for this vault (`sessions`: `embed --sessions --quiet`) in the
    background (spawn.start); its errors go to the log. False (and nothing started) when semantic
    search is off here. Checks only that the package is installed: loading the model is the
    child's business."""
    from obsidian_memory.core import spawn
    from obsidian_memory.search import semantic

    if not semantic.installed():
        return False
    what = ("--sessions",) if sessions else ("--vault", settings.vault)
    spawn.start(spawn.command("embed", "--quiet", *what), log_path=settings.log_path)
    return True
