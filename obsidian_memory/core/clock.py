"""The one clock. Tests freeze it with freezegun, which patches datetime.datetime."""
from __future__ import annotations

import datetime as _dt


def now() -> _dt.datetime:
    """The current time, timezone-aware, in local time."""
    return _dt.datetime.now(_dt.timezone.utc).astimezone()


def utcnow_iso() -> str:
    return _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"


def today() -> str:
    return now().strftime("%Y-%m-%d")


def parse_iso(value: str | None) -> _dt.datetime | None:
    """Parse the ISO-8601 timestamps Claude Code writes (`2026-01-02T03:04:05.678Z`)."""
    if not value or not isinstance(value, str):
        return None
    text = value.strip()
    if text.endswith(("Z", "z")):
        text = text[:-1] + "+00:00"
    try:
        parsed = _dt.datetime.fromisoformat(text)
    except ValueError:
        return None
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=_dt.timezone.utc)
    return parsed


def to_local(value: str | None) -> _dt.datetime | None:
    parsed = parse_iso(value)
    return parsed.astimezone() if parsed else None


def parse_since(value: str | None, option: str = "--since") -> float | None:
    """A day `YYYY-MM-DD` as the epoch of its local midnight (None for no value), or a UserError
    saying what is expected. The one parser of every `--since`."""
    import re
    import time

    if value is None or value == "":
        return None
    text = str(value).strip()
    if not re.fullmatch(r"\d{4}-\d{2}-\d{2}", text):
        from obsidian_memory.core.errors import UserError
        raise UserError(f"{option} {value!r}: expected a date YYYY-MM-DD")
    try:
        return time.mktime(time.strptime(text, "%Y-%m-%d"))
    except (ValueError, OverflowError) as exc:
        from obsidian_memory.core.errors import UserError
        raise UserError(f"{option} {value!r}: not a real day ({exc})") from None


def utc_iso(epoch: float | None) -> str | None:
    """An epoch in the timestamp format Claude Code writes (UTC, milliseconds, `Z`)."""
    if epoch is None:
        return None
    return _dt.datetime.fromtimestamp(epoch, _dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.000Z")
