"""Which note a link points at, the way Obsidian resolves it.

Pure functions over the list of note paths (no SQLite, no files). In order:
1. a Markdown link, or a wikilink starting with `./` or `../`, relative to the linking note;
2. the path from the vault root (`Folder/Note` or `Folder/Note.md`);
3. the note name: the notes whose name matches case-insensitively and whose path ends with
   the link's folders, if any (`[[b/Note]]` matches `a/b/Note.md`). Of several, the one in the
   linking note's folder, else the one nearest the vault root, else the first by path.
Every candidate shares the link's `name_key`: the index re-resolves a link only when a note
with that key is added or removed.
"""
from __future__ import annotations

import posixpath
import unicodedata

from obsidian_memory.vault import canvas

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable


def fold_name(text: str) -> str:
    if text.isascii():
        return text.lower()
    return unicodedata.normalize("NFC", text).casefold()


def strip_md(path: str) -> str:
    return path[:-3] if path[-3:].lower() == ".md" else path


def note_title(path: str) -> str:
    """A note's title as Obsidian shows it: its file name without `.md` (a canvas's without `.canvas`)."""
    name = path.rsplit("/", 1)[-1]
    return canvas.title(name) if canvas.is_canvas(name) else strip_md(name)


def name_key(target: str) -> str:
    """The folded note name a link target can only resolve to (the last path segment, no .md)."""
    return fold_name(strip_md(target.replace("\\", "/").rstrip("/").rsplit("/", 1)[-1]).strip())


def note_key(path: str) -> str:
    return name_key(path)


class Resolver:
    def __init__(self, paths: Iterable[str]) -> None:
        self.exact: dict[str, str] = {}
        self.folded: dict[str, str] = {}
        self.by_name: dict[str, list[str]] = {}
        for path in sorted(paths):
            self.exact[path] = path
            self.folded.setdefault(fold_name(path), path)
            self.by_name.setdefault(note_key(path), []).append(path)

    def resolve(self, target: str, source: str, kind: str = "wiki") -> str | None:
        """The vault-relative path of the note `target` (as written in `source`) points at."""
        target = target.replace("\\", "/").strip()
        if not target:
            return None
        if kind == "markdown" or target.startswith(("./", "../")):
            relative = posixpath.normpath(posixpath.join(posixpath.dirname(source), target))
            if not relative.startswith("../") and relative != "..":
                found = self._by_path(relative)
                if found:
                    return found
        found = self._by_path(posixpath.normpath(target.lstrip("/")))
        if found:
            return found
        return self._by_name(target, source)

    def _by_path(self, path: str) -> str | None:
        for candidate in (path, path + ".md"):
            found = self.exact.get(candidate) or self.folded.get(fold_name(candidate))
            if found and found[-3:].lower() == ".md":
                return found
        return None

    def _by_name(self, target: str, source: str) -> str | None:
        candidates = self.by_name.get(name_key(target), [])
        stem = fold_name(strip_md(target.strip("/")))
        if "/" in stem:
            candidates = [c for c in candidates if fold_name(strip_md(c)).endswith("/" + stem)]
        if len(candidates) <= 1:
            return candidates[0] if candidates else None
        folder = posixpath.dirname(source)
        same_folder = [c for c in candidates if posixpath.dirname(c) == folder]
        if same_folder:
            return same_folder[0]
        return min(candidates, key=lambda c: (c.count("/"), len(c), c))
