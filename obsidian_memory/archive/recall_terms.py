"""Words to terms, the same way for an archived session and for a prompt.

A term is a lower-cased word without its English inflection (`lagging`, `lagged`, `lags` -> `lag`;
`caches`, `caching` -> `cach`), so that a prompt finds a session that said the same thing in
another form. An identifier written with joiners or in camel case (`billing-db-2`,
`KotlinCompileDaemon`, `ERR_OSSL_EVP_UNSUPPORTED`, `orders_daily.py`) gives its parts and, in
addition, one compound term of them all (`billingdb2`): rare, and so strong evidence when a prompt
names the same thing. A word in camel case also gives the term it gives typed in lower case
(`SQLite` -> `sqlit`, as `sqlite`): a prompt's words are taken in lower case (recall.decide), so that
the case a user types changes nothing. A run of Chinese, Japanese or Korean text gives its bigrams (core.cjk), as
the vault index does. Function words, chat words ("again", "please", "look") and lone short
numbers are no terms. A duration is one term whatever its unit, a host named by its role and number
meets its other forms, and an error named by another of its standard names gives that name's term
(`bad gateway` is `502`, `OutOfMemoryError` is `oom`).

Pure and import-light (`re` and core.cjk, patterns compiled on first use): the prompt hook runs it.
"""
from __future__ import annotations

import re
from collections.abc import Iterable

from obsidian_memory.core import cjk

# The version of these rules. The archive's recall index is made again when its documents were
# made by another version (RecallIndex.renew_if_outdated): bump it on any change to what a
# text's terms are.
VERSION = 6

MAX_TERM_CHARS = 40        # longer runs are hashes, base64 or minified code, not words
MIN_NUMBER_CHARS = 3       # "502", "137", "0042" are telling; "2" or "15" alone are not

# A word: letters and digits, possibly joined by - _ . (an identifier, a file name, a host).
WORD = r"[^\W_]+(?:[-_.][^\W_]+)*"
_JOINERS = r"[-_]"
_CAMEL = r"(?<=[a-z])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])"

STOPWORDS = frozenset("""
a about above after again against ago all also am an and any anymore anything are around as at
back be because been before being below between both but by can cannot could did didn do does
doesn doing don done down during each either else even ever every few for from further get gets
getting go goes going gone got had has hasn have haven having he her here hers him his how i if in
into is isn it its itself just keep keeps kept last let like ll look looks looking lot made make
many may me might mine more most much must my myself need needs no nor not now of off on once one
only or other our ours out over own please re really same see seeing seems shall she should so
some something still such sure than that the their them then there these they thing things this
those though through to today too under until up us ve very via want was wasn way we were weren
what when where which while who whom why will with won would yesterday yet you your yours
hi hello hey thanks thank ok okay yes yeah cool great nice good morning
again anyone anybody someone can't happening happened happens help issue issues problem problems
seem tried try trying wrong think know tell show let's lets whats what's
probably maybe perhaps guess wonder whether somewhere somehow anyway actually basically instead
saw seen talked mentioned remember feeling thought pretty quite rather almost lately recently
earlier weird strange btw fyi lol hmm ugh thx pls plz eg ie etc
"""
# the same kinds of words in the other languages users write in (German, French, Spanish): a
# prompt in German weighs its nouns, not its articles
"""
der das den dem des ein eine einen einem einer eines und oder aber nicht kein keine ist sind
wird werden wurde hat haben hatte hatten ich er sie wir ihr uns mit von zu zum zur auf
aus bei für nach über unter vor wie wo wer warum wann noch schon wieder immer auch nur dann dass
daß statt doch mal bitte danke hallo jetzt heute gestern sich ja nein gibt geht kann können muss
soll sollte wenn weil als bis ob zb nochmal erneut
le la les un une de des au aux et ou mais ne pas est sont était été ai avons ont je tu il elle
nous vous ils elles cet cette ces mon mes tes ses notre nos votre vos leur leurs qui
que quoi dont où pour par sur dans avec sans sous chez comme encore déjà toujours aussi très
bien merci bonjour salut quand pourquoi comment
el los las una unos unas pero está están fue han hay yo él ella nosotros ellos qué del
para sobre entre como cuando donde porque otra otro vez también muy todavía gracias hola
sus mis este esta estos estas ese esa
""".split())
# Characters of Chinese and Japanese that are grammar, not words (particles, pronouns, "again"):
# a CJK prompt is weighed by its other characters (context.recall.decide)
CJK_FUNCTION_CHARACTERS = frozenset("的了是不在有和就也都又还很吗呢吧啊把被这那个们我你他她它么"
                                    "のはがをにでともへやかねよ")


def words(text: str) -> list[str]:
    """The words of `text`, in order: identifiers whole, a CJK run as its bigrams (core.cjk, as
    the vault index splits it)."""
    return re.findall(WORD, cjk.spaced(text or ""))


def terms(text: str) -> list[str]:
    """The terms of `text`, in order, with repeats (its words', then its durations', its numbered
    names' and its errors' by their other names)."""
    found: list[str] = []
    for word in words(text):
        found.extend(word_terms(word))
    return found + [term for _, term in quantities(text)] + [term for _, term in numbered_names(text)] \
        + [term for _, term in error_names(text)]


def word_terms(word: str) -> list[str]:
    """A word's terms: each part that is a term, then the compound of a joined identifier."""
    parts, compounds = split_word(word)
    return parts + compounds


def split_word(word: str, *, whole_pieces: bool = True) -> tuple[list[str], list[str]]:
    """(the terms of a word's parts, the compound terms of its joined identifiers); none for a
    run too long to be a word (a hash, base64, minified code). `whole_pieces`: a piece in camel
    case also gives the term it gives in lower case."""
    parts_out: list[str] = []
    compounds: list[str] = []
    if len(word) > MAX_TERM_CHARS * 2:
        return parts_out, compounds
    for segment in word.split("."):
        parts = []
        for piece in re.split(_JOINERS, segment):
            camel = [p for p in re.split(_CAMEL, piece) if p]
            parts += camel
            if len(camel) > 1 and whole_pieces:   # `SQLite`, `KotlinDaemon`: also what the word in lower case gives
                camel.append(piece)
            for part in camel:
                term = part_term(part.lower())
                if term:
                    parts_out.append(term)
        if len(parts) > 1:
            compound = "".join(parts).lower()
            if len(compound) <= MAX_TERM_CHARS and compound not in STOPWORDS and compound not in parts_out:
                compounds.append(compound)   # (not "dO": it is "do"; not `KotlinDaemon`'s twice)
    return parts_out, compounds


def part_term(part: str) -> str:
    """One part of a word as a term, or '' when it says nothing on its own."""
    if part.isdigit() or (part[-1:] == "s" and part[:-1].isdigit()):   # "502", "502s"
        number = part.rstrip("s")
        return number if MIN_NUMBER_CHARS <= len(number) <= 12 else ""
    if len(part) < 2 or len(part) > MAX_TERM_CHARS or part in STOPWORDS:
        return ""
    stem = stem_word(part)
    return "" if stem in STOPWORDS else stem


def stem_word(word: str) -> str:
    """A light English suffix stripper (plural -s, -ies, -ing, -ed, final -e; British -ise and
    -isation as -ize, -ization as -ize): enough to meet the forms people use for one thing, and
    the same for sessions and prompts."""
    if len(word) <= 3 or not word.isalpha():
        return word
    # sessionisation, sessionization, sessionize; normalised, normalized (not raise, noise, revise)
    word = re.sub(r"^(.{3,})i[sz]ations?$", r"\1ize", word)
    word = re.sub(r"^(.{4,})is(e|es|ed|ing)$", r"\1iz\2", word)
    if word.endswith("ies") and len(word) > 4:
        word = word[:-3] + "y"
    elif word.endswith("sses"):
        word = word[:-2]
    elif word.endswith("s") and not word.endswith(("ss", "us", "is")):
        word = word[:-1]
    for suffix in ("ing", "ed"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            base = word[:-len(suffix)]
            if any(vowel in base for vowel in "aeiouy"):
                word = base[:-1] if len(base) > 3 and base[-1] == base[-2] and base[-1] not in "lsz" else base
            break
    if word.endswith("e") and len(word) > 3:
        word = word[:-1]
    return word


# -- quantities: a duration said in any unit, or in words, is one term -------------------------
# "half a minute", "30 s", "30-second", "30000ms" and `timeout.ms=30000` all say 30 seconds; a
# prompt says "five minutes" where the log said `max.poll.interval.ms (300000)`. Each duration
# gives the term `<milliseconds>ms`, the value rounded to one significant digit ("nearly two
# seconds" meets 1874ms and 1.9 s; "a month" meets 32 days).
_NUMBER_WORDS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
                 "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "fifteen": 15, "twenty": 20,
                 "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "ninety": 90, "half a": 0.5, "half an": 0.5}
_UNIT_MS = {"ms": 1, "msec": 1, "msecs": 1, "millis": 1, "millisecond": 1, "milliseconds": 1,
            "s": 1000, "sec": 1000, "secs": 1000, "second": 1000, "seconds": 1000,
            "min": 60_000, "mins": 60_000, "minute": 60_000, "minutes": 60_000,
            "h": 3_600_000, "hr": 3_600_000, "hrs": 3_600_000, "hour": 3_600_000, "hours": 3_600_000,
            "day": 86_400_000, "days": 86_400_000, "week": 604_800_000, "weeks": 604_800_000,
            "month": 2_592_000_000, "months": 2_592_000_000}
_NUMBER_WORD = "|".join(sorted((w.replace(" ", r"[\s-]+") for w in _NUMBER_WORDS), key=len, reverse=True))
_UNIT = "|".join(sorted(_UNIT_MS, key=len, reverse=True))
_QUANTITY = None   # compiled on first use


def _quantity_patterns() -> tuple[re.Pattern[str], re.Pattern[str]]:
    global _QUANTITY
    if _QUANTITY is None:
        _QUANTITY = (
            # 30 s, 30s, 30-second, half a minute, five minutes; a number in words is a word of its own
            # (not `as`, `ah`, `tens`: "a" or "ten" and a unit's letter)
            re.compile(rf"(?<![\w.])(\d+(?:\.\d+)?|(?:{_NUMBER_WORD})(?=[\s-]))(?:\s*|-)({_UNIT})(?![^\W_])",
                       re.IGNORECASE),
            # timeout.ms=30000, max.poll.interval.ms (300000), timedelta(seconds=3600), ttl_seconds: 600
            re.compile(rf"(?:(?<=[._])|(?<![^\W_]))({_UNIT})[\"']?\s*[=:(]\s*\(?\s*(\d+(?:\.\d+)?)(?![\w.])",
                       re.IGNORECASE))
    return _QUANTITY


def quantities(text: str) -> list[tuple[str, str]]:
    """(the words as written, the duration's term) of each duration in `text`, in order."""
    if not text or not any(ch.isdigit() for ch in text) and not re.search(r"(?i)\b(?:a|an|one|two|three|four|"
                                                                          r"five|six|seven|eight|nine|ten|"
                                                                          r"half|twelve|eleven|fifteen|twenty|"
                                                                          r"thirty|forty|fifty|sixty|ninety)\b",
                                                                          text):
        return []
    written, units = _quantity_patterns()
    text = cjk.spaced(text)   # a duration beside CJK text (`接口30s超时`) is one of its own
    found = []
    for match in written.finditer(text):
        if match.group(2) == "s" and re.fullmatch(r"[1-5]\d\ds", match.group(0)):
            continue   # "502s": HTTP statuses in the plural, not seconds
        found.append((match.start(), match.group(0), _duration_term(match.group(1), match.group(2))))
    for match in units.finditer(text):
        found.append((match.start(), match.group(0), _duration_term(match.group(2), match.group(1))))
    return [(words, term) for _, words, term in sorted(found) if term]


def _duration_term(number: str, unit: str) -> str:
    number = re.sub(r"[\s-]+", " ", number.lower())   # "half-an-hour"
    value = _NUMBER_WORDS.get(number)
    if value is None:
        try:
            value = float(number)
        except ValueError:
            return ""
    ms = value * _UNIT_MS[unit.lower()]
    if not 1 <= ms < 1e13:
        return ""
    return f"{_one_digit(ms)}ms"


def _one_digit(value: float) -> int:
    """`value` rounded to one significant digit (1874 -> 2000, 0.45 -> 0)."""
    scale = 10 ** (len(str(int(value))) - 1)
    return int(value / scale + 0.5) * int(scale)


# -- numbered names: a host or a node named by its role and number ------------------------------
# `kafka-broker-03` is broker 3 and kafka 3, `es-data-04` data 4 and es 4: an identifier that ends
# in its number gives, for each name in it, the term `<name><number>` (`broker3`), the compound of
# `broker-3` and `broker03`, so that the forms meet. (Not a word and a number in running text:
# "created two charges", "returns 404" are no names; docs/recall.md.)
_NUMBERED = None   # compiled on first use


def numbered_names(text: str) -> list[tuple[str, str]]:
    """(the identifier as written, the term) of each name of an identifier that ends in its
    number, in order."""
    global _NUMBERED
    if not text or not any(ch.isdigit() for ch in text):
        return []
    if _NUMBERED is None:
        _NUMBERED = re.compile(r"(?<![^\W_])((?:[a-z]{2,}[-_])+)(\d{1,3})(?![^\W_])", re.IGNORECASE)
    found = []
    for match in _NUMBERED.finditer(cjk.spaced(text)):   # beside CJK text too (`服务器kafka-broker-03挂了`)
        for name in re.split(r"[-_]", match.group(1).lower()):
            if len(name) >= 2 and name not in STOPWORDS:
                found.append((match.group(0), f"{name}{int(match.group(2))}"))
    return found


# -- an error by its other name: the code, the message, the constant ----------------------------
# A log says `502`, the user "bad gateway"; the kernel `ENOSPC`, the user "no space left on device";
# the JVM `OutOfMemoryError`, the pod `OOMKilled`, the user "out of memory". Each of an error's names
# (a standard's own: HTTP's reason phrases, POSIX's messages and their errno constants) gives the
# error's term, beside its own words. Only names that say the one error: "not found" (a file, a
# command, a class), "conflict" (a merge), "unauthorized" and "forbidden" (plain English) are no HTTP
# status here.
ERROR_NAMES = {
    "400": ("bad request",), "405": ("method not allowed",),
    "413": ("payload too large", "request entity too large"), "422": ("unprocessable entity", "unprocessable content"),
    "429": ("too many requests",), "500": ("internal server error",), "502": ("bad gateway",),
    "503": ("service unavailable", "service temporarily unavailable"), "504": ("gateway timeout", "gateway time out"),
    "oom": ("out of memory", "oom"), "segfault": ("segmentation fault", "segfault", "sigsegv"),
    "enospc": ("no space left on device", "enospc"), "econnrefused": ("connection refused", "econnrefused"),
    "econnreset": ("connection reset by peer", "connection reset", "econnreset"),
    "eacces": ("permission denied", "eacces"), "emfile": ("too many open files", "emfile"),
    "eaddrinuse": ("address already in use", "eaddrinuse"), "epipe": ("broken pipe", "epipe"),
    "enoent": ("no such file or directory", "enoent"),
}
_SPACED = r"[ \t_-]{0,3}"   # between a name's words: a few spaces, _ or - (`Gateway_Timeout`, `Time-out`), or none
# each name, its spaces left out (what a text holds, once its own spaces, _ and - are, when it holds
# the name) -> the name's pattern, the error's term (the one its key gives as a word: `econnrefus`)
_ERROR_FORMS = {name.replace(" ", ""): (_SPACED.join(re.escape(word) for word in name.split()), key)
                for key, names in ERROR_NAMES.items() for name in names}
_UNJOINED = str.maketrans("", "", "_-")
# a name starts a word, or a word of an identifier in camel case (`StatusBadGateway`, `HTTPBadRequest`), and
# ends one (`OOMKilled`, `OutOfMemoryError`; not `roomy`, `OOMPH`)
_NAME_STARTS = r"(?:(?<![A-Za-z])|(?<=[a-z])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z]))"
_NAME_ENDS = r"(?![a-z]|[A-Z]{2})"


def error_names(text: str) -> list[tuple[str, str]]:
    """(the name as written, the error's term) of each error `text` names by one of ERROR_NAMES, in
    order, in any case, as a word of an identifier in camel case, and beside CJK text (`内存不足OOM了`).
    Only the names the text holds once squeezed are looked for, so that the pattern is small (the
    prompt hook compiles it)."""
    squeezed = "".join((text or "").lower().split()).translate(_UNJOINED)
    held = [name for name in _ERROR_FORMS if name in squeezed]
    if not held:
        return []
    held, pattern = names_pattern(held)
    return [(match.group(0), part_term(_ERROR_FORMS[held[int(match.lastindex or 1) - 1]][1]))
            for match in pattern.finditer(text)]


def names_pattern(names: list[str]) -> tuple[list[str], re.Pattern[str]]:
    """The pattern of these names (keys of _ERROR_FORMS), the longer first (`connection reset by
    peer` before `connection reset`): its n-th group is the n-th name of the list returned."""
    names = sorted(names, key=len, reverse=True)
    spelled = "|".join(f"({_ERROR_FORMS[name][0]})" for name in names)
    return names, re.compile(rf"{_NAME_STARTS}(?i:{spelled}){_NAME_ENDS}", re.ASCII)


def distinct(items: Iterable[str]) -> list[str]:
    """The terms of several texts, each once, in first-seen order."""
    seen: dict[str, None] = {}
    for text in items:
        for term in terms(text):
            seen.setdefault(term, None)
    return list(seen)


# -- a session as four fields of terms -------------------------------------------------------

FIELDS = ("title", "asked", "outcome", "said")
# What of a session is read, at most (a session of any length costs a bounded document): the
# start of each text, since prompts, answers and errors say what they are about first.
FIELD_CHARS = {"title": 500, "asked": 12_000, "outcome": 12_000, "said": 16_000}
ITEM_CHARS = {"title": 500, "asked": 1_500, "outcome": 600, "said": 1_500}


def document(texts: dict[str, list[str]]) -> dict[str, str]:
    """The indexed form of a session: for each field (title; what was asked; what came out:
    errors, commits, pull requests, the task list, the plan; what was said: answers, compaction
    summaries, commands), its distinct terms joined by spaces."""
    out = {}
    for name in FIELDS:
        budget, picked = FIELD_CHARS[name], []
        for text in texts.get(name) or ():
            if budget <= 0:
                break
            piece = (text or "")[:min(ITEM_CHARS[name], budget)]
            picked.append(piece)
            budget -= len(piece)
        out[name] = " ".join(distinct(picked))
    return out
