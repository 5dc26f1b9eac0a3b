"""`loads`: json.loads without importing the json package, for the hook paths that only read JSON.

The json package imports re (and with it enum, functools and collections): about 6 ms, as much as
the interpreter's own start, on a prompt hook that otherwise reads two small JSON texts and exits
(docs/recall.md). `loads` runs the C scanner json.loads itself runs, with json.loads's defaults;
any text it does not take whole (an error, a Python without the C scanner) goes to json.loads, so
that the value, or the error raised, is always json.loads's own.
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
