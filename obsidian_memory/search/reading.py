"""Read notes from the vault for a person or an agent: `read_notes(settings, paths)`.

A path is vault-relative, with or without `.md`, or a bare note name when only one note has
it. A path that names no note raises UserError with the three closest existing paths; one that
names a private note (`privacy`) raises UserError saying so, and nothing of it is read out.
Reading never leaves the vault: `..`, absolute paths and symlinks that resolve outside are refused.
"""
from __future__ import annotations

import datetime
import os

from obsidian_memory.core import fsutil
from obsidian_memory.vault import canvas, markdown
from obsidian_memory.core.errors import UserError
from obsidian_memory.vault.privacy import Privacy, refused
from obsidian_memory.search import graph
from obsidian_memory.search.links import note_title
from obsidian_memory.search.store import VaultIndex, using_fresh


def read_notes(settings, paths: list[str], *, raw: bool = False, max_chars: int | None = None) -> list[dict]:
    """Each note as {"path", "title", "aliases", "tags", "frontmatter", "body", "truncated",
    "links", "backlinks"}; `body` is the text after the frontmatter (the whole file with `raw`),
    cut to `max_chars` (then `truncated` is true)."""
    if not paths:
        raise UserError("no note path given")
    if max_chars is not None and max_chars < 0:
        raise UserError("--max-chars must be 0 or more")
    def locate(index: VaultIndex) -> tuple[list[str], dict]:
        found = [_locate(settings, index, _inside_form(settings.vault, p)) for p in paths]
        return found, index.links_of(found)

    found, links = using_fresh(settings, locate)
    return [_read_one(settings, path, raw, max_chars, links[path], given) for given, path in zip(paths, found)]


def _locate(settings, index: VaultIndex, path: str) -> str:
    """The vault-relative path of the note `path` means (UserError when none)."""
    _refuse_outside(settings.vault, path)
    try:
        return graph.find_note(index, path)[1]
    except UserError:
        on_disk = _unindexed_note(settings.vault, path)
        if on_disk:
            return on_disk
        raise


def _inside_form(vault: str, path: str) -> str:
    """An absolute path into the vault as its vault-relative form (others are left to be refused)."""
    if os.path.isabs(path):
        root = os.path.realpath(vault)
        absolute = os.path.abspath(path)
        for base in (root, os.path.abspath(vault)):
            if absolute.startswith(base.rstrip(os.sep) + os.sep):
                return os.path.relpath(absolute, base).replace(os.sep, "/")
    return path


def _refuse_outside(vault: str, path: str) -> None:
    try:
        fsutil.vault_relative(vault, path)
    except fsutil.OutsideVault as exc:
        raise UserError(f"{exc}: notes are read from inside the vault only") from None


def _unindexed_note(vault: str, path: str) -> str | None:
    """A note the index skips (hidden or ignored) but that the user named exactly."""
    clean = fsutil.vault_relative(vault, path)
    for candidate in (clean, clean + ".md"):
        if candidate.lower().endswith(".md") and os.path.isfile(os.path.join(vault, *candidate.split("/"))):
            return candidate
    return None


def _read_one(settings, path: str, raw: bool, max_chars: int | None, links: dict, given: str) -> dict:
    try:
        real = fsutil.resolve_inside(settings.vault, path)
    except fsutil.OutsideVault as exc:
        raise UserError(f"{exc}: notes are read from inside the vault only") from None
    text = fsutil.read_text(real)
    if text is None:
        raise UserError(f"cannot read {path!r}")
    privacy = Privacy.of(settings)
    if privacy.path_is_private(path) or privacy.text_is_private(text):
        raise refused(given)
    text = text.replace("\r\n", "\n").replace("\r", "\n").lstrip("\ufeff")
    if not raw:
        text = canvas.searched_text(path, text)      # (a canvas: the text it shows, as it was searched)
    note = markdown.parse_note(text, note_title(path))
    body = text if raw else markdown.split_frontmatter(text)[1]
    truncated = max_chars is not None and len(body) > max_chars
    if truncated:
        body = body[:max_chars]
    return {"path": path, "title": shown_title(note), "aliases": note.aliases, "tags": note.tags,
            "frontmatter": json_ready(note.frontmatter), "body": body, "truncated": truncated,
            "links": links["links"], "backlinks": links["backlinks"]}


def shown_title(note) -> str:
    """The note's title: its `title` property when it has one (a session note is named by its date
    and id, titled by what was done), else its name as Obsidian shows it."""
    title = note.frontmatter.get("title") if isinstance(note.frontmatter, dict) else None
    return " ".join(title.split()) if isinstance(title, str) and title.strip() else note.title


def json_ready(value):
    """Frontmatter as JSON can carry it: dates as ISO text, other odd values as text."""
    if isinstance(value, dict):
        return {str(k): json_ready(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, set)):
        return [json_ready(v) for v in value]
    if isinstance(value, (datetime.date, datetime.datetime, datetime.time)):
        return value.isoformat()
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    return str(value)
