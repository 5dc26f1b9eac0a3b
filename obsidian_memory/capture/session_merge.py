"""What to archive when a transcript is parsed again for a session the archive already holds.

The archive is the durable copy: a transcript that holds less than the archived record (a short
excerpt, a copy, a file truncated or replaced, the file of a resumed session that has only the
new part) must never shrink it. Pure functions on `Session`s, no I/O.

- The transcript holds everything archived (the usual case: it grew): it is taken as it is.
- It holds nothing the record lacks: the record is kept as it is ("richer").
- Each has something the other lacks: merged. Prompts by entry uuid (the text of a prompt is
  the transcript's, which is redacted the way the settings say now; each keeps its answer),
  summaries by what they say (`same_summary`: the transcript's entry and PostCompact's payload
  are one compaction), a prompt known only from the queue as its later user entry; the span of
  time, the tools, files, models and subagents of both; the commits, pull requests, commands and errors of both; the rest (the todo list, the plan unless
  only the other has one, the last answer) from the record that ends later.
"""
from __future__ import annotations

import copy
from dataclasses import fields

from obsidian_memory.archive.rows import same_summary

TYPE_CHECKING = False
if TYPE_CHECKING:
    from obsidian_memory.capture.session_records import Session

TAKE_TRANSCRIPT, KEEP_ARCHIVED, MERGED = "transcript", "archived", "merged"
# A prompt typed while Claude works is first known only from the queue (no entry uuid; a hook that
# archived then saw it so), and is written as a user entry when the turn ends: that long at most.
QUEUE_WAIT_SECONDS = 3600


def prompt_key(prompt) -> tuple:
    return ("uuid", prompt.uuid) if prompt.uuid else ("text", prompt.text, prompt.timestamp)


class _Prompts:
    """One side's prompts, to ask whether a prompt of the other side is among them: the same entry
    (uuid, or text and time), or the user entry of a prompt the other side knew only from the queue."""

    def __init__(self, prompts):
        self.keys = {prompt_key(p) for p in prompts}
        self.times_by_text: dict[str, list[str]] = {}
        self.queued_by_text: dict[str, list[str]] = {}
        for p in prompts:
            self.times_by_text.setdefault(p.text, []).append(p.timestamp or "")
            if not p.uuid:
                self.queued_by_text.setdefault(p.text, []).append(p.timestamp or "")

    def has(self, prompt) -> bool:
        if prompt_key(prompt) in self.keys:
            return True
        if not prompt.uuid:   # queued then: its user entry comes later
            return any(_waited(prompt.timestamp, t) for t in self.times_by_text.get(prompt.text, ()))
        return any(_waited(t, prompt.timestamp) for t in self.queued_by_text.get(prompt.text, ()))


def _waited(queued_at: str | None, delivered_at: str | None) -> bool:
    """A prompt queued at `queued_at` can be the user entry written at `delivered_at`."""
    from obsidian_memory.core import clock

    queued, delivered = clock.parse_iso(queued_at), clock.parse_iso(delivered_at)
    if not queued or not delivered:
        return queued_at == delivered_at
    return 0 <= (delivered - queued).total_seconds() <= QUEUE_WAIT_SECONDS


def _distinct_summaries(summaries) -> list:
    """Each compaction once (the first of those that say the same: the transcript's, given first)."""
    kept = []
    for summary in summaries:
        if not any(same_summary(summary.text, other.text) for other in kept):
            kept.append(summary)
    return kept


def compare(stored, parsed) -> tuple[bool, bool]:
    """(the record has something the transcript lacks, the transcript has something the record lacks)."""
    stored_prompts, parsed_prompts = _Prompts(stored.prompts), _Prompts(parsed.prompts)
    stored_summaries = [s.text for s in stored.compact_summaries if (s.origin or "transcript") == "transcript"]
    parsed_summaries = [s.text for s in parsed.compact_summaries]
    record_lacks = any(not parsed_prompts.has(p) for p in stored.prompts)
    transcript_lacks = any(not stored_prompts.has(p) for p in parsed.prompts)
    record_more = (record_lacks or _summaries_lacking(stored_summaries, parsed_summaries)
                   or _later(stored.ended_at, parsed.ended_at) or _earlier(stored.started_at, parsed.started_at)
                   or (stored.entry_count or 0) > (parsed.entry_count or 0))
    transcript_more = (transcript_lacks or _summaries_lacking(parsed_summaries, stored_summaries)
                       or _later(parsed.ended_at, stored.ended_at) or _earlier(parsed.started_at, stored.started_at)
                       or (parsed.entry_count or 0) > (stored.entry_count or 0))
    return record_more, transcript_more


def _summaries_lacking(these: list[str], those: list[str]) -> bool:
    """Whether one of `these` summaries is none of `those`."""
    return any(not any(same_summary(text, other) for other in those) for text in these)


def merge(stored: Session | None, parsed: Session) -> tuple[Session, str, str]:
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
    in_transcript = _Prompts(parsed.prompts)
    by_key = {prompt_key(p): p for p in stored.prompts if not in_transcript.has(p)}
    by_key.update({prompt_key(p): p for p in parsed.prompts})   # the transcript's text wins
    merged.prompts = _in_time_order(list(by_key.values()), [*stored.prompts, *parsed.prompts])
    summaries = _distinct_summaries([*parsed.compact_summaries, *stored.compact_summaries])
    merged.compact_summaries = sorted(summaries, key=lambda s: s.timestamp or "")
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
    in_transcript = _Prompts(parsed.prompts)
    missing = sum(1 for p in stored.prompts if not in_transcript.has(p))
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
