"""The vault as a graph, from the links the index stores (see `index_build`, `links`).

Public API (JSON-ready results, vault-relative paths):
  related(settings, path, depth=1, direction="both") -> {"path", "depth", "direction", "notes", "unresolved"}
  similar(settings, path, limit=10) -> {"path", "engine", "results": [{"path", "title", "score", "why"}]}
  links_of(settings, paths) -> {path: {"links": [...], "backlinks": [...]}}
  suggest_paths(settings, path, n=3) -> the closest existing note paths
  find_note(conn, path) -> the note a user-given path, name or name without .md means

`related`, `similar` and `suggest_paths` bring the index up to date first, as a search does;
`links_of` reads the index as it is (it runs for every search hit) and answers empty lists
when there is no index of this version.
"""
from __future__ import annotations

import difflib
import math
import sqlite3
from collections import Counter

from obsidian_memory import fsutil
from obsidian_memory.errors import UserError
from obsidian_memory.search import links as link_resolution
from obsidian_memory.search.index_query import fts_quote
from obsidian_memory.textclean import strip_control

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

def find_note(conn: sqlite3.Connection, path: str) -> tuple[int, str]:
    """(id, path) of the indexed note `path` means: a vault path with or without `.md` (exact,
    then ignoring case), or a bare note name when only one note has it. UserError otherwise,
    naming the closest paths."""
    try:
        clean = fsutil.vault_relative("", path)
    except fsutil.OutsideVault as exc:
        raise UserError(f"{exc}: notes are read from inside the vault only") from None
    if not clean:
        raise UserError("no note path given")
    paths = _all_paths(conn)
    found = _match_path(clean, paths)
    if found is None:
        raise UserError(not_found_message(path, suggest_from(paths, clean)))
    row = conn.execute("SELECT id FROM notes WHERE path = ?", (found,)).fetchone()
    return row[0], found


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
    from obsidian_memory.search import index

    conn = index.open_fresh(settings)
    try:
        return suggest_from(_all_paths(conn), path, n)
    finally:
        conn.close()


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


def _all_paths(conn: sqlite3.Connection) -> list[str]:
    return [p for (p,) in conn.execute("SELECT path FROM notes ORDER BY path")]


# -- related: the breadth-first neighbourhood -------------------------------------------------------

def related(settings, path: str, *, depth: int = 1, direction: str = "both") -> dict:
    """The notes within `depth` links of `path`: outgoing ones at depth 1, 2, ...; backlinks at
    -1, -2, ... (a note reached both ways is listed once, at its nearer depth, outgoing first
    on a tie). Each carries the line of the link that reached it; `unresolved` lists the note's
    own links that point at no note."""
    from obsidian_memory.search import index

    if direction not in DIRECTIONS:
        raise UserError(f"unknown direction {direction!r} (choose from {', '.join(DIRECTIONS)})")
    depth = int(depth)
    if not 1 <= depth <= MAX_DEPTH:
        raise UserError(f"depth must be between 1 and {MAX_DEPTH}")
    conn = index.open_fresh(settings)
    try:
        start_id, start = find_note(conn, path)
        found: dict[int, tuple[int, str, int]] = {}       # id -> (depth, context, order)
        if direction in ("outgoing", "both"):
            _walk(conn, start_id, depth, outgoing=True, found=found)
        if direction in ("backlinks", "both"):
            _walk(conn, start_id, depth, outgoing=False, found=found)
        titles = _titles(conn, found)
        ordered = sorted(found.items(), key=lambda item: (abs(item[1][0]), item[1][0] < 0, item[1][2]))
        notes = [{"path": titles[i][0], "title": titles[i][1], "depth": d, "context": context}
                 for i, (d, context, _) in ordered]
        unresolved = _unresolved(conn, start_id) if direction != "backlinks" else []
        return {"path": start, "depth": depth, "direction": direction, "notes": notes, "unresolved": unresolved}
    finally:
        conn.close()


def _walk(conn, start_id: int, depth: int, *, outgoing: bool, found: dict) -> None:
    sign = 1 if outgoing else -1
    seen = {start_id}
    frontier = [start_id]
    order = len(found)
    for level in range(1, depth + 1):
        if not frontier:
            return
        nxt = []
        for near, context in _neighbours(conn, frontier, outgoing):
            if near in seen:
                continue
            seen.add(near)
            nxt.append(near)
            previous = found.get(near)
            if previous is None or abs(previous[0]) > level:
                found[near] = (sign * level, context, order)
                order += 1
        frontier = nxt


def _neighbours(conn, frontier: list[int], outgoing: bool):
    """(note id, context line) pairs one link away from the frontier, in frontier and line order."""
    position = {note: i for i, note in enumerate(frontier)}
    for chunk in _chunks(frontier):
        marks = ",".join("?" * len(chunk))
        if outgoing:
            rows = conn.execute(f"SELECT l.source_id, t.id, l.seq, l.context FROM links l"
                                f" JOIN notes t ON t.path = l.target_path WHERE l.source_id IN ({marks})",
                                chunk).fetchall()
            rows.sort(key=lambda r: (position[r[0]], r[2]))
            yield from ((target, context) for _, target, _, context in rows)
        else:
            rows = conn.execute(f"SELECT t.id, l.source_id, n.path, l.seq, l.context FROM notes t"
                                f" JOIN links l ON l.target_path = t.path JOIN notes n ON n.id = l.source_id"
                                f" WHERE t.id IN ({marks})", chunk).fetchall()
            rows.sort(key=lambda r: (position[r[0]], r[2], r[3]))
            yield from ((source, context) for _, source, _, _, context in rows)


def _unresolved(conn, note_id: int) -> list[dict]:
    out, seen = [], set()
    for target, context in conn.execute("SELECT target, context FROM links WHERE source_id = ? AND target_path IS NULL"
                                        " ORDER BY seq", (note_id,)):
        key = link_resolution.fold_name(link_resolution.strip_md(target))
        if key not in seen:
            seen.add(key)
            out.append({"target": target, "context": context})
    return out


def _titles(conn, ids) -> dict[int, tuple[str, str]]:
    out = {}
    for chunk in _chunks(list(ids)):
        out.update({i: (p, t) for i, p, t in conn.execute(
            f"SELECT id, path, title FROM notes WHERE id IN ({','.join('?' * len(chunk))})", chunk)})
    return out


def _chunks(items: list, size: int = 500):
    for start in range(0, len(items), size):
        yield items[start:start + size]


# -- links of search hits ------------------------------------------------------------------------

def links_of(settings, paths: list[str]) -> dict[str, dict]:
    """{path: {"links": outgoing note paths in link order, "backlinks": linking note paths sorted}}
    for every path given, from the index as it stands (empty lists without one)."""
    from obsidian_memory.search import index

    result = {p: {"links": [], "backlinks": []} for p in paths}
    wanted = list(result)
    if not wanted:
        return result
    conn = index.open_readonly(settings)
    if conn is None:
        return result
    try:
        for chunk in _chunks(wanted, 400):
            marks = ",".join("?" * len(chunk))
            rows = conn.execute(
                f"SELECT s.path, t.path, 0, l.seq FROM links l JOIN notes s ON s.id = l.source_id"
                f" JOIN notes t ON t.path = l.target_path WHERE s.path IN ({marks})"
                f" UNION ALL SELECT l.target_path, s.path, 1, 0 FROM links l JOIN notes s ON s.id = l.source_id"
                f" WHERE l.target_path IN ({marks})"
                f" ORDER BY 1, 3, 4, 2", chunk + chunk).fetchall()
            for note, other, backward, _ in rows:
                if other == note:
                    continue
                bucket = result[note]["backlinks" if backward else "links"]
                if other not in bucket:
                    bucket.append(other)
    except sqlite3.DatabaseError:
        return {p: {"links": [], "backlinks": []} for p in paths}
    finally:
        conn.close()
    return result


# -- similar: lexical neighbours ---------------------------------------------------------------

def similar(settings, path: str, *, limit: int = 10) -> dict:
    """The notes most like `path` by what the index knows, no model needed: the note's rarest
    telling words (tf-idf from the index vocabulary) ranked by BM25, shared tags weighted by
    their rarity, and links in common (notes both link to or are linked from, Adamic-Adar, so a
    hub counts little) plus a direct link. `why` says which signals a result shares."""
    from obsidian_memory.search import index

    limit = max(1, int(limit))
    conn = index.open_fresh(settings)
    try:
        note_id, start = find_note(conn, path)
        notes = _note_count(conn)
        terms = key_terms(conn, note_id, notes)
        lexical = _lexical_scores(conn, terms, note_id)
        tags, weights, rare = _tags_of(conn, note_id, notes)
        link_scores, direct, shared_links = _link_scores(conn, note_id)
        candidates = (set(lexical) | rare | set(link_scores) | direct) - {note_id}
        if not candidates:
            return {"path": start, "engine": "lexical", "results": []}
        tag_scores = _tag_scores(conn, weights, candidates)
        top_lex = max(lexical.values(), default=0.0) or 1.0
        top_links = max(link_scores.values(), default=0.0) or 1.0
        scores = {c: (WEIGHT_TERMS * lexical.get(c, 0.0) / top_lex + WEIGHT_TAGS * tag_scores.get(c, 0.0)
                      + WEIGHT_LINKS * link_scores.get(c, 0.0) / top_links + WEIGHT_DIRECT * (c in direct))
                  for c in candidates}
        best = sorted(scores, key=lambda c: (-scores[c], c))[:limit]
        titles = _titles(conn, best)
        reasons = _why(conn, best, terms, tags, direct, shared_links, note_id)
        results = [{"path": titles[c][0], "title": titles[c][1], "score": round(scores[c], 4), "why": reasons[c]}
                   for c in best]
        return {"path": start, "engine": "lexical", "results": results}
    finally:
        conn.close()


def _note_count(conn) -> int:
    return conn.execute("SELECT count(*) FROM notes").fetchone()[0] or 1


def key_terms(conn, note_id: int, notes: int, keep: int = KEY_TERMS) -> list[tuple[str, float]]:
    """The note's most telling words as (word as written, weight): tf-idf over the index's own
    document frequencies; words no other note uses, or that most notes use, are left out."""
    from obsidian_memory.search import index_query

    row = conn.execute("SELECT title, aliases, headings, body FROM notes WHERE id = ?", (note_id,)).fetchone()
    counts = Counter(w for w in index_query.words("\n".join(row))
                     if len(w) >= 3 and not w.isdigit() and w not in index_query.STOPWORDS)
    if not counts:
        return []
    forms = list(counts)
    stems = []
    for chunk in _chunks(forms, 400):
        stems += index_query.stem_words(conn, chunk)
    by_stem: dict[str, list] = {}
    for form, stem in zip(forms, stems):
        entry = by_stem.setdefault(stem, [0, form, 0])
        entry[0] += counts[form]
        if counts[form] > entry[2]:
            entry[1], entry[2] = form, counts[form]
    frequencies = _doc_frequencies(conn, list(by_stem))
    ceiling = max(2, notes * COMMON_SHARE)
    weighted = []
    for stem, (tf, form, _) in by_stem.items():
        df = frequencies.get(stem, 0)
        if 2 <= df <= ceiling:
            weighted.append(((1 + math.log(tf)) * math.log(notes / df), form))
    weighted.sort(key=lambda item: (-item[0], item[1]))
    return [(form, weight) for weight, form in weighted[:keep]]


def _doc_frequencies(conn, stems: list[str]) -> dict[str, int]:
    out = {}
    for chunk in _chunks(stems, 800):
        out.update(conn.execute(f"SELECT term, df FROM vocab WHERE term IN ({','.join('?' * len(chunk))})", chunk))
    return out


def _terms_expr(terms) -> str:
    return " OR ".join(fts_quote(form) for form, _ in terms)


_BODY_BM25 = "bm25(notes_fts, 4.0, 4.0, 2.0, 1.0, 0.5, 0.0, 1.0, 0.2)"


def _lexical_scores(conn, terms, note_id: int) -> dict[int, float]:
    if not terms:
        return {}
    return {r: s for r, s in conn.execute(
        f"SELECT rowid, -{_BODY_BM25} AS s FROM notes_fts WHERE notes_fts MATCH ? AND rowid != ?"
        f" ORDER BY s DESC LIMIT {LEXICAL_POOL}", (_terms_expr(terms), note_id))}


def _tags_of(conn, note_id: int, notes: int) -> tuple[list[str], dict[str, float], set[int]]:
    """The note's tags, each one's weight (its rarity), and the notes sharing a rare one (those
    join the candidates; a tag on many notes only adds to candidates found otherwise)."""
    tags = [t for (t,) in conn.execute("SELECT tag FROM note_tags WHERE note_id = ? ORDER BY tag", (note_id,))]
    weights, rare = {}, set()
    for tag in tags:
        df = conn.execute("SELECT count(*) FROM note_tags WHERE tag = ?", (tag,)).fetchone()[0]
        weights[tag] = math.log(1 + notes / max(1, df))
        if df <= max(RARE_TAG_NOTES, notes * RARE_TAG_SHARE):
            rare.update(n for (n,) in conn.execute("SELECT note_id FROM note_tags WHERE tag = ?", (tag,)))
    return tags, weights, rare


def _tag_scores(conn, weights: dict[str, float], candidates: set[int]) -> dict[int, float]:
    """Per candidate, the rarity-weighted share of the note's tags it has too."""
    if not weights:
        return {}
    total = sum(weights.values()) or 1.0
    scores: dict[int, float] = {}
    marks = ",".join("?" * len(weights))
    for chunk in _chunks(sorted(candidates)):
        ids = ",".join(str(int(c)) for c in chunk)
        for other, tag in conn.execute(f"SELECT note_id, tag FROM note_tags WHERE note_id IN ({ids})"
                                       f" AND tag IN ({marks})", list(weights)):
            scores[other] = scores.get(other, 0.0) + weights[tag] / total
    return scores


def _link_scores(conn, note_id: int) -> tuple[dict[int, float], set[int], dict[int, list[int]]]:
    """(Adamic-Adar score over shared neighbours, notes linked directly either way,
    {candidate: the shared neighbours})."""
    mine = _neighbour_ids([note_id], conn).get(note_id, set()) - {note_id}
    if not mine:
        return {}, set(), {}
    theirs = _neighbour_ids(list(mine), conn)
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


def _neighbour_ids(ids: list[int], conn) -> dict[int, set[int]]:
    out: dict[int, set[int]] = {i: set() for i in ids}
    for chunk in _chunks(ids):
        marks = ",".join("?" * len(chunk))
        for a, b in conn.execute(f"SELECT l.source_id, t.id FROM links l JOIN notes t ON t.path = l.target_path"
                                 f" WHERE l.source_id IN ({marks}) UNION SELECT t.id, l.source_id FROM notes t"
                                 f" JOIN links l ON l.target_path = t.path WHERE t.id IN ({marks})", chunk + chunk):
            if a != b:
                out[a].add(b)
    return out


def _why(conn, best: list[int], terms, tags: list[str], direct: set[int], shared_links, note_id: int) -> dict:
    reasons = {c: [] for c in best}
    if terms and best:
        ids = ",".join(str(int(c)) for c in best)
        shared_terms: dict[int, list[str]] = {c: [] for c in best}
        for form, _ in terms:
            for (rowid,) in conn.execute(f"SELECT rowid FROM notes_fts WHERE notes_fts MATCH ? AND rowid IN ({ids})",
                                         (fts_quote(form),)):
                if len(shared_terms[rowid]) < WHY_TERMS:
                    shared_terms[rowid].append(form)
        for c in best:
            if shared_terms[c]:
                reasons[c].append("shared terms: " + ", ".join(shared_terms[c]))
    if tags and best:
        ids = ",".join(str(int(c)) for c in best)
        marks = ",".join("?" * len(tags))
        shared_tags: dict[int, list[str]] = {}
        for other, tag in conn.execute(f"SELECT note_id, tag FROM note_tags WHERE note_id IN ({ids})"
                                       f" AND tag IN ({marks}) ORDER BY tag", tags):
            shared_tags.setdefault(other, []).append("#" + tag)
        for c in best:
            if c in shared_tags:
                reasons[c].append("shared tags: " + ", ".join(shared_tags[c]))
    middles = {m for c in best for m in shared_links.get(c, [])}
    names = _titles(conn, middles) if middles else {}
    for c in best:
        if shared_links.get(c):
            common = sorted(names[m][1] for m in shared_links[c])
            more = f" (+{len(common) - 3})" if len(common) > 3 else ""
            reasons[c].append("links in common: " + ", ".join(common[:3]) + more)
    if direct and best:
        ids = ",".join(str(int(c)) for c in best)
        outgoing = {t for (t,) in conn.execute(f"SELECT t.id FROM links l JOIN notes t ON t.path = l.target_path"
                                               f" WHERE l.source_id = ? AND t.id IN ({ids})", (note_id,))}
        incoming = {s for (s,) in conn.execute(f"SELECT source_id FROM links WHERE target_path ="
                                               f" (SELECT path FROM notes WHERE id = ?)"
                                               f" AND source_id IN ({ids})", (note_id,))}
        for c in best:
            if c in outgoing and c in incoming:
                reasons[c].append("links both ways with this note")
            elif c in outgoing:
                reasons[c].append("linked from this note")
            elif c in incoming:
                reasons[c].append("links to this note")
    return reasons
