"""A note's YAML frontmatter block: where it is (`locate`) and what it says (`parse`), the one
rule every reader and writer of notes uses.

A block opens with a first line `---` and closes at the next line that is `---` or `...`
(trailing spaces and a `\\r` allowed). Without a closing line there is no block. The vault is
input (a note may come from anyone who can write one): `parse` reads the YAML without aliases,
merge keys, deep nesting or an oversized block, and never raises. This module is import-light
(the SessionStart path reads the state note through it): `re` only at import, `yaml` when a
block is parsed, and nothing compiled at import.
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


def block_mentions(text: str, word: str) -> bool:
    """Whether `word` is anywhere in the text's frontmatter block: a quick test before the block
    is parsed (most notes have no such property)."""
    return word in text[:body_start(text)]


def split(text: str) -> tuple[str, str]:
    """(the frontmatter block with its `---` lines, or '', the rest of the text)."""
    start = body_start(text)
    return text[:start], text[start:]


# -- what the block says -----------------------------------------------------------------------

MAX_BLOCK_CHARS = 64 * 1024     # a frontmatter block is a few hundred bytes; YAML never reads a bigger one
MAX_DEPTH = 20                  # nesting of lists and mappings YAML reads (Obsidian writes 2)
# (no lazy `[\w ]+?` before `[ \t]*:`: on a line of spaces that pair backtracks quadratically, 5 s per 20 KB)
_SIMPLE_PAIR = r"^[ \t]*([\w\-]+(?: +[\w\-]+)*)[ \t]*:[ \t]*(.*)$"


class Refused(Exception):
    """The block uses what a note's properties never need and an attacker would (an alias, a
    merge key, deep nesting): it is read line by line instead."""


def parse(block: str) -> dict:
    """The properties the YAML `block` (text[start:end] of locate) holds; never raises. PyYAML's
    safe loader reads it, but without aliases or merge keys (a 1 KB alias bomb expands to
    billions of items in whoever walks the result), nothing nested deeper than MAX_DEPTH and no
    block over MAX_BLOCK_CHARS; such a block, and one YAML cannot read, gives the `key: value`
    and `- item` lines it holds (`salvage`)."""
    if not block.strip():
        return {}
    try:
        data = load(block)
    except Exception:   # Refused, a YAML error, RecursionError, MemoryError: the plain lines
        return salvage(block)
    return data if isinstance(data, dict) else {}


def load(block: str):
    """What PyYAML's safe loader makes of `block`, or Refused (see parse); YAML's own errors
    pass through."""
    if len(block) > MAX_BLOCK_CHARS:
        raise Refused(f"a frontmatter block of {len(block):,} characters")
    import yaml

    loader = _loader(yaml)(block)
    try:
        return loader.get_single_data()
    finally:
        loader.dispose()


_LOADERS: dict = {}


def _loader(yaml):
    """The C safe loader when PyYAML has libyaml (ten times faster), else the pure one, each with
    a constructor that refuses a node met twice (an alias), a merge key and deep nesting."""
    if "loader" in _LOADERS:
        return _LOADERS["loader"]
    base = getattr(yaml, "CSafeLoader", None) or yaml.SafeLoader

    class NoAliasLoader(base):
        depth = 0

        def construct_object(self, node, deep=False):
            if node in self.constructed_objects or node in self.recursive_objects:
                raise Refused("a YAML alias")
            self.depth += 1
            try:
                if self.depth > MAX_DEPTH:
                    raise Refused("nesting deeper than the limit")
                return super().construct_object(node, deep=True)
            finally:
                self.depth -= 1

        def flatten_mapping(self, node):
            if any(key.tag == "tag:yaml.org,2002:merge" for key, _ in node.value):
                raise Refused("a YAML merge key")
            return super().flatten_mapping(node)

    _LOADERS["loader"] = NoAliasLoader
    return NoAliasLoader


def salvage(block: str) -> dict:
    """The `key: value` and `- item` lines of a block YAML cannot or may not read, as text."""
    pair = re.compile(_SIMPLE_PAIR)
    data: dict = {}
    key = None
    for line in block[:MAX_BLOCK_CHARS].split("\n"):
        stripped = line.strip()
        if stripped.startswith("- ") and key:
            if not isinstance(data.get(key), list):
                data[key] = [] if data.get(key) in (None, "") else [data[key]]
            data[key].append(stripped[2:].strip().strip("\"'"))
            continue
        found = pair.match(line)
        if found:
            key = found.group(1).strip()
            data[key] = found.group(2).strip().strip("\"'")
    return data
