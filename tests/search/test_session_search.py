"""session_search: the regex over archived sessions, its engine choice and its time bound."""
from __future__ import annotations

import re
import time

import pytest
from archive_fixtures import session_id
from hypothesis import HealthCheck, assume, given, settings as hypothesis_settings, strategies as st

from obsidian_memory.search import session_search
from obsidian_memory.archive import open_archive
from obsidian_memory.core.errors import UserError
from obsidian_memory.capture.session_records import CompactSummary, Prompt, Session

re2 = pytest.importorskip("re2", reason="google-re2 is not installed (pip install google-re2)")


def make_session(n: int, *, started_at: str = "2026-03-04T09:00:00.000Z", **changes) -> Session:
    values = dict(session_id=session_id(n), project="demo", cwd="/work/demo", repo_root="/work/demo",
                  started_at=started_at, title=f"session {n}",
                  prompts=[Prompt("first prompt"), Prompt("second prompt")],
                  compact_summaries=[CompactSummary("summary one")])
    values.update(changes)
    return Session(**values)


@pytest.fixture
def archive_path(tmp_path):
    path = str(tmp_path / "archive.db")
    with open_archive(path) as archive:
        archive.sessions.upsert(make_session(1, started_at="2026-03-01T09:00:00.000Z", title="Parser rewrite"))
        archive.sessions.upsert(make_session(2, started_at="2026-03-05T09:00:00.000Z", project="web", prompts=[
            Prompt("nothing here"), Prompt("fix the " + "x" * 300 + " Login\nredirect loop " + "y" * 300)]))
        archive.sessions.upsert(make_session(3, started_at="2026-03-03T09:00:00.000Z",
                                            compact_summaries=[CompactSummary("We migrated the LOGIN flow to OAuth")]))
    return path


def grep(path, pattern, **options):
    return session_search.grep_sessions(path, pattern, **options)


# -- what it finds (moved here from test_archive with the search itself) -------------------------

def test_grep_finds_title_prompt_and_summary_newest_first(archive_path):
    rows = grep(archive_path, r"login|parser")
    assert [(r.session_id, r.field) for r in rows] == [
        (session_id(2), "prompt"), (session_id(3), "summary"), (session_id(1), "title")]
    assert set(rows[0].shown()) == {"session_id", "title", "project", "started_at", "note_path", "machine", "origin",
                                    "field", "snippet"}


@pytest.mark.parametrize("engine", ["re2", "re"])
def test_grep_snippet_is_one_line_around_the_match(archive_path, engine, monkeypatch):
    if engine == "re":   # the same through the worker (a pattern RE2 cannot run)
        monkeypatch.setattr(session_search, "_re2_compile", lambda pattern: None)
    [row] = grep(archive_path, r"login\s+redirect")
    assert "Login redirect" in row.snippet and "\n" not in row.snippet
    assert row.snippet.startswith("…") and row.snippet.endswith("…")
    assert len(row.snippet) <= session_search.SNIPPET_CHARS + 2


def test_grep_filters_by_project_since_and_limit(archive_path):
    assert [r.session_id for r in grep(archive_path, "prompt|nothing", project="web")] == [session_id(2)]
    assert [r.session_id for r in grep(archive_path, "prompt|nothing", since="2026-03-02")] == [
        session_id(2), session_id(3)]
    assert [r.session_id for r in grep(archive_path, "prompt|nothing", limit=2)] == [
        session_id(2), session_id(3)]


def test_grep_with_a_bad_regex_or_date_is_a_user_error(archive_path):
    with pytest.raises(UserError, match="regular expression"):
        grep(archive_path, "(unclosed")
    with pytest.raises(UserError):
        grep(archive_path, "x", since="March")
    with pytest.raises(UserError, match="at most"):
        grep(archive_path, "a" * (session_search.MAX_PATTERN_CHARS + 1))


# -- which engine runs a pattern -------------------------------------------------------------------

@pytest.mark.parametrize("pattern", [r"(a+)+$", r"(\w+\s?)+;$", r"login|parser", r"[\w.-]+@\w+", r"^\d{4}-\d\d",
                                     r"(?i)x.*y", r"(?s)a.b", r"foo\Z", r"[]a]", r"[^]a]+"])
def test_patterns_re2_runs_with_pythons_meaning_go_to_re2(pattern):
    assert session_search.compile_pattern(pattern).engine == "re2"


@pytest.mark.parametrize("pattern", [r"(a)\1", r"foo(?=bar)", r"(?<!x)y", r"\bword\b", r"a{,3}", r"(?m)^x$",
                                     r"(?x) a b", r"[\W]", r"[[:alpha:]]", r"(?a)\w", r"a$b", r"a*+"])
def test_patterns_re2_would_read_differently_go_to_python(pattern):
    try:
        matcher = session_search.compile_pattern(pattern)
    except UserError:   # (a*+ is an error before Python 3.11)
        return
    assert matcher.engine == "re"


def test_without_re2_every_pattern_goes_to_python(monkeypatch):
    monkeypatch.setitem(__import__("sys").modules, "re2", None)   # import re2 -> ImportError
    assert session_search.compile_pattern(r"(a+)+$").engine == "re"


# Patterns and texts over a small alphabet full of the cases where the engines could differ:
# Unicode classes, case folding (ß, the Kelvin sign, long s, dotted I), line ends, Unicode spaces.
_ATOMS = ["a", "b", "k", "s", "é", "ß", ".", r"\w", r"\W", r"\d", r"\D", r"\s", r"\S", "[ab]", "[^a]", r"[\w-]",
          r"[\d\s]", "[é-ö]", r"\.", "_", " ", r"\n", "^", r"\A", r"\Z"]
_TEXT = st.text(alphabet="abkABKsSéÉßẞ\u212a\u017f\u0130i1٣_- \n\t\xa0\u2028\x1c\x85.", max_size=12)
_TEXT = st.one_of(_TEXT, _TEXT.map(lambda text: text + "\n"))   # Python's $ also matches before a final newline


@st.composite
def _patterns(draw, depth=0):
    parts = []
    for _ in range(draw(st.integers(1, 4))):
        if depth < 2 and draw(st.integers(0, 5)) == 0:
            atom = "(" + draw(_patterns(depth=depth + 1)) + ")"
        else:
            atom = draw(st.sampled_from(_ATOMS))
        atom += draw(st.sampled_from(["", "", "*", "+", "?", "{1,2}", "*?"]))
        parts.append(atom)
    pattern = "".join(parts)
    if draw(st.booleans()):
        pattern += draw(st.sampled_from(["$", "|b$", "|" + draw(st.sampled_from(_ATOMS))]))
    return pattern


@hypothesis_settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_patterns(), _TEXT)
def test_re2_matches_exactly_where_python_does(pattern, text):
    """Property: for every pattern sent to RE2, RE2 finds a match at the same place as Python's re
    (case-insensitive), so the engine choice never changes an answer."""
    try:
        matcher = session_search.compile_pattern(pattern)
    except UserError:
        assume(False)   # not a Python regex: refused before any engine runs
    assume(matcher.engine == "re2")
    python = re.compile(pattern, re.IGNORECASE).search(text)
    found = matcher.search(text)
    assert (found is None) == (python is None), (pattern, text)
    assert matcher.matches(text) == (python is not None), (pattern, text)   # the fast path every row takes
    if found is not None:
        assert found.start() == python.start(), (pattern, text)


# -- the time bound ------------------------------------------------------------------------------

_NESTED = st.builds(lambda inner, outer, tail: f"({inner}{outer}){outer}{tail}",
                    st.sampled_from(["a", r"\w", "a|aa", ".", r"a\s?", "[ab]", r"(?:a\s?)"]), st.sampled_from(["+", "*", "{1,}"]),
                    st.sampled_from(["$", "b$", "(?=c)", r"\1c", r"\b;", "c"]))


@pytest.fixture(scope="module")
def adversarial_archive(tmp_path_factory):
    path = str(tmp_path_factory.mktemp("adversarial") / "archive.db")
    with open_archive(path) as archive:
        archive.sessions.upsert(make_session(1, prompts=[Prompt("a" * 5000 + "b"), Prompt("aaaa " * 2000 + "!")]))
    return path


@hypothesis_settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(_NESTED)
def test_any_pattern_ends_within_its_deadline(adversarial_archive, pattern):
    """Property: nested repetition over a long run of one letter (the catastrophic case) either
    answers or stops with PatternTooSlow within the deadline, whichever engine runs it."""
    started = time.monotonic()
    try:
        grep(adversarial_archive, pattern, deadline=0.5)
    except session_search.PatternTooSlow as exc:
        assert "too slow" in str(exc) and "\n" not in str(exc)
    except UserError as exc:   # not a Python regex (e.g. a repeated repeat): refused at once
        assert "bad regular expression" in str(exc)
    assert time.monotonic() - started < 5.0, pattern
