"""Regex search over the archived sessions, in bounded time, for the CLI and the MCP server.

The pattern comes from a person or an agent (the command is pre-approved), and Python's `re`
backtracks: `(a+)+$` over 50,000 `a` then `b` would run for ages, and `re` holds the GIL while it
does. So a pattern runs on one of two engines, chosen per pattern:

- RE2 (`google-re2`, linear in the text) when it means there what it means in Python. RE2 knows
  no backreferences or lookaround, and its `\\w`, `\\d`, `\\s`, `$` differ from Python's: those
  classes are rewritten to their Unicode equivalents, `$` to "end, or before a final newline";
  what cannot be rewritten faithfully (`\\b`, `(?m)`, `{,n}`, ...) goes to the other engine.
- Python's `re` in a worker process that is killed at a deadline, with a one-line error saying
  the pattern was too slow. Also the whole story when google-re2 is not installed.

Both keep Python's syntax for errors, case-insensitivity and the snippet around the match.
"""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import unicodedata
import warnings

from obsidian_memory.core.errors import UserError
from obsidian_memory.core.re2_match import compile_re2, re2_exists

TYPE_CHECKING = False
if TYPE_CHECKING:
    from obsidian_memory.archive.rows import SessionMatch

DEADLINE_SECONDS = 10.0        # the default bound of a search whose pattern RE2 cannot run
MAX_DEADLINE_SECONDS = 60.0
MAX_PATTERN_CHARS = 2000
SNIPPET_CHARS = 160

# Python's classes spelt in RE2 syntax (for `str` patterns Python's are Unicode): \w is
# str.isalnum() or `_`, \d a decimal digit, \s str.isspace().
_WORD, _DIGIT, _SPACE = r"\p{L}\p{N}_", r"\p{Nd}", r"\t-\r\x1c-\x1f\x{85}\p{Z}"
_OUTSIDE_CLASS = {"w": f"[{_WORD}]", "W": f"[^{_WORD}]", "d": _DIGIT, "D": r"\P{Nd}",
                  "s": f"[{_SPACE}]", "S": f"[^{_SPACE}]", "Z": r"\z", "A": r"\A"}
_INSIDE_CLASS = {"w": _WORD, "d": _DIGIT, "s": _SPACE, "b": r"\x08"}
_ALLOWED_FLAGS = set("is")     # inline flags that mean the same in both engines


class PatternTooSlow(UserError):
    """The Python engine ran past the deadline and was stopped."""


# -- the pattern -------------------------------------------------------------------------------

class Matcher:
    """A compiled, case-insensitive pattern: `search(text)` gives a match (with start()/end()) or
    None; `matches(text)` only says whether there is one (what runs on every archived text)."""

    def __init__(self, pattern: str, regex, engine: str, matches=None):
        self.pattern, self.regex, self.engine = pattern, regex, engine
        exists = matches or (lambda text: regex.search(text) is not None)
        self.matches = lambda text: exists(nfc(text))

    def search(self, text: str):
        return self.regex.search(nfc(text))


def nfc(text: str) -> str:
    """Text in Unicode's composed form (NFC), as the pattern is: `café` typed as `cafe` plus a
    combining accent (macOS input often gives it) matches `café`, and the other way round. (Text
    already composed, nearly all of it, is returned as it is after a quick check.)"""
    return unicodedata.normalize("NFC", text)


def compile_pattern(pattern: str, *, engine: str | None = None) -> Matcher:
    """Check `pattern` with Python's syntax (a UserError saying what is wrong) and pick its engine:
    "re2" when RE2 can run it with the same meaning, else "re" (which only a worker may run)."""
    if len(pattern) > MAX_PATTERN_CHARS:
        raise UserError(f"the regular expression is {len(pattern):,} characters long; "
                        f"at most {MAX_PATTERN_CHARS:,} are accepted")
    pattern = nfc(pattern)
    try:
        with warnings.catch_warnings():   # (FutureWarning for "[[" and the like: not the user's concern)
            warnings.simplefilter("ignore")
            python_regex = re.compile(pattern, re.IGNORECASE)
    except (re.error, OverflowError, RecursionError) as exc:
        raise UserError(f"bad regular expression {_shown(pattern)}: {exc}") from None
    if engine != "re":
        regex = _re2_compile(pattern)
        if regex is not None:
            return Matcher(pattern, regex, "re2", _re2_exists(pattern))
    return Matcher(pattern, python_regex, "re")


def _re2_compile(pattern: str):
    translated = to_re2_syntax(pattern)
    return compile_re2(translated, ignore_case=True) if translated is not None else None


def _re2_exists(pattern: str):
    """`text -> bool` through RE2's own matcher (core/re2_match: ~1.5 us a call against the
    binding's search() ~4 us)."""
    translated = to_re2_syntax(pattern)
    return re2_exists(translated, ignore_case=True) if translated is not None else None


def to_re2_syntax(pattern: str) -> str | None:
    """`pattern` (Python syntax) rewritten so that RE2 matches exactly what Python's `re` does,
    or None when that cannot be done faithfully here (the caller then uses Python's engine).
    RE2 itself refuses what it does not know (backreferences, lookaround, possessive ...)."""
    out: list[str] = []
    i, n = 0, len(pattern)
    in_class = False
    class_start = -1
    depth = 0
    while i < n:
        char = pattern[i]
        if char == "\\":
            if i + 1 >= n:
                return None
            escaped = pattern[i + 1]
            table = _INSIDE_CLASS if in_class else _OUTSIDE_CLASS
            if escaped in table:
                out.append(table[escaped])
            elif escaped.isdigit() or escaped in "bBWDS" or not escaped.isascii():
                return None   # backreferences/octal, word boundaries, negated classes in a set
            else:
                out.append(char + escaped)
            i += 2
            continue
        if in_class:
            if char == "]" and i > class_start:
                in_class = False
            elif char == "[" and pattern[i + 1:i + 2] in (":", ".", "="):
                return None   # RE2 reads [:alpha:] as a POSIX class, Python as characters
            out.append(char)
            i += 1
            continue
        if char == "[":
            in_class = True
            class_start = i + 1
            if pattern[class_start:class_start + 1] == "^":
                class_start += 1
            if pattern[class_start:class_start + 1] == "]":
                out.append(pattern[i:class_start + 1])   # a leading `]` is a character in Python
                i = class_start + 1
                class_start = i
                continue
            out.append(pattern[i:class_start])
            i = class_start
            continue
        if char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
        if char == "(" and pattern[i + 1:i + 2] == "?":
            flags = re.match(r"\?([a-zA-Z]*)(?:-[a-zA-Z]*)?[:)]", pattern[i + 1:])
            if flags and not set(flags.group(0)[1:-1].replace("-", "")) <= _ALLOWED_FLAGS:
                return None   # (?m), (?x), (?a), (?L), (?u): different meaning or unknown to RE2
        elif char == "{" and re.match(r"\{,\d*\}", pattern[i:]):
            return None       # Python's {,n} is {0,n}; RE2 reads it as text
        elif char == "$":
            rest = pattern[i + 1:]
            if not (rest.strip(")") == "" or (depth == 0 and rest.startswith("|"))):
                return None   # something must match after it: only Python's own $ gets that right
            out.append(r"(?:\n?\z)")   # Python's $: the end, or just before a final newline
            i += 1
            continue
        out.append(char)
        i += 1
    return None if in_class else "".join(out)


def _shown(pattern: str, limit: int = 80) -> str:
    return repr(pattern if len(pattern) <= limit else pattern[:limit] + "…")


# -- the search --------------------------------------------------------------------------------

def grep_sessions(archive_path: str, pattern: str, *, project: str | None = None, since: str | None = None,
                  limit: int | None = None, deadline: float = DEADLINE_SECONDS, machines=None,
                  show_all: bool = False) -> list[SessionMatch]:
    """Sessions whose title, prompts, answers, compaction summaries or outcome (todos, plan,
    commits, pull requests, commands, errors) match `pattern` (Python syntax, case-insensitive),
    newest first, each with its first matching field and a snippet (withheld where session_text
    says the session may not show that text; `show_all`: the user's `session_text: all`); every
    machine's sessions, or those of `machines` (archive.MachineScope). A missing archive has none. Raises UserError for a
    bad pattern or date, PatternTooSlow past `deadline`."""
    from obsidian_memory.core import clock

    matcher = compile_pattern(pattern)
    since_iso = clock.utc_iso(clock.parse_since(since))
    if not os.path.exists(archive_path):
        return []
    scope = machines.as_dict() if machines is not None else None
    if matcher.engine == "re2":
        return _grep(archive_path, matcher, project, since_iso, limit, scope, show_all)
    return _grep_in_worker(archive_path, pattern, project, since_iso, limit, deadline, scope, show_all)


def _grep(archive_path, matcher, project, since_iso, limit, scope, show_all) -> list[SessionMatch]:
    from obsidian_memory.archive import MachineScope, open_archive

    try:
        archive = open_archive(archive_path, readonly=True)
    except FileNotFoundError:   # a file that was never initialised as an archive
        return []
    with archive:
        rows = archive.sessions.grep(matcher, project=project, since_utc=since_iso, limit=limit,
                                     snippet=lambda text: snippet(text, matcher),
                                     machines=MachineScope(**scope) if scope else None)
        return withhold_snippets(archive, rows, show_all)


def withhold_snippets(archive, rows: list[SessionMatch], show_all: bool) -> list[SessionMatch]:
    """The rows, with the snippet of a match in text session_text does not let a session show
    replaced by what was left out and why (the session is still listed by what identifies it)."""
    from obsidian_memory.core import session_text

    found = archive.sessions.provenance_of([row.session_id for row in rows])
    kept = []
    for row in rows:
        origin, tools = found.get(row.session_id, (None, {}))
        shown = session_text.shown(origin, tools, show_all=show_all)
        if not shown.shows(row.field):
            row = row.replace(snippet=f"(matched in its {row.field}: not shown, {shown.withheld})",
                              withheld=shown.withheld)
        kept.append(row)
    return kept


def _grep_in_worker(archive_path, pattern, project, since_iso, limit, deadline, scope,
                    show_all) -> list[SessionMatch]:
    """Python's engine in a child process, killed at the deadline: `re` cannot be interrupted
    and holds the GIL, so neither a thread nor a signal would bound it."""
    request = json.dumps({"archive": archive_path, "pattern": pattern, "project": project,
                          "since_utc": since_iso, "limit": limit, "machines": scope,
                          "show_all": show_all})
    package_parent = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    env = dict(os.environ)
    env["PYTHONPATH"] = package_parent + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    worker = subprocess.Popen([sys.executable, "-c", "from obsidian_memory.search.session_search import _worker; _worker()"],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    try:
        out, err = worker.communicate(request.encode("utf-8"), timeout=max(0.1, deadline))
    except subprocess.TimeoutExpired:
        worker.kill()
        worker.communicate()
        raise PatternTooSlow(
            f"the regular expression {_shown(pattern)} was too slow: stopped after {deadline:g} s "
            "(nested repetition such as (a+)+ can take exponential time; simplify it)", code=1) from None
    except BaseException:
        worker.kill()
        worker.wait()
        raise
    try:
        answer = json.loads(out.decode("utf-8"))
    except ValueError:
        answer = {"crash": err.decode("utf-8", "replace").strip().splitlines()[-1:] or ["no answer"]}
    if "rows" not in answer:
        raise RuntimeError(f"the search worker failed: {answer.get('error') or answer.get('crash')}")
    from obsidian_memory.archive.rows import SessionMatch

    return [SessionMatch(**row) for row in answer["rows"]]


def _worker() -> None:
    """The child side of _grep_in_worker: one request on stdin, the rows (or an error) on stdout."""
    request = json.loads(sys.stdin.buffer.read().decode("utf-8"))
    try:
        matcher = compile_pattern(request["pattern"], engine="re")
        rows = _grep(request["archive"], matcher, request["project"], request["since_utc"], request["limit"],
                     request.get("machines"), bool(request.get("show_all")))
        answer = {"rows": [row.as_dict() for row in rows]}
    except Exception as exc:
        answer = {"error": f"{type(exc).__name__}: {exc}"}
    sys.stdout.buffer.write(json.dumps(answer, ensure_ascii=False).encode("utf-8"))


def snippet(text: str, matcher) -> str:
    """About SNIPPET_CHARS characters around the first match, on one line."""
    text = nfc(text)
    match = matcher.search(text)
    start, end = (match.start(), match.end()) if match else (0, 0)
    width = SNIPPET_CHARS
    left = max(0, start - (width - (end - start)) // 2)
    right = left + max(width, end - start)
    piece = re.sub(r"\s+", " ", text[left:right]).strip()
    return ("…" if left > 0 else "") + piece + ("…" if right < len(text) else "")
