"""What in a session note is ours and what is the user's (docs/vault-writes.md).

A note is its properties (frontmatter), then the generated part between two markers, each an
Obsidian comment on a line of its own (`%% obsidian-memory: begin … %%`, hidden in reading
view), and around it the user's text. Everything outside the markers is the user's and is kept
byte for byte by every re-render: text before the generated part, after it (the `## My notes`
section of a new note, whatever its heading is retyped to), and the properties the user added.
The generated part is ours to rewrite; a line the user wrote inside it is moved out, below it,
rather than dropped.

Notes of earlier versions have no markers: their user's part is the `## My notes` section (the
heading as it was typed, in any case and punctuation) or, when none is found, every line that
is not one of the rendering's.
"""
from __future__ import annotations

import difflib
import hashlib
import re
from dataclasses import dataclass

BEGIN = ("%% obsidian-memory: begin of the generated part. It is rewritten on every archive run; "
         "write your own text anywhere outside it. %%")
END = "%% obsidian-memory: end of the generated part %%"
_BEGIN_LINE = re.compile(r"^%% obsidian-memory: begin\b.*%%[ \t]*$")
_END_LINE = re.compile(r"^%% obsidian-memory: end\b.*%%[ \t]*$")
_FRONT = re.compile(r"\A---\r?\n(?:.*?\r?\n)?---[ \t]*(?:\r?\n|\Z)", re.S)
_MY_NOTES_LIKE = re.compile(r"^#{1,6}[ \t]+my[ \t]+notes\b", re.I)
MY_NOTES = "## My notes"
MY_NOTES_HINT = ("<!-- Write your own notes here, or anywhere outside the generated part (between the two "
                 "hidden obsidian-memory markers): obsidian-memory keeps them when it archives this session again. -->")
FRESH_TAIL = f"\n{MY_NOTES}\n\n{MY_NOTES_HINT}\n"
MOVED_OUT = "%% obsidian-memory: lines you wrote inside the generated part, kept here %%"


@dataclass
class Parts:
    """A note cut into its properties, the user's text before the generated part, the generated
    part (markers included; None when the note has no well-formed one) and the user's text after."""
    front: str
    before: str
    region: str | None
    after: str


def split(text: str) -> Parts:
    """The parts of a note: the first begin marker outside a code block and the first end marker
    after it make the generated part (transcript text cannot make a marker line: it is fenced,
    quoted or escaped in the rendering)."""
    match = _FRONT.match(text)
    front = match.group(0) if match else ""
    body = text[len(front):]
    begin = end = None
    for start, stop, line in _lines_outside_code(body):
        if begin is None and _BEGIN_LINE.match(line):
            begin = start
        elif begin is not None and _END_LINE.match(line):
            end = stop
            break
    if begin is None or end is None:
        return Parts(front, body, None, "")
    return Parts(front, body[:begin], body[begin:end], body[end:])


def _lines_outside_code(body: str):
    """(start offset, end offset, line without its line break) of each line outside code blocks."""
    from obsidian_memory.vault.markdown import fence_closed_by, fence_opened

    fence = None
    offset = 0
    for line in body.splitlines(keepends=True):
        content = line.rstrip("\r\n")
        start, offset = offset, offset + len(line)
        if fence is not None:
            if fence_closed_by(content, fence):
                fence = None
            continue
        fence = fence_opened(content)
        if fence is None:
            yield start, offset, content


def region_of(body: str) -> str:
    """The generated part of a rendered body (the template's text after the properties)."""
    return f"{BEGIN}\n{body.strip(chr(10))}\n{END}\n"


def rendered_parts(rendered: str) -> tuple[str, str]:
    """(properties, generated part) of the template's output."""
    match = _FRONT.match(rendered)
    front = match.group(0) if match else ""
    return front, region_of(rendered[len(front):])


def digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def compose(front: str, before: str, region: str, after: str) -> str:
    """The note from its parts; the user's text is joined to the generated part as it was."""
    if after and not after.startswith(("\n", "\r\n")):
        after = "\n" + after
    return front + before + region + after


def users_text(existing: str, new_region: str, last_region: str | None = None,
               recent: frozenset = frozenset()) -> tuple[str, str, list[str]]:
    """(the user's text before the generated part, after it, the lines moved out of it) of the
    note `existing`, to be kept around `new_region`. `last_region`: the generated part we wrote
    last, `recent`: the digests of those we wrote before. When the note's generated part is
    none of them, a line in it that neither `last_region` nor `new_region` holds is the user's
    and is moved out, below the generated part. (Without a record of what we wrote, the
    generated part is taken as ours.)"""
    parts = split(existing)
    references = [_inner(new_region)] + ([_inner(last_region)] if last_region else [])
    if parts.region is not None:
        moved: list[str] = []
        if last_region is not None and parts.region != last_region and digest(parts.region) not in recent:
            moved = missing_lines(_inner(parts.region), references)
        return parts.before, _with_moved(parts.after, moved), moved
    for start, _, line in _lines_outside_code(parts.before):   # an earlier version's note
        if _MY_NOTES_LIKE.match(line):
            return "", "\n" + parts.before[start:], []
    moved = missing_lines(parts.before, references)
    return "", _with_moved("", moved), moved


def _inner(region: str) -> str:
    lines = region.splitlines(keepends=True)
    return "".join(lines[1:-1])


def missing_lines(text: str, references: list[str]) -> list[str]:
    """The non-blank lines of `text` that no reference holds (counted: a line twice in `text` and
    once in a reference is kept once), in their order."""
    from collections import Counter

    available = Counter()
    for reference in references:
        counts = Counter(line.rstrip() for line in reference.splitlines())
        for line, count in counts.items():
            available[line] = max(available[line], count)
    kept = []
    for line in text.splitlines():
        key = line.rstrip()
        if not key.strip() or _BEGIN_LINE.match(key) or _END_LINE.match(key):
            continue
        if available[key] > 0:
            available[key] -= 1
        else:
            kept.append(line)
    return kept


def _with_moved(after: str, moved: list[str]) -> str:
    if not moved:
        return after
    block = "\n" + MOVED_OUT + "\n" + "".join(line + "\n" for line in moved)
    return block + (after if after.startswith("\n") else "\n" + after if after else "")


def merge_lines(a: str, b: str) -> str:
    """A text holding every line of `a` and every line of `b`, each in its order: `b` with the
    lines only `a` has put where they stood (what two writers made of one text, neither lost)."""
    if a == b:
        return a
    left, right = a.splitlines(keepends=True), b.splitlines(keepends=True)
    left = [line if line.endswith(("\n", "\r")) else line + "\n" for line in left]
    right = [line if line.endswith(("\n", "\r")) else line + "\n" for line in right]
    merged: list[str] = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, left, right, autojunk=False).get_opcodes():
        if tag == "equal":
            merged.extend(right[j1:j2])
        else:
            merged.extend(left[i1:i2])
            merged.extend(right[j1:j2])
    return "".join(merged)


def is_marked(text: str) -> bool:
    """Whether a note has a well-formed generated part."""
    return split(text).region is not None


def looks_like_earlier_note(text: str) -> bool:
    """Whether a note without markers has the shape an earlier version of ours wrote (our tag,
    and our `## Prompts` part or the user-section heading outside code)."""
    parts = split(text)
    if not re.search(r"^tags:.*\bclaude-session\b", parts.front, re.M):
        return False
    return any(line.strip() in ("## Prompts", MY_NOTES) for _, _, line in _lines_outside_code(parts.before))
