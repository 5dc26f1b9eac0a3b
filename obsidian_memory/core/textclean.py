"""Make untrusted text safe to show: the one home of every text-safety helper.

Transcripts carry ANSI colours (`<local-command-stdout>`), OSC hyperlinks and titles, and
whatever bytes a tool printed; notes carry whatever their authors (or a web page) put in them.
None of that may reach a terminal, a note, an excerpt or the injected context as anything but
text:
- `strip_control`: no escape sequences or control characters; `one_line`: that, on one line;
  `shorten`: one line cut at a word;
- `quoted`: note text quoted into the injected context (no tag that ends the system reminder);
- Markdown that shows a value literally: `markdown_inline` (escaped), `code_span`, `fenced`
  (a code block no text inside can close), `fence_for`; `yaml_scalar` for frontmatter;
- Markdown that shows prose with its formatting but nothing more: `quoted_prose` (a blockquote
  that cannot link, embed, tag or leave itself), read back by `unquoted_prose`.
On the SessionStart path: imports only `re` and compiles nothing at import.
"""
from __future__ import annotations

import re

# One pass removes, in order of the alternatives:
#   CSI sequences (ESC [ ... final byte), e.g. colours "\x1b[2m";
#   OSC sequences (ESC ] ... BEL or ESC \), e.g. hyperlinks and window titles; an unterminated
#     one ends at the line end so that a stray "ESC ]" cannot swallow the rest of a text;
#   DCS / SOS / PM / APC strings (ESC P|X|^|_ ... ESC \);
#   other two-byte escapes (ESC ( B, ESC =, ESC 7, ...);
#   the 8-bit C1 forms of CSI and OSC;
#   C0 controls except \t and \n, DEL, C1 controls, and the bidi override/isolate characters
#     that can make a text display differently from what it says.
_ESCAPES = (
    r"\x1b\[[0-?]*[ -/]*[@-~]?"
    r"|\x1b\][^\x07\x1b\n]*(?:\x07|\x1b\\)?"
    r"|\x1b[PX^_][^\x1b]*(?:\x1b\\)?"
    r"|\x1b[ -/]*[0-~]"
    r"|\x9b[0-?]*[ -/]*[@-~]?"
    r"|\x9d[^\x07\x9c\n]*(?:\x07|\x9c)?"
    r"|[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]"
)
# Lone surrogates (from JSON "\ud800" escapes) cannot be written as UTF-8: show them as U+FFFD.
_SURROGATES = r"[\ud800-\udfff]"
_CR_LF = r"\r\n?"
# The patterns are strings: `re` compiles each on first use and keeps it (its cache), so that
# importing this module (the SessionStart path does) compiles nothing.


def strip_control(text: str) -> str:
    """`text` without ANSI/OSC escape sequences and control characters (\\n and \\t are kept;
    a \\r\\n or lone \\r line end becomes \\n)."""
    if not text:
        return "" if text is None else text
    # isprintable() is False for every control, escape, bidi and surrogate character (and for
    # some harmless ones): only then are the patterns needed (and compiled).
    if text.replace("\n", "").replace("\t", "").isprintable():
        return text
    if "\r" in text:
        text = re.sub(_CR_LF, "\n", text)
    text = re.sub(_ESCAPES, "", text)
    return re.sub(_SURROGATES, "\ufffd", text)


_SPACES = r"\s+"


def shorten(text: str, limit: int = 80) -> str:
    """One line of at most `limit` characters, cut at a word boundary, with "…" when cut."""
    line = re.sub(_SPACES, " ", text).strip()
    if len(line) <= limit:
        return line
    cut = line[: limit - 1]
    space = cut.rfind(" ")
    if space >= limit // 2:
        cut = cut[:space]
    return cut.rstrip(" ,;:.-") + "…"


def one_line(text: str) -> str:
    """Clean text flattened to a single line (whitespace runs become one space)."""
    return re.sub(_SPACES, " ", strip_control(text or "")).strip()


# -- quoting into the injected context ------------------------------------------------------------

_REMINDER_TAG = r"(?i)<(/?\s*system-reminder)"


def quoted(text: str) -> str:
    """Note text made safe to quote into the context: no escapes or control characters, and no
    tag that could close the system reminder Claude Code wraps the context in."""
    if not text:
        return ""
    text = strip_control(text)
    if "reminder" in text.lower():
        text = re.sub(_REMINDER_TAG, r"‹\1", text)
    return text


# -- Markdown that shows a value literally ----------------------------------------------------------

# Markdown's specials, but an underscore inside a word (`test_importer`) and a single `=` are
# left alone: they cannot start emphasis or a highlight, and escaping them would break a plain
# search for the identifier
_INLINE_SPECIALS = r"([\\`*\[\]<>#|%~$^]|(?<![^\W_])_|_(?![^\W_])|=(?==)|(?<==)=)"
_BACKTICK_RUN = r"`+"
_YAML_UNSAFE = "[\x7f-\x9f\u2028\u2029\ufeff]"


def fence_for(text: str) -> str:
    """A backtick fence longer than any backtick run in `text` (three at least)."""
    longest = max((len(run) for run in re.findall(_BACKTICK_RUN, text)), default=0) if "`" in text else 0
    return "`" * max(3, longest + 1)


def fenced(value, info: str = "text") -> str:
    """A fenced code block holding `value` verbatim; its fence is longer than any backtick run
    inside, so the text can neither close it nor open one that swallows the rest of the note."""
    text = strip_control(str(value or "")).rstrip("\n")
    fence = fence_for(text)
    return f"{fence}{info}\n{text}\n{fence}"


def code_span(value) -> str:
    """An inline code span that no backtick in `value` can end early."""
    text = " ".join(strip_control(str(value or "")).split())
    longest = max((len(run) for run in re.findall(_BACKTICK_RUN, text)), default=0)
    ticks = "`" * (longest + 1)
    pad = " " if text.startswith("`") or text.endswith("`") or not text else ""
    return f"{ticks}{pad}{text}{pad}{ticks}"


def markdown_inline(value) -> str:
    """One line of Markdown that shows `value` literally (no heading, link, tag, comment, table cell)."""
    text = " ".join(strip_control(str(value or "")).split())
    return re.sub(_INLINE_SPECIALS, r"\\\1", text)


# What in prose could link, embed, tag, hide, or turn into HTML, math, a highlight or a block id
_PROSE_SPECIALS = r"[\\\[\]<#%$^]|=(?==)|(?<==)="
_BREAK_LINE = r" {0,3}(?:[-=_*] *){3,}"          # a rule, or the underline of a heading
_CODE_SPAN = r"(`+)(?!`).*?(?<!`)\1(?!`)"
_ESCAPED = r"\\(.)"


def quoted_prose(value) -> str:
    """`value` as a Markdown blockquote that renders its emphasis, lists and code, but cannot
    link, embed, tag, comment out, make a heading, a callout or a task, or end the quote: outside
    code blocks and code spans `\\ [ ] < # % $ ^` and `==` are backslash-escaped, and a line that
    would be a rule or a heading's underline starts with a backslash. Its words are the note's
    body text for a vault search (a code block's are not). `unquoted_prose` gives the text back."""
    from obsidian_memory.vault.markdown import fence_closed_by, fence_opened

    lines, fence = [], None
    for line in strip_control(str(value or "")).rstrip("\n").split("\n"):
        fence, code = _fence_after(line, fence, fence_opened, fence_closed_by)
        if not code:
            line = _outside_code_spans(line, lambda text: re.sub(_PROSE_SPECIALS, lambda m: "\\" + m.group(), text))
            line = "\\" + line if re.fullmatch(_BREAK_LINE, line) else line
        lines.append(f"> {line}" if line else ">")
    return "\n".join(lines)


def unquoted_prose(block: str) -> str:
    """The text that `quoted_prose` made `block` of (reading a note back)."""
    from obsidian_memory.vault.markdown import fence_closed_by, fence_opened

    lines, fence = [], None
    for raw in block.split("\n"):
        line = raw[2:] if raw.startswith("> ") else raw[1:] if raw.startswith(">") else raw
        fence, code = _fence_after(line, fence, fence_opened, fence_closed_by)
        lines.append(line if code else _outside_code_spans(line, lambda text: re.sub(_ESCAPED, r"\1", text)))
    return "\n".join(lines)


def _fence_after(line: str, fence: str | None, opened, closed_by) -> tuple[str | None, bool]:
    """(the fence open after `line`, whether `line` belongs to a code block: a fence or inside)."""
    if fence is not None:
        return (None if closed_by(line, fence) else fence), True
    fence = opened(line)
    return fence, fence is not None


def _outside_code_spans(line: str, change) -> str:
    parts, at = [], 0
    for span in re.finditer(_CODE_SPAN, line):
        parts += [change(line[at:span.start()]), span.group()]
        at = span.end()
    return "".join(parts) + change(line[at:])


def yaml_scalar(value) -> str:
    """A YAML value that reads back as exactly `value`: JSON strings are YAML double-quoted
    scalars, and the few characters YAML treats differently are escaped too."""
    import json

    if value is None:
        return "null"
    if isinstance(value, bool) or isinstance(value, (int, float)):
        return json.dumps(value)
    text = json.dumps(strip_control(str(value)), ensure_ascii=False)
    return re.sub(_YAML_UNSAFE, lambda m: f"\\u{ord(m.group()):04x}", text)
