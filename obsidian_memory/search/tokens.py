"""Code-aware tokens: identifiers, paths, URLs, hosts and versions as whole words.

The index's tokenizer (FTS5 unicode61) splits `MY_SECRET_PATH`, `billing-api`, `file.mtime`,
`~/.ssh/config` and `10.20.8.30` into their parts, which keeps them findable by their parts but
loses the whole: a note that holds the identifier ranks no higher than one that says the words
apart. So each such chunk is also indexed whole, glued (`mysecretpath`, `billingapi`,
`filemtime`, `sshconfig`, `1020830`), in a column of its own, with the pieces of a path or URL
between `/` and `:` glued too, and camelCase split into its words (`useFeatureFlag`: use
feature flag). A query's chunks are glued the same way, so the whole identifier matches the
whole identifier.
"""
from __future__ import annotations

import re

# a run of word characters joined by the punctuation identifiers, paths, hosts and versions use
_CHUNK = re.compile(r"[^\W_]+(?:[_.\-/:=@+~$]+[^\W_]+)+|[^\W_]*[a-z][A-Z][^\W_]*")
_PIECES = re.compile(r"[/:=@?&#]+")
_CAMEL = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+")
_GLUE = re.compile(r"[\W_]+")


# Markup and operator characters: a run of two or more (`![[`, `[^`, `==`, `%%`, `{{`, `=>`,
# `--`, `&&`) is indexed as a word of its own, spelled with letters (`zz` + two per character),
# so that a query about syntax finds the notes that show that syntax.
_SYMBOL_NAMES = {"!": "ex", "#": "ha", "$": "do", "%": "pc", "&": "am", "*": "st", "+": "pl", "-": "mi", "/": "sl",
                 ":": "co", "<": "lt", "=": "eq", ">": "gt", "@": "at", "[": "lb", "\\": "bs", "]": "rb", "^": "ca",
                 "_": "us", "`": "bt", "{": "lc", "|": "vb", "}": "rc", "~": "ti"}
_SYMBOLS = re.compile("[" + re.escape("".join(_SYMBOL_NAMES)) + "]{2,}")


def symbols(text: str) -> list[str]:
    """The runs of markup characters in `text`, as words (`[^` -> `zzlbca`)."""
    return ["zz" + "".join(_SYMBOL_NAMES[c] for c in run) for run in _SYMBOLS.findall(text)]


def glued(chunk: str) -> str:
    return _GLUE.sub("", chunk).lower()


def identifiers(text: str) -> list[str]:
    """The glued forms (and camelCase words) of the identifier-like chunks of `text`, in order."""
    out: list[str] = []
    for match in _CHUNK.finditer(text):
        chunk = match.group(0)
        whole = glued(chunk)
        if not whole:
            continue
        out.append(whole)
        out += [p for p in _joined_pieces(chunk) if p != whole]
        if not _GLUE.search(chunk):                   # camelCase: its words too
            words = _CAMEL.findall(chunk)
            if len(words) > 1:
                out += [w.lower() for w in words]
    return out + symbols(text)


def _joined_pieces(chunk: str) -> list[str]:
    """The glued pieces of a path or URL that are identifiers themselves (`billing-webhooks` in
    `.../d/billing-webhooks`); a piece that is one word is indexed as a word already."""
    out = []
    for piece in _PIECES.split(chunk):
        piece = piece.strip("._-~$+")
        if _GLUE.search(piece):
            out.append(glued(piece))
    return out


def query_identifiers(text: str) -> list[str]:
    """The glued forms of each identifier-like chunk of a query, whole and by piece (camelCase
    needs none: the tokenizer keeps it whole already), without repeats."""
    found = []
    for match in _CHUNK.finditer(text):
        chunk = match.group(0)
        if _GLUE.search(chunk):
            found += [glued(chunk), *_joined_pieces(chunk)]
    return list(dict.fromkeys(found + symbols(text)))
