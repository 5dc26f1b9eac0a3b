"""One search, from the request to the response: check the input, decide the engine and the
mode once, run each query (falling back as the source allows), fuse several queries, and add the
links of the hits from the same read of the index. The CLI, the MCP server and `eval` all come
through `search`.

Sources:
- `omnisearch`: Obsidian's live index over HTTP; when it does not answer, no results and the
  engine `"omnisearch (offline)"` (never a pretended "no match").
- `index`: the persistent local index (`store.VaultIndex`), ranked in a mode (below).
- `scan`: the standard-library reference scanner.
- `local`: the index when it is available, else the scanner.
- `auto`: Omnisearch, else `local`. Omnisearch cannot filter by tag or frontmatter, nor rank by
  meaning or by title, so with such filters or an explicit mode other than fulltext `auto` goes
  straight to `local` (and says so in `Response.notes`).

Modes rank the local index: `hybrid`, `semantic` (`hybrid`), `fulltext` (`fulltext`), `title`
(`title`). None is the vault's default: hybrid when notes are embedded and the model loads, else
fulltext. Omnisearch and the scanner rank by words whatever the mode: `Response.mode` says which
ranking answered ("fulltext" for them), and a note says when a mode asked for was ignored.

Several queries run one after the other and are merged by reciprocal rank fusion (`fusion`);
the engine name is kept and each hit's score is its fused score. An engine found offline for one
query is not asked again for the next, and the index is brought up to date once per search.
"""
from __future__ import annotations

import os
import re
import time

from obsidian_memory.core.errors import UserError
from obsidian_memory.search.base import Hit, Query, Request, Response, Result
from obsidian_memory.core.textclean import shorten

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

SOURCES = ("auto", "omnisearch", "local", "index", "scan")
MODES = ("hybrid", "semantic", "fulltext", "title")
# Bounds on what a search takes: every step then costs time and memory linear in them
MAX_QUERY_CHARS = 1000       # one query (a pasted error message fits; a whole file does not)
MAX_QUERIES = 10             # phrasings fused in one search
MAX_SCOPES = 32              # folders, excluded folders, tags, frontmatter pairs: of each kind
MAX_SCOPE_CHARS = 512        # one of them


def search(query_or_queries, settings, *, source: str = "auto", limit: int = 10, folders=(), excludes=(),
           tags=(), not_tags=(), frontmatter=(), not_frontmatter=(), port=None, mode=None,
           links: bool = False, explain: bool = False,
           repo_identity: Callable[[], str | None] | None = None) -> Response:
    """Search the vault of `settings`; with `links`, each hit carries the `links` and `backlinks`
    the index knows, with `explain` what placed it (`extra["explain"]`), with `repo_identity()`
    (the identity of the repository the search runs in: `working_repository`) that repository's
    sessions first among equals: it is asked once, when the local index ranks (Omnisearch and the
    scanner have no use for it, and finding it may run git). Bad input
    (scope leaving the vault, missing vault...) is a UserError."""
    started = time.monotonic()
    listing = not _given(query_or_queries) and any((folders, excludes, tags, not_tags, frontmatter, not_frontmatter))
    queries = [""] if listing else _queries(query_or_queries)
    vault = _existing_vault(settings.vault)
    if source not in SOURCES:
        raise UserError(f"unknown source {source!r} (choose from {', '.join(SOURCES)})")
    if mode is not None and mode not in MODES:
        raise UserError(f"unknown mode {mode!r} (choose from {', '.join(MODES)})")
    if int(limit) < 1:
        raise UserError("the number of results (-n) must be at least 1")
    notes: list[str] = []
    base = Query(text=queries[0], limit=int(limit),
                 folders=_folders(vault, _scopes(vault, _bounded(folders, "--folder"), "--folder"), "--folder", notes),
                 excludes=_folders(vault, _scopes(vault, _bounded(excludes, "--exclude"), "--exclude"), "--exclude",
                                   notes),
                 tags=_tags(_bounded(tags, "--tag")), not_tags=_tags(_bounded(not_tags, "--tag")),
                 frontmatter=_pairs(_bounded_pairs(frontmatter)), not_frontmatter=_pairs(_bounded_pairs(not_frontmatter)),
                 explain=bool(explain))
    with Request(settings, _port(port if port is not None else settings.omnisearch_port)) as request:
        run = _Dispatch(request, source, mode, repo_identity)
        for note in notes:
            run._note(note)
        if listing:
            hits, total = run.listing(base)
        else:
            hits, total = run.run(base) if len(queries) == 1 else _fan_out(run, base, queries)
        if links:
            found = request.links_of([hit.path for hit in hits])
            hits = [hit.replace(extra={**hit.extra, **found[hit.path]}) for hit in hits]
    return Response(query=" | ".join(queries), engine=run.engine_name(), vault=vault, hits=hits,
                    total_results=total, elapsed_seconds=time.monotonic() - started, notes=run.notes,
                    mode=run.mode_name())


def working_repository(folder: str | None = None) -> str | None:
    """The identity of the git repository holding `folder` (default: the working folder), as the
    session notes' `repo` property gives it (gitinfo.repo_identity), or None outside one."""
    from obsidian_memory.core import gitinfo

    try:
        folder = folder or os.getcwd()
    except OSError:             # the working folder was deleted
        return None
    return gitinfo.repo_identity(folder, run_git=True)


def _fan_out(run: "_Dispatch", base: Query, queries: list[str]) -> tuple[list[Hit], int]:
    from obsidian_memory.search.fusion import FUSION_DEPTH, reciprocal_rank_fusion

    depth = max(base.limit, FUSION_DEPTH)
    rankings, totals = [], []
    for text in queries:
        hits, total = run.run(base.replace(text=text, limit=depth))
        rankings.append(hits)
        totals.append(total)
    fused = reciprocal_rank_fusion(rankings, names=queries if base.explain else None)
    # each ranking may have been cut at `depth`: the union is a lower bound, a single total too
    return fused[: base.limit], max([len(fused), *totals])


class _Dispatch:
    """Runs each query on the engine the source asks for, falling back as the source allows.
    The local index's engine (by mode) is decided once, the first time a query needs it."""

    def __init__(self, request: Request, source: str, mode: str | None,
                 repo_identity: Callable[[], str | None] | None = None):
        self.request, self.source = request, source
        self.mode = mode                    # as asked (None: the vault's default)
        self.repo_identity = repo_identity  # () -> the identity of the repository the search runs in
        self._repo: list[str | None] = []   # [that identity, as Query.repo holds it], once asked
        self.notes: list[str] = []
        self.engines: list[str] = []        # engines that answered, in order, without repeats
        self.modes: list[str] = []          # rankings that answered, likewise
        self._index_engine = None
        self.omnisearch_down: str | None = None
        self.index_down: str | None = None

    def engine_name(self) -> str:
        return "+".join(self.engines) if self.engines else self.source

    def mode_name(self) -> str:
        return "+".join(self.modes) if self.modes else (self.mode or "fulltext")

    def listing(self, query: Query) -> tuple[list[Hit], int]:
        """No query, only filters: the notes in scope, most recently changed first (the index)."""
        if self.source in ("omnisearch", "scan"):
            raise UserError("listing notes by --tag, --folder or --frontmatter without a query needs the local "
                            "index (--source local or index)")
        if self.mode not in (None, "fulltext"):
            self._note(f"no query to rank by {self.mode}: the notes are listed newest first")
        from obsidian_memory.search.engines import fulltext

        self._index_engine = fulltext.Fulltext()        # its empty query lists the notes in scope
        return self._index(query, strict=True)

    def run(self, query: Query) -> tuple[list[Hit], int]:
        if self.source == "scan":
            self._note_mode_ignored("the scanner")
            return self._scan(query)
        if self.source == "index":
            return self._index(query, strict=True)
        if self.source == "local":
            return self._local(query)
        if self.source == "omnisearch":
            if query.has_metadata_filters:
                raise UserError("Omnisearch cannot filter by tag or frontmatter; use --source local")
            self._note_mode_ignored("Omnisearch")
            answer = self._omnisearch(query)
            if answer is None:
                from obsidian_memory.search.engines.omnisearch import OFFLINE_ENGINE

                self._answered(OFFLINE_ENGINE, "fulltext")
                return [], 0
            return answer
        # auto
        if query.has_metadata_filters:
            self._note("Omnisearch cannot filter by tag or frontmatter: searched the local engine")
            return self._local(query)
        if self.mode not in (None, "fulltext"):
            self._note(f"Omnisearch has no {self.mode} ranking: searched the local index")
            return self._local(query)
        answer = self._omnisearch(query)
        return answer if answer is not None else self._local(query)

    # -- engines ------------------------------------------------------------------------------
    def _omnisearch(self, query: Query):
        if self.omnisearch_down is not None:
            return None
        from obsidian_memory.search.engines import omnisearch

        try:
            result = omnisearch.Omnisearch().search(query, self.request)
        except omnisearch.Offline as exc:
            self.omnisearch_down = str(exc)
            said = f"Omnisearch did not answer on port {self.request.port} ({exc})"
            if self.source == "omnisearch":
                self._note(said)
            elif _news(self.request.settings, said):   # falling back: said once, not at every search
                self._note(said + "; used the local engine")
            return None
        _news(self.request.settings, "")
        return self._take(omnisearch.ENGINE, result, query)

    def _local(self, query: Query):
        if self.index_down is None:
            answer = self._index(query, strict=False)
            if answer is not None:
                return answer
        return self._scan(query)

    def _index(self, query: Query, strict: bool):
        query = self._in_repository(query)
        try:
            result = self._index_once(query)
        except UserError:
            raise
        except Exception as exc:
            if strict:
                raise UserError(f"the index engine failed: {type(exc).__name__}: {exc}") from exc
            self.index_down = f"{type(exc).__name__}: {exc}"
            self._note(f"the local index failed ({self.index_down}); used the scanner")
            return None
        return self._take("index", result, query)

    def _index_once(self, query: Query) -> Result:
        """The index engine's answer; a damaged index file is deleted, built again (a note says
        so) and asked again, once (`sqlitedb.again_if_damaged`)."""
        from obsidian_memory.core.sqlitedb import again_if_damaged
        from obsidian_memory.search.store import discard

        def let_go(why: BaseException) -> None:
            self.request.close()
            discard(self.request.settings, why)
            self._note(f"the local index was damaged ({why}): it was deleted and built again")
        return again_if_damaged(lambda: self._engine_for_index().search(query, self.request), let_go)

    def _in_repository(self, query: Query) -> Query:
        """`query` with the identity of the repository the search runs in (`repo_identity`, asked once)."""
        if self.repo_identity is None:
            return query
        if not self._repo:
            self._repo.append((self.repo_identity() or "").strip().lower() or None)
        return query.replace(repo=self._repo[0])

    def _engine_for_index(self):
        """The engine of the mode asked for, else of the vault's default; a semantic mode that
        cannot answer here is an error (semantic) or fulltext with a note (hybrid)."""
        if self._index_engine is None:
            from obsidian_memory.search.engines import fulltext, hybrid, title

            mode = self.mode
            if mode is None:
                mode = hybrid.default_mode(self.request.settings)[0]
            elif mode in ("hybrid", "semantic"):
                ready, why = hybrid.semantic_ready(self.request.settings)
                if not ready and mode == "semantic":
                    raise UserError(f"semantic search is off: {why}")
                if not ready:
                    self._note(f"semantic search is off ({why}): fulltext results")
                    mode = "fulltext"
            self._index_engine = {"hybrid": hybrid.Hybrid, "semantic": hybrid.Semantic,
                                  "fulltext": fulltext.Fulltext, "title": title.Title}[mode]()
        return self._index_engine

    def _scan(self, query: Query):
        from obsidian_memory.search.engines import scan

        return self._take(scan.ENGINE, scan.Scanner().search(query, self.request), query)

    def _take(self, engine: str, result: Result, query: Query) -> tuple[list[Hit], int]:
        for note in result.notes:
            self._note(note)
        self._answered(engine, result.mode)
        return result.hits[: query.limit], int(result.total)

    def _answered(self, engine: str, mode: str) -> None:
        if engine not in self.engines:
            self.engines.append(engine)
        if mode not in self.modes:
            self.modes.append(mode)

    def _note_mode_ignored(self, engine: str) -> None:
        if self.mode not in (None, "fulltext"):
            self._note(f"--mode {self.mode} ranks the local index only; {engine} ranked by words (fulltext)")

    def _note(self, text: str) -> None:
        if text not in self.notes:
            self.notes.append(text)


OMNISEARCH_SAID = "omnisearch-offline.txt"


def _news(settings, said: str) -> bool:
    """Whether `said` (why Omnisearch did not answer; "": it answered) differs from what the last
    search said, which is remembered in the cache folder. The header names the engine at every
    search; why Omnisearch is not it is said again only when that changes."""
    from obsidian_memory.core import fsutil

    path = os.path.join(settings.cache_dir, OMNISEARCH_SAID)
    if (fsutil.read_text(path) or "") == said:
        return False
    try:
        if said:
            fsutil.atomic_write_bytes(path, said.encode("utf-8"), durable=False)
        else:
            os.unlink(path)
    except OSError:
        pass   # a cache folder that cannot be written: said every time, as before
    return True


# -- input validation --------------------------------------------------------------------------

def _given(query_or_queries) -> bool:
    items = [query_or_queries] if isinstance(query_or_queries, str) else list(query_or_queries or ())
    return any(str(item).strip() for item in items)


def _queries(query_or_queries) -> list[str]:
    items = [query_or_queries] if isinstance(query_or_queries, str) else list(query_or_queries or ())
    if len(items) > MAX_QUERIES:
        raise UserError(f"at most {MAX_QUERIES} queries in one search ({len(items):,} given)")
    for item in items:
        if len(str(item)) > MAX_QUERY_CHARS and len(" ".join(str(item).split())) > MAX_QUERY_CHARS:
            raise UserError(f"a query holds at most {MAX_QUERY_CHARS:,} characters (one has {len(str(item)):,}): "
                            f"give the few distinctive words that matter")
    queries = [" ".join(str(q).split()) for q in items]
    queries = [q for q in queries if q]
    if not queries:
        raise UserError("give a search query (2-5 distinctive words work best), or only --tag, --folder or "
                        "--frontmatter to list notes")
    for query in queries:
        if not re.search(r"[^\W_]", query):     # (the words every engine ranks by: letters and digits)
            raise UserError(f"the query {shorten(query, 40)!r} has no word to search for (letters or digits): "
                            f"give 2-5 distinctive words")
    return queries


def _bounded(values, flag: str) -> list[str]:
    """The values of a repeatable option, refused when there are too many or one is too long."""
    values = [str(v) for v in (values or ())]
    if len(values) > MAX_SCOPES:
        raise UserError(f"at most {MAX_SCOPES} {flag} values in one search ({len(values):,} given)")
    for value in values:
        if len(value) > MAX_SCOPE_CHARS:
            raise UserError(f"a {flag} value holds at most {MAX_SCOPE_CHARS} characters (one has {len(value):,})")
    return values


def _bounded_pairs(values) -> list:
    values = list(values or ())
    _bounded([v if isinstance(v, str) else ":".join(map(str, v)) for v in values], "--frontmatter")
    return values


def _port(value) -> int:
    try:
        port = int(value)
    except (TypeError, ValueError):
        port = -1
    if not 0 < port < 65536:
        raise UserError(f"bad Omnisearch port {value!r} (expected 1-65535)")
    return port


def _existing_vault(vault: str) -> str:
    if not vault or not os.path.isdir(vault):
        raise UserError(f"vault not found: {vault} (set OBSIDIAN_VAULT or pass --vault)")
    return vault


def _scopes(vault: str, values, flag: str) -> tuple[str, ...]:
    """Vault-relative folders (`/` or `\\`, slashes at the ends dropped). An absolute path is
    accepted only inside the vault (as its relative form); `..` and anything outside are refused."""
    from obsidian_memory.core.fsutil import OutsideVault, vault_relative

    cleaned = []
    for value in values or ():
        text = str(value)
        try:
            folder = vault_relative(vault, _relative_if_inside(vault, text))
        except OutsideVault as exc:
            raise UserError(f"{flag} {text!r}: {_why_outside(exc)}; give a folder relative to the vault, "
                            f"e.g. Meta/claude-sessions") from exc
        if folder not in cleaned:
            cleaned.append(folder)
    return tuple(cleaned)


def _folders(vault: str, folders: tuple[str, ...], flag: str, notes: list[str]) -> tuple[str, ...]:
    """Each folder as the vault spells it. Every engine matches folders with their case (so does
    Obsidian's own search), so `plugins` for `Plugins/` is taken when it names exactly one folder,
    with a note; a --folder that names several folders differing only in case is refused, an
    --exclude that does drops them all. A --folder that names none is refused (a search in it
    could only answer nothing); an --exclude that names none is used as given."""
    out: list[str] = []
    for folder in folders:
        if not folder:
            out.append(folder)
            continue
        found = _folder_spelled(vault, folder)
        if found == [folder]:
            out.append(folder)
            continue
        shown = shorten(folder, 80)
        if not found:
            if flag == "--folder":
                raise UserError(f"--folder {shown!r}: no such folder in the vault (give a vault-relative folder, "
                                f"e.g. Meta/claude-sessions)")
            found = [folder]
        elif len(found) > 1 and flag == "--folder":
            raise UserError(f"--folder {shown!r} names {len(found)} folders that differ only in case "
                            f"({', '.join(found[:5])}): give the one you mean")
        else:
            notes.append(f"{flag} {shown!r} taken as {', '.join(found)} (the case differs)")
        out += [f for f in found if f not in out]
    return tuple(out)


def _folder_spelled(vault: str, folder: str) -> list[str]:
    """The vault's folders that `folder` names, segment by segment: the exact spelling when it
    exists, else every spelling that differs only in case."""
    spellings = [""]
    for part in folder.split("/"):
        following = []
        for parent in spellings:
            try:
                names = [e.name for e in os.scandir(os.path.join(vault, *parent.split("/"))) if e.is_dir()]
            except OSError:
                continue
            matches = [part] if part in names else [n for n in names if n.casefold() == part.casefold()]
            following += [f"{parent}/{name}" if parent else name for name in matches]
        spellings = following
    return sorted(spellings)


def _relative_if_inside(vault: str, text: str) -> str:
    if not os.path.isabs(text):
        return text
    root = os.path.realpath(vault)
    target = os.path.realpath(text)
    if target == root:
        return ""
    if target.startswith(root + os.sep):
        return os.path.relpath(target, root)
    return text


def _why_outside(exc: Exception) -> str:
    text = str(exc)
    return "leaves the vault" if "leaves" in text else "is not a vault-relative path"


def _tags(values) -> tuple[str, ...]:
    tags = []
    for value in values or ():
        tag = str(value).strip().lstrip("#").strip()
        if not tag:
            raise UserError(f"empty tag in --tag {value!r}")
        tags.append(tag)
    return tuple(tags)


def _pairs(values) -> tuple[tuple[str, str], ...]:
    pairs = []
    for value in values or ():
        if isinstance(value, str):
            key, sep, val = value.partition(":")
            if not sep:
                raise UserError(f"--frontmatter {value!r}: expected key:value")
        else:
            key, val = value
        key, val = str(key).strip(), str(val).strip()
        if not key:
            raise UserError(f"--frontmatter {value!r}: the key is empty")
        pairs.append((key, val))
    return tuple(pairs)
