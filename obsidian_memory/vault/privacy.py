"""Private notes: the one rule that decides whether a vault note may be returned or quoted.

A note is private when
- its vault-relative path, or a folder it is in, matches an entry of the `private` setting: a
  folder (`Journal`), a note (`People/Bob.md`, `.md` optional) or a glob pattern (`**/secret*`,
  `Clients/*/contracts`); `*` matches any characters, `/` included, and case is ignored;
- its frontmatter has a top-level `private` property with a value other than false (`private:
  true`; any value but `false`, `no`, `off`, `0` or nothing counts, a typo included);
- it carries the `private_tag` tag (default `private`; nested tags such as `private/health`
  too): in its `tags` property, or as `#private` anywhere in its text (code blocks included).

The rule errs toward private: the frontmatter is read line by line (never misread as not
private by a YAML quirk: any line under `tags` naming the tag counts), and a search hit whose
note cannot be read to check is treated as private. Every path that returns or quotes vault notes
asks this module: the index build (a private note is neither indexed nor embedded), the
scanner, Omnisearch's hits, `read`, `related`, `similar`, the SessionStart context, and the list
of files a session note shows, and the sessions whose note is private (left out of the
context and of prompt-time recall, and `show` renders them from the archive).

Import-light (the SessionStart path uses it): `re` and our foundation modules (`fnmatch` for
glob patterns); the patterns are compiled when a Privacy is made.
"""
from __future__ import annotations

import os
import re

from obsidian_memory.vault import frontmatter
from obsidian_memory.core import fsutil
from obsidian_memory.core.errors import UserError

PROPERTY = "private"
DEFAULT_TAG = "private"
RULES_VERSION = "1"        # bump when what makes a note private changes: the index re-reads every note
_NOT_PRIVATE = frozenset({"false", "no", "off", "0", "", "null", "~"})
_TAG_KEYS = ("tags", "tag")
_TAG_SPLIT = r"[\s,\[\]\"'{}]+"
_YAML_ONLY = "{&*!"        # YAML a line reader cannot follow: then YAML reads the block too


class Privacy:
    """The private rules of one configuration (`Privacy.of(settings)`)."""

    def __init__(self, patterns=(), tag: str | None = DEFAULT_TAG):
        self.patterns = tuple(p for p in (patterns or ()) if _normal(p))
        self.tag = (tag or "").strip().lstrip("#").strip("/").lower()
        literals, globs = set(), []
        for pattern in self.patterns:
            low = _normal(pattern)
            if any(c in low for c in "*?["):
                import fnmatch

                globs.append(fnmatch.translate(low))
                if low.startswith("**/"):
                    globs.append(fnmatch.translate(low[3:]))      # `**/x` names a root `x` too
            else:
                literals.add(low)
        self._literals = frozenset(literals)
        self._glob = re.compile("|".join(globs)) if globs else None
        # `#tag` not after a word character, `#`, `&` or `/` (markdown's reading of an inline tag):
        # that test is made on each match, as a lookbehind would cost twenty times more per character
        self._inline = re.compile("#(?i:" + re.escape(self.tag) + r")(?![\w\-])") if self.tag else None

    @classmethod
    def of(cls, settings) -> "Privacy":
        key = (tuple(getattr(settings, "private", ()) or ()), getattr(settings, "private_tag", DEFAULT_TAG))
        found = _cache.get(key)
        if found is None:
            found = _cache[key] = cls(*key)
        return found

    @property
    def has_paths(self) -> bool:
        return bool(self._literals or self._glob)

    def signature(self) -> str:
        """What the rules are, for the index to notice that they changed (then it re-reads every note)."""
        return "|".join([RULES_VERSION, self.tag, *sorted(_normal(p) for p in self.patterns)])

    def text_rules(self) -> str:
        """What makes a note's text private (the tag; the property is fixed), for a record of
        verdicts by text to notice that they no longer hold (the path rules are asked each time)."""
        return f"{RULES_VERSION}|{self.tag}"

    def describe(self) -> str:
        """The rules in one line (doctor)."""
        paths = ", ".join(self.patterns) if self.patterns else "no folders or patterns"
        tag = f"the tag #{self.tag}" if self.tag else "no tag"
        return f"{paths}; {tag}; the property `{PROPERTY}: true`"

    # -- by path ---------------------------------------------------------------------------------
    def path_is_private(self, relative: str) -> bool:
        """Whether a vault-relative path, or one of its folders, matches the `private` setting."""
        if not self.has_paths:
            return False
        parts = relative.replace("\\", "/").strip("/").lower().split("/")
        return any(self._hides("/".join(parts[:end])) for end in range(1, len(parts) + 1))

    def hides_entry(self, relative: str) -> bool:
        """The same for a walk of the vault, which has checked the folders on its way down."""
        return self.has_paths and self._hides(relative.lower())

    def _hides(self, low: str) -> bool:
        if low in self._literals or (low.endswith(".md") and low[:-3] in self._literals):
            return True
        return self._glob is not None and self._glob.match(low) is not None

    # -- by content -------------------------------------------------------------------------------
    def text_is_private(self, text: str) -> bool:
        """Whether a note's text makes it private (its `private` property or the private tag)."""
        if self._inline is not None and any(_tag_starts(text, match.start()) for match in self._inline.finditer(text)):
            return True
        text = text.lstrip("\ufeff")
        found = frontmatter.locate(text)
        if found is None:
            return False
        block = text[found[0]:found[1]]
        return self._lines_say(block) or (any(mark in block for mark in _YAML_ONLY) and self._yaml_says(block))

    def _lines_say(self, block: str) -> bool:
        key = None
        for line in block.splitlines():
            stripped = line.strip()
            if not stripped or stripped.startswith("#"):
                continue
            if line[0] not in " \t-":                      # a top-level `key: value`
                name, colon, value = stripped.partition(":")
                key = name.strip().strip("\"'").lower() if colon else None
            else:                                          # a list item or a continued value
                value = stripped[1:] if stripped.startswith("-") else stripped
            if key == PROPERTY and _says_yes(value):
                return True
            if key in _TAG_KEYS and self.tag and self._names_tag(value):
                return True
        return False

    def _yaml_says(self, block: str) -> bool:
        """The frontmatter as YAML reads it (frontmatter.load), for what lines cannot show: a
        flow mapping (`{private: true}`), tags. A block YAML may not read (aliases: see
        frontmatter.parse) is private when it names the property or the tag anywhere."""
        from obsidian_memory.vault import markdown

        try:
            data = frontmatter.load(block)
        except frontmatter.Refused:
            low = block.lower()
            return PROPERTY in low or bool(self.tag and self.tag in low)
        except Exception:
            data = frontmatter.salvage(block)
        if not isinstance(data, dict):
            return False
        for key, value in data.items():
            name = str(key).strip().lower()
            if name == PROPERTY and _value_says_yes(value):
                return True
            if name in _TAG_KEYS and self.tag and any(self._names_tag(t) for t in markdown.tag_values(value)):
                return True
        return False

    def _names_tag(self, value: str) -> bool:
        for word in re.split(_TAG_SPLIT, value):
            word = word.lstrip("#").strip("/").lower()
            if word == self.tag or word.startswith(self.tag + "/"):
                return True
        return False

    # -- a note on disk ---------------------------------------------------------------------------
    def note_is_private(self, vault: str, relative: str, *, unreadable: bool = True) -> bool:
        """Whether the note at `relative` is private, by its path and then its text. A note that
        cannot be read answers `unreadable` (a search hit: private; a note that may simply be
        gone, such as a session's: not)."""
        if self.path_is_private(relative):
            return True
        text = fsutil.read_note(vault, relative)
        if text is None:
            return unreadable
        return self.text_is_private(text)


_cache: dict = {}


def _normal(pattern) -> str:
    return str(pattern).replace("\\", "/").strip().strip("/").lower() if pattern is not None else ""


def _tag_starts(text: str, at: int) -> bool:
    before = text[at - 1] if at else " "
    return not (before.isalnum() or before in "_#&/")


def _value_says_yes(value) -> bool:
    if isinstance(value, bool) or value is None:
        return bool(value)
    if isinstance(value, (int, float)):
        return value != 0
    if isinstance(value, str):
        return _says_yes(value)
    if isinstance(value, (list, tuple)):
        return any(_value_says_yes(item) for item in value)
    return bool(value)


def _says_yes(value: str) -> bool:
    value = value.split(" #", 1)[0].strip().strip("\"'[]{} ").lower()
    return value not in _NOT_PRIVATE


def note_is_private(settings, relative: str | None) -> bool:
    """Whether the vault note at `relative` (a state, learnings or session note) is private. A
    missing or unreadable one is not: there is nothing of it to quote, and a session whose note
    is gone is still the archive's to show."""
    return bool(relative) and Privacy.of(settings).note_is_private(settings.vault, relative, unreadable=False)


def refused(given: str) -> UserError:
    """The error of a command asked for a private note by name (the name given, nothing of the note)."""
    from obsidian_memory.core.textclean import strip_control

    return UserError(strip_control(f"{given!r} is a private note (the `private` setting, or its `private` "
                                   "property or tag): obsidian-memory returns nothing of it"))


def refuse_if_private(settings, given: str) -> None:
    """Raise `refused` when the vault-relative path `given` (with or without .md) is a private
    note on disk: a command that cannot find a note by name says so instead of "no such note"."""
    privacy = Privacy.of(settings)
    try:
        clean = fsutil.vault_relative(settings.vault, given)
    except fsutil.OutsideVault:
        return
    for candidate in (clean, clean + ".md"):
        if candidate.lower().endswith(".md") and os.path.isfile(settings.vault_path(candidate)) \
                and privacy.note_is_private(settings.vault, candidate):
            raise refused(given)
