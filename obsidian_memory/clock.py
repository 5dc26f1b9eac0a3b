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
