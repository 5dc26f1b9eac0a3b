"""This installation's machine id: a readable name and a short random suffix (`laptop-3f9a2c`).

Every session note records the machine that wrote it, so that the machines sharing a vault tell
their sessions apart and none rewrites another's note. The id lives in `machine.json` in our own
folder (`$CLAUDE_CONFIG_DIR/obsidian-memory/`), not in config.yaml: config.yaml is the user's
file (they edit it, copy it between machines with their dotfiles, the installer rewrites it),
while the id must be made once, by us, and differ on every machine. The suffix keeps two
machines with the same host name apart; the name part is what people read.

`{"id": "laptop-3f9a2c", "host": "Laptop.local", "created": "2026-03-01T10:00:00Z"}`: the user may
edit `id` (a name of letters, digits, `.`, `_`, `-`); the machine's notes are then written with
the new id the next time they are archived. Import-light: read on the SessionStart path.
"""
from __future__ import annotations

import json
import os

FILE_NAME = "machine.json"
NAME_CHARS = 24
SUFFIX_BYTES = 3              # six hex digits
MAX_ID_CHARS = 64
MAX_FILE_BYTES = 64 * 1024


class MachineIdError(ValueError):
    """machine.json exists but holds no usable id (the user must fix or delete it)."""


def id_path(home: str) -> str:
    return os.path.join(home, FILE_NAME)


def read_id(home: str) -> str | None:
    """The id recorded in `home`, None when there is none yet. Raises MachineIdError for a file
    that holds no valid id."""
    from obsidian_memory.core import json_light

    path = id_path(home)
    value = json_light.read_json(path, MAX_FILE_BYTES)
    if isinstance(value, json_light.Unread) and value.reason == json_light.MISSING:
        return None
    if isinstance(value, json_light.Unread) and value.reason != json_light.WRONG_KIND:
        raise MachineIdError(f"{path} {value}: fix it or delete it (a new machine id is made)")
    machine = value.get("id") if isinstance(value, dict) else None
    if not valid_id(machine):
        raise MachineIdError(f"{path} holds no valid \"id\" (letters, digits, '.', '_', '-'; at most "
                             f"{MAX_ID_CHARS}): fix it or delete it (a new machine id is made)")
    return machine


def this_machine(settings) -> str:
    """This installation's id, made and recorded on first use. Raises MachineIdError (a broken
    machine.json) or OSError (a folder that cannot be written)."""
    home = settings.home
    machine = read_id(home)
    if machine:
        return machine
    from obsidian_memory.core import clock, fsutil
    from obsidian_memory.core.locks import FileLock

    with FileLock(os.path.join(home, "locks", "machine.lock"), timeout=10.0):
        machine = read_id(home)   # another process may have made it meanwhile
        if machine:
            return machine
        host = host_name()
        machine = new_id(host)
        record = {"id": machine, "host": host, "created": clock.utcnow_iso()}
        fsutil.atomic_write_text(id_path(home), json.dumps(record, ensure_ascii=False, indent=2) + "\n")
        return machine


def current(settings) -> str | None:
    """This installation's id if it has one (None when it has none yet or it cannot be read):
    for readers, which never make one."""
    try:
        return read_id(settings.home)
    except MachineIdError:
        return None


def new_id(host: str) -> str:
    import secrets
    return f"{readable_name(host)}-{secrets.token_hex(SUFFIX_BYTES)}"


def host_name() -> str:
    try:
        return os.uname().nodename
    except AttributeError:   # Windows
        return os.environ.get("COMPUTERNAME", "")


def readable_name(host: str) -> str:
    """The host name's first label in lower case, letters and digits joined by `-`; `machine`
    when nothing is left."""
    label = (host or "").strip().split(".", 1)[0].lower()
    words, word = [], []
    for char in label:
        if char.isascii() and char.isalnum():
            word.append(char)
        elif word:
            words.append("".join(word))
            word = []
    if word:
        words.append("".join(word))
    name = "-".join(words)[:NAME_CHARS].strip("-")
    return name or "machine"


def valid_id(value) -> bool:
    return (isinstance(value, str) and 0 < len(value) <= MAX_ID_CHARS and value[0].isascii()
            and value[0].isalnum() and all(c.isascii() and (c.isalnum() or c in "._-") for c in value))


def name_of(machine: str | None) -> str:
    """The readable part of an id (`laptop` of `laptop-3f9a2c`), for a short display."""
    if not machine:
        return ""
    name, dash, suffix = machine.rpartition("-")
    if dash and name and len(suffix) == 2 * SUFFIX_BYTES and all(c in "0123456789abcdef" for c in suffix):
        return name
    return machine


def elsewhere(origin: str | None, machine: str | None) -> str | None:
    """The machine to name for an archived session of `origin` ('transcript': this machine's own;
    'vault': learned from a note) and `machine`: None for this machine's own session, the
    machine its note names for one learned from the vault ("another machine" when it does not
    say), even when that is this machine's id: only the archive knows this machine's sessions,
    and every note in a shared vault shows that id for anyone to copy."""
    if origin != "vault":
        return None
    return machine or "another machine"


def matches(pattern: str, machine: str | None) -> bool:
    """`--machine PATTERN`: the id or its readable name, case aside; globs allowed."""
    import fnmatch

    if not machine:
        return False
    wanted = pattern.strip().lower()
    return any(fnmatch.fnmatchcase(candidate.lower(), wanted) for candidate in {machine, name_of(machine)})
