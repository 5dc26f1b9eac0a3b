"""Obsidian's "Excluded files" (Settings → Files and links → Excluded files), applied as Obsidian's
own search applies them: the notes they cover are left out of every search engine (the local
index, the scanner, Omnisearch's hits) and so out of `related` and `similar`, which read the
index. `doctor` says how many notes they cover; the `excluded_files` setting (`false`) turns
this off. A note that is excluded can still be read by its path (Obsidian still opens it).

Obsidian keeps them in `<vault>/.obsidian/app.json` as `userIgnoreFilters`, a list of texts. An
entry written `/…/` is a regular expression tested anywhere in the vault-relative path (as
JavaScript's `RegExp.test`, case-sensitive); any other entry is a path prefix (`Archive/` covers
every note in that folder, `Drafts/x.md` that note, `Arch` every path that starts so), compared
case for case.

The file is the vault's, so it may come from another machine or person: it is read bounded
(MAX_FILE_BYTES, MAX_FILTERS entries of MAX_FILTER_CHARS), and a regular expression runs on RE2
(linear time, the syntax of JavaScript's for what filters use) when it is installed; without it,
Python's `re` runs an expression only when it has no repetition inside a repeated group (the
shape that can take exponential time). An entry that cannot run is left out and `doctor` names it.

Import-light: json, os, re; RE2 only when a regular expression entry is there.
"""
from __future__ import annotations

import json
import os
import re

from obsidian_memory.core import json_light

MAX_FILE_BYTES = 1024 * 1024
MAX_FILTERS = 1000
MAX_FILTER_CHARS = 1000
APP_JSON = (".obsidian", "app.json")
WALK_MARK = "\0obsidian excluded files:"     # the entry of the walk's ignore patterns that holds them
_NESTED_REPETITION = re.compile(r"\((?:[^()\\]|\\.)*[*+}](?:[^()\\]|\\.)*\)[*+{?]")


class ExcludedFiles:
    """The Excluded files of one vault as its app.json said when read (`ExcludedFiles.of`)."""

    def __init__(self, filters=()):
        self.filters = [entry for entry in list(filters)[:MAX_FILTERS] if isinstance(entry, str) and entry]
        self.prefixes: list[str] = []
        self.expressions: list[tuple[str, object]] = []     # (the entry, `text -> bool`: whether it matches)
        self.refused: list[tuple[str, str]] = []            # (the entry, why it is left out)
        for entry in self.filters:
            if len(entry) > MAX_FILTER_CHARS:
                self.refused.append((entry[:80] + "…", f"longer than {MAX_FILTER_CHARS} characters"))
            elif len(entry) > 2 and entry.startswith("/") and entry.endswith("/"):
                compiled, why = _compile(entry[1:-1])
                if compiled is None:
                    self.refused.append((entry, why))
                else:
                    self.expressions.append((entry, compiled))
            else:
                self.prefixes.append(entry)
        self._starts = tuple(self.prefixes)

    @classmethod
    def of(cls, settings) -> "ExcludedFiles":
        """The vault's Excluded files (none when the `excluded_files` setting is off, or the vault
        has no readable app.json)."""
        if not getattr(settings, "excluded_files", True):
            return NONE
        path = os.path.join(settings.vault, *APP_JSON)
        try:
            info = os.stat(path)
        except OSError:
            return NONE
        key = (path, info.st_size, info.st_mtime_ns, info.st_ctime_ns)
        found = _cache.get(key)
        if found is None:
            found = cls(_filters(path))
            _cache.clear()
            _cache[key] = found
        return found

    def __bool__(self) -> bool:
        return bool(self.prefixes or self.expressions)

    def covers(self, relative: str) -> bool:
        """Whether the note at the vault-relative `relative` (forward slashes) is excluded."""
        return relative.startswith(self._starts) or any(exists(relative) for _, exists in self.expressions)

    def covers_folder(self, folder: str) -> bool:
        """Whether every note in the vault-relative `folder` is excluded (a prefix covers it: the
        walk need not list it; an expression is asked of each note)."""
        return (folder.rstrip("/") + "/").startswith(self._starts)

    def walk_patterns(self) -> tuple[str, ...]:
        """The rules as one entry of the index walk's ignore patterns (walk.left_out_by asks
        `of_pattern(entry)`), so that the walk's settings, and what it left out, change with them."""
        return (WALK_MARK + json.dumps(self.filters),) if self.filters else ()

    @classmethod
    def of_pattern(cls, entry: str) -> "ExcludedFiles":
        found = _by_pattern.get(entry)
        if found is None:
            found = _by_pattern[entry] = cls(json.loads(entry[len(WALK_MARK):]))
        return found


NONE = ExcludedFiles()
_cache: dict = {}
_by_pattern: dict = {}


def _filters(path: str) -> list:
    data = json_light.read_json(path, MAX_FILE_BYTES)
    filters = None if isinstance(data, json_light.Unread) else data.get("userIgnoreFilters")
    return filters if isinstance(filters, list) else []


def _compile(expression: str):
    """(`text -> bool`, None), or (None, why it cannot run here)."""
    from obsidian_memory.core.re2_match import re2_exists

    exists = re2_exists(expression)     # (None: RE2 is not installed, or not its syntax: lookaround ...)
    if exists is not None:
        return exists, None
    if _NESTED_REPETITION.search(expression):
        return None, "a repetition inside a repeated group can take exponential time without RE2"
    try:
        regex = re.compile(expression)
    except (re.error, OverflowError, RecursionError) as exc:
        return None, f"not a regular expression ({exc})"
    return (lambda text: regex.search(text) is not None), None
