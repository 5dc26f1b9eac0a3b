"""Plain-text helpers shared by the engines and the output: no escape sequence ever reaches a terminal."""
from __future__ import annotations

import re

from obsidian_memory.textclean import strip_control

__all__ = ["one_line", "strip_control"]

_SPACE = re.compile(r"\s+")


def one_line(text: str) -> str:
    """Clean text flattened to a single line (whitespace runs become one space)."""
    return _SPACE.sub(" ", strip_control(text or "")).strip()
