"""Where the last read of a growing transcript stopped: the reader's state at the end of its last
complete line, so that the next archive of the same session reads only what was appended.

Claude Code appends to a transcript; a long session is archived again at every PreCompact, Stop
and SessionEnd. One file per transcript under `<home>/transcript-reads/` holds a header line
(the path, the offset, and checksums of the file's first and last RESUME_CHECK_BYTES before the
offset) and the pickled reader. A state is used only when the file is at least as long as the
offset and both checksums still match: a transcript rewritten, shortened or replaced by another
file is read whole. The state is a cache: a missing, unreadable or older state means a whole
read, never a different result (what a resumed read returns is what a whole read returns).
Only transcripts of RESUME_MIN_BYTES or more keep one (a small one is read whole in a moment).
The state is our own file in our own folder (as trusted as our config); it is never read from
the vault.
"""
from __future__ import annotations

import hashlib
import json
import os
import pickle

from obsidian_memory.core import fsutil

STATE_VERSION = 2              # bumped whenever the reader's fields change
RESUME_CHECK_BYTES = 64 * 1024
RESUME_MIN_BYTES = 1024 * 1024
FOLDER = "transcript-reads"


def state_path(home: str, transcript_path: str) -> str:
    name = hashlib.sha256(os.path.abspath(transcript_path).encode("utf-8", "surrogateescape")).hexdigest()[:32]
    return os.path.join(home, FOLDER, name + ".state")


def load(home: str, transcript_path: str):
    """(the reader as it was, the offset to read on from), or None: no usable state."""
    try:
        with open(state_path(home, transcript_path), "rb") as handle:
            offset = _valid_offset(handle, transcript_path)
            return None if offset is None else (pickle.load(handle), offset)
    except Exception:   # missing, half-written by an older run, from another version: read whole
        return None


def resumable_offset(home: str, transcript_path: str) -> int:
    """The offset a read of the transcript would go on from (0: a whole read), by the state's
    header alone (the reader is not loaded)."""
    try:
        with open(state_path(home, transcript_path), "rb") as handle:
            return _valid_offset(handle, transcript_path) or 0
    except Exception:   # as load(): no usable state
        return 0


def _valid_offset(handle, transcript_path: str) -> int | None:
    """The offset of the state's header (the first line of `handle`) when the state is of this
    version, of this transcript and the transcript still is what it was up to there; else None."""
    header = json.loads(handle.readline())
    offset = int(header["offset"])
    if (header.get("version") == STATE_VERSION and header.get("path") == os.path.abspath(transcript_path)
            and header.get("checks") == _checks(transcript_path, offset)):
        return offset
    return None


def save(home: str, transcript_path: str, reader, offset: int) -> None:
    """Keep the reader's state at `offset` (the end of its last complete line)."""
    if offset < RESUME_MIN_BYTES:
        return
    checks = _checks(transcript_path, offset)
    if checks is None:
        return
    header = {"version": STATE_VERSION, "path": os.path.abspath(transcript_path), "offset": offset, "checks": checks}
    data = json.dumps(header).encode("utf-8") + b"\n" + pickle.dumps(reader, protocol=pickle.HIGHEST_PROTOCOL)
    fsutil.atomic_write_bytes(state_path(home, transcript_path), data, 0o600, durable=False)


def forget_missing(home: str) -> int:
    """Remove the states whose transcript is gone, and the temp files of writers killed while
    saving one; returns how many states."""
    folder = os.path.join(home, FOLDER)
    try:
        names = [name for name in os.listdir(folder) if name.endswith(".state")]
    except OSError:
        return 0
    for path in fsutil.stale_temp_files(folder, recursive=False):
        try:
            os.unlink(path)
        except OSError:
            pass
    removed = 0
    for name in names:
        path = os.path.join(folder, name)
        try:
            with open(path, "rb") as handle:
                transcript = json.loads(handle.readline()).get("path")
            if isinstance(transcript, str) and os.path.exists(transcript):
                continue
            os.unlink(path)
            removed += 1
        except (OSError, ValueError):
            continue
    return removed


def _checks(transcript_path: str, offset: int) -> list[str] | None:
    """Checksums of the transcript's first and last RESUME_CHECK_BYTES before `offset`, or None
    when it is shorter than `offset` (rewritten) or cannot be read."""
    try:
        with fsutil.open_regular(transcript_path) as handle:
            if os.fstat(handle.fileno()).st_size < offset:
                return None
            head = handle.read(min(offset, RESUME_CHECK_BYTES))
            handle.seek(max(0, offset - RESUME_CHECK_BYTES))
            tail = handle.read(min(offset, RESUME_CHECK_BYTES))
    except OSError:
        return None
    if len(tail) != min(offset, RESUME_CHECK_BYTES):
        return None
    return [hashlib.sha256(head).hexdigest(), hashlib.sha256(tail).hexdigest()]
