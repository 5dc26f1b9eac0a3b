"""What to archive when a transcript is parsed again for a session the archive already holds.

The archive is the durable copy: a transcript that holds less than the archived record (a short
excerpt, a copy, a file truncated or replaced, the file of a resumed session that has only the
new part) must never shrink it. Pure functions on `Session`s, no I/O.

- The transcript holds everything archived (the usual case: it grew): it is taken as it is.
- It holds nothing the record lacks: the record is kept as it is ("richer").
- Each has something the other lacks: merged. Prompts by entry uuid (the text of a prompt is
  the transcript's, which is redacted the way the settings say now; each keeps its answer),
  summaries by text; the span of time, the tools, files, models and subagents of both; the
  commits, pull requests, commands and errors of both; the rest (the todo list, the plan unless
  only the other has one, the last answer) from the record that ends later.
"""
from __future__ import annotations

import copy
from dataclasses import fields

TAKE_TRANSCRIPT, KEEP_ARCHIVED, MERGED = "transcript", "archived", "merged"


def prompt_key(prompt) -> tuple:
    return ("uuid", prompt.uuid) if prompt.uuid else ("text", prompt.text, prompt.timestamp)


def compare(stored, parsed) -> tuple[bool, bool]:
    """(the record has something the transcript lacks, the transcript has something the record lacks)."""
    stored_keys = {prompt_key(p) for p in stored.prompts}
    parsed_keys = {prompt_key(p) for p in parsed.prompts}
    stored_summaries = {s.text for s in stored.compact_summaries if (s.origin or "transcript") == "transcript"}
    parsed_summaries = {s.text for s in parsed.compact_summaries}
    record_more = (bool(stored_keys - parsed_keys) or bool(stored_summaries - parsed_summaries)
                   or _later(stored.ended_at, parsed.ended_at) or _earlier(stored.started_at, parsed.started_at)
                   or (stored.entry_count or 0) > (parsed.entry_count or 0))
    transcript_more = (bool(parsed_keys - stored_keys) or bool(parsed_summaries - stored_summaries)
                       or _later(parsed.ended_at, stored.ended_at) or _earlier(parsed.started_at, stored.started_at)
                       or (parsed.entry_count or 0) > (stored.entry_count or 0))
    return record_more, transcript_more


def merge(stored, parsed) -> tuple[object, str, str]:
    """(the session to archive, TAKE_TRANSCRIPT | KEEP_ARCHIVED | MERGED, why in words)."""
    if stored is None or not (stored.prompts or stored.started_at):
        return parsed, TAKE_TRANSCRIPT, ""
    record_more, transcript_more = compare(stored, parsed)
    if not record_more:
        return parsed, TAKE_TRANSCRIPT, ""
    why = _what_it_lacks(stored, parsed)
    if not transcript_more:
        return stored, KEEP_ARCHIVED, f"the archived record is richer than {parsed.transcript_path} ({why})"
    return _union(stored, parsed), MERGED, f"{parsed.transcript_path} lacks part of the archived record ({why}): merged"


def _union(stored, parsed):
    later, other = (parsed, stored) if not _later(stored.ended_at, parsed.ended_at) else (stored, parsed)
    merged = copy.copy(later)
    for item in fields(merged):   # no list or dict shared with the inputs
        value = getattr(merged, item.name)
        if isinstance(value, (list, dict)):
            setattr(merged, item.name, copy.copy(value))
    by_key = {prompt_key(p): p for p in stored.prompts}
    by_key.update({prompt_key(p): p for p in parsed.prompts})   # the transcript's text wins
    merged.prompts = _in_time_order(list(by_key.values()), [*stored.prompts, *parsed.prompts])
    summaries = {s.text: s for s in [*stored.compact_summaries, *parsed.compact_summaries]}
    merged.compact_summaries = sorted(summaries.values(), key=lambda s: s.timestamp or "")
    merged.started_at = min(filter(None, [stored.started_at, parsed.started_at]), default=None)
    merged.ended_at = max(filter(None, [stored.ended_at, parsed.ended_at]), default=None)
    merged.duration_seconds = _span(merged.started_at, merged.ended_at)
    merged.tools = {name: max(stored.tools.get(name, 0), parsed.tools.get(name, 0))
                    for name in {**stored.tools, **parsed.tools}}
    merged.files_touched = list(dict.fromkeys([*other.files_touched, *later.files_touched]))
    merged.models = list(dict.fromkeys([*other.models, *later.models]))
    merged.cwds = list(dict.fromkeys([*other.cwds, *later.cwds]))
    agents = {a.agent_id: a for a in [*other.subagents, *later.subagents]}
    merged.subagents = list(agents.values())
    merged.entry_count = max(stored.entry_count or 0, parsed.entry_count or 0)
    merged.plan = later.plan or other.plan
    merged.commits = list({(c.hash, c.message): c for c in [*other.commits, *later.commits]}.values())
    merged.pull_requests = list(dict.fromkeys([*other.pull_requests, *later.pull_requests]))
    merged.errors = list({(e.tool, e.text): e for e in [*other.errors, *later.errors]}.values())
    merged.commands = _commands_of_both(other.commands, later.commands)
    if stored.title_source in ("custom-title", "ai-title") and parsed.title_source not in ("custom-title", "ai-title"):
        merged.title, merged.title_source = stored.title, stored.title_source
    return merged


def _commands_of_both(first: list, second: list) -> list:
    """Each command once, in the order first seen, with the larger counts of the two (the two
    records may overlap, so counts are not added)."""
    import dataclasses

    by_command = {}
    for command in [*first, *second]:
        known = by_command.get(command.command)
        by_command[command.command] = command if known is None else dataclasses.replace(
            known, runs=max(known.runs, command.runs), failures=max(known.failures, command.failures))
    return list(by_command.values())


def _what_it_lacks(stored, parsed) -> str:
    parsed_keys = {prompt_key(p) for p in parsed.prompts}
    missing = sum(1 for p in stored.prompts if prompt_key(p) not in parsed_keys)
    parts = []
    if missing:
        parts.append(f"{missing} of the {len(stored.prompts)} archived prompts")
    if _later(stored.ended_at, parsed.ended_at):
        parts.append(f"the end at {stored.ended_at}")
    if _earlier(stored.started_at, parsed.started_at):
        parts.append(f"the start at {stored.started_at}")
    if not parts:
        parts.append(f"{stored.entry_count} entries, it has {parsed.entry_count}")
    return "it lacks " + ", ".join(parts)


def _in_time_order(prompts: list, seen_order: list) -> list:
    """By timestamp where both have one; otherwise in the order first seen (stored, then new)."""
    position = {}
    for index, prompt in enumerate(seen_order):
        position.setdefault(prompt_key(prompt), index)
    return sorted(prompts, key=lambda p: (p.timestamp or "", position[prompt_key(p)]))


def _later(a: str | None, b: str | None) -> bool:
    return bool(a) and (not b or a > b)


def _earlier(a: str | None, b: str | None) -> bool:
    return bool(a) and (not b or a < b)


def _span(start: str | None, end: str | None) -> float | None:
    from obsidian_memory.core import clock

    first, last = clock.parse_iso(start), clock.parse_iso(end)
    return max(0.0, (last - first).total_seconds()) if first and last else None
