"""`obsidian_memory.py show SESSION_ID_PREFIX [--all]`: an archived session's note, from the vault, or
rendered again from the archive when the note is gone or private; `--all` renders every prompt,
answer and summary uncut from the archive (a long session's note shows some of them)."""
from __future__ import annotations

import sys

from obsidian_memory.core import fsutil
from obsidian_memory.core.errors import UserError


def add_arguments(parser) -> None:
    parser.add_argument("session", metavar="SESSION_ID_PREFIX", help="the session id or its first characters")
    parser.add_argument("--all", action="store_true", dest="whole",
                        help="every prompt, answer and summary uncut, rendered from the archive (a long "
                             "session's note shows some of them)")


def run(args) -> int:
    from obsidian_memory.core import settings as settings_module
    from obsidian_memory.archive import open_archive
    from obsidian_memory.vault.notes import sessions as notes
    from obsidian_memory.vault.privacy import note_is_private

    prefix = args.session.strip()
    if not prefix:
        raise UserError("give a session id (or its first characters)")
    settings = settings_module.load()
    try:
        archive = open_archive(settings.archive, readonly=True)
    except FileNotFoundError:
        raise UserError(f"no session archive yet at {settings.archive}") from None
    with archive:
        session_id = _one_session(archive, prefix)
        note_path = archive.sessions.note_path(session_id)
        # a private note is not read out: the session is rendered from the archive instead
        text = None
        if not args.whole and not note_is_private(settings, note_path):
            text = fsutil.read_note(settings.vault, note_path) if note_path else None
        if text is None:
            text = notes.render_note(archive.sessions.get(session_id), settings, whole=args.whole)
    from obsidian_memory.core.textclean import strip_control
    text = strip_control(text)   # the note is the user's file too: no escape reaches the terminal
    sys.stdout.write(text if text.endswith("\n") else text + "\n")
    return 0


def _one_session(archive, prefix: str) -> str:
    candidates = archive.sessions.find(prefix)
    if not candidates:
        raise UserError(f"no archived session starts with {prefix!r}")
    if len(candidates) > 1:
        shown = ", ".join(candidates[:10]) + (f", … ({len(candidates)} in all)" if len(candidates) > 10 else "")
        raise UserError(f"{prefix!r} matches several sessions: {shown}")
    return candidates[0]
