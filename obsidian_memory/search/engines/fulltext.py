"""The fulltext engine over the vault index: parse the query safely, expand it, rank, cut an excerpt.

The text is tokenised here (never handed to FTS5 as syntax), so quotes, `-`, `:`, `*`,
parentheses or `AND` in a query cannot raise. Ranking is BM25 with column weights over an OR
of the terms, plus signals a plain BM25 lacks (`Signals`, shown by `--explain`): the words other
notes link to the note with, every term present, the exact phrase, the terms close together, the
terms in the title or an alias, the query being the title. Identifiers, paths and markup runs of
the query also match whole (`tokens`). Typo variants
(edit distance 1, from the index's own vocabulary, for terms of 4+ characters that the vault
does not use) and the prefix of the last term count for less than exact terms.
"""
from __future__ import annotations

import heapq
import math
import re
import unicodedata

from obsidian_memory.search.base import Hit, Query, Result
from obsidian_memory.search.store import Scope, VaultIndex
from obsidian_memory.search.tokens import query_identifiers
from obsidian_memory.core import cjk
from obsidian_memory.core.textclean import strip_control

ENGINE = "index"
POOL = 150                 # candidates taken from the BM25 list (fewer from the others) before re-ranking
RERANK = 50                # leading candidates checked for the phrase and proximity bonuses
COMMON_SHARE = 0.5         # a word in more than this share of the notes does not rank
FUZZY_WEIGHT = 0.5         # a typo or prefix match counts half an exact one
MAX_TERMS = 32             # the distinct words of a query that rank (the rest is left out)
MAX_TYPO_WORD = 24         # longer words get no typo variants (their number grows with the square of the length)
EXCERPT_CHARS = 300

# Bonuses added to the BM25 score normalised to [0, 1] over the candidates.
BONUS_ALL_TERMS = 0.3
BONUS_PHRASE = 0.25
BONUS_NEAR = 0.1
BONUS_TITLE = 0.6          # times the share of the terms found in the title or an alias, times
                           # the share of that title's (or alias's) words the query holds
BONUS_TITLE_EXACT = 0.4
WEIGHT_INLINKS = 0.3       # times the BM25 of the words other notes link to the note with, normalised
BONUS_HERE = 0.15          # a session note of the repository the search runs in (Query.repo)
REPO_PROPERTY = "repo"     # where a session note names its repository (templates/session.md.j2)

STOPWORDS = frozenset("""
a an and are as at be but by can do does did for from had has have how i if in into is it its
me my no not of on or our so than that the their them then there these they this to was we were
what when where which who why will with would you your yours about should could get use using
""".split())

_WORD = re.compile(r"[^\W_]+")
_QUOTED = re.compile(r'"([^"]*)"')


class Fulltext:
    """Engine: BM25 over the vault index, with the bonuses below (mode `fulltext`)."""
    name = ENGINE

    def search(self, query: Query, request) -> Result:
        hits, total = search(request.index(), query)
        return Result(hits, total, "fulltext")


class Term:
    """A query word: `raw` folded and lower case as typed, `stem` as the index stores it, `prefix`
    for the last word (it also matches as a prefix), `variants` typo variants from the vocabulary, `whole` an identifier glued whole (`tokens`):
    matched in the idents column only."""
    __slots__ = ("raw", "stem", "prefix", "variants", "whole")

    def __init__(self, raw: str, stem: str, prefix: bool = False, variants: list[str] | None = None,
                 whole: bool = False):
        self.raw, self.stem, self.prefix = raw, stem, prefix
        self.variants = [] if variants is None else variants
        self.whole = whole

    def exact_expr(self) -> str:
        return "{idents} : " + fts_quote(self.raw) if self.whole else fts_quote(self.raw)

    def fuzzy_expr(self) -> str | None:
        parts = [fts_quote(v) for v in self.variants]
        if self.prefix:
            parts.insert(0, fts_quote(self.raw) + "*")
        return " OR ".join(parts) if parts else None

    def any_expr(self) -> str:
        fuzzy = self.fuzzy_expr()
        return f"({self.exact_expr()} OR {fuzzy})" if fuzzy else self.exact_expr()


class ParsedQuery:
    """`terms` to rank by, `sequence` every word in order (for the phrase bonus), `phrases` the
    quoted phrases (required), `negatives` the -words (excluded), `identifiers` the glued forms of
    the identifiers, paths and markup outside the quotes (`tokens.query_identifiers`)."""
    __slots__ = ("terms", "sequence", "phrases", "negatives", "identifiers")

    def __init__(self, terms: list[Term], sequence: list[str], phrases: list[list[str]], negatives: list[str],
                 identifiers: frozenset[str]):
        self.terms, self.sequence, self.phrases, self.negatives = terms, sequence, phrases, negatives
        self.identifiers = identifiers

    @property
    def empty(self) -> bool:
        return not self.terms and not self.phrases


def fold(text: str) -> str:
    """Lower case without diacritics, as the index's tokenizer sees it: CJK characters are kept
    as they are (the tokenizer keeps `が` and `한`; decomposed they would be `か` and jamo)."""
    if text.isascii():
        return text.lower()
    return "".join(piece if cjk.has_cjk(piece) else _strip_diacritics(piece)
                   for piece in cjk.split_runs(text)).lower()


def _strip_diacritics(text: str) -> str:
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))


def words(text: str) -> list[str]:
    """The words of `text` as the index holds them (a CJK run as its bigrams: core.cjk)."""
    return _WORD.findall(cjk.spaced(fold(text)))


def parse(text: str) -> tuple[list[str], list[list[str]], list[str]]:
    """(words, quoted phrases, negated words) of a query, with no syntax left in them."""
    phrases = [words(p) for p in _QUOTED.findall(text)]
    rest = _QUOTED.sub(" ", text).replace('"', " ")
    plain, negatives = [], []
    for chunk in rest.split():
        if chunk.startswith("-") and len(chunk) > 1 and _WORD.match(fold(chunk[1:])):
            negatives.extend(words(chunk[1:]))
        else:
            plain.extend(words(chunk))
    return plain, [p for p in phrases if p], negatives


def prepare(index: VaultIndex, text: str) -> ParsedQuery:
    plain, phrases, negatives = parse(text)
    content = [w for w in plain if w not in STOPWORDS] or plain
    content = list(dict.fromkeys(content))[:MAX_TERMS]
    plain, phrases = plain[:MAX_TERMS * 4], [p[:MAX_TERMS] for p in phrases[:MAX_TERMS]]
    negatives = negatives[:MAX_TERMS]
    stems = index.stems(content)
    terms = [Term(raw=w, stem=s) for w, s in zip(content, stems)]
    if terms and not phrases and len(terms[-1].raw) >= 3 and plain and plain[-1] == terms[-1].raw:
        terms[-1].prefix = True
    for term in terms:
        if 4 <= len(term.raw) <= MAX_TYPO_WORD and not term.raw.isdigit():
            term.variants = typo_variants(index, term.stem)
    identifiers = query_identifiers(_QUOTED.sub(" ", text))
    wholes = [w for w in identifiers if w not in content]
    terms += [Term(raw=w, stem=s, whole=True) for w, s in zip(wholes, index.stems(wholes))]
    sequence = plain if len(plain) >= 2 else []
    return ParsedQuery(terms, sequence, phrases, negatives, frozenset(identifiers))


def typo_variants(index: VaultIndex, stem: str, keep: int = 3) -> list[str]:
    """Vocabulary terms one edit away from `stem`, when no note holds `stem` itself: a word the
    vault uses, however rarely, is taken as written (a user's "folder" in a vault that says
    "directory" is no typo of "older")."""
    if index.doc_count(stem):
        return []
    candidates = [c for c in edits1(stem) if c not in STOPWORDS and len(c) >= 3]
    if not candidates:
        return []
    counted = [(df, term) for term, df in index.doc_counts(candidates).items() if df > 0]
    counted.sort(reverse=True)
    chosen = [t for _, t in counted[:keep]]
    # a query term is stemmed again by FTS5: keep the variants that are their own stem
    return [t for t, s in zip(chosen, index.stems(chosen)) if t == s]


def edits1(word: str) -> set[str]:
    letters = "abcdefghijklmnopqrstuvwxyz"
    letters += "".join(sorted({c for c in word if c not in letters}))
    splits = [(word[:i], word[i:]) for i in range(len(word) + 1)]
    out = {a + b[1:] for a, b in splits if b}
    out |= {a + b[1] + b[0] + b[2:] for a, b in splits if len(b) > 1}
    out |= {a + c + b[1:] for a, b in splits if b for c in letters}
    out |= {a + c + b for a, b in splits for c in letters}
    out.discard(word)
    return out


def fts_quote(word: str) -> str:
    """A word or phrase as one FTS5 string (double quotes doubled)."""
    return '"' + word.replace('"', '""') + '"'


def _phrase(tokens: list[str]) -> str:
    return fts_quote(" ".join(tokens))


# -- ranking ------------------------------------------------------------------------------------

class _Matches:
    """MATCH expressions run within the query's scope and without its negated words."""

    def __init__(self, index: VaultIndex, query: Query, parsed: ParsedQuery):
        self.index = index
        self.scope = Scope.of(query)
        self.negative = " OR ".join(fts_quote(w) for w in parsed.negatives)
        self.required = " AND ".join(_phrase(p) for p in parsed.phrases)

    def _match(self, expr: str) -> str:
        if self.required:
            expr = f"({expr}) AND {self.required}" if expr else self.required
        if self.negative:
            expr = f"({expr}) NOT ({self.negative})"
        return expr

    def ranked(self, expr: str, limit: int = POOL) -> dict[int, float]:
        return self.index.ranked(self._match(expr), self.scope, limit)

    def every_score(self, expr: str) -> dict[int, float]:
        return self.index.every_score(self._match(expr), self.scope)

    def members(self, expr: str, rowids) -> set[int]:
        """Which of `rowids` match `expr` (no scope: the pool is scoped already)."""
        return self.index.matching(expr) & set(rowids)

    def count(self, expr: str) -> int:
        return self.index.count(self._match(expr), self.scope)


def search(index: VaultIndex, query: Query, *, excerpts: bool = True) -> tuple[list[Hit], int]:
    """Ranked hits for `query` (cut to query.limit) and the number of notes in scope that match.
    With `query.explain`, each hit carries the signals that placed it (`extra["explain"]`). Without
    `excerpts`, add_excerpts gives them later to the hits that are shown (hybrid ranks 50 deep)."""
    ranking = rank(index, query, excerpts=excerpts)
    return ranking.hits, ranking.total


class Ranking:
    """What `rank` found: `hits`, `total` (the notes in scope that match), `literal` whether the
    query holds identifiers, paths or markup (`tokens`), and `decisive` whether the words alone
    settle the first place: the first note holds the query's identifiers, paths or markup, or its
    words in a row (three or more: an error message, a quoted phrase), or is named by the query."""
    __slots__ = ("hits", "total", "literal", "decisive")

    def __init__(self, hits: list[Hit], total: int, literal: bool = False, decisive: bool = False):
        self.hits, self.total, self.literal, self.decisive = hits, total, literal, decisive


def rank(index: VaultIndex, query: Query, *, excerpts: bool = True) -> Ranking:
    """`search`, saying also how much the words settle the ranking (`Ranking`), for a fusion."""
    parsed = prepare(index, query.text or "")
    if parsed.empty:
        return Ranking(*_browse(index, query))
    run = _Matches(index, query, parsed)
    terms, weights = _informative(index, parsed.terms, index.note_count())
    exact_expr = " OR ".join(t.exact_expr() for t in terms)
    fuzzy_expr = " OR ".join(e for t in terms if (e := t.fuzzy_expr()))
    title_exprs = [None if t.whole else "{title aliases} : " + t.any_expr() for t in terms]
    matched = run.every_score(exact_expr)        # (BM25 of every match once: the best, and the others' for `_fill`)
    exact = best(matched, POOL)
    fuzzy = run.ranked(fuzzy_expr, POOL // 2) if fuzzy_expr else {}
    pool = set(exact) | set(fuzzy)
    if len(terms) > 1:
        pool |= set(run.ranked(" AND ".join(t.any_expr() for t in terms), POOL // 2))
    if any(title_exprs):
        pool |= set(run.ranked(" OR ".join(e for e in title_exprs if e), POOL // 2))
    link_expr = " OR ".join(t.exact_expr() for t in _words_of(terms))
    inlinks = index.inlink_ranked(link_expr, run.scope, POOL) if link_expr else {}
    by_words = set(pool)
    if not parsed.phrases and not parsed.negatives:     # those hold for a note's own text only
        pool |= set(inlinks)
    if not pool:
        return Ranking([], 0)
    # typo and prefix scores outside their list count as 0, and so do the BM25 scores of notes
    # found only by the words others link to them with (they were not among the best by BM25)
    _fill(exact, matched, by_words)
    in_note = [run.members(t.any_expr(), pool) for t in terms] if len(terms) > 1 else [pool]
    in_title = [run.members(e, pool) if e else set() for e in title_exprs]
    info = index.names(pool)
    query_name = " ".join(parsed.sequence or [w for p in parsed.phrases for w in p] or [t.raw for t in terms])
    base = {r: exact.get(r, 0.0) + FUZZY_WEIGHT * fuzzy.get(r, 0.0) for r in pool}
    top, top_in = max(base.values()) or 1.0, max(inlinks.values(), default=0.0) or 1.0
    signals = {}
    for rowid in pool:
        title_share = sum(w for w, s in zip(weights, in_title) if rowid in s)
        if title_share:
            title_share *= _title_coverage(info[rowid], terms)
        signals[rowid] = Signals(
            bm25=base[rowid] / top, inlinks=inlinks.get(rowid, 0.0) / top_in,
            all_terms=sum(w for w, s in zip(weights, in_note) if rowid in s) ** 2, title=title_share,
            title_exact=float(title_share > 0.999 and _named(info[rowid], query_name)))
    if query.repo:
        here = set(index.paths_with_property(REPO_PROPERTY, query.repo, pool))
        for rowid in pool:
            if info[rowid][0] in here:
                signals[rowid].here = 1.0
    _proximity(run, signals, parsed, terms, max(RERANK, query.limit))
    ranked = sorted(((r, sig.score()) for r, sig in signals.items()), key=lambda item: (-item[1], info[item[0]][0]))
    ranked, drawn = _with_confidence(index, ranked, terms, weights, in_note)
    total = run.count(f"{exact_expr} OR {fuzzy_expr}") if fuzzy_expr else len(matched)
    hits = [_hit(index, rowid, info[rowid][0], score, parsed if excerpts else None, info,
                 _explained(signals[rowid], drawn) if query.explain else None)
            for rowid, score in ranked[:max(0, query.limit)]]
    literal = _literal(terms, parsed.identifiers)
    decisive = _decisive(run, parsed, literal, signals[ranked[0][0]], ranked[0][0])
    return Ranking(hits, max(total, len(pool)), bool(literal), decisive)


class Signals:
    """What places a note for a query, each in [0, 1] (`score` weighs them; `--explain` shows them):
    `bm25` over the note's fields, over the best candidate's; `inlinks` the BM25 of the words other
    notes link to it with, over the best's; `all_terms` the query's weight (rare words weigh more)
    the note holds, squared; `title` the query's weight its title or an alias holds; `title_exact`
    1 when the query is its title or an alias; `phrase` 1 when it holds the query's words in a row;
    `near` 1 when it holds them close together; `here` 1 when it is a session of the repository the
    search runs in."""
    __slots__ = ("bm25", "inlinks", "all_terms", "title", "title_exact", "phrase", "near", "here")

    def __init__(self, bm25: float = 0.0, inlinks: float = 0.0, all_terms: float = 0.0, title: float = 0.0,
                 title_exact: float = 0.0):
        self.bm25, self.inlinks, self.all_terms, self.title, self.title_exact = bm25, inlinks, all_terms, title, title_exact
        self.phrase = self.near = 0.0          # set by `_proximity` on the leading candidates
        self.here = 0.0

    WEIGHTS = {"bm25": 1.0, "inlinks": WEIGHT_INLINKS, "all_terms": BONUS_ALL_TERMS, "title": BONUS_TITLE,
               "title_exact": BONUS_TITLE_EXACT, "phrase": BONUS_PHRASE, "near": BONUS_NEAR, "here": BONUS_HERE}

    def score(self) -> float:          # WEIGHTS spelt out: called for every candidate
        return (self.bm25 + WEIGHT_INLINKS * self.inlinks + BONUS_ALL_TERMS * self.all_terms
                + BONUS_TITLE * self.title + BONUS_TITLE_EXACT * self.title_exact + BONUS_PHRASE * self.phrase
                + BONUS_NEAR * self.near + BONUS_HERE * self.here)

    def explain(self) -> dict[str, float]:
        """Each signal's share of the score, the signals that gave nothing left out."""
        return {name: round(weight * getattr(self, name), 4) for name, weight in self.WEIGHTS.items()
                if getattr(self, name)}


def _title_coverage(names: tuple[str, str, str], terms: list[Term]) -> float:
    """The largest share of a name's words (the title's or an alias's) that the query holds: a
    long question that shares one word with a title ("office" and "Office Suites") says less
    than a query naming the note. A word is held when it is a query word or starts with one's stem."""
    _, title, aliases = names
    best = 0.0
    for name in [title, *aliases.split("\n")] if aliases else [title]:
        found = [w for w in words(name) if w not in STOPWORDS] or words(name)
        if found:
            held = sum(1 for w in found if any(w == t.raw or w.startswith(t.stem) for t in terms))
            best = max(best, held / len(found))
    return best


def _named(names: tuple[str, str, str], query_name: str) -> bool:
    """Whether the note's title or one of its aliases reads as the query."""
    _, title, aliases = names
    return any(" ".join(words(n)) == query_name for n in ([title, *aliases.split("\n")] if aliases else [title]))


def _explained(signals: Signals, drawn: float) -> dict:
    """What `--explain` shows of a hit: its signals, and how far the scores were drawn together."""
    out: dict = {"signals": signals.explain()}
    if drawn:
        out["drawn_to_first"] = round(drawn, 4)
    return out


def _with_confidence(index: VaultIndex, ranked: list, terms: list[Term], weights: list[float],
                     in_note) -> tuple[list, float]:
    """The scores drawn toward the first one by how little of the query the first note holds
    (a typo or prefix match counts half): s' = c*s + (1-c)*s1. The order stays; the gaps,
    which a fusion reads as how clearly a ranking leads, shrink when the best match is weak.
    Returns the scores and 1 - c (0 when the first note holds the whole query)."""
    if not ranked:
        return ranked, 0.0
    top_id, top = ranked[0]
    held = 0.0
    for term, weight, holding in zip(terms, weights, in_note if len(terms) > 1 else [None] * len(terms)):
        if holding is not None and top_id not in holding:
            continue                   # neither the word nor a typo of it
        if not term.variants or top_id in index.matching(term.exact_expr(), among=[top_id]):
            held += weight             # the word itself (or the prefix being typed)
        else:
            held += FUZZY_WEIGHT * weight
    if held >= 1.0 - 1e-9:
        return ranked, 0.0
    return [(rowid, held * score + (1 - held) * top) for rowid, score in ranked], 1 - held


def _literal(terms: list[Term], identifiers: frozenset[str]) -> list[Term]:
    """The terms that are identifiers, paths or markup of the query (`tokens`), not words."""
    return [t for t in terms if t.whole or t.raw in identifiers]


def _decisive(run: _Matches, parsed: ParsedQuery, literal: list[Term], first: "Signals", top_id: int) -> bool:
    """Whether the words settle the first place (`Ranking`)."""
    if parsed.phrases or first.title_exact or (first.phrase and len(parsed.sequence) >= 3):
        return True
    return bool(literal) and all(run.members(t.exact_expr(), [top_id]) for t in literal)


def _informative(index: VaultIndex, terms: list[Term], notes: int) -> tuple[list[Term], list[float]]:
    """The terms worth ranking by, with each one's share of the query's weight (by IDF).

    A word in more than half of the notes has no BM25 weight (FTS5 clamps its IDF to ~0) yet
    costs a walk over most of the index: it is left out when rarer words remain."""
    if not terms:
        return [], []
    counts = []
    for term in terms:
        df = index.doc_count(term.stem) or max([index.doc_count(v) for v in term.variants] or [0])
        counts.append(df)
    keep = [i for i, df in enumerate(counts) if df <= notes * COMMON_SHARE] if notes >= 20 else []
    if not keep:
        keep = list(range(len(terms)))
    idf = [math.log(1 + (notes - df + 0.5) / (df + 0.5)) if df else math.log(1 + notes)
           for df in (counts[i] for i in keep)]
    total = sum(idf) or 1.0
    return [terms[i] for i in keep], [w / total for w in idf]


def _proximity(run: _Matches, signals: dict, parsed: ParsedQuery, terms: list[Term], depth: int) -> None:
    """The exact phrase and the words close together, checked on the leading candidates only."""
    scores = {rowid: sig.score() for rowid, sig in signals.items()}
    leaders = heapq.nlargest(depth, scores, key=scores.get)
    if not leaders:
        return
    if parsed.sequence:
        for rowid in run.members(_phrase(parsed.sequence), leaders):
            signals[rowid].phrase = 1.0
    near = _words_of(terms)
    if 2 <= len(near) <= 6:
        for rowid in run.members(_near_expr(near), leaders):
            signals[rowid].near = 1.0


def best(scores: dict[int, float], limit: int) -> dict[int, float]:
    """The `limit` best of `scores`, best first; of equal scores, the one met first (in id order,
    as SQLite's `ORDER BY score DESC LIMIT n` keeps them)."""
    return dict(sorted(scores.items(), key=_best_first)[:limit])


def _best_first(item: tuple[int, float]) -> float:
    return -item[1]


def _fill(scores: dict, matched: dict, pool: set) -> None:
    """Scores for the pool's notes that were not in that ranked list's top (`matched`: every
    note's score)."""
    scores.update({r: matched[r] for r in pool if r not in scores and r in matched})


def _near_expr(terms: list[Term]) -> str:
    return "NEAR(" + " ".join(t.exact_expr() for t in terms) + f", {2 * len(terms)})"


def _words_of(terms: list[Term]) -> list[Term]:
    return [t for t in terms if not t.whole]


def _hit(index: VaultIndex, rowid: int, path: str, score: float, parsed: ParsedQuery | None, info,
         explain: dict | None = None) -> Hit:
    """The hit of a ranked note; without `parsed`, its excerpt is left for add_excerpts."""
    extra = {"explain": explain} if explain is not None else {}
    if parsed is None:
        return Hit(path=path, basename=info[rowid][1], score=round(score, 4), excerpt="", engine=ENGINE,
                   extra={**extra, _LATER: rowid})
    return Hit(path=path, basename=info[rowid][1], score=round(score, 4), excerpt=_excerpt_of(index, rowid, parsed),
               engine=ENGINE, extra=extra)


_LATER = "_excerpt_of_row"      # extra key of a hit whose excerpt add_excerpts makes


def _excerpt_of(index: VaultIndex, rowid: int, parsed: ParsedQuery) -> str:
    body, code = index.body_and_code(rowid)
    return excerpt(body, parsed) or excerpt(code, parsed, require_match=True)


def add_excerpts(index: VaultIndex, hits: list[Hit], text: str) -> list[Hit]:
    """The hits of search(..., excerpts=False) among `hits` with their excerpts for `text`."""
    parsed = None
    out = []
    for hit in hits:
        if _LATER not in hit.extra:
            out.append(hit)
            continue
        parsed = parsed or prepare(index, text)
        extra = {k: v for k, v in hit.extra.items() if k != _LATER}
        out.append(hit.replace(excerpt=_excerpt_of(index, hit.extra[_LATER], parsed), extra=extra))
    return out


def _browse(index: VaultIndex, query: Query) -> tuple[list[Hit], int]:
    """No words to look for: the notes in scope, most recently changed first."""
    total, rows = index.recent(Scope.of(query), query.limit)
    return [Hit(path=p, basename=t, score=0.0, excerpt=_shorten(b, 0), engine=ENGINE) for p, t, b in rows], total


# -- excerpts -----------------------------------------------------------------------------------

def excerpt(text: str, parsed: ParsedQuery, require_match: bool = False) -> str:
    """The passage (a line, widened to ~300 characters) holding the most query words."""
    if not text:
        return ""
    matcher = _Matcher(parsed)
    lines = text.split("\n")
    best, best_score, best_pos = -1, 0.0, 0
    for i, line in enumerate(lines):
        score, pos = matcher.score(line)
        if score > best_score:
            best, best_score, best_pos = i, score, pos
    if best < 0:
        return "" if require_match else _shorten(text, 0)
    passage = lines[best]
    if len(passage) < EXCERPT_CHARS:
        return _shorten("\n".join(lines[best:best + 6]), 0)
    return _shorten(passage, best_pos)


class _Matcher:
    """Finds the query's words (as typed, as stems, as typo variants; as word prefixes) in a line."""

    def __init__(self, parsed: ParsedQuery):
        self.group_of: dict[str, int] = {}
        groups = [[t.raw, *t.variants, t.stem[:-1] if t.stem.endswith("i") else t.stem] for t in parsed.terms]
        groups += [[w] for p in parsed.phrases for w in p]
        for n, forms in enumerate(groups):
            for form in forms:
                if form:
                    self.group_of.setdefault(form, n)
        self.groups = len(set(self.group_of.values()))
        forms = sorted(self.group_of, key=len, reverse=True)
        # a word starts where a word does; a CJK bigram anywhere inside its run
        self.words = re.compile("|".join(_at_word_start(f) for f in forms)) if forms else None
        sequence = parsed.sequence
        self.phrase = re.compile(r"(?<![^\W_])" + r"[\W_]+".join(re.escape(w) for w in sequence)) if sequence else None

    def score(self, line: str) -> tuple[float, int]:
        if self.words is None:
            return 0.0, 0
        folded = fold(line)
        found, first = set(), None
        for match in self.words.finditer(folded):
            found.add(self.group_of[match.group(0)])
            if first is None:
                first = match.start()
            if len(found) == self.groups:     # (every word found: the rest of a long line adds nothing)
                break
        if not found:
            return 0.0, 0
        bonus = 0.5 if self.phrase is not None and self.phrase.search(folded) else 0.0
        # prefer dense passages: a short line with all the words beats a long one with the same
        return len(found) + bonus - min(len(line), 2000) / 20000, first or 0


def _at_word_start(form: str) -> str:
    return re.escape(form) if cjk.has_cjk(form[:1]) else r"(?<![^\W_])" + re.escape(form)


_SPACE = re.compile(r"\s+")


def _shorten(text: str, around: int) -> str:
    text = strip_control(text or "")
    start = max(0, around - 80)
    if start:
        space = text.rfind(" ", 0, start)
        start = space + 1 if space >= 0 and start - space < 30 else start
    piece = text[start:start + EXCERPT_CHARS + 200]
    flat = _SPACE.sub(" ", piece).strip()
    if len(flat) > EXCERPT_CHARS:
        cut = flat[:EXCERPT_CHARS]
        space = cut.rfind(" ")
        flat = (cut[:space] if space > EXCERPT_CHARS // 2 else cut).rstrip(" ,;:.-") + "…"
    return ("…" + flat) if start else flat
