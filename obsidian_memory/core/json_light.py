"""`loads`: json.loads without importing the json package, for the hook paths that only read JSON.

The json package imports re (and with it enum, functools and collections): about 6 ms, as much as
the interpreter's own start, on a prompt hook that otherwise reads two small JSON texts and exits
(docs/recall.md). `loads` runs the C scanner json.loads itself runs, with json.loads's defaults;
any text it does not take whole (an error, a Python without the C scanner) goes to json.loads, so
that the value, or the error raised, is always json.loads's own.

`read_json` reads a small JSON file (a settings file, a state file) the one way: a regular file
only, bounded, UTF-8 with an optional BOM; it returns the value, or an `Unread` that says why not.
"""
from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

try:
    from _json import make_scanner as _make_scanner
except ImportError:        # a Python without the C accelerator: json.loads does it all
    _make_scanner = None

_WHITESPACE = " \t\n\r"   # JSON's whitespace, the only characters json.loads allows around the value


class _Decoder:
    """What the scanner asks of json.JSONDecoder(): its defaults."""
    strict = True
    object_hook = object_pairs_hook = None
    parse_float, parse_int = float, int
    parse_constant = float   # (it is called with 'NaN', 'Infinity' or '-Infinity' only)


_scan = _make_scanner(_Decoder) if _make_scanner is not None else None


def loads(text: str) -> Any:
    """The value of the JSON text `text`, as json.loads(text) gives it (and raises when it raises)."""
    if _scan is not None:
        try:
            value, end = _scan(text, len(text) - len(text.lstrip(_WHITESPACE)))
            if not text[end:].strip(_WHITESPACE):
                return value
        except Exception:   # (without json.decoder loaded the scanner cannot even raise its own error)
            pass
    import json
    return json.loads(text)


MISSING, NOT_REGULAR, UNREADABLE, TOO_LARGE, NOT_UTF8, EMPTY, NOT_JSON, WRONG_KIND = (
    "missing", "not a regular file", "unreadable", "too large", "not UTF-8", "empty", "not JSON", "wrong kind")


class Unread:
    """Why a JSON file gave no value of the kind asked for: `reason` (MISSING, NOT_REGULAR,
    UNREADABLE, TOO_LARGE, NOT_UTF8, EMPTY: nothing but whitespace, NOT_JSON, WRONG_KIND), and
    `detail`, the rest of the one line a user is shown after the file's path (str() gives it)."""
    __slots__ = ("reason", "detail")

    def __init__(self, reason: str, detail: str):
        self.reason, self.detail = reason, detail

    def __str__(self) -> str:
        return self.detail

    def __repr__(self) -> str:
        return f"Unread({self.reason!r}, {self.detail!r})"


_KIND_NAMES = {dict: "a JSON object", list: "a JSON array"}


def read_json(path: str, max_bytes: int, kind: type = dict) -> Any:
    """The value of the JSON file at `path` when it is a `kind` (dict: an object, list: an array),
    else an Unread. A FIFO or a device is never waited on (fsutil.open_regular); a file larger
    than `max_bytes` is refused whole, never cut into JSON it does not hold."""
    from obsidian_memory.core import fsutil

    try:
        with fsutil.open_regular(path) as handle:
            data = handle.read(max_bytes + 1)
    except FileNotFoundError:
        return Unread(MISSING, "does not exist")
    except (fsutil.NotARegularFile, IsADirectoryError):
        return Unread(NOT_REGULAR, "is not a regular file")
    except (OSError, ValueError) as exc:     # (ValueError: a path holding a NUL)
        return Unread(UNREADABLE, f"cannot be read ({getattr(exc, 'strerror', None) or exc})")
    if len(data) > max_bytes:
        return Unread(TOO_LARGE, f"is larger than {max_bytes:,} bytes")
    return parse_json(data, kind)


def parse_json(data: bytes, kind: type = dict) -> Any:
    """The value of the JSON text `data` (UTF-8, a leading BOM allowed) when it is a `kind`, else
    an Unread: read_json's reading of bytes the caller already holds."""
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[:exc.start].count(b"\n") + 1
        return Unread(NOT_UTF8, f"is not UTF-8 text (line {line})")
    if not text.strip(_WHITESPACE):
        return Unread(EMPTY, "is empty")
    try:
        value = loads(text)
    except ValueError as exc:
        first_line = str(exc).partition("\n")[0]
        return Unread(NOT_JSON, f"is not valid JSON ({first_line})")
    except RecursionError:
        return Unread(NOT_JSON, "is not valid JSON (nested too deeply to read)")
    if not isinstance(value, kind):
        return Unread(WRONG_KIND, f"does not hold {_KIND_NAMES.get(kind, kind.__name__)}")
    return value
