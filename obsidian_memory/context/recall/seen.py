"""What a running session has already been shown, and how many prompts it has had: one small file
per session in our cache folder (`<cache>/prompt-recall/<session id>.json`).

The SessionStart hook records the sessions its context listed and how the session started; the
prompt hook notes the first prompt (later ones are not counted: only "had one" matters) and adds the
sessions it injected. Both add what they injected and why (the `injected` command reads it back). The file is a cache: written without waiting for the disk (no fsync). So the prompt hook knows the
first typed prompt of a session (`startup` or `clear`, no prompt yet; a resumed or forked session
has had its first prompt long ago) and never shows a session twice. A session whose SessionStart
left no file (a hook that failed, obsidian-memory installed mid-session) counts its first prompt
from the prompt hook's first run.

Files older than KEEP_DAYS are removed when a session starts. Import-light (the hooks run it).
"""
from __future__ import annotations

import os
import time

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable
    from typing import Any

    from obsidian_memory.core.settings import Settings

FOLDER = "prompt-recall"
KEEP_DAYS = 14
FRESH_SOURCES = ("startup", "clear")   # a conversation that begins empty
_SAFE_ID_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-")


MAX_RECORDS = 12   # what was injected, kept per session: the latest this many hook runs
MAX_FILE_BYTES = 1_000_000


class SessionState:
    def __init__(self, source: str | None = None, prompts: int = 0, shown: Iterable[str] = (),
                 injected: Iterable[dict[str, Any]] = ()) -> None:
        self.source, self.prompts, self.shown = source, int(prompts), list(dict.fromkeys(shown))
        self.injected = [r for r in injected if isinstance(r, dict)][-MAX_RECORDS:]   # hook runs: what, and why

    def record(self, event: str, account: dict[str, Any]) -> None:
        """What a hook run injected and why (`injected` shows it), stamped with the time."""
        self.injected = [*self.injected, {"event": event, "at": time.time(), **account}][-MAX_RECORDS:]

    @property
    def first_prompt_next(self) -> bool:
        """Whether the next prompt is the session's first typed one."""
        return self.prompts == 0 and (self.source is None or self.source in FRESH_SOURCES)

    def to_json(self) -> str:
        import json
        return json.dumps({"source": self.source, "prompts": self.prompts, "shown": self.shown,
                           "injected": self.injected}, ensure_ascii=False)


def state_path(settings: Settings, session_id: str) -> str | None:
    """The session's file, or None for an id that is no safe file name."""
    if not session_id or len(session_id) > 128 or session_id[0] == "." or not set(session_id) <= _SAFE_ID_CHARS:
        return None
    return os.path.join(settings.cache_dir, FOLDER, f"{session_id}.json")


def load(settings: Settings, session_id: str) -> SessionState | None:
    path = state_path(settings, session_id)
    if path is None:
        return None
    from obsidian_memory.core import json_light
    data = json_light.read_json(path, MAX_FILE_BYTES)
    if isinstance(data, json_light.Unread):
        return None
    try:
        shown = [s for s in data.get("shown") or [] if isinstance(s, str)]
        source = data.get("source") if isinstance(data.get("source"), str) else None
        injected = data.get("injected") if isinstance(data.get("injected"), list) else []
        return SessionState(source, int(data.get("prompts") or 0), shown, injected)
    except (ValueError, TypeError):   # (a part of another type)
        return None


def save(settings: Settings, session_id: str, state: SessionState) -> None:
    path = state_path(settings, session_id)
    if path is None:
        return
    from obsidian_memory.core import fsutil
    fsutil.atomic_write_bytes(path, state.to_json().encode("utf-8"), durable=False)   # a cache: no fsync wait


def session_started(settings: Settings, session_id: str, source: str | None, listed_ids: Iterable[str],
                    account: dict[str, Any] | None = None) -> None:
    """SessionStart: how the session started, which sessions its context listed, and what it
    injected and why (`account`). After a compaction or a resume the earlier prompts and what was
    shown stay counted."""
    state = load(settings, session_id)
    if state is None:
        state = SessionState(source)
        _remove_old_files(settings)
    elif source in FRESH_SOURCES:
        state = SessionState(source, injected=state.injected)   # /clear: a new conversation under a reused id
    state.shown = list(dict.fromkeys([*state.shown, *listed_ids]))
    if account is not None:
        state.record("SessionStart", account)
    save(settings, session_id, state)


def sessions_recorded(settings: Settings) -> list[tuple[float, str]]:
    """(when its file last changed, session id) of each session with a file, newest first."""
    return sorted(((mtime, name[:-len(".json")]) for mtime, name, _ in _files(settings)), reverse=True)


def _remove_old_files(settings: Settings) -> None:
    cutoff = time.time() - KEEP_DAYS * 86400
    for mtime, _, path in _files(settings):
        if mtime < cutoff:
            try:
                os.unlink(path)
            except OSError:
                pass


def _files(settings: Settings) -> list[tuple[float, str, str]]:
    """(when it last changed, its name, its path) of each session's file."""
    try:
        entries = list(os.scandir(os.path.join(settings.cache_dir, FOLDER)))
    except OSError:
        return []
    found: list[tuple[float, str, str]] = []
    for entry in entries:
        try:
            if entry.name.endswith(".json") and entry.is_file(follow_symlinks=False):
                found.append((entry.stat().st_mtime, entry.name, entry.path))
        except OSError:
            continue
    return found
