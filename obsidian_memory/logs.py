"""The error log: hooks print nothing, so this file is where their troubles are told.

Import-light (SessionStart path) and never raises.
"""
from __future__ import annotations

import os
import sys
import time

MAX_LOG_BYTES = 1_000_000


def log(log_path: str, message: str, exc: BaseException | None = None) -> None:
    """Append one line (plus a traceback when `exc` is given) to the log; rotate at ~1 MB."""
    try:
        os.makedirs(os.path.dirname(log_path), exist_ok=True)
        try:
            if os.path.getsize(log_path) > MAX_LOG_BYTES:
                os.replace(log_path, log_path + ".1")
        except OSError:
            pass
        stamp = time.strftime("%Y-%m-%dT%H:%M:%S%z")
        lines = [f"{stamp} pid={os.getpid()} {message}"]
        if exc is not None:
            import traceback
            lines.append("".join(traceback.format_exception(type(exc), exc, exc.__traceback__)).rstrip())
        with open(log_path, "a", encoding="utf-8", errors="replace") as handle:
            handle.write("\n".join(lines) + "\n")
    except Exception:
        pass


def log_for(settings, message: str, exc: BaseException | None = None) -> None:
    log(settings.log_path, message, exc)


def debug_enabled() -> bool:
    return bool(os.environ.get("OBSIDIAN_MEMORY_DEBUG"))


def warn(message: str) -> None:
    """A one-line message for a person at a terminal (CLI only, never from a hook)."""
    try:
        sys.stderr.write(message.rstrip("\n") + "\n")
    except Exception:
        pass
