"""Make untrusted text safe to show: no terminal escapes, no control characters.

Transcripts carry ANSI colours (`<local-command-stdout>`), OSC hyperlinks and titles, and
whatever bytes a tool printed. None of that may reach a note, an excerpt or the injected
context. On the SessionStart path: imports only `re`.
"""
from __future__ import annotations

import re

# One pass removes, in order of the alternatives:
#   CSI sequences (ESC [ ... final byte), e.g. colours "\x1b[2m";
#   OSC sequences (ESC ] ... BEL or ESC \), e.g. hyperlinks and window titles; an unterminated
#     one ends at the line end so that a stray "ESC ]" cannot swallow the rest of a text;
#   DCS / SOS / PM / APC strings (ESC P|X|^|_ ... ESC \);
#   other two-byte escapes (ESC ( B, ESC =, ESC 7, ...);
#   the 8-bit C1 forms of CSI and OSC;
#   C0 controls except \t and \n, DEL, C1 controls, and the bidi override/isolate characters
#     that can make a text display differently from what it says.
_ESCAPES = re.compile(
    r"\x1b\[[0-?]*[ -/]*[@-~]?"
    r"|\x1b\][^\x07\x1b\n]*(?:\x07|\x1b\\)?"
    r"|\x1b[PX^_][^\x1b]*(?:\x1b\\)?"
    r"|\x1b[ -/]*[0-~]"
    r"|\x9b[0-?]*[ -/]*[@-~]?"
    r"|\x9d[^\x07\x9c\n]*(?:\x07|\x9c)?"
    r"|[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]"
)
# Lone surrogates (from JSON "\ud800" escapes) cannot be written as UTF-8: show them as U+FFFD.
_SURROGATES = re.compile(r"[\ud800-\udfff]")
_CR_LF = re.compile(r"\r\n?")


def strip_control(text: str) -> str:
    """`text` without ANSI/OSC escape sequences and control characters (\\n and \\t are kept;
    a \\r\\n or lone \\r line end becomes \\n)."""
    if not text:
        return "" if text is None else text
    if "\r" in text:
        text = _CR_LF.sub("\n", text)
    text = _ESCAPES.sub("", text)
    return _SURROGATES.sub("\ufffd", text)


_SPACES = re.compile(r"\s+")


def shorten(text: str, limit: int = 80) -> str:
    """One line of at most `limit` characters, cut at a word boundary, with "…" when cut."""
    line = _SPACES.sub(" ", text).strip()
    if len(line) <= limit:
        return line
    cut = line[: limit - 1]
    space = cut.rfind(" ")
    if space >= limit // 2:
        cut = cut[:space]
    return cut.rstrip(" ,;:.-") + "…"
