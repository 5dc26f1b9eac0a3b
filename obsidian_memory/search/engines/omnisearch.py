"""Engine 1: Omnisearch, Obsidian's live index, over its local HTTP API.

`GET http://127.0.0.1:<port>/search?q=<urlencoded>` returns a JSON list (at most ~50 items) of
`{score, vault, path, basename, foundWords, matches, excerpt}`; there is no limit or folder
parameter, so scoping is client-side: the whole list is fetched, folder/exclude applied, then
truncated to the limit. Private notes (`privacy`: by path, then by the note's text read from
the vault) are dropped first, so the limit and the total count only notes we may return; a hit
whose note cannot be read to check is dropped too. The excerpt is HTML (`<br>`, highlight
spans, entities) and is turned into one clean line of plain text.

Anything but a 200 with a JSON list, within TIMEOUT_SECONDS in total (connect, headers and a slow
body together), raises `Offline`: the caller falls back to a local engine or says so. The answer
is untrusted (the server sends CORS `*`, any page may have shaped the vault): paths that leave the
vault are dropped and every string is cleaned of control and escape sequences.
"""
from __future__ import annotations

import errno
import html
import json
import os
import re
import socket
import time
import urllib.parse

from obsidian_memory.core.fsutil import OutsideVault, vault_relative
from obsidian_memory.search.base import Hit, Query, Result, in_scope
from obsidian_memory.search.links import note_title
from obsidian_memory.core.textclean import one_line, strip_control

ENGINE = "omnisearch"
OFFLINE_ENGINE = "omnisearch (offline)"
TIMEOUT_SECONDS = 0.8
MAX_BODY_BYTES = 16 * 1024 * 1024
RESULT_CAP = 50          # Omnisearch never returns more results than this
# Omnisearch binds "localhost"; recent Node versions may resolve that to ::1 only.
HOSTS = ("127.0.0.1", "::1")

_BR = re.compile(r"<br\s*/?>", re.IGNORECASE)
_TAG = re.compile(r"<[^>]*>")


class Offline(Exception):
    """Omnisearch did not answer usefully; the message says why, in a few words."""


class Omnisearch:
    """Engine: Obsidian's own index (ranks by words: mode `fulltext`). Raises `Offline`."""
    name = ENGINE

    def search(self, query: Query, request) -> Result:
        hits, total, incomplete = search(query, request.settings.vault, request.port, privacy=request.privacy,
                                         excluded=request.excluded)
        notes = [f"Omnisearch returns its best {RESULT_CAP} notes only and the scope kept {total} of them; "
                 f"--source local searches the whole scope"] if incomplete else []
        return Result(hits, total, "fulltext", notes)


def search(query: Query, vault: str, port: int, timeout: float = TIMEOUT_SECONDS,
           privacy=None, excluded=None) -> tuple[list[Hit], int, bool]:
    """Hits in scope, not private and not covered by Obsidian's Excluded files (`excluded`: as the
    local engines; Omnisearch's own option may downrank them only), truncated to `query.limit`,
    how many there were before truncation, and whether scoping may have hidden matches
    (Omnisearch cut its list at its cap, and the scope left fewer hits than asked for)."""
    items = fetch(query.text, port, timeout)
    hits = hits_for_vault(items, vault, privacy, port_from_vault=port_chosen_by_vault(vault, port))
    scoped = [h for h in hits if in_scope(h.path, query.folders, query.excludes)
              and not (excluded and excluded.covers(h.path))]
    incomplete = len(items) >= RESULT_CAP and len(scoped) < min(query.limit, len(hits))
    return scoped[: query.limit], len(scoped), incomplete


def fetch(text: str, port: int, timeout: float = TIMEOUT_SECONDS) -> list:
    """The raw JSON list Omnisearch answers for `text`, or `Offline`."""
    deadline = time.monotonic() + timeout
    target = "/search?q=" + urllib.parse.quote(text, safe="")
    last_error = None
    for host in HOSTS:
        try:
            return _get_json_list(host, port, target, deadline)
        except ConnectionRefusedError as exc:
            last_error = exc
        except OSError as exc:
            if _is_unreachable(exc):
                last_error = exc
                continue
            raise Offline(_describe(exc)) from exc
    raise Offline(f"nothing listens on port {port}") from last_error


def _get_json_list(host: str, port: int, target: str, deadline: float) -> list:
    # Connect first: with Obsidian closed (the usual case when this matters) the refusal comes
    # before http.client and its email/ssl imports are paid for (a third of the process's time).
    sock = socket.create_connection((host, port), timeout=_remaining(deadline))
    import http.client

    connection = http.client.HTTPConnection(host, port, timeout=sock.gettimeout())
    connection.sock = sock
    try:
        connection.request("GET", target, headers={"Accept": "application/json"})
        sock = connection.sock  # getresponse() may hand the socket over to the response
        sock.settimeout(_remaining(deadline))
        response = connection.getresponse()
        if response.status != 200:
            raise Offline(f"HTTP {response.status}")
        body = _read_body(sock, response, deadline)
    except (http.client.HTTPException, socket.timeout, TimeoutError) as exc:
        raise Offline(_describe(exc)) from exc
    finally:
        connection.close()
    try:
        data = json.loads(body.decode("utf-8", errors="replace"))
    except ValueError as exc:
        raise Offline("the answer is not JSON") from exc
    if not isinstance(data, list):
        raise Offline("the answer is not a list of results")
    return data


def _read_body(sock, response, deadline: float) -> bytes:
    """Read the body in chunks, each bounded by what is left of the deadline (a slow drip times out)."""
    chunks, size = [], 0
    while True:
        sock.settimeout(_remaining(deadline))
        chunk = response.read1(65536) if hasattr(response, "read1") else response.read(65536)
        if not chunk:
            return b"".join(chunks)
        size += len(chunk)
        if size > MAX_BODY_BYTES:
            raise Offline("the answer is too large")
        chunks.append(chunk)


def _remaining(deadline: float) -> float:
    left = deadline - time.monotonic()
    if left <= 0:
        raise Offline(f"no answer within {TIMEOUT_SECONDS:g} s")
    return left


def _is_unreachable(exc: OSError) -> bool:
    """Errors that mean "not on this address" (e.g. no IPv6 loopback), worth trying the next host."""
    return getattr(exc, "errno", None) in (errno.EADDRNOTAVAIL, errno.EAFNOSUPPORT, errno.ENETUNREACH,
                                           errno.EHOSTUNREACH, errno.ECONNREFUSED)


def _describe(exc: BaseException) -> str:
    if isinstance(exc, (socket.timeout, TimeoutError)):
        return f"no answer within {TIMEOUT_SECONDS:g} s"
    if isinstance(exc, Offline):
        return str(exc)
    return f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__


# -- turning the answer into hits -------------------------------------------------------------

def port_chosen_by_vault(vault: str, port: int) -> bool:
    """Whether `port` is the one the vault's own Omnisearch settings name (a file anyone who
    can write to the vault can write): its server is then believed only when it answers as
    Omnisearch for this vault."""
    from obsidian_memory.vault import omnisearch_plugin

    return omnisearch_plugin.discovered_port(vault) == port


def hits_for_vault(items: list, vault: str, privacy=None, *, port_from_vault: bool = False) -> list[Hit]:
    """Clean hits from our vault that are not private notes, in Omnisearch's order.

    Items naming another vault are dropped. If the server answered with results and every one of
    them belongs to another vault, it is serving a different vault: that is `Offline` for us.
    With `port_from_vault`, every item must name this vault, else the server is not believed
    (`Offline`). A hit's note is read by the path Omnisearch gave (the shown one is cleaned of
    control characters, and may name no file): for privacy, and for its excerpt, which must be
    the note's own text (else one is taken from the note: whatever listens on the port does not
    put words in a note's mouth).
    """
    from obsidian_memory.core.fsutil import read_note

    names = _vault_names(vault)
    hits, foreign, ours = [], 0, 0
    for item in items:
        if not isinstance(item, dict):
            continue
        other = item.get("vault")
        if port_from_vault and not (isinstance(other, str) and other in names):
            raise Offline("the server on the port the vault's Omnisearch settings name does not answer as "
                          "Omnisearch for this vault")
        if isinstance(other, str) and other and names and other not in names:
            foreign += 1
            continue
        found = _hit(item)
        if found is None:
            continue
        ours += 1
        hit, relative = found
        text = read_note(vault, relative)
        if privacy is not None and (text is None or privacy.path_is_private(relative) or privacy.text_is_private(text)):
            continue
        if hit.excerpt and not excerpt_is_from(hit.excerpt, text):
            hit = hit.replace(excerpt=excerpt_of(text, _words(item)))
        hits.append(hit)
    if foreign and not ours:
        raise Offline("Omnisearch serves another vault")
    return hits


EXCERPT_CHARS = 200
_ELLIPSES = ("…", "...")


def _flat(text: str) -> str:
    return " ".join(text.split()).casefold()


def excerpt_is_from(excerpt: str, text: str | None) -> bool:
    """Whether the (cleaned) excerpt is a piece of the note's text, spacing and case aside."""
    if text is None:
        return False
    piece = excerpt.strip()
    for mark in _ELLIPSES:
        piece = piece.removeprefix(mark).removesuffix(mark).strip()
    flat = _flat(piece)
    return not flat or flat in _flat(html.unescape(text))


def excerpt_of(text: str | None, words: list[str]) -> str:
    """About EXCERPT_CHARS characters of the note's body, around the first of `words` in it."""
    if not text:
        return ""
    from obsidian_memory.vault import frontmatter

    body = one_line(text[frontmatter.body_start(text):])
    low = body.casefold()
    found = [at for at in (low.find(word.casefold()) for word in words if word) if at >= 0]
    start = max(0, min(found) - EXCERPT_CHARS // 3) if found else 0
    piece = body[start:start + EXCERPT_CHARS].strip()
    return ("…" if start else "") + piece + ("…" if start + EXCERPT_CHARS < len(body) else "")


def _words(item: dict) -> list[str]:
    words = item.get("foundWords")
    return [w for w in words if isinstance(w, str)][:20] if isinstance(words, list) else []


def _vault_names(vault: str) -> set[str]:
    """Obsidian names a vault after its folder; the configured path may be a symlink to it."""
    names = {os.path.basename(os.path.normpath(vault))}
    try:
        names.add(os.path.basename(os.path.realpath(vault)))
    except OSError:
        pass
    return {n for n in names if n}


def _hit(item: dict) -> tuple[Hit, str] | None:
    raw_path = item.get("path")
    if not isinstance(raw_path, str) or not raw_path.strip():
        return None
    try:
        path = vault_relative("", raw_path)
    except OutsideVault:
        return None
    if not path:
        return None
    shown = strip_control(path)
    basename = item.get("basename")
    if not isinstance(basename, str) or not basename:
        basename = note_title(shown)
    return Hit(path=shown, basename=strip_control(basename), score=_number(item.get("score")),
               excerpt=clean_excerpt(item.get("excerpt")), engine=ENGINE), path



def _number(value) -> float:
    try:
        number = float(value)
    except (TypeError, ValueError):
        return 0.0
    return number if number == number and number not in (float("inf"), float("-inf")) else 0.0


def clean_excerpt(value) -> str:
    """Omnisearch's HTML excerpt as one line of plain text."""
    if not isinstance(value, str):
        return ""
    text = _BR.sub(" ", value)
    text = _TAG.sub("", text)
    return one_line(html.unescape(text))
