"""The error log: hooks print nothing, so this file is where their troubles are told.

Import-light (SessionStart path) and never raises.
"""
from __future__ import annotations

import os
import time

MAX_LOG_BYTES = 1_000_000
LOGGED_ONCE = "logged-once"   # beside the log: what log_once logged last time


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


def log_once(log_path: str, messages: list[str]) -> None:
    """Log each message that the previous call did not see, so that a problem present on every
    hook run (a broken setting) is logged once, not thousands of times. Messages that are gone
    are forgotten: a problem that comes back is logged again. Never raises."""
    seen_path = os.path.join(os.path.dirname(log_path), LOGGED_ONCE)
    current = list(dict.fromkeys(" ".join(m.split()) for m in messages))
    try:
        with open(seen_path, encoding="utf-8", errors="replace") as handle:
            seen = handle.read().splitlines()
    except OSError:
        seen = None
    if seen is None and not current:
        return
    try:
        for message in current:
            if message not in (seen or ()):
                log(log_path, message)
        if not current:
            os.remove(seen_path)
        elif current != seen:
            temporary = f"{seen_path}.{os.getpid()}.tmp"
            with open(temporary, "w", encoding="utf-8") as handle:
                handle.write("\n".join(current) + "\n")
            os.replace(temporary, seen_path)
    except OSError:
        pass
