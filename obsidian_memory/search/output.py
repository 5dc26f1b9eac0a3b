"""How search results are printed (text for people, JSON for programs), shared by both commands.

Every string that leaves here is cleaned of control characters and escape sequences: a note, a
file name or an Omnisearch answer must never be able to drive the user's terminal.
"""
from __future__ import annotations

import json

from obsidian_memory.search._text import one_line, strip_control
from obsidian_memory.search.base import Response

OFFLINE_SUFFIX = "(offline)"


def clean(value):
    """A copy of a JSON-able value with every string (keys too) cleaned."""
    if isinstance(value, str):
        return strip_control(value)
    if isinstance(value, dict):
        return {clean(k): clean(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [clean(v) for v in value]
    return value


def to_json(data) -> str:
    return json.dumps(clean(data), ensure_ascii=False, indent=2)


def response_json(response: Response, settings=None) -> str:
    """The response as JSON; every hit carries the `links` and `backlinks` the index knows."""
    return to_json(response_dict(response, settings))


def response_dict(response: Response, settings=None) -> dict:
    """Response.to_dict() with `links` and `backlinks` on every hit."""
    data = response.to_dict()
    with_links(data["results"], settings if settings is not None else _settings_for(response.vault))
    return data


def with_links(results: list[dict], settings) -> list[dict]:
    """Add `links` and `backlinks` (vault-relative note paths) to each result dict in place: one
    read of the index for all of them, empty lists when there is no index (or no settings)."""
    found: dict = {}
    paths = [r["path"] for r in results if isinstance(r.get("path"), str) and "links" not in r]
    if paths and settings is not None:
        try:
            from obsidian_memory.search import graph

            found = graph.links_of(settings, paths)
        except Exception:       # the links are extra information: never a reason to fail a search
            found = {}
    for result in results:
        if "links" not in result:
            entry = found.get(result.get("path")) or {}
            result["links"] = list(entry.get("links", []))
            result["backlinks"] = list(entry.get("backlinks", []))
    return results


def _settings_for(vault: str):
    try:
        from obsidian_memory import settings as settings_module

        return settings_module.load(vault=vault) if vault else None
    except Exception:
        return None


def response_text(response: Response) -> str:
    shown = len(response.hits)
    count = f"{response.total_results} result{'s' if response.total_results != 1 else ''}"
    if shown < response.total_results:
        count = f"{shown} of {count}"
    ranking = f" | mode: {one_line(response.mode)}" if response.mode != "fulltext" else ""  # the usual one unsaid
    lines = [f'search: "{one_line(response.query)}" | engine: {one_line(response.engine)}{ranking} | '
             f"{response.elapsed_seconds:.3f} s | {count}"]
    lines += [f"note: {one_line(note)}" for note in response.notes]
    if not response.hits:
        if response.engine.endswith(OFFLINE_SUFFIX):
            lines.append("No results: Omnisearch did not answer, so the vault was not searched "
                         "(is Obsidian running with the Omnisearch HTTP server on? try --source local).")
        else:
            lines.append("No results.")
    for number, hit in enumerate(response.hits, start=1):
        lines.append(f"{number}. {one_line(hit.path)} ({format_score(hit.score)})")
        if hit.excerpt:
            lines.append(f"   {one_line(hit.excerpt)}")
    return "\n".join(lines)


def format_score(score: float) -> str:
    score = float(score)
    if score.is_integer():
        return str(int(score))
    return f"{score:.2f}" if abs(score) >= 1 else f"{score:.4f}"


# -- regex search over archived sessions ------------------------------------------------------

def sessions_json(pattern: str, results: list[dict], total: int | None = None) -> str:
    return to_json({"pattern": pattern, "total_results": len(results) if total is None else total,
                    "results": results})


def sessions_text(pattern: str, results: list[dict], total: int | None = None) -> str:
    total = len(results) if total is None else total
    count = f"{total} session{'s' if total != 1 else ''}"
    if len(results) < total:
        count = f"{len(results)} of {count}"
    lines = [f"sessions matching /{one_line(pattern)}/ | {count}"]
    if not results:
        lines.append("No results.")
    for number, row in enumerate(results, start=1):
        started = one_line(str(row.get("started_at") or "")).replace("T", " ")[:16]
        head = " | ".join(part for part in (started, one_line(str(row.get("project") or "")),
                                             one_line(str(row.get("title") or ""))) if part)
        lines.append(f"{number}. {head}")
        if row.get("note_path"):
            lines.append(f"   {one_line(str(row['note_path']))}")
        field = one_line(str(row.get("field") or ""))
        snippet = one_line(str(row.get("snippet") or ""))
        if snippet:
            lines.append(f"   [{field}] {snippet}" if field else f"   {snippet}")
    return "\n".join(lines)
