"""Engine 3: the standard-library reference scanner. Slow on big vaults, but it always works.

It reads every `*.md` file of the vault on every query (UTF-8, invalid bytes replaced), skipping
hidden files and folders (`.obsidian`, `.git`, `.trash`, ...) and never following a symlink out
of the vault (symlinked folders are not descended at all, which also rules out loops).

Scoring, exactly (the design's rules, with the points where it was silent decided):
- `text` is the whole file (frontmatter included) lowercased; `name` is the file name without
  `.md`, lowercased. `terms` = the query lowercased and split on whitespace, duplicates dropped
  (order kept); `phrase` = the terms joined by one space.
- A term *matches* when it is a substring of `name` or of `text`. A note with no matching term is
  not a hit.
- +20 per matching term.
- +50 when every term matches.
- +80 when `phrase` is a substring of `name`; otherwise +30 when it is a substring of `text`.
- +15 per term that is a substring of `name`.
- +8 per (term, heading) pair where the term is a substring of the heading's text. Headings are
  those of the Markdown grammar (`markdown.headings_of`): `#`..`######` and a space, outside
  fenced code blocks.
- Term frequency: `min(25, sum over terms of text.count(term))` (non-overlapping occurrences).
  The cap is on the TOTAL over all terms, not per term, so frequency only breaks ties between
  notes that the name/phrase/heading signals already ranked; per term, a three-term query could
  add 75 and drown the +80 for a name match.
Ties are broken by path (ascending), so results are stable.

Excerpt: from the earliest occurrence of any term, 70 characters before and 130 after, flattened
to one line, with `...` on the side(s) where the text was cut. "Earliest" looks in the body
(after the frontmatter) first and in the frontmatter only when the body has no term, and the
window does not reach back into the frontmatter: a `permalink:` line is a poor excerpt. A note that matches by its name only gets the start of its
body.

Tag and frontmatter filters (`Query.tags`, ...) are applied here too, with the index's reading
of a note (`markdown`) and its semantics: a tag filter matches the tag or a nested tag
under it (`project` matches `project/alpha`), `key:value` matches a frontmatter value or list
item, `key:` (empty value) matches the key's presence; case is ignored.
"""
from __future__ import annotations

import os

from obsidian_memory.vault import frontmatter, markdown
from obsidian_memory.vault.canvas import is_canvas, searched_text
from obsidian_memory.core.fsutil import read_text, shown_name, undecodable
from obsidian_memory.search.base import Hit, Query, Result, in_scope
from obsidian_memory.search.links import note_title
from obsidian_memory.vault.sync_conflicts import is_copy_of_ours
from obsidian_memory.core.textclean import one_line

ENGINE = "scan"

POINTS_PER_TERM = 20
POINTS_ALL_TERMS = 50
POINTS_PHRASE_IN_NAME = 80
POINTS_PHRASE_IN_BODY = 30
POINTS_PER_TERM_IN_NAME = 15
POINTS_PER_TERM_HEADING = 8
MAX_FREQUENCY_POINTS = 25

EXCERPT_BEFORE = 70
EXCERPT_AFTER = 130



class Scanner:
    """Engine: every note read on every query (ranks by words: mode `fulltext`)."""
    name = ENGINE

    def search(self, query: Query, request) -> Result:
        skipped: list[str] = []
        hits, total = search(query, request.settings.vault, skipped, privacy=request.privacy,
                             excluded=request.excluded)
        notes = []
        if skipped:
            from obsidian_memory.search.store.build import skipped_text

            notes.append(f"scanner: {skipped_text(skipped)}")
        return Result(hits, total, "fulltext", notes)


def search(query: Query, vault: str, skipped: list | None = None, *, privacy=None,
           excluded=None) -> tuple[list[Hit], int]:
    """Ranked hits in scope (truncated to `query.limit`) and how many there were before truncation;
    the names of notes and folders left out (not valid UTF-8) are added to `skipped`; private
    notes (`privacy`) and those Obsidian's Excluded files cover (`excluded`) are neither read for
    a score nor counted."""
    terms = query_terms(query.text)
    if not terms:
        return [], 0
    hits = []
    for relative, absolute in iter_notes(vault, query.folders, query.excludes, skipped, privacy=privacy):
        if excluded and excluded.covers(relative):
            continue
        text = read_text(absolute)
        text = searched_text(relative, text) if text is not None else None
        if text is None or (privacy is not None and privacy.text_is_private(text)):
            continue
        text = markdown.searched_part(text)
        if query.has_metadata_filters and not _passes_filters(text, query):
            continue
        hit = score_note(relative, text, terms)
        if hit is not None:
            hits.append(hit)
    hits.sort(key=lambda h: (-h.score, h.path))
    return hits[: query.limit], len(hits)


MAX_TERMS = 32


def query_terms(text: str) -> list[str]:
    return list(dict.fromkeys(text.lower().split()))[:MAX_TERMS]


def score_note(relative: str, text: str, terms: list[str]) -> Hit | None:
    """Score one note (see the module docstring); None when no term matches."""
    basename = note_title(relative)
    name = basename.lower()
    lowered = text.lower()
    matched = [t for t in terms if t in name or t in lowered]
    if not matched:
        return None
    score = POINTS_PER_TERM * len(matched)
    if len(matched) == len(terms):
        score += POINTS_ALL_TERMS
    phrase = " ".join(terms)
    if phrase in name:
        score += POINTS_PHRASE_IN_NAME
    elif phrase in lowered:
        score += POINTS_PHRASE_IN_BODY
    score += POINTS_PER_TERM_IN_NAME * sum(1 for t in terms if t in name)
    headings = _headings(lowered)
    score += POINTS_PER_TERM_HEADING * sum(1 for t in terms for h in headings if t in h)
    score += min(MAX_FREQUENCY_POINTS, sum(lowered.count(t) for t in terms))
    return Hit(path=relative, basename=basename, score=float(score),
               excerpt=excerpt(text, lowered, terms), engine=ENGINE)


def excerpt(text: str, lowered: str, terms: list[str]) -> str:
    # str.lower() can change the length of some characters (e.g. "İ"): cut the text whose indices we have
    source = text if len(lowered) == len(text) else lowered
    body = frontmatter.body_start(source)
    lead = body
    positions = [p for p in (lowered.find(t, body) for t in terms) if p >= 0]
    if not positions:  # the terms are only in the frontmatter (or only in the name)
        lead = 0
        positions = [p for p in (lowered.find(t) for t in terms) if p >= 0]
    if positions:
        at = min(positions)
        start, end = max(lead, at - EXCERPT_BEFORE), min(len(source), at + EXCERPT_AFTER)
    else:  # matched by its name only: the start of the body
        start = lead = body
        end = min(len(source), start + EXCERPT_AFTER)
    snippet = one_line(source[start:end])
    if start > lead:
        snippet = "..." + snippet
    if end < len(source):
        snippet += "..."
    return snippet


def iter_notes(vault: str, folders: tuple[str, ...] = (), excludes: tuple[str, ...] = (),
               skipped: list | None = None, *, privacy=None):
    """(vault-relative path, absolute path) of every visible `*.md` note in scope and not private
    by its path (`privacy`), sorted. Notes and folders whose names are not valid UTF-8 are left
    out (as the index does), their names (escaped) added to `skipped`."""
    hidden = privacy.hides_entry if privacy is not None and privacy.has_paths else None
    root = os.path.realpath(vault)
    for folder, dirnames, filenames in os.walk(root, followlinks=False):
        rel_folder = os.path.relpath(folder, root).replace(os.sep, "/")
        rel_folder = "" if rel_folder == "." else rel_folder
        if skipped is not None:
            skipped += [shown_name(_join(rel_folder, d)) + "/" for d in dirnames
                        if not d.startswith(".") and undecodable(d)]
        dirnames[:] = sorted(d for d in dirnames if not d.startswith(".") and not undecodable(d)
                             and _may_hold_scope(_join(rel_folder, d), folders, excludes)
                             and not (hidden and hidden(_join(rel_folder, d))))
        for filename in sorted(filenames):
            if filename.startswith(".") or not (filename.lower().endswith(".md") or is_canvas(filename)) \
                    or is_copy_of_ours(filename):
                continue   # (a sync tool's conflict copy of one of our notes: the same session twice)
            if undecodable(filename):
                if skipped is not None:
                    skipped.append(shown_name(_join(rel_folder, filename)))
                continue
            relative = _join(rel_folder, filename)
            if not in_scope(relative, folders, excludes) or (hidden and hidden(relative)):
                continue
            absolute = os.path.join(folder, filename)
            if os.path.islink(absolute) and not _inside(root, absolute):
                continue
            yield relative, absolute


def _may_hold_scope(rel_dir: str, folders, excludes) -> bool:
    """Prune folders that are excluded, or that neither hold nor sit under a wanted folder."""
    if any(x and (rel_dir == x or rel_dir.startswith(x + "/")) for x in excludes):
        return False
    if not folders:
        return True
    return any(not f or rel_dir == f or rel_dir.startswith(f + "/") or f.startswith(rel_dir + "/")
               for f in folders)


def _inside(root: str, path: str) -> bool:
    target = os.path.realpath(path)
    return target.startswith(root + os.sep) and os.path.isfile(target)


def _join(folder: str, name: str) -> str:
    return f"{folder}/{name}" if folder else name



def _headings(lowered: str) -> list[str]:
    return [heading.strip() for heading in markdown.headings_of(lowered)]


# -- tag and frontmatter filters (the same reading of a note as the index: markdown) -------------

def _passes_filters(text: str, query: Query) -> bool:
    note = markdown.parse_note(text, "")
    pairs = set(markdown.frontmatter_pairs(note.frontmatter))
    keys = {key for key, _ in pairs}

    def has_tag(wanted: str) -> bool:
        wanted = wanted.strip().lstrip("#").strip("/").lower()
        return any(t == wanted or t.startswith(wanted + "/") for t in note.tags)

    def has_property(key: str, value: str) -> bool:
        key, value = key.strip().lower(), value.strip().lower()
        if key in ("tags", "tag"):
            value = value.lstrip("#")
        return key in keys if not value else (key, value) in pairs

    return (all(has_tag(t) for t in query.tags) and not any(has_tag(t) for t in query.not_tags)
            and all(has_property(k, v) for k, v in query.frontmatter)
            and not any(has_property(k, v) for k, v in query.not_frontmatter))
