"""The Markdown grammar of Obsidian notes, in one place: fences, headings, links, frontmatter
(its boundary is `frontmatter`'s), inline markup, and the chunks a note is embedded in.

`parse_note` reads a note into the fields the index searches: title, aliases, tags, headings,
plain body text (markup removed), code, frontmatter and the links it makes; `chunks_of` cuts it
into the texts the semantic extra embeds.

A link is a `[[wikilink]]` or `![[embed]]` (alias, heading and block anchors split off), a
Markdown link `[text](path)` to a local file (URL-decoded), or a `[[wikilink]]` in a
frontmatter value (Obsidian shows those as links too). Links in fenced code, inline code and
comments (`%%...%%`, `<!-- -->`) are not links; neither are links to attachments (images,
PDFs, audio, ...): only notes are indexed, so only notes are link targets.

Pure functions over a string: no file access, no SQLite. Frontmatter is parsed by
`frontmatter.parse` (safe YAML without aliases; a broken or refused block falls back to a line
reader and never raises).
"""
from __future__ import annotations

import datetime
import hashlib
import re

from obsidian_memory.vault import frontmatter
from obsidian_memory.core.plain_record import Record

# A fence line (CommonMark): at most three spaces, three or more backticks or tildes, an info string.
FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})(.*)$")
# An ATX heading: `#` to `######`, a space, the text (closing `#`s and spaces dropped).
HEADING = re.compile(r"^[ \t]{0,3}(#{1,6})[ \t]+(.*?)[ \t#]*$")
# An Obsidian tag: `#` not preceded by a word character, `#`, `&` or `/` (URLs, anchors, HTML
# entities), then letters, digits, `_`, `-`, `/`; a tag of digits only is not a tag.
_INLINE_TAG = re.compile(r"(?<![\w#&/\\])#([\w\-/]+)")   # `\#x` is an escaped `#`, no tag
_WIKILINK = re.compile(r"(!?)\[\[([^\[\]\n]+?)\]\]")
_MD_LINK = re.compile(r"(?<!\\)(!?)\[([^\[\]\n]*)(?<!\\)\]\(\s*<?([^)\s>]*)>?(?:\s+\"[^\"]*\")?\s*\)")
_INLINE_CODE = re.compile(r"(`+)(.+?)\1")
_HTML_TAG = re.compile(r"</?[A-Za-z][^<>\n]*>")
_HTML_COMMENT = re.compile(r"<!--.*?-->", re.DOTALL)
_CALLOUT = re.compile(r"^\[![\w\-]+\][+\-]?[ \t]*")
_QUOTE = re.compile(r"^[ \t]*(?:>[ \t]?)+")
_LIST_MARK = re.compile(r"^[ \t]*(?:[-*+]|\d+[.)])[ \t]+(?:\[[ xX\-/>]\][ \t]+)?")
_BLOCK_ID = re.compile(r"(?:^|[ \t])\^[\w\-]+[ \t]*$")
# `_` emphasis never starts or ends inside a word (CommonMark), so snake_case stays whole
_EMPHASIS = re.compile(r"(\*{1,3}|~~|==)(?=\S)(.+?)(?<=\S)\1|(?<!\w)(_{1,3})(?=\S)(.+?)(?<=\S)\3(?!\w)")
_TABLE_RULE = re.compile(r"^[ \t]*\|?[ \t]*:?-{2,}:?[ \t]*(?:\|[ \t]*:?-{2,}:?[ \t]*)*\|?[ \t]*$")
_HR = re.compile(r"^[ \t]*(?:[-*_][ \t]*){3,}$")
_SPACES = re.compile(r"[ \t]+")
_ATTACHMENT = re.compile(r"\.[A-Za-z0-9]{2,5}$")
# For link extraction: a Markdown link's target may be <in angle brackets> (then with spaces).
# Escaped brackets (`\[x\](y)`) make no link, here as in Obsidian.
_MD_LINK_TARGET = re.compile(r"(?<!\\)(!?)\[((?:[^\[\]\n]|\[[^\[\]\n]*\])*)(?<!\\)\]\(\s*(?:<([^<>\n]*)>|([^()\s]*(?:\([^()\s]*\)[^()\s]*)*))"
                             r"(?:\s+(?:\"[^\"]*\"|'[^']*'))?\s*\)")
_COMMENT_MARK = "%%"
_URL_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.\-]*:")
CONTEXT_CHARS = 240
# Files Obsidian can link to that are not notes: such links are left out (see the module doc).
ATTACHMENT_EXTENSIONS = frozenset("""
png jpg jpeg gif bmp svg webp avif tif tiff ico heic mp3 wav m4a ogg oga 3gp flac webm mp4 mkv mov ogv
pdf canvas base excalidraw zip json csv txt html htm js css py docx xlsx pptx epub
""".split())


class Note(Record):
    __slots__ = ("title", "aliases", "tags", "headings", "body", "code", "frontmatter", "links", "outlinks")

    def __init__(self, title: str, aliases: list[str] | None = None, tags: list[str] | None = None,
                 headings: list[str] | None = None, body: str = "", code: str = "", frontmatter: dict | None = None,
                 links: list[str] | None = None, outlinks: list["Link"] | None = None):
        self.title = title
        self.aliases = [] if aliases is None else aliases
        self.tags = [] if tags is None else tags                    # lower case, without '#', nested as a/b
        self.headings = [] if headings is None else headings
        self.body = body                                            # plain text, one block per line
        self.code = code                                            # fenced code, kept apart from the body
        self.frontmatter = {} if frontmatter is None else frontmatter
        self.links = [] if links is None else links                 # raw targets of the links below, in order
        self.outlinks = [] if outlinks is None else outlinks        # every link to a (possible) note, in order


class Link(Record):
    __slots__ = ("target", "anchor", "label", "embed", "kind", "line", "context")

    def __init__(self, target: str, anchor: str = "", label: str = "", embed: bool = False, kind: str = "wiki",
                 line: int = 0, context: str = ""):
        self.target = target      # the note path part as written (Markdown links URL-decoded), no anchor
        self.anchor = anchor      # heading (`a#b`) or block (`^id`) anchor, without the leading '#'
        self.label = label        # the alias or link text
        self.embed = embed        # ![[...]] or ![](...)
        self.kind = kind          # "wiki", "markdown" or "frontmatter"
        self.line = line          # 1-based line of the file
        self.context = context    # the line as plain text, cut to CONTEXT_CHARS around the link

    @property
    def raw(self) -> str:
        return self.target + ("#" + self.anchor if self.anchor else "")


SEARCHED_BYTES = 1 << 20     # of a note, its first 1 MB is indexed, scored and excerpted (a privacy check reads all)


def searched_part(text: str) -> str:
    """The part of a note's text that search indexes, scores and excerpts: its first
    SEARCHED_BYTES of UTF-8 (a 20 MB log would cost a search seconds and a hundred MB). What
    makes a note private is looked for in all of it, never in this part only."""
    if len(text) <= SEARCHED_BYTES // 4:      # (4 bytes a character at most: short enough)
        return text
    data = text[:SEARCHED_BYTES].encode("utf-8", "replace")    # (1 byte a character at least: enough)
    if len(data) <= SEARCHED_BYTES and len(text) <= SEARCHED_BYTES:
        return text
    return data[:SEARCHED_BYTES].decode("utf-8", "ignore")


def parse_note(text: str, title: str, *, text_only: bool = False) -> Note:
    """The note `text` parsed. `text_only`: only its body, code and headings (the same), for a
    reader of those: its frontmatter is skipped unread (no YAML), tags and links are not collected."""
    text = text.replace("\r\n", "\n").replace("\r", "\n").lstrip("\ufeff")
    frontmatter, body_text = split_frontmatter(text, parse=not text_only)
    first_body_line = text.count("\n", 0, len(text) - len(body_text)) + 1
    note = Note(title=title, frontmatter=frontmatter)
    if frontmatter:
        note.outlinks.extend(_frontmatter_links(text, first_body_line))
    in_comment = False
    note.aliases = _strings(frontmatter.get("aliases", frontmatter.get("alias")))
    tags = [_clean_tag(t) for t in tag_values(frontmatter.get("tags", frontmatter.get("tag")))]
    lines, code = [], []
    fence = quote_fence = None
    for number, line in enumerate(body_text.split("\n"), start=first_body_line):
        if fence:
            if fence_closed_by(line, fence):
                fence = None
            else:
                code.append(line)
            continue
        quoted = _QUOTE.match(line) if ">" in line[:8] else None
        if quote_fence and quoted:   # a code block inside a blockquote or callout: code too
            inner = line[quoted.end():]
            if fence_closed_by(inner, quote_fence):
                quote_fence = None
            else:
                code.append(inner)
            continue
        quote_fence = None           # (the quote ended, and the block with it)
        opened = fence_opened(line[quoted.end():] if quoted else line)
        if opened and not in_comment:
            if quoted:
                quote_fence = opened
            else:
                fence = opened
            continue
        may_link = in_comment or "[[" in line or "](" in line or _COMMENT_MARK in line
        heading = HEADING.match(line)
        if heading:
            text_of_heading = clean_inline(heading.group(2), note.links)
            if text_of_heading:
                note.headings.append(text_of_heading)
            if text_only:
                in_comment = _visible(line, in_comment)[2] if may_link else in_comment
                continue
            tags.extend(_inline_tags(heading.group(2)))
            if may_link:
                in_comment = _collect_links(line, number, in_comment, note.outlinks, text_of_heading)
            continue
        cleaned = clean_line(line, note.links)
        if cleaned:
            lines.append(cleaned)
        if text_only:
            in_comment = _visible(line, in_comment)[2] if may_link else in_comment
            continue
        tags.extend(_inline_tags(line))
        if may_link:
            in_comment = _collect_links(line, number, in_comment, note.outlinks, cleaned)
    note.links = [link.raw for link in note.outlinks]
    note.body = "\n".join(lines)
    note.code = "\n".join(code)
    note.tags = _unique(t for t in tags if t)
    return note


# -- blocks: fences and headings -------------------------------------------------------------------

def fence_opened(line: str) -> str | None:
    """The fence (its run of backticks or tildes) that `line` opens, or None. A backtick fence
    whose info string holds a backtick is inline code (```a``` on one line), not a fence."""
    found = FENCE.match(line)
    if found is None or (found.group(1)[0] == "`" and "`" in found.group(2)):
        return None
    return found.group(1)


def fence_closed_by(line: str, fence: str) -> bool:
    """Whether `line` closes a block opened by `fence`: the same character, at least as many,
    at most three spaces before and nothing after."""
    rest = line.lstrip(" ")
    return len(line) - len(rest) <= 3 and rest.startswith(fence) and not rest.rstrip().strip(fence[0])


def headings_of(text: str) -> list[str]:
    """The text of every heading outside fenced code, in order (markup left as written)."""
    found, fence = [], None
    for line in text.split("\n"):
        if fence:
            if fence_closed_by(line, fence):
                fence = None
            continue
        fence = fence_opened(line)
        if fence is None:
            heading = HEADING.match(line)
            if heading:
                found.append(heading.group(2))
    return found


# -- links ---------------------------------------------------------------------------------------

def _collect_links(line: str, number: int, in_comment: bool, sink: list[Link], plain: str) -> bool:
    """Append the links of one body line (`plain`: the line as plain text, for the context);
    returns whether a `%%` comment is still open after it."""
    visible, shown, in_comment = _visible(line, in_comment)
    found = []
    if "[[" in visible:
        for match in _WIKILINK.finditer(visible):
            link = wikilink(match.group(2), embed=bool(match.group(1)))
            if link is not None:
                found.append((match.start(), link))
    if "](" in visible:
        masked = _WIKILINK.sub(lambda m: " " * len(m.group(0)), visible) if "[[" in visible else visible
        for match in _MD_LINK_TARGET.finditer(masked):
            target = match.group(3) if match.group(3) is not None else match.group(4)
            link = markdown_link(target, match.group(2), embed=bool(match.group(1)))
            if link is not None:
                found.append((match.start(), link))
    if found:
        if shown != line:             # a comment was cut out: the context leaves it out too
            plain = clean_line(shown)
        lowered = plain.lower() if len(plain) > CONTEXT_CHARS else ""
        if len(found) > 1 and "](" in visible:
            found.sort(key=lambda item: item[0])
        for _, link in found:
            link.line = number
            link.context = link_context(plain, link, lowered)
            sink.append(link)
    return in_comment


def _visible(line: str, in_comment: bool) -> tuple[str, str, bool]:
    """(the line with its comments and code spans blanked out, the line without its comments but
    with its code text (for a link's context), whether a `%%` comment is still open after it)."""
    if "`" in line and not in_comment:       # code spans first: `%%` or `[[x]]` in code is text
        visible = _INLINE_CODE.sub(lambda m: " " * len(m.group(0)), line)
        shown = line
        if _COMMENT_MARK in visible or "<!--" in visible:
            visible, in_comment = _outside_comments(visible, False)
            shown = _outside_comments(_INLINE_CODE.sub(lambda m: "\0" * len(m.group(0)), line), False)[0]
            shown = "".join(line[i] if c == "\0" else c for i, c in enumerate(shown))
        return visible, shown, in_comment
    visible, in_comment = _outside_comments(line, in_comment)
    return visible, visible, in_comment


def _outside_comments(line: str, in_comment: bool) -> tuple[str, bool]:
    """The line with `%%comments%%` (which may span lines) and `<!-- -->` blanked out."""
    if "<!--" in line:
        line = _HTML_COMMENT.sub(lambda m: " " * len(m.group(0)), line)
    if _COMMENT_MARK not in line and not in_comment:
        return line, False
    out, pos = [], 0
    while pos <= len(line):
        mark = line.find(_COMMENT_MARK, pos)
        end = len(line) if mark < 0 else mark
        if not in_comment:
            out.append(line[pos:end])
        else:
            out.append(" " * (end - pos))
        if mark < 0:
            break
        out.append("  ")
        in_comment = not in_comment
        pos = mark + 2
    return "".join(out), in_comment


def wikilink(inner: str, embed: bool = False) -> Link | None:
    """The link in `[[inner]]`, or None for a link to the note itself or to an attachment."""
    target, _, label = inner.replace("\\|", "|").partition("|")
    path, _, anchor = target.partition("#")
    path = path.strip()
    if not path or is_attachment(path):
        return None
    return Link(target=path, anchor=anchor.strip(), label=label.strip(), embed=embed, kind="wiki")


def markdown_link(target: str | None, label: str, embed: bool = False) -> Link | None:
    """The link in `[label](target)` when it points at a local note (URL-decoded), else None."""
    from urllib.parse import unquote

    target = (target or "").strip()
    if not target or target.startswith("#") or _URL_SCHEME.match(target) or target.startswith("//"):
        return None
    path, _, anchor = target.partition("#")
    path = unquote(path).strip()
    if not path or is_attachment(path):
        return None
    return Link(target=path, anchor=unquote(anchor).strip(), label=label.strip(), embed=embed, kind="markdown")


def is_attachment(path: str) -> bool:
    name = path.replace("\\", "/").rsplit("/", 1)[-1]
    dot = name.rfind(".")
    return dot > 0 and name[dot + 1:].lower() in ATTACHMENT_EXTENSIONS


def _frontmatter_links(text: str, first_body_line: int) -> list[Link]:
    links = []
    lines = text.split("\n", first_body_line)[1:first_body_line - 1]
    for number, line in enumerate(lines, start=2):
        if "[[" not in line:
            continue
        for match in _WIKILINK.finditer(line):
            link = wikilink(match.group(2), embed=bool(match.group(1)))
            if link is not None:
                link.kind, link.line = "frontmatter", number
                link.context = _SPACES.sub(" ", line.strip())[:CONTEXT_CHARS]
                links.append(link)
    return links


def link_context(plain: str, link: Link, lowered: str = "") -> str:
    """The plain line, cut to CONTEXT_CHARS around where the link's text appears in it."""
    if len(plain) <= CONTEXT_CHARS:
        return plain
    name = link.label or link.target.rsplit("/", 1)[-1]
    at = max(0, (lowered or plain.lower()).find(name.lower()))
    start = max(0, min(at - CONTEXT_CHARS // 3, len(plain) - CONTEXT_CHARS))
    piece = plain[start:start + CONTEXT_CHARS].strip()
    return ("…" if start else "") + piece + ("…" if start + CONTEXT_CHARS < len(plain) else "")


def split_frontmatter(text: str, *, parse: bool = True) -> tuple[dict, str]:
    """(frontmatter as a dict, the text after it). Never raises on a broken block. `parse` False:
    the block is only skipped (an empty dict)."""
    found = frontmatter.locate(text)
    if found is None:
        return {}, text
    start, end, body = found
    return frontmatter.parse(text[start:end]) if parse else {}, text[body:].lstrip("\n")


def clean_line(line: str, links: list[str] | None = None) -> str:
    """One Markdown line as plain text: quote, callout, list and table markup removed."""
    start = line.lstrip()[:1]
    if start in ("-", "*", "_", "|", ":") and (_TABLE_RULE.match(line) or _HR.match(line)):
        return ""
    if start == ">":
        line = _QUOTE.sub("", line)
        if line.startswith("[!"):
            line = _CALLOUT.sub("", line)
        start = line.lstrip()[:1]
    if start in ("-", "*", "+") or start.isdigit():
        line = _LIST_MARK.sub("", line)
    if "^" in line:
        line = _BLOCK_ID.sub("", line)
    text = clean_inline(line, links)
    if "|" in text:                      # table cells (after links took their own `|`)
        text = _SPACES.sub(" ", text.replace("\\|", "\u0000").replace("|", " ").replace("\u0000", "|")).strip()
    return text


def clean_inline(text: str, links: list[str] | None = None) -> str:
    """Inline markup to plain text: a link reads as Obsidian shows it, code keeps its text as written."""
    sink = links if links is not None else []
    if "<" in text:
        text = _HTML_COMMENT.sub(" ", text)
    spans: list[str] = []
    if "`" in text:               # code keeps its text as written: no link, tag or emphasis inside
        text = _INLINE_CODE.sub(lambda m: _keep(spans, m.group(2)), text)
    if "[" in text:
        text = _WIKILINK.sub(lambda m: _wikilink_text(m.group(1), m.group(2), sink), text)
        text = _MD_LINK_TARGET.sub(lambda m: _md_link_text(m.group(2), m.group(3) or m.group(4), sink), text)
    if "<" in text:
        text = _HTML_TAG.sub(" ", text)
    if "%%" in text:
        text = text.replace("%%", " ")
    if "*" in text or "_" in text or "~~" in text or "==" in text:
        for _ in range(2):
            text = _EMPHASIS.sub(lambda m: m.group(2) if m.group(1) else m.group(4), text)
    if spans:
        text = _KEPT.sub(lambda m: spans[int(m.group(1))], text)
    if "  " in text or "\t" in text:
        text = _SPACES.sub(" ", text)
    return text.strip()


_KEPT = re.compile("\ue000(\\d+)\ue001")


def _keep(spans: list[str], code: str) -> str:
    """A placeholder for a code span, put back once the markup around it is gone."""
    spans.append(code)
    return f"\ue000{len(spans) - 1}\ue001"


def _wikilink_text(bang: str, inner: str, sink: list[str]) -> str:
    """A wikilink as Obsidian shows it: its alias, else the note's name (and heading: `Note > Heading`)."""
    target, _, label = inner.replace("\\|", "|").partition("|")
    target = target.strip()
    sink.append(target)
    name, _, anchor = target.partition("#")
    name = name.rsplit("/", 1)[-1]
    if name.lower().endswith(".md"):
        name = name[:-3]
    elif bang and _ATTACHMENT.search(name):
        return label.strip() if label.strip() and not label.strip().isdigit() else ""
    if label.strip():
        return label.strip()
    anchor = "" if anchor.startswith("^") else anchor.replace("#", " > ").strip()
    return " > ".join(p for p in (name, anchor) if p)


def _md_link_text(label: str, target: str, sink: list[str]) -> str:
    if target and "://" not in target and not target.startswith("mailto:"):
        sink.append(target)
    return label


def _inline_tags(line: str) -> list[str]:
    if "#" not in line:
        return []
    line = _INLINE_CODE.sub(" ", line)
    line = _WIKILINK.sub(" ", line)
    line = _MD_LINK.sub(lambda m: " " + m.group(2) + " ", line)
    return [_clean_tag(m.group(1)) for m in _INLINE_TAG.finditer(line)
            if not m.group(1).replace("/", "").replace("-", "").replace("_", "").isdigit()]


def _clean_tag(tag) -> str:
    return str(tag).strip().lstrip("#").strip("/").lower()


def tag_values(value) -> list[str]:
    """The tags a `tags` (or `tag`) property value names, as written (a text is split at commas and spaces)."""
    if value is None:
        return []
    if isinstance(value, str):
        return [t for t in re.split(r"[,\s]+", value) if t]
    if isinstance(value, (list, tuple, set)):
        out = []
        for item in value:
            out.extend(tag_values(item) if isinstance(item, str) else ([str(item)] if item is not None else []))
        return out
    return [str(value)]


def _strings(value) -> list[str]:
    if value is None:
        return []
    if isinstance(value, (list, tuple, set)):
        return [str(v).strip() for v in value if v is not None and str(v).strip()]
    text = str(value).strip()
    return [text] if text else []


def _unique(items) -> list:
    seen, out = set(), []
    for item in items:
        key = item.lower() if isinstance(item, str) else item
        if key not in seen:
            seen.add(key)
            out.append(item)
    return out


def scalar_text(value) -> str | None:
    """A frontmatter value as text for filters and search (None for nested mappings)."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (datetime.date, datetime.datetime)):
        return value.isoformat()
    if isinstance(value, (str, int, float)):
        return str(value)
    return None


def frontmatter_pairs(frontmatter: dict) -> list[tuple[str, str]]:
    """(key, value) pairs, lower-cased, one per list item, for `--frontmatter key:value`."""
    pairs = []
    for key, value in frontmatter.items():
        key_text = str(key).strip().lower()
        values = value if isinstance(value, (list, tuple, set)) else [value]
        for item in values:
            text = scalar_text(item)
            if text is not None:
                if key_text in ("tags", "tag"):
                    text = _clean_tag(text)
                pairs.append((key_text, text.strip().lower()))
    return pairs


def frontmatter_text(frontmatter: dict, skip=("aliases", "alias", "tags", "tag")) -> str:
    """The searchable text of the other frontmatter values (description, title, ...)."""
    parts = []
    for key, value in frontmatter.items():
        if str(key).lower() in skip:
            continue
        values = value if isinstance(value, (list, tuple, set)) else [value]
        for item in values:
            text = scalar_text(item)
            if text and not isinstance(item, bool):
                parts.append(text)
    return "\n".join(parts)


# -- chunks: what of a note gets a vector (the semantic extra) --------------------------------------
# One "head" per note (title, aliases, description, headings, start of the body) and, for notes
# longer than a head, chunks of ~1,000 characters that follow the sections: small sections are
# packed together, a long section is cut at line boundaries, and every chunk carries its note
# title and heading path. Fenced code is kept (archived session notes keep their prompts and
# summaries in fences). A chunk's `hash` keys its vector in the store.

HEAD_CHARS = 1200          # characters of a note's head (~300 tokens)
CHUNK_CHARS = 1000         # target size of a section chunk
MAX_CHUNKS = 400           # per note; beyond this (~400 KB of text) the rest of a note gets no vector


class Chunk(Record):
    __slots__ = ("heading", "text", "excerpt")

    def __init__(self, heading: str, text: str, excerpt: str):
        self.heading = heading    # the heading path ("" for the head and text before the first heading)
        self.text = text          # what is embedded
        self.excerpt = excerpt    # what a hit shows

    @property
    def hash(self) -> str:
        return text_hash(self.text)


def chunks_of(text: str, title: str) -> list[Chunk]:
    """The head of a note, then its section chunks when the head could not hold the whole body."""
    text = text.replace("\r\n", "\n").replace("\r", "\n").lstrip("\ufeff")
    note = parse_note(text, title)
    sections = _sections(split_frontmatter(text)[1])
    body = "\n".join(line for _, lines in sections for line in lines)
    head, complete = _head(note, body)
    if complete:
        return [head]
    return [head] + _section_chunks(title, sections)[:MAX_CHUNKS]


def _head(note, body: str) -> tuple[Chunk, bool]:
    """(the head chunk, whether it holds the whole body)."""
    description = note.frontmatter.get("description") if isinstance(note.frontmatter, dict) else None
    parts = [note.title]
    if note.aliases:
        parts.append("Also called: " + ", ".join(note.aliases[:10]))
    if isinstance(description, str) and description.strip():
        parts.append(description.strip())
    if note.headings:
        parts.append("Sections: " + "; ".join(note.headings[:30]))
    prefix = "\n".join(parts)[:HEAD_CHARS]
    room = max(0, HEAD_CHARS - len(prefix) - 1)
    text = prefix + "\n" + body[:room] if body else prefix
    return Chunk(heading="", text=text, excerpt=excerpt_text(body or prefix)), len(body) <= room


def _sections(body_text: str) -> list[tuple[str, list[str]]]:
    """[(heading path, plain-text lines)] in order; code fences keep their lines as they are."""
    sections: list[tuple[str, list[str]]] = [("", [])]
    path: list[tuple[int, str]] = []
    fence = None
    for line in body_text.split("\n"):
        if fence:
            if fence_closed_by(line, fence):
                fence = None
            elif line.strip():
                sections[-1][1].append(line.strip())
            continue
        fence = fence_opened(line)
        if fence:
            continue
        heading = HEADING.match(line)
        if heading:
            level, name = len(heading.group(1)), clean_inline(heading.group(2))
            path = [(lv, n) for lv, n in path if lv < level] + [(level, name)]
            sections.append((" > ".join(n for _, n in path), []))
            continue
        cleaned = clean_line(line)
        if cleaned:
            sections[-1][1].append(cleaned)
    return [(h, lines) for h, lines in sections if lines or h]


def _section_chunks(title: str, sections) -> list[Chunk]:
    """Pack small sections together and cut long ones, at line boundaries, near CHUNK_CHARS."""
    pieces: list[tuple[str, str]] = []          # (heading, text) of at most CHUNK_CHARS
    for heading, lines in sections:
        for piece in _cut(lines):
            pieces.append((heading, piece))
        if not lines and heading:
            pieces.append((heading, ""))
    chunks, group = [], []
    for heading, piece in pieces:
        if group and sum(len(h) + len(p) + 2 for h, p in group) + len(heading) + len(piece) > CHUNK_CHARS:
            chunks.append(_chunk(title, group))
            group = []
        group.append((heading, piece))
    if group:
        chunks.append(_chunk(title, group))
    return [c for c in chunks if c.excerpt]


def _cut(lines: list[str]) -> list[str]:
    out, current = [], ""
    for line in lines:
        while len(line) > CHUNK_CHARS:                       # one huge line: cut at a space
            cut = line.rfind(" ", CHUNK_CHARS // 2, CHUNK_CHARS)
            cut = cut if cut > 0 else CHUNK_CHARS
            if current:
                out.append(current)
                current = ""
            out.append(line[:cut])
            line = line[cut:].lstrip()
        if current and len(current) + 1 + len(line) > CHUNK_CHARS:
            out.append(current)
            current = ""
        current = f"{current}\n{line}" if current else line
    if current:
        out.append(current)
    return out


def _chunk(title: str, group: list[tuple[str, str]]) -> Chunk:
    headings = list(dict.fromkeys(h for h, _ in group if h))
    lines, last = [], group[0][0]        # the first heading is in the context line already
    for heading, piece in group:
        if heading and heading != last:
            lines.append(heading.rsplit(" > ", 1)[-1])
            last = heading
        if piece:
            lines.append(piece)
    context = title + (" > " + headings[0] if headings else "")
    return Chunk(heading=headings[0] if headings else "", text=context + "\n" + "\n".join(lines),
                 excerpt=excerpt_text(" ".join(p for _, p in group if p)))


def excerpt_text(text: str, limit: int = 300) -> str:
    """`text` cleaned and flattened to one line of at most `limit` characters (cut at a word)."""
    from obsidian_memory.core.textclean import strip_control

    flat = " ".join(strip_control(text).split())
    if len(flat) <= limit:
        return flat
    cut = flat.rfind(" ", limit // 2, limit)
    return flat[:cut if cut > 0 else limit].rstrip(" ,;:.-") + "…"


def text_hash(text: str) -> str:
    return hashlib.blake2b(text.encode("utf-8", "surrogateescape"), digest_size=16).hexdigest()
