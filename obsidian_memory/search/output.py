"""How search results are printed (text for people, JSON for programs), shared by both commands.

Every string that leaves here is cleaned of control characters and escape sequences: a note, a
file name or an Omnisearch answer must never be able to drive the user's terminal.
"""
from __future__ import annotations

from obsidian_memory.search.base import Response
from obsidian_memory.core.textclean import one_line, strip_control

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
    import json     # only for --json: the text output, and the search process, do without it

    return json.dumps(clean(data), ensure_ascii=False, indent=2)


def response_json(response: Response) -> str:
    """The response as JSON (with each hit's `links` and `backlinks` when the search was asked for them)."""
    return to_json(response.to_dict())


def response_text(response: Response) -> str:
    shown = len(response.hits)
    count = f"{response.total_results} result{'s' if response.total_results != 1 else ''}"
    if shown < response.total_results:
        count = f"{shown} of {count}"
    listing = not response.query        # filters only (an empty query is refused otherwise)
    if listing:
        head, ranking = "list: notes in scope", " | order: newest first"
    else:
        head = f'search: "{one_line(response.query)}"'
        ranking = f" | mode: {one_line(response.mode)}" if response.mode != "fulltext" else ""  # the usual one unsaid
    lines = [f"{head} | engine: {one_line(response.engine)}{ranking} | {response.elapsed_seconds:.3f} s | {count}"]
    lines += [f"note: {one_line(note)}" for note in response.notes]
    if not response.hits:
        if response.engine.endswith(OFFLINE_SUFFIX):
            lines.append("No results: Omnisearch did not answer, so the vault was not searched "
                         "(is Obsidian running with the Omnisearch HTTP server on? try --source local).")
        else:
            lines.append("No results.")
    for number, hit in enumerate(response.hits, start=1):
        lines.append(f"{number}. {one_line(hit.path)}" + ("" if listing else f" ({format_score(hit.score)})"))
        if hit.excerpt:
            lines.append(f"   {one_line(hit.excerpt)}")
        if isinstance(hit.extra.get("explain"), dict):
            lines.append(f"   why: {one_line(explain_text(hit.extra['explain']))}")
    return "\n".join(lines)


def explain_text(explain: dict) -> str:
    """`--explain` in one line: `title 0.60 + bm25 0.81`, or each ranking's place when fused:
    `#1 in "q2" (0.1164: bm25 1.00 + title 0.60); #12 in "q1" (0.0139)`."""
    if "fused" in explain:
        return "; ".join(f'#{p["rank"]} in "{p["ranking"]}" ({format_score(p["share"])}'
                         + (f": {_signals_text(p['signals'])}" if p.get("signals") else "") + ")"
                         for p in explain["fused"])
    text = _signals_text(explain.get("signals", {})) or "no signal"
    if explain.get("drawn_to_first"):
        text += f" (scores drawn {explain['drawn_to_first']:.0%} toward the first: it lacks part of the query)"
    return text


def _signals_text(signals: dict) -> str:
    return " + ".join(f"{name} {value:.2f}" for name, value in sorted(signals.items(), key=lambda kv: -kv[1]))


def format_score(score: float) -> str:
    score = float(score)
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
        machine = "" if row.get("this_machine", True) else f"on {one_line(str(row.get('machine') or 'another machine'))}"
        head = " | ".join(part for part in (started, one_line(str(row.get("project") or "")),
                                             one_line(str(row.get("title") or "")), machine) if part)
        lines.append(f"{number}. {head}")
        if row.get("note_path"):
            lines.append(f"   {one_line(str(row['note_path']))}")
        field = one_line(str(row.get("field") or ""))
        snippet = one_line(str(row.get("snippet") or ""))
        if snippet:
            lines.append(f"   [{field}] {snippet}" if field else f"   {snippet}")
    return "\n".join(lines)
