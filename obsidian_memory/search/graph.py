"""The vault as a graph, from the links the vault index stores (see `store`, `links`).

Public API (JSON-ready results, vault-relative paths):
  related(settings, path, depth=1, direction="both") -> {"path", "depth", "direction", "notes", "unresolved"}
  similar(settings, path, limit=10) -> {"path", "engine", "results": [{"path", "title", "score", "why"}]}
  links_of(settings, paths) -> {path: {"links": [...], "backlinks": [...]}}
  suggest_paths(settings, path, n=3) -> the closest existing note paths
  find_note(index, path) -> the note a user-given path, name or name without .md means

`related`, `similar` and `suggest_paths` bring the index up to date first, as a search does;
`links_of` reads the index as it is and answers empty lists when there is no index of this
version (a search adds links from its own read of the index: `base.Request.links_of`).
"""
from __future__ import annotations

import difflib
import math
from collections import Counter

from obsidian_memory.core import fsutil, sqlitedb
from obsidian_memory.core.errors import UserError
from obsidian_memory.vault.privacy import refuse_if_private
from obsidian_memory.search.engines import fulltext
from obsidian_memory.search import links as link_resolution
from obsidian_memory.search.engines.fulltext import fts_quote
from obsidian_memory.search.store import EVERYTHING, VaultIndex, using_fresh
from obsidian_memory.core.textclean import strip_control

DIRECTIONS = ("outgoing", "backlinks", "both")
MAX_DEPTH = 10

# similar: the note's most telling words, how many candidates they bring, and how the signals add up
KEY_TERMS = 25
COMMON_SHARE = 0.2           # a word in more than this share of the notes tells nothing
LEXICAL_POOL = 100           # notes ranked by the shared words; others count 0 for them
RARE_TAG_NOTES, RARE_TAG_SHARE = 50, 0.02   # a tag on at most this many notes (or share) brings candidates
HUB_DEGREE = 500             # a neighbour linked with more notes than this brings no candidates
WEIGHT_TERMS, WEIGHT_TAGS, WEIGHT_LINKS, WEIGHT_DIRECT = 1.0, 0.5, 0.6, 0.3
WHY_TERMS = 5


# -- finding a note ---------------------------------------------------------------------------------

def find_note(index: VaultIndex, path: str) -> tuple[int, str]:
    """(id, path) of the indexed note `path` means: a vault path with or without `.md` (exact,
    then ignoring case), or a bare note name when only one note has it. UserError otherwise,
    naming the closest paths, or saying that the path names a private note (never indexed)."""
    try:
        clean = fsutil.vault_relative("", path)
    except fsutil.OutsideVault as exc:
        raise UserError(f"{exc}: notes are read from inside the vault only") from None
    if not clean:
        raise UserError("no note path given")
    paths = index.paths()
    found = _match_path(clean, paths)
    if found is None:
        refuse_if_private(index.settings, clean)
        raise UserError(not_found_message(path, suggest_from(paths, clean)))
    return index.note_id(found), found


def _match_path(clean: str, paths: list[str]) -> str | None:
    exact = set(paths)
    for candidate in (clean, clean + ".md"):
        if candidate in exact:
            return candidate
    folded = {}
    for p in paths:
        folded.setdefault(link_resolution.fold_name(p), []).append(p)
    for candidate in (clean, clean + ".md"):
        hits = folded.get(link_resolution.fold_name(candidate), [])
        if len(hits) == 1:
            return hits[0]
    key = link_resolution.name_key(clean)
    stem = link_resolution.fold_name(link_resolution.strip_md(clean))
    named = [p for p in paths if link_resolution.note_key(p) == key
             and ("/" not in stem or link_resolution.fold_name(link_resolution.strip_md(p)).endswith("/" + stem))]
    if len(named) == 1:
        return named[0]
    if len(named) > 1:
        shown = ", ".join(sorted(named)[:5])
        raise UserError(strip_control(f"{clean!r} names {len(named)} notes ({shown}): give the path"))
    return None


def not_found_message(path: str, suggestions: list[str]) -> str:
    message = f"no note {path!r} in the vault"
    return strip_control(message + (f"; did you mean: {', '.join(suggestions)}?" if suggestions else ""))


def suggest_paths(settings, path: str, n: int = 3) -> list[str]:
    """The `n` existing note paths closest to `path` (fuzzy, on the path and on the note name)."""
    return using_fresh(settings, lambda index: suggest_from(index.paths(), path, n))


def suggest_from(paths: list[str], path: str, n: int = 3) -> list[str]:
    wanted = link_resolution.fold_name(link_resolution.strip_md((path or "").replace("\\", "/").strip("/ ")))
    wanted_name = wanted.rsplit("/", 1)[-1]
    if not wanted or n <= 0:
        return []
    by_path = difflib.SequenceMatcher(autojunk=False)
    by_path.set_seq2(wanted)
    by_name = difflib.SequenceMatcher(autojunk=False)
    by_name.set_seq2(wanted_name)
    scored: list[tuple[float, str]] = []      # the best n so far, best first
    floor = 0.3
    for candidate in paths:
        folded = link_resolution.fold_name(link_resolution.strip_md(candidate))
        name = folded.rsplit("/", 1)[-1]
        contained = 0.6 + 0.3 * len(wanted_name) / max(1, len(name)) if wanted_name in name else 0.0
        by_path.set_seq1(folded)
        by_name.set_seq1(name)
        # the cheap upper bounds first: most paths are nowhere near
        if max(by_path.real_quick_ratio(), by_name.real_quick_ratio() * 0.98, contained) <= floor:
            continue
        if max(by_path.quick_ratio(), by_name.quick_ratio() * 0.98, contained) <= floor:
            continue
        score = max(by_path.ratio(), by_name.ratio() * 0.98, contained)
        if score > floor:
            scored.append((score, candidate))
            scored.sort(key=lambda item: (-item[0], item[1]))
            del scored[n:]
            if len(scored) == n:
                floor = max(0.3, scored[-1][0] - 1e-9)
    return [candidate for _, candidate in scored]


# -- related: the breadth-first neighbourhood -------------------------------------------------------

def related(settings, path: str, *, depth: int = 1, direction: str = "both") -> dict:
    """The notes within `depth` links of `path`: outgoing ones at depth 1, 2, ...; backlinks at
    -1, -2, ... (a note reached both ways is listed once, at its nearer depth, outgoing first
    on a tie). Each carries the line of the link that reached it; `unresolved` lists the note's
    own links that point at no note."""
    if direction not in DIRECTIONS:
        raise UserError(f"unknown direction {direction!r} (choose from {', '.join(DIRECTIONS)})")
    depth = int(depth)
    if not 1 <= depth <= MAX_DEPTH:
        raise UserError(f"depth must be between 1 and {MAX_DEPTH}")
    return using_fresh(settings, lambda index: _related(index, path, depth, direction))


def _related(index: VaultIndex, path: str, depth: int, direction: str) -> dict:
    start_id, start = find_note(index, path)
    found: dict[int, tuple[int, str, int]] = {}       # id -> (depth, context, order)
    if direction in ("outgoing", "both"):
        _walk(index, start_id, depth, outgoing=True, found=found)
    if direction in ("backlinks", "both"):
        _walk(index, start_id, depth, outgoing=False, found=found)
    titles = index.titles(found)
    ordered = sorted(found.items(), key=lambda item: (abs(item[1][0]), item[1][0] < 0, item[1][2]))
    notes = [{"path": titles[i][0], "title": titles[i][1], "depth": d, "context": context}
             for i, (d, context, _) in ordered]
    unresolved = _unresolved(index, start_id) if direction != "backlinks" else []
    return {"path": start, "depth": depth, "direction": direction, "notes": notes, "unresolved": unresolved}


def _walk(index: VaultIndex, start_id: int, depth: int, *, outgoing: bool, found: dict) -> None:
    sign = 1 if outgoing else -1
    seen = {start_id}
    frontier = [start_id]
    order = len(found)
    for level in range(1, depth + 1):
        if not frontier:
            return
        nxt = []
        for near, context in _neighbours(index, frontier, outgoing):
            if near in seen:
                continue
            seen.add(near)
            nxt.append(near)
            previous = found.get(near)
            if previous is None or abs(previous[0]) > level:
                found[near] = (sign * level, context, order)
                order += 1
        frontier = nxt


def _neighbours(index: VaultIndex, frontier: list[int], outgoing: bool):
    """(note id, context line) pairs one link away from the frontier, in frontier and line order."""
    position = {note: i for i, note in enumerate(frontier)}
    for chunk in _chunks(frontier):
        rows = index.link_steps(chunk, outgoing)
        if outgoing:
            rows.sort(key=lambda r: (position[r[0]], r[2]))
            yield from ((target, context) for _, target, _, context in rows)
        else:
            rows.sort(key=lambda r: (position[r[0]], r[2], r[3]))
            yield from ((source, context) for _, source, _, _, context in rows)


def _unresolved(index: VaultIndex, note_id: int) -> list[dict]:
    out, seen = [], set()
    for target, context in index.unresolved(note_id):
        key = link_resolution.fold_name(link_resolution.strip_md(target))
        if key not in seen:
            seen.add(key)
            out.append({"target": target, "context": context})
    return out


def _chunks(items: list, size: int = 500):
    for start in range(0, len(items), size):
        yield items[start:start + size]


# -- links of search hits ------------------------------------------------------------------------

def links_of(settings, paths: list[str]) -> dict[str, dict]:
    """{path: {"links": outgoing note paths in link order, "backlinks": linking note paths sorted}}
    for every path given, from the index as it stands (empty lists without one)."""
    empty = {p: {"links": [], "backlinks": []} for p in paths}
    if not empty:
        return empty
    index = VaultIndex.open_readonly(settings)
    if index is None:
        return empty
    try:
        with index:
            return index.links_of(list(empty))
    except sqlitedb.errors("DatabaseError"):
        return empty


# -- similar: lexical neighbours ---------------------------------------------------------------

def similar(settings, path: str, *, limit: int = 10) -> dict:
    """The notes most like `path` by what the index knows, no model needed: the note's rarest
    telling words (tf-idf from the index vocabulary) ranked by BM25, shared tags weighted by
    their rarity, and links in common (notes both link to or are linked from, Adamic-Adar, so a
    hub counts little) plus a direct link. `why` says which signals a result shares."""
    limit = max(1, int(limit))
    return using_fresh(settings, lambda index: _similar(index, path, limit))


def _similar(index: VaultIndex, path: str, limit: int) -> dict:
    note_id, start = find_note(index, path)
    notes = index.note_count()
    terms = key_terms(index, note_id, notes)
    lexical = _lexical_scores(index, terms, note_id)
    tags, weights, rare = _tags_of(index, note_id, notes)
    link_scores, direct, shared_links = _link_scores(index, note_id)
    candidates = (set(lexical) | rare | set(link_scores) | direct) - {note_id}
    if not candidates:
        return {"path": start, "engine": "lexical", "results": []}
    tag_scores = _tag_scores(index, weights, candidates)
    top_lex = max(lexical.values(), default=0.0) or 1.0
    top_links = max(link_scores.values(), default=0.0) or 1.0
    scores = {c: (WEIGHT_TERMS * lexical.get(c, 0.0) / top_lex + WEIGHT_TAGS * tag_scores.get(c, 0.0)
                  + WEIGHT_LINKS * link_scores.get(c, 0.0) / top_links + WEIGHT_DIRECT * (c in direct))
              for c in candidates}
    best = sorted(scores, key=lambda c: (-scores[c], c))[:limit]
    titles = index.titles(best)
    reasons = _why(index, best, terms, tags, direct, shared_links, note_id)
    results = [{"path": titles[c][0], "title": titles[c][1], "score": round(scores[c], 4), "why": reasons[c]}
               for c in best]
    return {"path": start, "engine": "lexical", "results": results}


def key_terms(index: VaultIndex, note_id: int, notes: int, keep: int = KEY_TERMS) -> list[tuple[str, float]]:
    """The note's most telling words as (word as written, weight): tf-idf over the index's own
    document frequencies; words no other note uses, or that most notes use, are left out."""
    counts = Counter(w for w in fulltext.words(index.words_text(note_id))
                     if len(w) >= 3 and not w.isdigit() and w not in fulltext.STOPWORDS)
    if not counts:
        return []
    forms = list(counts)
    stems = []
    for chunk in _chunks(forms, 400):
        stems += index.stems(chunk)
    by_stem: dict[str, list] = {}
    for form, stem in zip(forms, stems):
        entry = by_stem.setdefault(stem, [0, form, 0])
        entry[0] += counts[form]
        if counts[form] > entry[2]:
            entry[1], entry[2] = form, counts[form]
    frequencies = index.doc_counts(list(by_stem))
    ceiling = max(2, notes * COMMON_SHARE)
    weighted = []
    for stem, (tf, form, _) in by_stem.items():
        df = frequencies.get(stem, 0)
        if 2 <= df <= ceiling:
            weighted.append(((1 + math.log(tf)) * math.log(notes / df), form))
    weighted.sort(key=lambda item: (-item[0], item[1]))
    return [(form, weight) for weight, form in weighted[:keep]]


def _terms_expr(terms) -> str:
    return " OR ".join(fts_quote(form) for form, _ in terms)


# the columns' weights when notes are compared by their words: names, headings and body, not folders
BODY_WEIGHTS = (4.0, 4.0, 2.0, 1.0, 0.5, 0.0, 1.0, 0.2)


def _lexical_scores(index: VaultIndex, terms, note_id: int) -> dict[int, float]:
    if not terms:
        return {}
    return index.ranked(_terms_expr(terms), EVERYTHING, LEXICAL_POOL, weights=BODY_WEIGHTS, exclude=note_id)


def _tags_of(index: VaultIndex, note_id: int, notes: int) -> tuple[list[str], dict[str, float], set[int]]:
    """The note's tags, each one's weight (its rarity), and the notes sharing a rare one (those
    join the candidates; a tag on many notes only adds to candidates found otherwise)."""
    tags = index.tags_of(note_id)
    weights, rare = {}, set()
    for tag in tags:
        df = index.tag_count(tag)
        weights[tag] = math.log(1 + notes / max(1, df))
        if df <= max(RARE_TAG_NOTES, notes * RARE_TAG_SHARE):
            rare.update(index.tagged(tag))
    return tags, weights, rare


def _tag_scores(index: VaultIndex, weights: dict[str, float], candidates: set[int]) -> dict[int, float]:
    """Per candidate, the rarity-weighted share of the note's tags it has too."""
    if not weights:
        return {}
    total = sum(weights.values()) or 1.0
    scores: dict[int, float] = {}
    for other, tag in index.tags_among(candidates, list(weights)):
        scores[other] = scores.get(other, 0.0) + weights[tag] / total
    return scores


def _link_scores(index: VaultIndex, note_id: int) -> tuple[dict[int, float], set[int], dict[int, list[int]]]:
    """(Adamic-Adar score over shared neighbours, notes linked directly either way,
    {candidate: the shared neighbours})."""
    mine = index.neighbours([note_id]).get(note_id, set()) - {note_id}
    if not mine:
        return {}, set(), {}
    theirs = index.neighbours(list(mine))
    scores: dict[int, float] = {}
    shared: dict[int, list[int]] = {}
    for middle, around in theirs.items():
        degree = len(around)
        if degree > HUB_DEGREE or degree < 2:
            continue
        weight = 1.0 / math.log(1 + degree)
        for other in around - {note_id}:
            scores[other] = scores.get(other, 0.0) + weight
            shared.setdefault(other, []).append(middle)
    return scores, mine, shared


def _why(index: VaultIndex, best: list[int], terms, tags: list[str], direct: set[int], shared_links,
         note_id: int) -> dict:
    reasons = {c: [] for c in best}
    if terms and best:
        shared_terms: dict[int, list[str]] = {c: [] for c in best}
        for form, _ in terms:
            for rowid in index.matching(fts_quote(form), among=best):
                if len(shared_terms[rowid]) < WHY_TERMS:
                    shared_terms[rowid].append(form)
        for c in best:
            if shared_terms[c]:
                reasons[c].append("shared terms: " + ", ".join(shared_terms[c]))
    if tags and best:
        shared_tags: dict[int, list[str]] = {}
        for other, tag in index.tags_among(best, tags):
            shared_tags.setdefault(other, []).append("#" + tag)
        for c in best:
            if c in shared_tags:
                reasons[c].append("shared tags: " + ", ".join(shared_tags[c]))
    middles = {m for c in best for m in shared_links.get(c, [])}
    names = index.titles(middles) if middles else {}
    for c in best:
        if shared_links.get(c):
            common = sorted(names[m][1] for m in shared_links[c])
            more = f" (+{len(common) - 3})" if len(common) > 3 else ""
            reasons[c].append("links in common: " + ", ".join(common[:3]) + more)
    if direct and best:
        outgoing, incoming = index.direct_links(note_id, best)
        for c in best:
            if c in outgoing and c in incoming:
                reasons[c].append("links both ways with this note")
            elif c in outgoing:
                reasons[c].append("linked from this note")
            elif c in incoming:
                reasons[c].append("links to this note")
    return reasons
