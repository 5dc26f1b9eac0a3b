#!/usr/bin/env python3
"""Make the handbook vault (benchmarks/vaults/debian-handbook) from the Debian package's HTML.

The Debian Administrator's Handbook (Debian package `debian-handbook`, GPL-2+ or CC-BY-SA-3.0)
ships its English HTML in /usr/share/doc/debian-handbook/html/en-US/. This script turns it into a
vault as a team wiki export looks: one page per chapter, per section and per subsection, in folders
by chapter and section, a parent page listing its children, cross-references as wikilinks, the
book's sidebars ("TIP", "CAUTION", ...) as callouts, commands and files as code, program listings
as fenced code. Numbers are dropped from the titles (a wiki has none). Figures, the index and the
navigation are left out.

    apt-get download debian-handbook && dpkg-deb -x debian-handbook_*.deb /tmp/dh
    python3 benchmarks/make_handbook_vault.py /tmp/dh/usr/share/doc/debian-handbook/html/en-US \
        benchmarks/vaults/debian-handbook
"""
from __future__ import annotations

import html.parser
import os
import re
import sys

SKIPPED_FILES = {"index.html"}
SKIPPED_CLASSES = {"toc", "docnav", "indexterm", "footnotes", "figure", "mediaobject", "list-of-figures",
                   "list-of-tables", "list-of-examples", "legalnotice", "authorgroup", "revhistory"}
VOID = {"br", "img", "meta", "link", "hr", "col", "input", "area", "base", "wbr"}
LEVELS = {"h1": 1, "h2": 2, "h3": 3}         # chapter, section, subsection: one page each


class Node:
    __slots__ = ("tag", "attrs", "children", "parent")

    def __init__(self, tag: str, attrs: dict, parent: "Node | None"):
        self.tag, self.attrs, self.children, self.parent = tag, attrs, [], parent

    @property
    def classes(self) -> set[str]:
        return set((self.attrs.get("class") or "").split())


class TreeBuilder(html.parser.HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.root = Node("root", {}, None)
        self.at = self.root

    def handle_starttag(self, tag, attrs):
        node = Node(tag, dict(attrs), self.at)
        self.at.children.append(node)
        if tag not in VOID:
            self.at = node

    def handle_endtag(self, tag):
        node = self.at
        while node is not None and node.tag != tag:
            node = node.parent
        if node is not None and node.parent is not None:
            self.at = node.parent

    def handle_data(self, data):
        self.at.children.append(data)


def parse(path: str) -> Node:
    builder = TreeBuilder()
    with open(path, encoding="utf-8") as handle:
        builder.feed(handle.read())
    return builder.root


def walk(node: Node):
    yield node
    for child in node.children:
        if isinstance(child, Node):
            yield from walk(child)


def heading_of(section: Node) -> Node | None:
    """The h1/h2/h3 that titles a chapter or section div (in its titlepage)."""
    for child in section.children:
        if isinstance(child, Node) and "titlepage" in child.classes:
            for node in walk(child):
                if node.tag in LEVELS or node.tag in ("h4", "h5", "h6"):
                    return node
    return None


def plain(node) -> str:
    if isinstance(node, str):
        return node
    if node.tag in VOID or node.classes & SKIPPED_CLASSES:
        return ""
    return "".join(plain(c) for c in node.children)


def title_text(heading: Node) -> str:
    text = re.sub(r"\s+", " ", plain(heading)).strip()
    return re.sub(r"^(Chapter \d+\.|Appendix [A-Z]\.|[A-Z0-9]+(\.\d+)*\.)\s*", "", text)


def file_name(title: str) -> str:
    name = re.sub(r"\s*:\s+", " - ", title)
    name = re.sub(r'[\\/:*?"<>|#^\[\]]', " ", name)
    return re.sub(r"\s+", " ", name).strip(" .")[:120]


class Page:
    def __init__(self, title: str, folder: str, level: int):
        self.title, self.folder, self.level = title, folder, level
        self.path = f"{folder}/{file_name(title)}" if folder else file_name(title)
        self.blocks: list[str] = []
        self.children: list["Page"] = []
        self.ids: set[str] = set()
        self.children_folder = ""


# -- pages and their ids --------------------------------------------------------------------------

def pages_of(root: Node, source: str, pages: list[Page], anchors: dict[str, Page]) -> list[tuple[Page, Node]]:
    """Every page in a file with the div it renders; anchors maps 'file#id' (and 'file') to a page.
    A section's file goes under its chapter's page (the file's "up" link)."""
    out = []
    up = next((n.attrs.get("href") for n in walk(root) if n.tag == "link" and n.attrs.get("rel") == "up"), None)
    chapter = anchors.get(up) if up and up != "index.html" else None

    def visit(node: Node, parent: Page | None) -> None:
        heading = heading_of(node) if node.tag == "div" and node.classes & {"chapter", "section", "preface", "appendix"} else None
        page = parent
        if heading is not None and heading.tag in LEVELS:
            title = title_text(heading)
            page = Page(title, parent.children_folder if parent is not None else "", LEVELS[heading.tag])
            if parent is None:
                page.path = f"{file_name(title)}/{file_name(title)}"
                page.children_folder = file_name(title)
            else:
                page.children_folder = page.path
            if parent is not None:
                parent.children.append(page)
            pages.append(page)
            out.append((page, node))
            anchors.setdefault(source, page)
        for child in node.children:
            if isinstance(child, Node):
                if page is not None and child.attrs.get("id"):
                    page.ids.add(child.attrs["id"])
                    anchors.setdefault(f"{source}#{child.attrs['id']}", page)
                visit(child, page)

    visit(root, chapter)
    return out


# -- rendering ----------------------------------------------------------------------------------

class Renderer:
    def __init__(self, source: str, anchors: dict[str, Page], page: Page):
        self.source, self.anchors, self.page = source, anchors, page

    def inline(self, node) -> str:
        if isinstance(node, str):
            return re.sub(r"\s+", " ", node)
        if node.tag in VOID or node.classes & SKIPPED_CLASSES:
            return ""
        if node.tag == "a":
            return self.link(node)
        inner = "".join(self.inline(c) for c in node.children)
        if node.tag == "code" and inner.strip():
            return "`" + inner.strip().replace("`", "'") + "`"
        if node.tag in ("em", "strong") and inner.strip() and node.parent is not None and node.parent.tag != "code":
            mark = "*" if node.tag == "em" else "**"
            return mark + inner.strip() + mark
        return inner

    def link(self, node: Node) -> str:
        text = "".join(self.inline(c) for c in node.children).strip()
        href = node.attrs.get("href") or ""
        if not text:
            return ""
        if href.startswith(("http://", "https://", "ftp://")):
            return f"[{text}]({href})"
        target_file, _, anchor = href.partition("#")
        target = self.anchors.get(f"{target_file or self.source}#{anchor}") if anchor else None
        target = target or self.anchors.get(target_file or self.source)
        if target is None or target is self.page:
            return text
        label = re.sub(r"[\[\]|`*]", "", text)
        return f"[[{target.path}|{label}]]"

    def blocks(self, node: Node, out: list[str], quote: str = "") -> None:
        """The block content of `node` into `out` (stopping at child pages)."""
        for child in node.children:
            if isinstance(child, str):
                if child.strip():
                    out.append(quote + re.sub(r"\s+", " ", child).strip())
                continue
            if child.classes & SKIPPED_CLASSES or child.tag in ("script", "style"):
                continue
            if child.tag == "div" and child.classes & {"section", "chapter"}:
                heading = heading_of(child)
                if heading is not None and heading.tag in LEVELS:
                    continue                           # its own page
                self.blocks(child, out, quote)
                continue
            if "titlepage" in child.classes:
                heading = heading_of(child.parent) if child.parent is not None else None
                if heading is not None and heading.tag in ("h4", "h5", "h6"):
                    depth = int(heading.tag[1]) - 2
                    out.append(quote + "#" * depth + " " + title_text(heading))
                continue
            if "sidebar" in child.classes:
                self.sidebar(child, out, quote)
                continue
            if child.tag == "pre":
                code = plain(child).strip("\n")
                out.append("\n".join(quote + line for line in ["```", *code.split("\n"), "```"]))
                continue
            if child.tag in ("ul", "ol"):
                for number, item in enumerate((c for c in child.children if isinstance(c, Node) and c.tag == "li"), 1):
                    mark = "- " if child.tag == "ul" else f"{number}. "
                    text = self.flat(item)
                    if text:
                        out.append(quote + mark + text)
                continue
            if child.tag == "dl":
                for item in child.children:
                    if isinstance(item, Node) and item.tag in ("dt", "dd"):
                        text = self.flat(item)
                        if text:
                            out.append(quote + ("- **" + text + "**" if item.tag == "dt" else "  " + text))
                continue
            if child.tag == "table":
                for row in (n for n in walk(child) if n.tag == "tr"):
                    cells = [self.flat(c) for c in row.children if isinstance(c, Node) and c.tag in ("td", "th")]
                    if any(cells):
                        out.append(quote + "| " + " | ".join(cells) + " |")
                continue
            if child.tag == "p" and "title" in child.classes:
                out.append(quote + "**" + self.flat(child).strip("*") + "**")
                continue
            if child.tag in ("p",) or "para" in child.classes or "simpara" in child.classes:
                if any(isinstance(c, Node) and (c.tag in ("pre", "ul", "ol", "table", "dl") or c.classes & {"sidebar", "itemizedlist", "orderedlist", "variablelist", "programlisting", "table", "informaltable", "example", "note", "warning", "important"})
                       for c in child.children):
                    self.mixed(child, out, quote)
                else:
                    text = self.flat(child)
                    if text:
                        out.append(quote + text)
                continue
            self.blocks(child, out, quote)

    def mixed(self, node: Node, out: list[str], quote: str) -> None:
        """A paragraph holding blocks: its runs of inline content as paragraphs, the blocks as blocks."""
        run: list = []

        def flush():
            text = re.sub(r"\s+", " ", "".join(self.inline(c) for c in run)).strip()
            if text:
                out.append(quote + text)
            run.clear()

        for child in node.children:
            if isinstance(child, Node) and (child.tag in ("pre", "ul", "ol", "table", "dl", "div", "p")):
                flush()
                wrapper = Node("div", {}, node)
                wrapper.children = [child]
                self.blocks(wrapper, out, quote)
            else:
                run.append(child)
        flush()

    def sidebar(self, node: Node, out: list[str], quote: str) -> None:
        title, kind = "", ""
        for sub in walk(node):
            if sub.tag == "p" and "title" in sub.classes:
                title = re.sub(r"\s+", " ", plain(sub)).strip()
                em = next((n for n in walk(sub) if n.tag == "em"), None)     # the box's kind: "TIP", "BACK TO BASICS"
                kind = re.sub(r"\s+", " ", plain(em)).strip() if em is not None else ""
                break
        inner: list[str] = []
        body = Node("div", {}, node)
        body.children = [c for c in node.children if not (isinstance(c, Node) and "titlepage" in c.classes)]
        self.blocks(body, inner, "")
        rest = title[len(kind):].strip() if kind and title.startswith(kind) else title
        kind = re.sub(r"[^a-z-]", "", kind.lower().replace(" ", "-")) or "note"
        lines = [f"> [!{kind}] {rest}".rstrip()]
        for block in inner:
            lines.extend(("> " + line).rstrip() for line in block.split("\n"))
            lines.append(">")
        out.append("\n".join(quote + line for line in lines[:-1] if line))

    def flat(self, node: Node) -> str:
        return re.sub(r"\s+", " ", "".join(self.inline(c) for c in node.children)).strip()


def main() -> int:
    source_dir, vault = sys.argv[1], sys.argv[2]
    files = sorted((f for f in os.listdir(source_dir) if f.endswith(".html") and f not in SKIPPED_FILES),
                   key=lambda f: (f.startswith("sect."), f))        # chapters first: sections go under them
    pages: list[Page] = []
    anchors: dict[str, Page] = {}
    rendered: list[tuple[Page, Node, str]] = []
    for name in files:
        root = parse(os.path.join(source_dir, name))
        for page, node in pages_of(root, name, pages, anchors):
            rendered.append((page, node, name))
    seen: dict[str, int] = {}
    for page in pages:
        if page.path.lower() in seen:
            seen[page.path.lower()] += 1
            page.path += f" ({seen[page.path.lower()]})"
        else:
            seen[page.path.lower()] = 1
    written = 0
    for page, node, name in rendered:
        out: list[str] = []
        Renderer(name, anchors, page).blocks(node, out)
        text = "\n\n".join(b for b in out if b.strip())
        if page.children:
            text += "\n\n## Pages\n\n" + "\n".join(f"- [[{c.path}|{c.title}]]" for c in page.children)
        if not text.strip():
            continue
        path = os.path.join(vault, page.path + ".md")
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(text.strip() + "\n")
        written += 1
    print(f"{written} notes written to {vault}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
