"""Claude Code's own auto memory of each repository, kept in the vault (opt-in: `auto_memory: true`,
which `install.py --auto-memory` writes): synced to the user's other machines with the vault,
searchable by our engines, readable in Obsidian. docs/agent-loop.md says what the pinned clients
do with the setting.

Claude Code takes `autoMemoryDirectory` as it is (no project folder appended), and ignores it in
a repository's checked-in `.claude/settings.json`; so each repository gets it in its
`.claude/settings.local.json` (read once the workspace is trusted, and in `-p` mode), pointing at
`<vault>/Meta/claude-memory/<repository>/`, named by the repository's identity so that its clones on
every machine share one memory. The SessionStart hook writes it at a repository's first session
(the client has read its settings by then: the memory moves from the next session on), copies the
memory files Claude Code kept so far into the vault folder when that is empty, never replaces an
`autoMemoryDirectory` it did not write, and records each edit in `<home>/auto-memory.json` so that
uninstall gives every file back as it was. Two first sessions at once (of two repositories) edit
that record one after the other, under one lock: neither loses the other's entry. We never inject
these files: the client loads MEMORY.md itself.
"""
from __future__ import annotations

import json
import os
import re

RECORD = "auto-memory.json"
FOLDER = "Meta/claude-memory"
KEY = "autoMemoryDirectory"
LOCAL = (".claude", "settings.local.json")
IGNORED = "/.claude/settings.local.json"
MAX_SETTINGS_BYTES = 1_000_000
RECORD_MAX_BYTES = 64_000_000   # the record of every repository's edit: never cut (an uninstall needs it whole)
LOCK_SECONDS = 2.0      # a SessionStart waits this long for another one's edit (the next session tries again)


def folder_for(settings, identity: str) -> str:
    """The vault folder of a repository's auto memory."""
    from obsidian_memory.core import fsutil

    name = identity.removeprefix("name:").replace("/", "-").replace(":", "-") or "repository"
    return settings.vault_path(f"{FOLDER}/{fsutil.safe_file_name(name)}")


def ensure(settings, cwd: str) -> str | None:
    """Point the auto memory of the repository of `cwd` into the vault, once; returns the folder
    when this call did it (None: outside a repository, already done, or the user's own setting).
    Raises LockBusy when another SessionStart holds the record longer than LOCK_SECONDS."""
    from obsidian_memory.core import fsutil, gitinfo, json_light
    from obsidian_memory.core.locks import FileLock

    toplevel, repo_root = gitinfo.find_repo(cwd)
    if toplevel is None or not os.path.isdir(settings.vault):
        return None
    path = os.path.join(toplevel, *LOCAL)
    with FileLock(os.path.join(settings.home, "locks", "auto-memory.lock"), timeout=LOCK_SECONDS):
        current = json_light.read_json(path, MAX_SETTINGS_BYTES)
        missing = isinstance(current, json_light.Unread) and current.reason == json_light.MISSING
        if isinstance(current, json_light.Unread) and current.reason in (json_light.MISSING, json_light.EMPTY):
            current = {}
        if isinstance(current, json_light.Unread) or KEY in current:
            return None   # no JSON object we read whole (the user's to look at), or a memory folder already set
        identity = gitinfo.repo_identity(cwd) or f"name:{os.path.basename(toplevel)}"
        target = folder_for(settings, identity)
        os.makedirs(target, exist_ok=True)
        _bring_over(settings.projects_dir, toplevel, target)
        made_folder = not os.path.isdir(os.path.dirname(path))
        os.makedirs(os.path.dirname(path), exist_ok=True)
        fsutil.atomic_write_text(path, json.dumps({**current, KEY: target}, indent=2, ensure_ascii=False) + "\n")
        excluded = _exclude_from_git(repo_root) if missing else None
        _record(settings.home, path, {"value": target, "created": missing, "excluded_in": excluded,
                                      "made_folder": made_folder})
    return target


def _bring_over(projects_dir: str, toplevel: str, target: str) -> None:
    """The memory Claude Code kept for this folder so far (~/.claude/projects/<folder>/memory),
    copied into an empty vault folder; never over a file there."""
    import shutil

    if os.listdir(target):
        return
    kept = os.path.join(projects_dir, re.sub(r"[^A-Za-z0-9]", "-", toplevel), "memory")
    if not os.path.isdir(kept):
        return
    for name in os.listdir(kept):
        source = os.path.join(kept, name)
        if os.path.isfile(source) and not os.path.lexists(os.path.join(target, name)):
            shutil.copy2(source, os.path.join(target, name))


def _exclude_from_git(repo_root: str | None) -> str | None:
    """A settings.local.json we made is kept out of git (as Claude Code keeps the one it makes):
    a line in the repository's own .git/info/exclude, never in a tracked file. Returns that file."""
    if not repo_root:
        return None
    exclude = os.path.join(repo_root, ".git", "info", "exclude")
    if not os.path.isdir(os.path.join(repo_root, ".git")):
        return None
    from obsidian_memory.core import fsutil

    text = fsutil.read_text(exclude) or ""
    if IGNORED in text.splitlines():
        return None
    os.makedirs(os.path.dirname(exclude), exist_ok=True)
    with open(exclude, "a", encoding="utf-8") as handle:
        handle.write(("" if not text or text.endswith("\n") else "\n") + IGNORED + "\n")
    return exclude


def records(home: str) -> dict:
    """settings.local.json path -> what we wrote there ({"value", "created", "excluded_in",
    "made_folder": whether we made its .claude folder})."""
    from obsidian_memory.core import json_light

    found = json_light.read_json(os.path.join(home, RECORD), RECORD_MAX_BYTES)
    return {} if isinstance(found, json_light.Unread) else found


def _record(home: str, path: str, entry: dict) -> None:
    """Add `entry` to the record (the caller holds the lock: read, changed and written whole)."""
    from obsidian_memory.core import fsutil

    found = records(home)
    found[path] = entry
    os.makedirs(home, exist_ok=True)
    fsutil.atomic_write_text(os.path.join(home, RECORD), json.dumps(found, indent=2, ensure_ascii=False) + "\n")


def undone(path: str, entry: dict, current: bytes | None) -> bytes | None | str:
    """What uninstall leaves of a settings.local.json we edited: the bytes to write, None to
    delete it, or "" to leave it as it is (gone, or its memory folder no longer ours)."""
    from obsidian_memory.core import json_light

    value = json_light.parse_json(current) if current is not None else None
    if not isinstance(value, dict) or value.get(KEY) != entry.get("value"):
        return ""
    del value[KEY]
    if not value and entry.get("created"):
        return None
    return (json.dumps(value, indent=2, ensure_ascii=False) + "\n").encode("utf-8")


def without_exclude_line(text: str) -> str:
    return "".join(line for line in text.splitlines(keepends=True) if line.rstrip("\r\n") != IGNORED)
