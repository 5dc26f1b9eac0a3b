"""The text-safety helpers: what untrusted text looks like after cleaning, quoting and escaping."""
from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from obsidian_memory.core import textclean
from obsidian_memory.core.textclean import code_span, fenced, markdown_inline, shorten, strip_control


@pytest.mark.parametrize("raw, clean", [
    ("\x1b[2mCompacted (ctrl+o to see full summary)\x1b[22m", "Compacted (ctrl+o to see full summary)"),
    ("\x1b[1;31merror\x1b[0m: bad", "error: bad"),
    ("\x1b]8;;https://example.com\x07link\x1b]8;;\x07", "link"),
    ("\x1b]0;window title\x1b\\text", "text"),
    ("\x1b]unterminated osc\nnext line", "\nnext line"),
    ("\x1bPdevice control\x1b\\after", "after"),
    ("\x1b(Bcharset \x1b=keypad", "charset keypad"),
    ("\x9b31mC1 csi", "C1 csi"),
    ("bell\x07 null\x00 backspace\x08 del\x7f c1\x85", "bell null backspace del c1"),
    ("keep\ttabs\nand newlines", "keep\ttabs\nand newlines"),
    ("windows\r\nline\rends", "windows\nline\nends"),
    ("bidi \u202eevil\u202c isolate \u2066x\u2069", "bidi evil isolate x"),
    ("lone \ud800 surrogate", "lone \ufffd surrogate"),
    ("trailing escape \x1b", "trailing escape "),
    ("unicode ünïcödé ✓ 日本語 stays", "unicode ünïcödé ✓ 日本語 stays"),
    ("", ""),
])
def test_strip_control(raw, clean):
    assert strip_control(raw) == clean


@settings(max_examples=400)
@given(st.text(alphabet=st.one_of(st.characters(), st.sampled_from(list("\x1b[]\\\x07\x9b\x9d\r\n\t\u202e\u2066")))))
def test_printable_text_is_returned_as_it_is_and_any_other_as_the_patterns_clean_it(text):
    """strip_control skips its patterns for text isprintable() passes (with \\n and \\t): the
    patterns themselves would change nothing there."""
    by_patterns = textclean.re.sub(textclean._SURROGATES, "\ufffd", textclean.re.sub(
        textclean._ESCAPES, "", textclean.re.sub(textclean._CR_LF, "\n", text)))
    assert strip_control(text) == by_patterns


def test_stripped_text_can_be_written_as_utf8():
    strip_control("a\ud83d b\udc00 c").encode("utf-8")


def test_shorten_cuts_at_a_word_and_marks_the_cut():
    text = "explain the build system in this repository, in detail, including how the docker images get tagged"
    short = shorten(text, 80)
    assert len(short) <= 80 and short.endswith("…")
    assert text.startswith(short[:-1])
    assert not short[:-1].endswith(" ")


def test_shorten_makes_one_line_and_keeps_short_text():
    assert shorten("  two\n\nlines  ", 80) == "two lines"
    assert shorten("a" * 200, 10) == "a" * 9 + "…"


def test_single_line_fields_are_escaped_markdown():
    assert markdown_inline("a #tag [[x]] | %% <b>") == r"a \#tag \[\[x\]\] \| \%\% \<b\>"
    assert code_span("a``b") == "```a``b```"
    assert fenced("x ```` y").startswith("`````text\n")


# -- quoted prose (answers and plans in session notes) ----------------------------------------------

@pytest.mark.parametrize("prose, shown", [
    ("#tag [[link]] ![[embed]] [x](Other note) <b>hi</b> %%hidden%% $x$ ==mark== ^block",
     r"> \#tag \[\[link\]\] !\[\[embed\]\] \[x\](Other note) \<b>hi\</b> \%\%hidden\%\% \$x\$ \=\=mark\=\= \^block"),
    ("## My notes", r"> \#\# My notes"),
    ("text\n---\n\n* * *", "> text\n> \\---\n>\n> \\* * *"),
    ("- [ ] not a task of yours\n[!note] not a callout", "> - \\[ \\] not a task of yours\n> \\[!note\\] not a callout"),
    ("keep `code [[x]] #y` and **bold**", "> keep `code [[x]] #y` and **bold**"),
    ("```python\nx = [[1]]  # c\n```\nafter #t", "> ```python\n> x = [[1]]  # c\n> ```\n> after \\#t"),
    ("an open fence\n~~~\n#kept [[as code]]", "> an open fence\n> ~~~\n> #kept [[as code]]"),
    ("C:\\Users\\me and \\#", "> C:\\\\Users\\\\me and \\\\\\#"),
    ("one\n\n  two  ", "> one\n>\n>   two  "),
])
def test_quoted_prose_renders_formatting_but_no_link_tag_heading_or_task(prose, shown):
    assert textclean.quoted_prose(prose) == shown
    assert textclean.unquoted_prose(shown) == prose


@given(st.text(st.characters(blacklist_categories=("Cs",)), max_size=300))
@settings(max_examples=300, deadline=None)
def test_quoted_prose_reads_back_as_it_was_and_stays_a_quote(text):
    quoted = textclean.quoted_prose(text)
    assert textclean.unquoted_prose(quoted) == textclean.strip_control(text).rstrip("\n")
    assert all(line == ">" or line.startswith("> ") for line in quoted.split("\n"))
