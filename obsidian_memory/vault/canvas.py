"""Obsidian's canvases (`.canvas`, JSON Canvas 1.0) as the text search finds in them.

A canvas is JSON: `nodes` (cards: `text` cards hold Markdown, `file` cards name a vault file,
`link` cards a URL, `group` cards a label) and `edges` (arrows, with an optional label). What a
person wrote on it is searchable: the text of every text card (Markdown, so its links and tags
count), the file a file card shows (as a link to it, so its name is found and the canvas appears
among that note's backlinks, as in Obsidian), the labels of groups and arrows, and link cards'
URLs; cards in reading order (top to bottom, then left to right). The canvas itself is the hit.

A canvas that is not JSON Canvas (not JSON, or not an object of lists) has no text: it is
indexed empty, never an error. `is_canvas` is the one test of a path.
"""
from __future__ import annotations

import json

SUFFIX = ".canvas"


def is_canvas(path: str) -> bool:
    return path[-7:].lower() == SUFFIX


def title(path: str) -> str:
    """A canvas's title as Obsidian shows it: its file name without `.canvas`."""
    name = path.replace("\\", "/").rsplit("/", 1)[-1]
    return name[:-7] if is_canvas(name) else name


def searched_text(path: str, text: str) -> str:
    """The text search reads of the vault file at `path` holding `text`: a note's own, a canvas's
    Markdown (markdown_of). The one rule of every reader (index, vectors, excerpts, scanner, read)."""
    return markdown_of(text) if is_canvas(path) else text


def markdown_of(text: str) -> str:
    """The Markdown of what a canvas shows (above), one block per card and label."""
    try:
        data = json.loads(text)
    except (ValueError, RecursionError):
        return ""
    if not isinstance(data, dict):
        return ""
    nodes = [n for n in data.get("nodes") or () if isinstance(n, dict)] if isinstance(data.get("nodes"), list) else []
    edges = [e for e in data.get("edges") or () if isinstance(e, dict)] if isinstance(data.get("edges"), list) else []
    blocks = [block for node in sorted(nodes, key=_reading_order) if (block := _block(node))]
    blocks += [label.strip() for edge in edges if isinstance(label := edge.get("label"), str) and label.strip()]
    return "\n\n".join(blocks) + ("\n" if blocks else "")


def _reading_order(node: dict) -> tuple[float, float]:
    return _number(node.get("y")), _number(node.get("x"))


def _number(value) -> float:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) and value == value else 0.0


def _block(node: dict) -> str:
    kind = node.get("type")
    if kind == "text" and isinstance(node.get("text"), str):
        return node["text"].strip()
    if kind == "file" and isinstance(node.get("file"), str) and node["file"].strip():
        target = node["file"].strip().replace("]", "").replace("[", "").replace("|", "")
        return f"[[{target}]]"
    if kind == "link" and isinstance(node.get("url"), str):
        return node["url"].strip()
    if kind == "group" and isinstance(node.get("label"), str):
        return node["label"].strip()
    return ""
