"""Does a prompt revisit a past session? A calibrated yes or no, never "the top hit, always".

Each distinct word of the prompt (archive.recall_terms: an identifier such as `billing-db-2` is one word,
with its parts and its compound) weighs as much as it is rare in the archive (inverse document
frequency: a word most sessions hold says little about which one is meant). A word held by more
than COMMON_SHARE of the sessions is not informative. A session's `coverage` is the share of the
informative words' weight it holds: a word counts fully where the session names it in its title or
its outcome (errors met, commits, tasks), a little less in a prompt, less again in what was said
(answers, compaction summaries, commands); an identifier's parts without the identifier itself
count PARTS_ONLY (`billing-db-3` is not `billing-db-2`). Its `score` is the coverage, times
OTHER_PLACE for a session of another repository (this repository's sessions first).

The words are archive.recall_terms' (a CJK run as its character pairs, a duration in any unit or in
words as one term: "half a minute" is `timeout 30 s`; an error by its other standard name: "bad
gateway" is `502`). The best session is shown only when all of
these hold:
  - the prompt is no slash command and has at least MIN_TERMS informative words (not a greeting,
    thanks or a one-word nudge), and the archive knows some of them;
  - the best score reaches MIN_COVERAGE, or MIN_COVERAGE_NEW_WORK for a prompt that asks for new
    work ("add ...", "write ...") without a word of the past ("again", "is back"): a new task that
    shares words with an old one is a near miss unless it shares nearly all of them; or only
    MIN_COVERAGE_EVIDENCE for a prompt that gives evidence of a revisit beyond the words: it says
    its problem is back or failing ("again", "keeps failing", `NoSuchMethodError`) or met before
    ("we've seen this before", "how did we fix"), asks for nothing new, "new ..." included (a plan
    or a wish sharing as many words is a near miss), and does not say it differs from the one met
    before ("not the disk this time"); with that evidence, MIN_COVERAGE_DISTINCT when the best
    session (and those within KEEP_RATIO of it) scores STAND_OUT times the best of the others, in an
    archive of STAND_OUT_AMONG sessions or more;
  - the best session holds at least MIN_MATCHED of the prompt's words;
  - it is not one of a crowd: at most MAX_CROWD sessions come within CROWD_RATIO of its score (a
    prompt that fits many sessions as well is generic).
Then the sessions within KEEP_RATIO of the best (a problem met twice), up to MAX_ITEMS, minus those
already shown in this session, are the answer.

With the semantic extra (`similar`: context.recall.similarity), a prompt whose words fall short of
MIN_COVERAGE (not a request of new work) is looked at again by meaning: each session the words
found (at least FUSE_POOL, best bound first) gets `fused` = its cosine with the prompt +
SCORE_WEIGHT x its score, and the sessions whose fused value reaches FUSED_MIN are the answer,
when the best of them all is one of them, covers FUSE_MIN_COVERAGE of the prompt's words and
holds MIN_MATCHED of them: the meaning says which session, the words that it is this one.

The thresholds were set on the dev halves of the judged sets (benchmarks/recall_set: the first, written,
blind and failing sets); benchmarks/prompt_recall.py reports them on their test halves and on the sets
held out whole, on archives of 10 to 10,000 sessions (docs/recall.md). Read-only and light to import: the prompt hook runs
it before the model sees the prompt (no dataclasses: they import `inspect`).
"""
from __future__ import annotations

import math
import os
import re

from obsidian_memory.core import cjk
from obsidian_memory.core import machine as machine_module
from obsidian_memory.archive import recall_terms as terms_module

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable
    from typing import Any

    from obsidian_memory.archive import Archive
    from obsidian_memory.archive.rows import RecallDocument

    Hidden = Callable[[str | None], bool]     # whether a session's note leaves it out (private)
    Similar = Callable[[list[str]], dict[str, float]]   # session ids -> cosine with the prompt

PROMPT_CHARS = 4000          # of a long prompt (a pasted log), the start is read,
MAX_WORDS = 60               # and its first distinct words: the work stays bounded
MIN_TERMS = 2
MIN_MATCHED = 2
MIN_COVERAGE = 0.6
MIN_COVERAGE_NEW_WORK = 0.8  # a prompt that asks for new work ("add ...") and says nothing of "again"
MIN_COVERAGE_EVIDENCE = 0.45  # a prompt that says a problem is back, failing or met before, and asks for nothing new
MIN_COVERAGE_DISTINCT = 0.3   # the same, when the best session stands out: STAND_OUT x the best of the rest
STAND_OUT = 2.5
STAND_OUT_AMONG = 50          # sessions an archive needs for one to stand out among them
COMMON_SHARE = 0.3           # a term in more than this share of the sessions is not informative,
COMMON_MIN = 3               # if they are more than this many (in a tiny archive every word is rare)
MAX_CROWD = 3
CROWD_RATIO = 0.85
KEEP_RATIO = 0.85
MAX_ITEMS = 3
PARTS_ONLY = 0.5             # an identifier's parts without the identifier itself count this much
OTHER_PLACE = 0.85           # a session of another repository (or folder) weighs this much
MAX_SCORED = 150             # sessions read and scored at most (the best bounds)
SHOWN = 8                    # candidates kept for `recall` to show
FIELD_WEIGHTS = {"title": 1.0, "outcome": 1.0, "asked": 0.9, "said": 0.7}
# With the semantic extra (docs/recall.md: set on the dev halves)
FUSED_MIN = 0.92             # cosine + SCORE_WEIGHT x score
SCORE_WEIGHT = 0.1
FUSE_MIN_COVERAGE = 0.2
FUSE_POOL = 20               # sessions compared by meaning at least (those the words found first)
# A prompt that starts by asking for something new is about new work; one that speaks of the past
# ("again", "is back") is about old work. Words a prompt may open with before its verb.
NEW_WORK_VERBS = frozenset("""add create write implement build make generate scaffold introduce design draft set
setup convert port translate rename refactor document upgrade bump configure support integrate extend remove
delete replace update""".split())
OPENERS = frozenset("please can could would you we i let's lets let us need to want to should help me i'd we'd like love".split())
RECURRENCE_CUES = frozenset("again still anymore recurring".split())
PAST_CUES = RECURRENCE_CUES | frozenset("back before previous previously last same another".split())
# The same in the other languages users write in: in German, French and Spanish a verb of making
# among the first words, wherever the sentence puts it ("Bitte ein Feld hinzufügen"); in Chinese
# and Japanese one anywhere; the past said as "wieder", "encore", "otra vez", 又, また.
OTHER_NEW_WORK_VERBS = frozenset("""hinzufügen füge fügen erstelle erstellen schreibe schreiben baue bauen
implementiere implementieren ergänze ergänzen ajouter ajoute ajoutez ajoutons créer crée créez écrire écris
écrivez implémenter añadir añade agrega agregar crear crea escribir escribe implementar""".split())
OTHER_PAST_CUES = frozenset("wieder erneut nochmal encore toujours vez todavía sigue".split())
CJK_NEW_WORK = ("加一个", "加个", "加一", "添加", "新增", "增加", "新建", "创建", "写一个", "实现", "追加", "作成", "新規")
# "(I want it) made so that ...": new behaviour; not "so that it no longer ..." (`落ちないようにしたい`)
CJK_WISHES = ("ようにしたい", "ようにしてほしい")
CJK_PAST_CUES = ("又", "再次", "还是", "依然", "仍然", "また", "再び", "まだ")
# Evidence of a revisit (MIN_COVERAGE_EVIDENCE): a problem said to be back (RECURRENCE_CUES, OTHER_PAST_CUES,
# CJK_PAST_CUES) or failing, in words ("keeps failing", "hung", "OOM", 报错) or as an error's name (`NoSuchMethodError`)
FAILURE = r"""(?ix)(?:error|exception)s?\b|\b(?:fail(?:s|ed|ing|ure|ures)?|broken?|breaks|crash(?:es|ed|ing)?
    |hung|hangs|stuck|fatal|panic|traceback|oom\w*|rejected|refused|timed\ out|doesn't\ work|not\ working
    |fehler\w*|fehlgeschlagen|kaputt|abgestürzt|stürzt|hängt|erreur|échoue|échec|plante|planté|cassé|bloqué
    |falla|fallo|falló|roto|colgado)\b"""   # compiled on first use (re's cache)
# ... or said to have been met before ("we've seen this before", "how did we fix", "like last time", 上次),
# by a prompt that does not open with a request for new work ("Add a column for the last time ...")
MET_BEFORE = r"""(?ix)\b(?:(?:seen|had|hit|met)\ (?:this|that|it)\ (?:before|already|last\ time)
    |(?:like|as|since)\ (?:last\ time|before)|last\ time\ (?:we|i|it|this|that)
    |(?:how|what|where)\ did\ (?:we|i)\b|did\ we\ (?:fix|solve|do|set|change)|we\ (?:fixed|solved)\ (?:this|that|it)
    |same\ (?:issue|problem|error|bug|thing)\ as|hatten\ wir|schon\ (?:mal|einmal|behoben|gelöst)|letztes\ mal
    |la\ dernière\ fois|déjà\ (?:eu|vu|corrigé|réglé)|la\ última\ vez)\b"""
CJK_MET_BEFORE = ("上次", "前回", "この前", "前にも")
# ... unless it says this problem is not the one met before ("not the disk this time", "differently",
# "this time" but not of a return: "again this time", 这次又, 今回もまた)
DIFFERS = r"""(?ix)\b(?:(?<!\bagain\ )(?<!\bat\ )this\ time(?!\ again)|differently|so\ not\ that
    |not\ (?:the|a|an)\ (?!new\b|big\b|real\b)\w+(?:\ \w+)?\ (?:this\ time|thing|issue|problem)
    |diesmal(?!\ (?:schon\ )?wieder)|dieses\ mal(?!\ (?:schon\ )?wieder)|anders\ als|cette\ fois(?!\ encore)
    |esta\ vez(?!\ otra))\b|(?:这次|這次|今回)(?![又も]|また)"""
# ... and one that says outright its problem is another ("it's not the disk this time", "but differently",
# 这次不是) is not taken by meaning either, whose near misses are problems of a session's own topic
ANOTHER_PROBLEM = r"""(?ix)\b(?:it'?s|it\ is|that'?s|but)\ not\ (?:[\w'-]+\ ){0,2}[\w'-]+,?\ this\ time\b(?!\ either)
    |\bthis\ time,?\ (?:it'?s|it\ is|that'?s)\ not\b|\b(?:but|just)\ differently\b|\bdifferently\ this\ time\b
    |\bdiesmal\ (?:ist\ es\ )?nicht\b|\b(?:ce\ n'est|c'est)\ pas\ (?:\w+\ ){0,2}?cette\ fois\b
    |\bpas\ (?:le|la|les|l'|un|une)\ ?(?:\w+\ ){0,2}?cette\ fois\b|\bcette\ fois,?\ ce\ n'est\ pas\b"""
CJK_ANOTHER_PROBLEM = ("这次不是", "這次不是", "今回は違")   # (not 这次不是又...: "isn't it ... again")
CJK_FAILURE = ("报错", "错误", "失败", "挂了", "崩溃", "异常", "超时", "卡住", "出错", "エラー", "失敗", "落ち", "クラッシュ", "例外",
               "タイムアウト", "届かない", "動かない")


class Word:
    """A word of the prompt: its terms (a joined identifier has its parts and their compound),
    how many archived sessions hold each, and the word's weight (its rarest term's). Its terms
    are those of the word in lower case, whatever case it was typed in; a word typed in camel
    case (`TrailmapApplication`) also counts by its camel parts where the session lacks the
    whole word (`camel_held`, PARTS_ONLY), as a joined identifier counts by its parts."""

    def __init__(self, text: str, terms: dict[str, int], weights: dict[str, float], compounds: tuple[str, ...],
                 informative: bool, camel_held: dict[str, int] | None = None,
                 camel_weights: dict[str, float] | None = None) -> None:
        self.text = text
        self.terms = terms              # term -> sessions holding it
        self.weights = weights
        self.compounds = compounds      # the identifier's compound terms (`billingdb2`)
        self.informative = informative
        self.camel_held = camel_held or {}         # camel-case parts -> sessions holding it (none for a word in lower case)
        self.camel_weights = camel_weights or {}   # ... -> its weight

    @property
    def weight(self) -> float:
        return max(self.weights.values())

    @property
    def known(self) -> bool:
        return any(self.terms.values())

    def credit(self, field_of: dict[str, str]) -> float:
        """How much of the word a session holds, 0..1: the compound, or the parts' share."""
        compound = max((FIELD_WEIGHTS[field_of[t]] for t in self.compounds if t in field_of), default=0.0)
        parts = [t for t in self.terms if t not in self.compounds]
        total = sum(self.weights[t] for t in parts)
        share = sum(self.weights[t] * FIELD_WEIGHTS[field_of[t]] for t in parts if t in field_of) / total if total else 0.0
        if self.compounds:
            share *= PARTS_ONLY   # `billing-db-3` is not `billing-db-2`, nor `fct_orders` `fct_payments`
        camel_total = sum(self.camel_weights.values())
        camel = PARTS_ONLY * sum(w * FIELD_WEIGHTS[field_of[t]] for t, w in self.camel_weights.items() if t in field_of) \
            / camel_total if camel_total else 0.0
        return max(compound, share, camel)

    def credit_bound(self, postings: dict[str, list[int]]) -> dict[int, float]:
        """document -> the most `credit` can be for it, knowing only which terms it holds."""
        parts = [t for t in self.terms if t not in self.compounds]
        total = sum(self.weights[t] for t in parts)
        bound: dict[int, float] = {}
        for term in parts:
            for doc in postings.get(term, ()):
                bound[doc] = bound.get(doc, 0.0) + self.weights[term] / total
        if self.compounds:
            bound = {doc: share * PARTS_ONLY for doc, share in bound.items()}
        camel_total = sum(self.camel_weights.values())
        camel: dict[int, float] = {}
        for term, weight in self.camel_weights.items():
            for doc in postings.get(term, ()):
                camel[doc] = camel.get(doc, 0.0) + PARTS_ONLY * weight / camel_total
        for doc, share in camel.items():
            bound[doc] = max(bound.get(doc, 0.0), share)
        for term in self.compounds:
            bound.update(dict.fromkeys(postings.get(term, ()), 1.0))
        return bound

    def as_dict(self) -> dict[str, Any]:
        return {"word": self.text, "terms": dict(self.terms), "weight": round(self.weight, 3),
                "informative": self.informative}


class Candidate:
    def __init__(self, session_id: str, title: str, project: str, started_at: str | None, note_path: str | None,
                 same_place: bool, machine: str | None = None) -> None:
        self.session_id, self.title, self.project = session_id, title, project
        self.started_at, self.note_path, self.same_place = started_at, note_path, same_place
        self.machine = machine                     # another machine's session: that machine; else None
        self.coverage = self.score = 0.0
        self.similarity: float | None = None       # cosine with the prompt (the semantic extra)
        self.matched: dict[str, str] = {}          # prompt word -> the field where it counted most

    def as_dict(self) -> dict[str, Any]:
        return {"session_id": self.session_id, "title": self.title, "project": self.project,
                "started_at": self.started_at, "note_path": self.note_path, "same_place": self.same_place,
                "machine": self.machine, "coverage": round(self.coverage, 3), "score": round(self.score, 3),
                "similarity": None if self.similarity is None else round(self.similarity, 3),
                "matched": dict(self.matched)}


class Decision:
    def __init__(self, prompt: str) -> None:
        self.prompt = prompt
        self.words: list[Word] = []
        self.candidates: list[Candidate] = []      # best first (the first few)
        self.chosen: list[Candidate] = []          # what to show
        self.already_shown: list[str] = []         # confident, but shown in this session before
        self.reason = ""                           # why this decision
        self.by_meaning = False                    # chosen with the semantic extra's help

    @property
    def confident(self) -> bool:
        return bool(self.chosen or self.already_shown)

    def as_dict(self) -> dict[str, Any]:
        return {"prompt": self.prompt, "confident": self.confident, "reason": self.reason,
                "by_meaning": self.by_meaning, "words": [w.as_dict() for w in self.words],
                "chosen": [c.session_id for c in self.chosen], "already_shown": list(self.already_shown),
                "candidates": [c.as_dict() for c in self.candidates]}


def is_chatter(prompt: str) -> str:
    """Why a prompt is no question about past work ('' if it may be)."""
    text = prompt.strip()
    if not text:
        return "an empty prompt"
    if text.startswith("/"):
        return "a slash command"
    return ""


def decide(archive: Archive, prompt: str, *, repo_root: str | None, cwd: str | None, shown: Iterable[str] = (),
           repo_id: str | None = None, hidden: Hidden | None = None,
           similar: Similar | None = None) -> Decision:
    """The decision for `prompt` typed in `cwd` (of repository `repo_root`, whose identity on every
    machine is `repo_id`), against `archive` (an open archive.Archive); `shown`: ids of sessions
    this session has already seen (another machine's session is marked with its machine);
    `hidden(note_path)`: whether a session is left out as if it were not
    archived (its note is private); `similar(session_ids)`: session id -> cosine with the prompt
    (the semantic extra; similarity.Similarity), or None."""
    decision = Decision(prompt)
    decision.reason = is_chatter(prompt)
    if decision.reason:
        return decision
    size = archive.recall.size()
    if not size:
        decision.reason = "no archived session is indexed for recall yet"
        return decision
    read = prompt[:PROMPT_CHARS]
    decision.words = weigh(archive, read, size)
    informative = [w for w in decision.words if w.informative]
    if len(informative) < MIN_TERMS:
        decision.reason = f"too few informative words ({len(informative)})"
        return decision
    if not any(w.known for w in informative):
        decision.reason = "no informative word of the prompt is in the archive"
        return decision
    candidates = score(archive, informative, size, repo_root=repo_root, cwd=cwd, repo_id=repo_id,
                       hidden=hidden, pool=FUSE_POOL if similar is not None else SHOWN)
    decision.candidates = candidates[:SHOWN]
    if not candidates:
        decision.reason = "no archived session shares an informative word"
        return decision
    best = candidates[0]
    crowd = sum(1 for c in candidates if c.score >= CROWD_RATIO * best.score)
    intent = Intent(read)
    new_work = intent.asks_for_new_work
    needed = MIN_COVERAGE_NEW_WORK if new_work else MIN_COVERAGE
    if MIN_COVERAGE_DISTINCT <= best.score < needed and intent.shows_a_revisit():
        needed = MIN_COVERAGE_EVIDENCE
        if best.score < MIN_COVERAGE_EVIDENCE and size >= STAND_OUT_AMONG and stands_out(candidates):
            needed = MIN_COVERAGE_DISTINCT
    if best.score < needed:
        where = "" if best.same_place else f", x{OTHER_PLACE} as another repository's"
        decision.reason = (f"the best session covers {best.coverage:.0%} of the prompt{where}; needs {needed:.0%}"
                           f"{' for a request of new work' if new_work else ''}")
        keep = fuse(candidates, similar) if similar is not None and not new_work \
            and not intent.says_it_is_another_problem() else []
        if keep:
            decision.by_meaning = True
            decision.reason = (f"covers {keep[0].coverage:.0%} of the prompt's informative words and is the "
                               f"closest in meaning ({keep[0].similarity:.2f})")
            decision.candidates = sorted(candidates, key=_fused, reverse=True)[:SHOWN]
            return _answer(decision, keep, shown)
    elif len(best.matched) < MIN_MATCHED:
        decision.reason = f"the best session shares {len(best.matched)} informative word(s) (needs {MIN_MATCHED})"
    elif crowd > MAX_CROWD:
        decision.reason = f"{crowd} sessions match about as well: the prompt is too generic"
    if decision.reason:
        return decision
    keep = [c for c in candidates if c.score >= max(KEEP_RATIO * best.score, needed)][:MAX_ITEMS]
    evidence = ", and the prompt says its problem is back, failing or met before" if best.score < MIN_COVERAGE else ""
    standing_out = (f", and it scores {STAND_OUT:g} times the best of the other sessions"
                    if best.score < MIN_COVERAGE_EVIDENCE else "")
    decision.reason = f"covers {best.coverage:.0%} of the prompt's informative words{evidence}{standing_out}"
    return _answer(decision, keep, shown)


def stands_out(candidates: list[Candidate]) -> bool:
    """Whether the best session (with those within KEEP_RATIO of it: a problem met twice) scores
    STAND_OUT times the best of the others scored (those whose bound could reach a decision, and
    the first few by their bound: score() reads no more)."""
    best = candidates[0].score
    rest = next((c.score for c in candidates if c.score < KEEP_RATIO * best), 0.0)
    return best >= STAND_OUT * rest


def _answer(decision: Decision, keep: list[Candidate], shown: Iterable[str]) -> Decision:
    """The decision for the sessions `keep`, less those this session was shown already."""
    seen = set(shown)
    decision.chosen = [c for c in keep if c.session_id not in seen]
    decision.already_shown = [c.session_id for c in keep if c.session_id in seen]
    if not decision.chosen:
        decision.reason = "the matching sessions were shown in this session already"
    return decision


def fuse(candidates: list[Candidate], similar: Similar) -> list[Candidate]:
    """The sessions the prompt's meaning and words point at together (see the module's
    docstring), best first; [] when the best of all is not one of them."""
    similarity = similar([c.session_id for c in candidates])
    for candidate in candidates:
        candidate.similarity = similarity.get(candidate.session_id)
    ranked = sorted((c for c in candidates if c.similarity is not None), key=_fused, reverse=True)
    keep = [c for c in ranked if _fused(c) >= FUSED_MIN and c.coverage >= FUSE_MIN_COVERAGE
            and len(c.matched) >= MIN_MATCHED][:MAX_ITEMS]
    return keep if keep and ranked[0] is keep[0] else []


def _fused(candidate: Candidate) -> float:
    if candidate.similarity is None:
        return -1.0
    return candidate.similarity + SCORE_WEIGHT * candidate.score


class Intent:
    """What a prompt asks for besides the words it shares with a session, its words read once.
    `asks_for_new_work`: it opens with a request for something new ("Add a ...", "can you write
    ...", "Bitte ein Feld hinzufügen", "给订单表加一个字段": one of NEW_WORK_VERBS in English) and
    nowhere speaks of the past ("again", "is back", "same as before", "wieder", 又);
    `asks_for_anything_new`: the same, or it opens with "new" ("new flyway migration: ...");
    `requested`: it opens with such a request, whatever else it says ("Implement the same as ...")."""
    __slots__ = ("prompt", "spoken", "requested", "asks_for_new_work", "asks_for_anything_new")

    def __init__(self, prompt: str) -> None:
        spoken = [w.lower() for w in re.findall(r"[^\W\d_]+", prompt)]    # its words, in any script
        english = [w.lower().replace("’", "'") for w in re.findall("[A-Za-z'’]+", prompt)]   # I'd, I’d
        opening = next((w for w in english[:6] if w not in OPENERS), "")   # its verb, after "please", "can you", ...
        past = any(w in PAST_CUES or w in OTHER_PAST_CUES for w in spoken) or any(cue in prompt for cue in CJK_PAST_CUES)
        requested = opening in NEW_WORK_VERBS or any(w in OTHER_NEW_WORK_VERBS for w in spoken[:8]) \
            or any(verb in prompt for verb in CJK_NEW_WORK) \
            or any(wish in prompt and "ない" + wish not in prompt for wish in CJK_WISHES)
        self.prompt, self.spoken, self.requested = prompt, spoken, requested
        self.asks_for_new_work = not past and requested
        self.asks_for_anything_new = not past and (requested or opening == "new")

    def says_it_is_another_problem(self) -> bool:
        """Whether the prompt says its problem is not the one met before ("it's not the disk this
        time", "broken again but differently", 这次不是外键)."""
        return bool(re.search(ANOTHER_PROBLEM, self.prompt.replace("’", "'"))) \
            or any(cue in self.prompt and cue + "又" not in self.prompt for cue in CJK_ANOTHER_PROBLEM)

    def shows_a_revisit(self) -> bool:
        """Whether the prompt gives evidence of a revisit beyond the words it shares with a session: it
        says a problem is back ("again", "still", "wieder", 又, また), failing ("keeps failing", "hung",
        `NoSuchMethodError`, 报错) or, opening with no request, met before ("we've seen this before",
        "how did we", 上次), asks for no new work ("new ..." included) and does not say it is not the
        problem met before ("not the disk this time", "differently", "diesmal", 这次 but not 这次又)."""
        if self.asks_for_anything_new or re.search(DIFFERS, self.prompt):
            return False
        return any(w in RECURRENCE_CUES or w in OTHER_PAST_CUES for w in self.spoken) \
            or any(cue in self.prompt for cue in CJK_PAST_CUES) or bool(re.search(FAILURE, self.prompt)) \
            or any(cue in self.prompt for cue in CJK_FAILURE) or not self.requested and (
                bool(re.search(MET_BEFORE, self.prompt)) or any(cue in self.prompt for cue in CJK_MET_BEFORE))


def weigh(archive: Archive, prompt: str, size: int) -> list[Word]:
    """The prompt's distinct words with their terms and weights."""
    found: dict[str, tuple[list[str], list[str]]] = {}
    camel: dict[str, list[str]] = {}     # a word typed in camel case: its camel parts
    characters: set[str] = set()
    for piece in cjk.split_runs(prompt):
        if len(found) >= MAX_WORDS:
            break
        if cjk.has_cjk(piece):
            for character, pairs in cjk_characters(piece)[:MAX_WORDS - len(found)]:
                if character in terms_module.CJK_FUNCTION_CHARACTERS:
                    continue
                found.setdefault(character, ([], []))[1].extend(p for p in pairs if p not in found[character][1])
                characters.add(character)
            continue
        for word in terms_module.words(piece):
            if word.lower() not in found:
                split = terms_module.split_word(word.lower())   # the case typed changes nothing
                if split[0] or split[1]:
                    found[word.lower()] = split
                    cased = terms_module.split_word(word, whole_pieces=False)[0]
                    if cased != split[0]:
                        camel[word.lower()] = cased
                    if len(found) >= MAX_WORDS:
                        break
    named = {parts[0] for parts, _ in found.values() if len(parts) == 1}
    # "half a minute": 30000ms; "bad gateway": 502, OutOfMemoryError: oom
    for written, term in [*terms_module.quantities(prompt), *terms_module.error_names(prompt)]:
        _one_word(found, camel, written, term)
        named.add(term)
    for written, term in terms_module.numbered_names(prompt):   # kafka-broker-03: broker3, kafka3
        if term not in named:
            named.add(term)
            found.setdefault(f"{written.lower()} ({term})", ([term], []))
    counts = archive.recall.document_counts([t for parts, compounds in found.values() for t in parts + compounds]
                                            + [t for parts in camel.values() for t in parts])
    words = []
    for text, (parts, compounds) in found.items():
        held = {t: counts.get(t, 0) for t in parts + compounds}
        weights = weights_of(held, size)
        if text in characters:   # as much as its commoner pair says
            weights = dict.fromkeys(weights, min(weights.values()))
        camel_held = {t: counts.get(t, 0) for t in camel.get(text, ())}
        words.append(Word(text, held, weights, tuple(compounds), informative=min(held.values()) <= common_above(size),
                          camel_held=camel_held, camel_weights=weights_of(camel_held, size)))
    return words


def _one_word(found: dict[str, tuple[list[str], list[str]]], camel: dict[str, list[str]], written: str,
               term: str) -> None:
    """Make a thing the prompt names by words that have a term of their own (`written`, as typed:
    a duration, "half a minute": `30000ms`; an error by its other name, "Bad Gateway": `502`) one
    word of it, whose compound is that term: its words, and the word of the term if typed too
    ("502 Bad Gateway"), counted once, as a session that says it any way holds it whole. A name
    inside a longer word (`OutOfMemoryError`) leaves that word as it is, beside the term."""
    key = next((text for text in found if text.endswith(f" ({term})")),   # named before: "30s ... 30 seconds"
               f"{written.lower()} ({term})")
    merged = [w.lower() for w in terms_module.words(written) if w.lower() in found]
    merged += [text for text, (parts, _) in found.items() if parts == [term] and text not in merged + [key]]
    parts = [t for t in found.pop(key, ([], []))[0] if t != term]
    for text in merged:
        word_parts, compounds = found.pop(text)
        camel.pop(text, None)
        parts += [t for t in word_parts + compounds if t != term and t not in parts]
    found[key] = (parts or [term], [term] if parts else [])


def weights_of(held: dict[str, int], size: int) -> dict[str, float]:
    """Each term's weight, from how many of the archive's `size` sessions hold it (none: as one)."""
    return {t: idf(max(n, 1), size) for t, n in held.items()}


def cjk_characters(run: str) -> list[tuple[str, list[str]]]:
    """Each character of a CJK run with the pairs it is in (the one before and the one after).

    A CJK prompt counts by characters, not by pairs: of the pairs of a run, the ones that cut across
    two words (`又失` in `迁移又失败了`) are in no session, and as words of their own they would
    weigh as much as the real ones. A character is held by a session that holds either of its pairs
    (a compound of the two, as an identifier's compound counts whole)."""
    if len(run) < 2:
        return []
    return [(ch, [run[i:i + 2] for i in (n - 1, n) if 0 <= i < len(run) - 1]) for n, ch in enumerate(run)]


def common_above(size: int) -> float:
    """A term held by more sessions than this says too little to tell sessions apart."""
    return max(COMMON_SHARE * size, COMMON_MIN)


def idf(sessions: int, size: int) -> float:
    return math.log(1 + (size - sessions + 0.5) / (sessions + 0.5))


def score(archive: Archive, words: list[Word], size: int, *, repo_root: str | None, cwd: str | None,
          repo_id: str | None = None, hidden: Hidden | None = None,
          pool: int = SHOWN) -> list[Candidate]:
    """The sessions that may decide, each with its coverage of the prompt's words.

    Two steps, so that no ranking over thousands of sessions is needed: from the index's posting
    lists (which sessions hold which term) each session gets an upper bound of its coverage (every
    term counted as if in the strongest field); only sessions whose bound reaches what a decision
    can hinge on (CROWD_RATIO x MIN_COVERAGE), and at least the `pool` best, are read and scored."""
    query = sorted({t for w in words for t, n in w.terms.items() if 0 < n <= common_above(size)} | {
        t for w in words for t, n in w.camel_held.items() if 0 < n <= common_above(size)})
    postings = archive.recall.postings(query)
    total = sum(w.weight for w in words)
    bound: dict[int, float] = {}
    for word in words:
        for number, credit in word.credit_bound(postings).items():
            bound[number] = bound.get(number, 0.0) + word.weight * credit / total
    ranked = sorted(bound, key=lambda number: bound[number], reverse=True)
    floor = CROWD_RATIO * MIN_COVERAGE
    chosen = [number for number in ranked[:MAX_SCORED] if bound[number] >= floor]
    chosen += ranked[len(chosen):pool]
    out = []
    for doc in archive.recall.documents(chosen):
        if hidden is not None and hidden(doc.note_path):
            continue
        fields = {name: set(doc.terms_of(name).split()) for name in FIELD_WEIGHTS}
        field_of: dict[str, str] = {}
        for name in sorted(FIELD_WEIGHTS, key=_field_weight):   # the strongest field last: it wins
            field_of.update(dict.fromkeys(fields[name], name))
        elsewhere = machine_module.elsewhere(doc.origin, doc.machine)
        same = _same_place(doc, repo_root, repo_id, cwd, bool(elsewhere))
        candidate = Candidate(doc.session_id, doc.title or "", doc.project or "", doc.started_at, doc.note_path,
                              same, elsewhere)
        gained = 0.0
        for word in words:
            credit = word.credit(field_of)
            if credit > 0:
                candidate.matched[word.text] = max((field_of[t] for t in (*word.terms, *word.camel_held) if t in field_of),
                                                   key=_field_weight)
                gained += word.weight * credit
        candidate.coverage = gained / total if total else 0.0
        candidate.score = candidate.coverage * (1.0 if same else OTHER_PLACE)
        out.append(candidate)
    out.sort(key=lambda c: c.started_at or "", reverse=True)   # on equal scores, the newer first
    out.sort(key=lambda c: -c.score)
    return out


def _field_weight(name: str) -> float:
    return FIELD_WEIGHTS[name]


def _same_place(doc: RecallDocument, repo_root: str | None, repo_id: str | None, cwd: str | None,
                elsewhere: bool) -> bool:
    """Whether the session ran where the prompt is typed: the same repository (on another machine:
    the same repository identity, its clone being elsewhere), or the same folder outside one."""
    if repo_root:
        return (not elsewhere and doc.repo_root == repo_root) or bool(repo_id and doc.repo_id == repo_id)
    return not elsewhere and not doc.repo_root and _same_folder(doc.cwd, cwd)


def _same_folder(a: str | None, b: str | None) -> bool:
    if not a or not b:
        return False
    return os.path.normcase(os.path.abspath(a)) == os.path.normcase(os.path.abspath(b))
