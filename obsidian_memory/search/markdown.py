"""Read an Obsidian note into the fields the index searches: title, aliases, tags, headings,
plain body text (markup removed), code, frontmatter and the raw link targets.

Pure functions over a string: no file access, no SQLite. Frontmatter is parsed with
`yaml.safe_load`; a broken block falls back to a line reader and never raises.
"""
from __future__ import annotations

import datetime
import re
from dataclasses import dataclass, field

_FRONTMATTER_END = re.compile(r"^(?:---|\.\.\.)[ \t]*$", re.MULTILINE)
_FENCE = re.compile(r"^[ \t]{0,3}(`{3,}|~{3,})(.*)$")
_HEADING = re.compile(r"^[ \t]{0,3}(#{1,6})[ \t]+(.*?)[ \t#]*$")
# An Obsidian tag: `#` not preceded by a word character, `#`, `&` or `/` (URLs, anchors, HTML
# entities), then letters, digits, `_`, `-`, `/`; a tag of digits only is not a tag.
_INLINE_TAG = re.compile(r"(?<![\w#&/])#([\w\-/]+)")
_WIKILINK = re.compile(r"(!?)\[\[([^\[\]\n]+?)\]\]")
_MD_LINK = re.compile(r"(!?)\[([^\[\]\n]*)\]\(\s*<?([^)\s>]*)>?(?:\s+\"[^\"]*\")?\s*\)")
_INLINE_CODE = re.compile(r"(`+)(.+?)\1")
_HTML_TAG = re.compile(r"</?[A-Za-z][^<>\n]*>")
_HTML_COMMENT = re.compile(r"<!--.*?-->", re.DOTALL)
_CALLOUT = re.compile(r"^\[![\w\-]+\][+\-]?[ \t]*")
_QUOTE = re.compile(r"^[ \t]*(?:>[ \t]?)+")
_LIST_MARK = re.compile(r"^[ \t]*(?:[-*+]|\d+[.)])[ \t]+(?:\[[ xX\-/>]\][ \t]+)?")
_BLOCK_ID = re.compile(r"(?:^|[ \t])\^[\w\-]+[ \t]*$")
_EMPHASIS = re.compile(r"(\*{1,3}|_{1,3}|~~|==)(?=\S)(.+?)(?<=\S)\1")
_TABLE_RULE = re.compile(r"^[ \t]*\|?[ \t]*:?-{2,}:?[ \t]*(?:\|[ \t]*:?-{2,}:?[ \t]*)*\|?[ \t]*$")
_HR = re.compile(r"^[ \t]*(?:[-*_][ \t]*){3,}$")
_SPACES = re.compile(r"[ \t]+")
_ATTACHMENT = re.compile(r"\.[A-Za-z0-9]{2,5}$")
_SIMPLE_PAIR = re.compile(r"^([\w\- ]+?)[ \t]*:[ \t]*(.*)$")


@dataclass
class Note:
    title: str
    aliases: list[str] = field(default_factory=list)
    tags: list[str] = field(default_factory=list)          # lower case, without '#', nested as a/b
    headings: list[str] = field(default_factory=list)
    body: str = ""                                        # plain text, one block per line
    code: str = ""                                        # fenced code, kept apart from the body
    frontmatter: dict = field(default_factory=dict)
    links: list[str] = field(default_factory=list)        # raw targets of [[links]], embeds and [](links)


def parse_note(text: str, title: str) -> Note:
    text = text.replace("\r\n", "\n").replace("\r", "\n").lstrip("\ufeff")
    frontmatter, body_text = split_frontmatter(text)
    note = Note(title=title, frontmatter=frontmatter)
    note.aliases = _strings(frontmatter.get("aliases", frontmatter.get("alias")))
    tags = [_clean_tag(t) for t in _tag_values(frontmatter.get("tags", frontmatter.get("tag")))]
    lines, code = [], []
    fence = None
    for line in body_text.split("\n"):
        if fence:
            if line.strip().startswith(fence) and not line.strip().strip(fence[0]):
                fence = None
            else:
                code.append(line)
            continue
        opened = _FENCE.match(line)
        if opened:
            fence = opened.group(1)
            continue
        heading = _HEADING.match(line)
        if heading:
            text_of_heading = clean_inline(heading.group(2), note.links)
            if text_of_heading:
                note.headings.append(text_of_heading)
            tags.extend(_inline_tags(heading.group(2)))
            continue
        tags.extend(_inline_tags(line))
        cleaned = clean_line(line, note.links)
        if cleaned:
            lines.append(cleaned)
    note.body = "\n".join(lines)
    note.code = "\n".join(code)
    note.tags = _unique(t for t in tags if t)
    return note


def split_frontmatter(text: str) -> tuple[dict, str]:
    """(frontmatter as a dict, the text after it). Never raises on a broken block."""
    if not text.startswith("---"):
        return {}, text
    first_break = text.find("\n")
    if first_break < 0 or text[:first_break].strip() != "---":
        return {}, text
    end = _FRONTMATTER_END.search(text, first_break + 1)
    if not end:
        return {}, text
    block = text[first_break + 1:end.start()]
    rest = text[end.end():]
    return _parse_yaml(block), rest.lstrip("\n")


def _parse_yaml(block: str) -> dict:
    if not block.strip():
        return {}
    try:
        import yaml

        data = yaml.load(block, Loader=_safe_loader(yaml))
    except Exception:
        return _parse_broken_yaml(block)
    return data if isinstance(data, dict) else {}


def _safe_loader(yaml):
    """The C safe loader when PyYAML has libyaml (ten times faster), else the pure one."""
    return getattr(yaml, "CSafeLoader", None) or yaml.SafeLoader


def _parse_broken_yaml(block: str) -> dict:
    """Salvage `key: value` and `- item` lines from frontmatter YAML cannot read."""
    data: dict = {}
    key = None
    for line in block.split("\n"):
        stripped = line.strip()
        if stripped.startswith("- ") and key:
            if not isinstance(data.get(key), list):
                data[key] = [] if data.get(key) in (None, "") else [data[key]]
            data[key].append(stripped[2:].strip().strip("\"'"))
            continue
        pair = _SIMPLE_PAIR.match(line)
        if pair:
            key = pair.group(1).strip()
            data[key] = pair.group(2).strip().strip("\"'")
    return data


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
    """Inline markup to plain text: links keep their target and label, code keeps its text."""
    sink = links if links is not None else []
    if "<" in text:
        text = _HTML_COMMENT.sub(" ", text)
    if "`" in text:
        text = _INLINE_CODE.sub(lambda m: m.group(2), text)
    if "[" in text:
        text = _WIKILINK.sub(lambda m: _wikilink_text(m.group(1), m.group(2), sink), text)
        text = _MD_LINK.sub(lambda m: _md_link_text(m.group(2), m.group(3), sink), text)
    if "<" in text:
        text = _HTML_TAG.sub(" ", text)
    if "%%" in text:
        text = text.replace("%%", " ")
    if "*" in text or "_" in text or "~~" in text or "==" in text:
        for _ in range(2):
            text = _EMPHASIS.sub(lambda m: m.group(2), text)
    if "  " in text or "\t" in text:
        text = _SPACES.sub(" ", text)
    return text.strip()


def _wikilink_text(bang: str, inner: str, sink: list[str]) -> str:
    target, _, label = inner.replace("\\|", "|").partition("|")
    target = target.strip()
    sink.append(target)
    name, _, anchor = target.partition("#")
    name = name.rsplit("/", 1)[-1]
    if name.lower().endswith(".md"):
        name = name[:-3]
    elif bang and _ATTACHMENT.search(name):
        return label.strip() if label.strip() and not label.strip().isdigit() else ""
    anchor = "" if anchor.startswith("^") else anchor.replace("#", " ")
    parts = [p for p in (name, anchor, label.strip()) if p]
    return " ".join(_unique(parts))


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


def _tag_values(value) -> list[str]:
    if value is None:
        return []
    if isinstance(value, str):
        return [t for t in re.split(r"[,\s]+", value) if t]
    if isinstance(value, (list, tuple, set)):
        out = []
        for item in value:
            out.extend(_tag_values(item) if isinstance(item, str) else ([str(item)] if item is not None else []))
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
