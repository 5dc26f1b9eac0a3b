"""`obsidian_memory.py injected [SESSION] [--text] [--json]`: what the SessionStart hook and prompt
recall injected into a session, and why: the context's budget and each section's share and size,
the sessions it listed; each prompt recall's decision with the rule's figures (the words and
their weights, the best candidates' coverage and score). SESSION is an id or a unique prefix;
without it, the session whose hooks ran last. Read from what the hooks recorded (kept 14 days)."""
from __future__ import annotations

import json
import sys

from obsidian_memory.core.errors import UserError


def add_arguments(parser) -> None:
    parser.add_argument("session", nargs="?", metavar="SESSION",
                        help="a session id or a unique prefix (default: the session whose hooks ran last)")
    parser.add_argument("--text", action="store_true", help="also print the injected text itself")
    parser.add_argument("--json", action="store_true", help="the hooks' records as JSON")


def run(args) -> int:
    from obsidian_memory.core import settings as settings_module
    from obsidian_memory.context.recall import seen

    settings = settings_module.load()
    session_id = _session(seen.sessions_recorded(settings), args.session)
    state = seen.load(settings, session_id)
    records = state.injected if state is not None else []
    if args.json:
        sys.stdout.write(json.dumps({"session_id": session_id, "injected": records}, ensure_ascii=False, indent=2)
                         + "\n")
        return 0
    lines = [f"session {session_id}"]
    if not records:
        lines.append("  no record of what was injected (its hooks ran before this was recorded, or memory was off)")
    for record in records:
        lines += (_session_start if record.get("event") == "SessionStart" else _recall)(record)
        if args.text and record.get("text"):
            lines += ["  injected text:", *("    " + line for line in record["text"].rstrip("\n").split("\n"))]
    sys.stdout.write("\n".join(lines) + "\n")
    return 0


def _session(recorded: list[tuple[float, str]], wanted: str | None) -> str:
    if not recorded:
        raise UserError("no session has a record of what was injected yet (the hooks write one as a session "
                        "starts; records are kept 14 days)", code=1)
    if not wanted:
        return recorded[0][1]
    matches = [sid for _, sid in recorded if sid.startswith(wanted.strip())]
    if len(matches) == 1:
        return matches[0]
    if not matches:
        raise UserError(f"no record of what was injected into a session {wanted!r} (records are kept 14 days)",
                        code=1)
    raise UserError(f"{wanted!r} names {len(matches)} sessions; give more of the id", code=1)


def _when(record: dict) -> str:
    from obsidian_memory.core import clock

    moment = clock.to_local(clock.utc_iso(record["at"])) if isinstance(record.get("at"), (int, float)) else None
    return moment.strftime("%Y-%m-%d %H:%M:%S") if moment else "?"


def _session_start(record: dict) -> list[str]:
    from obsidian_memory.core import clock

    head = f"SessionStart ({record.get('source') or '?'}) at {_when(record)}, in {record.get('cwd') or '?'}"
    if record.get("why_nothing") or not record.get("chars"):
        return [head, f"  nothing injected: {record.get('why_nothing') or 'nothing worth saying'}"]
    budget, framing = int(record.get("budget") or 0), int(record.get("framing") or 0)
    weights = record.get("weights") or {}
    total = sum(weights.values()) or 1
    lines = [head, f"  {record['chars']:,} of {budget:,} characters: {framing:,} of framing (heading, the "
                   f"data-not-instructions line, the skill pointer), the rest shared by the sections in "
                   f"proportion to their weights, what one does not need going to the others"]
    for section in record.get("sections") or []:
        name = section.get("name")
        share = f"weight {weights.get(name, 0)} ({weights.get(name, 0) / total:.0%})"
        if not section.get("wanted"):
            lines.append(f"  {name:<10} {share}: nothing to show")
            continue
        wanted, cap = section["wanted"], section.get("cap", 0)
        fit = f"whole: it needs {wanted:,}, its cap was {cap:,}" if cap >= wanted else \
            f"cut to its cap of {cap:,}: whole it needs {wanted:,}"
        lines.append(f"  {name:<10} {share}: {section.get('chars', 0):,} characters ({fit})")
    listed = record.get("sessions") or []
    if listed:
        lines.append(f"  sessions listed: the {len(listed)} newest of this {record.get('scope') or '?'} "
                     f"(at most {record.get('limit')}; private notes left out)")
        for row in listed:
            extra = ""
            if row.get("latest"):
                extra = ("; latest: its summary and where it stopped withheld: " + row["withheld"]
                         if row.get("withheld") else "; latest: the start of its last summary and where it stopped")
            where = f" on {row['elsewhere']}" if row.get("elsewhere") else ""
            started = clock.to_local(row.get("started_at"))
            lines.append(f"    {started.strftime('%Y-%m-%d %H:%M') if started else '?':<16}  {str(row.get('session_id'))[:8]}  "
                         f"{' '.join(str(row.get('title') or '(untitled)').split())[:70]}{where}{extra}")
    return lines


def _recall(record: dict) -> list[str]:
    prompt = " ".join(str(record.get("prompt") or "").split())
    head = f"prompt recall at {_when(record)} (prompt_recall: {record.get('mode')}), prompt: {prompt[:100]!r}"
    injected = f"injected {record['chars']:,} characters" if record.get("chars") else "nothing injected"
    lines = [head, f"  {injected}: {record.get('reason') or '?'}"]
    words = record.get("words") or []
    if words:
        lines.append("  words (weight; sessions holding each term): " + ", ".join(
            f"{w['word']} {w['weight']:.2f} ({', '.join(f'{t} {n}' for t, n in w['terms'].items())})"
            + ("" if w.get("informative", True) else " common") for w in words))
    for candidate in record.get("candidates") or []:
        chosen = "chosen" if candidate["session_id"] in (record.get("chosen") or []) else \
            "shown before" if candidate["session_id"] in (record.get("already_shown") or []) else "not chosen"
        matched = ", ".join(f"{word} ({field})" for word, field in (candidate.get("matched") or {}).items())
        lines.append(f"  {chosen:<12} {candidate['session_id'][:8]}  score {candidate['score']:.2f} = coverage "
                     f"{candidate['coverage']:.2f}{'' if candidate.get('same_place') else ' x another repository'}"
                     f"  {' '.join(str(candidate.get('title') or '').split())[:60]}")
        if matched:
            lines.append(f"               matched: {matched}")
    return lines
