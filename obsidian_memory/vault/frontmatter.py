"""Where a note's YAML frontmatter block is: the one rule every reader and writer of notes uses.

A block opens with a first line `---` and closes at the next line that is `---` or `...`
(trailing spaces and a `\\r` allowed). Without a closing line there is no block. Parsing the
YAML inside is `markdown.split_frontmatter`'s business; this module is import-light (the
SessionStart path reads the state note through it): `re` only, and nothing compiled at import.
"""
from __future__ import annotations

import re

_CLOSING = r"(?m)^(?:---|\.\.\.)[ \t]*\r?$"


def locate(text: str) -> tuple[int, int, int] | None:
    """(start, end, body) offsets: the YAML is text[start:end] and the body starts at `body`
    (past the closing line and its line break); None when the text has no frontmatter block."""
    if not text.startswith("---"):
        return None
    first_break = text.find("\n")
    if first_break < 0 or text[:first_break].strip() != "---":
        return None
    closing = re.compile(_CLOSING).search(text, first_break + 1)     # (re caches the compiled pattern)
    if closing is None:
        return None
    body = closing.end() + 1 if text[closing.end():closing.end() + 1] == "\n" else closing.end()
    return first_break + 1, closing.start(), body


def body_start(text: str) -> int:
    """The offset where the body starts (0 when there is no frontmatter block)."""
    found = locate(text)
    return found[2] if found else 0


def split(text: str) -> tuple[str, str]:
    """(the frontmatter block with its `---` lines, or '', the rest of the text)."""
    start = body_start(text)
    return text[:start], text[start:]
