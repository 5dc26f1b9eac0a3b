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


def to_local(value: str | None, zone: _dt.tzinfo | None = None) -> _dt.datetime | None:
    """`value` (ISO-8601) on this machine's wall clock, or on `zone`'s."""
    parsed = parse_iso(value)
    return parsed.astimezone(zone) if parsed else None


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


def utc_seconds(moment: _dt.datetime | None) -> str | None:
    """An aware time as UTC to the second with `Z` (`2026-03-05T09:00:00Z`): a note's instants."""
    if moment is None:
        return None
    return moment.astimezone(_dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def offset_text(offset: _dt.timedelta) -> str:
    """A UTC offset as ISO 8601 writes it (`+05:30`, `-03:30`, `+00:00`)."""
    minutes = int(round(offset.total_seconds() / 60))
    sign = "-" if minutes < 0 else "+"
    hours, minutes = divmod(abs(minutes), 60)
    return f"{sign}{hours:02d}:{minutes:02d}"


def at_offset(local: str | None, offset: _dt.timedelta | None) -> _dt.datetime | None:
    """A wall-clock `YYYY-MM-DDTHH:MM[:SS]` as an instant: at `offset` from UTC when it is known,
    else in this machine's zone (the best guess for a note that does not say)."""
    if not local:
        return None
    try:
        moment = _dt.datetime.fromisoformat(local)
    except ValueError:
        return None
    if moment.tzinfo is not None:
        return moment
    if offset is None:
        return moment.astimezone()
    return moment.replace(tzinfo=_dt.timezone(offset))


FUTURE_SLACK_SECONDS = 60   # a file time this far ahead is a clock's error, not a write just now


def from_the_future(epoch: float, now: float) -> bool:
    """Whether a stamp or file time `epoch` lies ahead of `now` by more than a file system's or a
    sync client's skew: written under a clock that was wrong, and stale now (as old as can be)."""
    return epoch - now > FUTURE_SLACK_SECONDS
