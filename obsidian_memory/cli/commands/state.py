"""`obsidian_memory.py state [show | set TEXT | clear]`: the working-state note (what you are
doing now), which the SessionStart hook injects first. `set -` reads the text from stdin."""
from __future__ import annotations

import sys

from obsidian_memory.core.errors import UserError


def add_arguments(parser) -> None:
    parser.add_argument("action", nargs="?", choices=("show", "set", "clear"), default="show")
    parser.add_argument("text", nargs="*", metavar="TEXT", help="for `set`: the new state (`-` reads stdin)")


def run(args) -> int:
    from obsidian_memory.core import settings as settings_module
    from obsidian_memory.vault.notes import memory

    settings = settings_module.load()
    if args.action != "set" and args.text:
        raise UserError(f"`state {args.action}` takes no text (did you mean `state set ...`?)")
    if args.action == "show":
        return _show(settings, memory)
    if args.action == "clear":
        note = memory.clear_state(settings)
        sys.stdout.write(f"cleared the working state ({note})\n")
        return 0
    text = _text(args.text)
    if not text.strip():
        raise UserError("`state set` needs the text of the state (or `state clear`)")
    note = memory.set_state(settings, text)
    sys.stdout.write(f"working state set ({note}, {len(text.strip())} characters)\n")
    return 0


def _text(words: list[str]) -> str:
    if words == ["-"]:
        return sys.stdin.buffer.read().decode("utf-8", errors="replace")
    return " ".join(words)


def _show(settings, memory) -> int:
    import os

    if not os.path.isdir(settings.vault):
        raise UserError(f"no vault at {settings.vault}: set OBSIDIAN_VAULT or `vault:` in {settings.config_path}")
    from obsidian_memory.vault.privacy import note_is_private, refused

    if note_is_private(settings, settings.state_note):
        raise refused(settings.state_note)     # as the SessionStart context leaves it out
    body = memory.state_body(memory.read_state(settings))
    if not body.strip():
        sys.stdout.write(f"The working state is empty ({settings.state_note}); "
                         "set it with `obsidian_memory.py state set TEXT`.\n")
        return 0
    sys.stdout.write(body + "\n")
    return 0
