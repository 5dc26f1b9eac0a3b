#!/usr/bin/env python3
"""Known-item queries nobody on the team writes: anchor context, taken from the vault itself.

For every wikilink `[[N]]` (or `[[N|alias]]`, `[[N#heading]]`) in a note M that resolves to another
Markdown note N of the vault, the sentence around the link with the link removed (its alias text
too) is a query that must find N. The note M holds that sentence word for word, so M is ignored when
the query is judged ("ignore_paths"). Deterministic: the same vault gives the same file.

Sentences come from paragraphs (wrapped lines joined), list items, table rows and callouts, read as
Obsidian shows them (other links by their alias or name). Kept: sentences with at least 4 words, 3
of them content words (not stopwords, 3+ letters), and at most one link, cut to 12 words on each
side of it; at most PER_TARGET queries per linked note (so hub notes do not dominate), from
different linking notes; then up to --max queries, chosen by a hash of the seed. Code blocks,
frontmatter, headings and embeds (`![[...]]`) are skipped.

    python3 benchmarks/make_anchor_queries.py ../shared/eval/obsidian-help-en \\
        benchmarks/golden/obsidian-help-anchors.json --prefix anchor-help --max 120
"""
from __future__ import annotations

import argparse
import hashlib
import os
import re
import sys

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, REPO)

from obsidian_memory.search.evaluation import SPLIT_SEED, assign_splits, dump_golden  # noqa: E402

PER_TARGET = 2
WINDOW = 12
STOPWORDS = frozenset("""
a an and are as at be but by can do does for from has have how if in into is it its of on or so that
the their then there these this to was we were what when where which who will with you your not also
""".split())

_LINK = re.compile(r"(!?)\[\[([^\[\]|]+?)(?:\|([^\[\]]*))?\]\]")
_MD_LINK = re.compile(r"!?\[([^\]]*)\]\([^)]*\)")
_FENCE = re.compile(r"^\s*(```|~~~)")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9`\"'(\[])")
_WORD = re.compile(r"[^\W_]+(?:[-_.'][^\W_]+)*")
MARK = "\x00"


def notes_of(vault: str) -> list[str]:
    found = []
    for root, dirs, files in os.walk(vault):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        found += [os.path.relpath(os.path.join(root, f), vault).replace(os.sep, "/")
                  for f in files if f.endswith(".md")]
    return sorted(found)


class Resolver:
    """Link target -> note path, as Obsidian resolves it: a vault path, else a unique file name."""

    def __init__(self, paths: list[str]):
        self.by_path = {p[:-3].lower(): p for p in paths}
        names: dict[str, list[str]] = {}
        for p in paths:
            names.setdefault(os.path.basename(p)[:-3].lower(), []).append(p)
        self.by_name = {name: found[0] for name, found in names.items() if len(found) == 1}

    def resolve(self, target: str) -> str | None:
        target = target.split("#", 1)[0].split("^", 1)[0].strip()
        if target.lower().endswith(".md"):
            target = target[:-3]
        if not target:
            return None
        key = target.lower()
        return self.by_path.get(key) or self.by_name.get(os.path.basename(key))


def body_lines(text: str) -> list[str]:
    """The note's prose lines: no frontmatter, no code blocks, no headings."""
    lines = text.split("\n")
    if lines and lines[0].strip() == "---":
        end = next((i for i, line in enumerate(lines[1:], 1) if line.strip() == "---"), None)
        if end is not None:
            lines = lines[end + 1:]
    out, fenced = [], False
    for line in lines:
        if _FENCE.match(line):
            fenced = not fenced
            out.append("")
            continue
        out.append("" if fenced or line.lstrip().startswith("#") else line)
    return out


_BLOCK_START = re.compile(r"^\s*(>\s*)*(\[![^\]]*\]|[-*+]\s|\d+[.)]\s|\|)")


def paragraphs(lines: list[str]) -> list[str]:
    """Lines joined into the paragraphs, list items, table rows and callouts a reader sees, each
    cleaned of its Markdown decoration (links kept: they are what the queries are cut around)."""
    blocks: list[str] = []
    joining = False
    for line in lines:
        text = clean(line)
        if not text:
            joining = False
            continue
        if joining and not _BLOCK_START.match(line):
            blocks[-1] += " " + text
        else:
            blocks.append(text)
        joining = not line.lstrip().startswith("|")
    return blocks


def clean(line: str) -> str:
    """Markdown decoration out, as a reader sees the line (wikilinks are left for the caller)."""
    line = re.sub(r"^\s*(>\s*)*(\[![^\]]*\][+-]?\s*)?", "", line)      # quotes and callout markers
    line = re.sub(r"^\s*([-*+]|\d+[.)])\s+(\[.\]\s+)?", "", line)       # list markers and tasks
    line = _MD_LINK.sub(lambda m: m.group(1), line)
    line = re.sub(r"\|(?![^\[]*\]\])", " ", line).replace("`", "")      # table pipes, not a link's alias bar
    line = re.sub(r"(\*\*|__|==|~~|(?<!\w)[*_](?=\S)|(?<=\S)[*_](?!\w))", "", line)
    return re.sub(r"\s+", " ", line).strip()


def candidates(vault: str) -> list[dict]:
    paths = notes_of(vault)
    resolver = Resolver(paths)
    found = []
    for source in paths:
        with open(os.path.join(vault, source), encoding="utf-8", errors="replace") as handle:
            blocks = paragraphs(body_lines(handle.read()))
        for line in blocks:
            for match in _LINK.finditer(line):
                target = resolver.resolve(match.group(2))
                if match.group(1) or target is None or target == source:
                    continue
                query = context(line, match)
                if query:
                    found.append({"query": query, "target": target, "source": source})
    return found


def context(line: str, link: re.Match) -> str | None:
    """The sentence around `link` in `line`, the link removed, cut to WINDOW words on each side;
    None when too short, or when it is mostly other links (a list of notes says nothing about one)."""
    marked = line[:link.start()] + f" {MARK} " + line[link.end():]
    sentence = next((s for s in _SENTENCE_END.split(marked) if MARK in s), "")
    if len([m for m in _LINK.finditer(sentence) if not m.group(1)]) >= 2:
        return None
    sentence = _LINK.sub(lambda m: "" if m.group(1) else _shown(m), sentence)
    before, _, after = sentence.partition(MARK)
    words_before, words_after = before.split()[-WINDOW:], after.split()[:WINDOW]
    query = _tidy(" ".join(words_before + words_after))
    words = _WORD.findall(query.lower())
    content = [w for w in words if w not in STOPWORDS and len(w) >= 3]
    if len(words) < 4 or len(content) < 3:
        return None
    return query


def _shown(link: re.Match) -> str:
    """A link as Obsidian shows it: its alias, else its target's name."""
    return link.group(3) or os.path.basename(link.group(2).split("#")[0]).strip()


def _tidy(text: str) -> str:
    text = re.sub(r"\(\s*\)|\[\s*\]", " ", text)
    text = re.sub(r"\s+([,;:.)])", r"\1", text)
    text = re.sub(r"([,;:])(?=[,;:.])", "", text)
    text = re.sub(r"\s+", " ", text).strip(" ,;:.-–—(")
    if text.count("(") > text.count(")"):
        text = text.replace("(", "", text.count("(") - text.count(")"))
    return text.strip()


def _hash(*parts: str) -> str:
    return hashlib.sha256(":".join(parts).encode("utf-8")).hexdigest()


def choose(found: list[dict], seed: str, limit: int) -> list[dict]:
    seen, per_target, kept = set(), {}, []
    for item in sorted(found, key=lambda c: _hash(seed, c["source"], c["target"], c["query"])):
        key = item["query"].lower()
        sources = per_target.setdefault(item["target"], set())
        if key in seen or len(sources) >= PER_TARGET or item["source"] in sources:
            continue
        seen.add(key)
        sources.add(item["source"])
        kept.append(item)
    return kept[:limit]


def entries(chosen: list[dict], prefix: str) -> list[dict]:
    ordered = sorted(chosen, key=lambda c: (c["target"], c["source"], c["query"]))
    return [{"id": f"{prefix}-{n:03d}", "query": c["query"], "relevant_paths": [c["target"]], "partial_paths": [],
             "ignore_paths": [c["source"]], "category": "anchor"} for n, c in enumerate(ordered, 1)]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("vault")
    parser.add_argument("output")
    parser.add_argument("--prefix", default="anchor")
    parser.add_argument("--max", type=int, default=120)
    parser.add_argument("--seed", default=SPLIT_SEED)
    args = parser.parse_args()
    if not os.path.isdir(args.vault):
        print(f"vault not found: {args.vault}", file=sys.stderr)
        return 2
    found = candidates(args.vault)
    made = assign_splits(entries(choose(found, args.seed, args.max), args.prefix), args.seed)
    with open(args.output, "w", encoding="utf-8") as handle:
        handle.write(dump_golden(made))
    targets = len({e["relevant_paths"][0] for e in made})
    print(f"{len(found)} links with a usable sentence; {len(made)} queries for {targets} notes -> {args.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
