"""The title engine (mode `title`): a fuzzy match of the query against note names and aliases.

The exact name first, then a name starting with or containing the query, then names sharing its
words, a word counting when it is the same, a prefix (3+ letters) or one typo away (4+ letters:
an edit or a swap). No body, no vectors: the names the vault index holds.
"""
from __future__ import annotations

from obsidian_memory.search.base import Hit, Query, Result
from obsidian_memory.search.engines.fulltext import MAX_TERMS, fold, words
from obsidian_memory.search.store import Scope

TITLE_MIN_SCORE = 0.6


class Title:
    """Engine: notes whose name or an alias matches the query."""
    name = "index"

    def search(self, query: Query, request) -> Result:
        wanted = " ".join(words(query.text)[:MAX_TERMS])
        if not wanted:
            return Result([], 0, "title")
        rows = request.index().names_in_scope(Scope.of(query))
        hits, total = rank(wanted, rows, query.limit)
        return Result(hits, total, "title")


def rank(wanted: str, rows, limit: int) -> tuple[list[Hit], int]:
    """The best `limit` of the (path, title, aliases) rows for the folded query words `wanted`,
    and how many names matched at all."""
    wanted_words = wanted.split()
    # a name worth scoring holds the start or the end of a query word (a typo rarely hits both)
    pieces = tuple({w[:2] for w in wanted_words} | {w[-2:] for w in wanted_words})
    scored = []
    for path, title, aliases in rows:
        best, label = 0.0, ""
        for name in [title, *(aliases.split("\n") if aliases else ())]:
            lowered = name.lower() if name.isascii() else fold(name)
            if not any(piece in lowered for piece in pieces):
                continue
            score = _name_score(wanted, wanted_words, " ".join(words(name)))
            if score > best:
                best, label = score, name
        if best >= TITLE_MIN_SCORE:
            scored.append((best, path, title, label))
    scored.sort(key=lambda item: (-item[0], len(item[3]), item[1]))
    hits = [Hit(path=p, basename=t, score=round(s, 4), excerpt="" if label == t else f"alias: {label}",
                engine="title") for s, p, t, label in scored[:limit]]
    return hits, len(scored)


def _name_score(wanted: str, wanted_words: list[str], name: str) -> float:
    """3 for the exact name, 2-3 for a name starting with the query, 1.5-2.5 for one containing
    it, else up to 1 by the share of query words found (and of the name's words covered)."""
    if not name:
        return 0.0
    if name == wanted:
        return 3.0
    closeness = min(len(wanted), len(name)) / max(len(wanted), len(name))
    if name.startswith(wanted):
        return 2.0 + closeness
    if wanted in name:
        return 1.5 + closeness
    name_words = name.split()
    found, covered = 0.0, set()
    for word in wanted_words:
        best, where = 0.0, -1
        for i, candidate in enumerate(name_words):
            value = _word_match(word, candidate)
            if value > best:
                best, where = value, i
        found += best
        if where >= 0:
            covered.add(where)
    share = found / len(wanted_words)
    return share * (0.7 + 0.3 * len(covered) / len(name_words))


def _word_match(word: str, candidate: str) -> float:
    if word == candidate:
        return 1.0
    if len(word) >= 3 and candidate.startswith(word):
        return 0.8
    if len(word) >= 4 and len(candidate) >= 4 and _one_typo(word, candidate):
        return 0.7
    return 0.0


def _one_typo(a: str, b: str) -> bool:
    """Damerau distance 1: one letter changed, added, removed, or two neighbours swapped."""
    if abs(len(a) - len(b)) > 1:
        return False
    if len(a) > len(b):
        a, b = b, a
    i = 0
    while i < len(a) and a[i] == b[i]:
        i += 1
    if len(a) == len(b):
        return a[i + 1:] == b[i + 1:] or (i + 1 < len(a) and a[i] == b[i + 1] and a[i + 1] == b[i]
                                           and a[i + 2:] == b[i + 2:])
    return a[i:] == b[i + 1:]
