"""A session as the archive's rows hold it, and back: the columns of `sessions`, the JSON of
`sessions.details`, the rows of `outcomes`, and how two compaction summaries are known to be one.
Imports only os, json and re; the session records are imported where a row becomes one."""
from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable

from obsidian_memory.core.plain_record import Record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from obsidian_memory.capture.session_records import Session

# Session fields kept as JSON in sessions.details (the others have their own columns or tables).
DETAIL_FIELDS = ("cwds", "tools", "files_touched", "subagents", "models", "entry_count", "bad_lines",
                 "oversized_lines")
SESSION_COLUMNS = ("session_id", "title", "title_source", "project", "cwd", "repo_root", "git_branch",
                   "version", "started_at", "ended_at", "duration_seconds", "prompt_count",
                   "transcript_path", "transcript_size", "transcript_mtime", "last_assistant_message",
                   "machine", "repo_id", "origin")
OWN, FROM_VAULT = "transcript", "vault"     # sessions.origin


class RecentSession(Record):
    """A session as a list of recent sessions shows it (`Sessions.recent`): what identifies it,
    where it ran, its note, and its last compaction summary (free text: `session_text` decides
    whether it may be shown)."""
    __slots__ = ("session_id", "title", "project", "cwd", "repo_root", "git_branch", "started_at", "ended_at",
                 "prompt_count", "note_path", "machine", "repo_id", "origin", "last_compact_summary")

    def __init__(self, session_id: str, title: str | None, project: str | None, cwd: str | None,
                 repo_root: str | None, git_branch: str | None, started_at: str | None, ended_at: str | None,
                 prompt_count: int | None, note_path: str | None, machine: str | None, repo_id: str | None,
                 origin: str | None, last_compact_summary: str | None = None) -> None:
        self.session_id, self.title, self.project, self.cwd = session_id, title, project, cwd
        self.repo_root, self.git_branch, self.started_at, self.ended_at = repo_root, git_branch, started_at, ended_at
        self.prompt_count, self.note_path, self.machine, self.repo_id = prompt_count, note_path, machine, repo_id
        self.origin, self.last_compact_summary = origin, last_compact_summary


class SessionMatch(Record):
    """A session a regular expression matched (`Sessions.grep`): what identifies it, its first
    matching field and a snippet of it; `withheld` says why the snippet is not shown, when it is
    not (session_text)."""
    __slots__ = ("session_id", "title", "project", "started_at", "note_path", "machine", "origin", "field",
                 "snippet", "withheld")

    def __init__(self, session_id: str, title: str | None, project: str | None, started_at: str | None,
                 note_path: str | None, machine: str | None, origin: str | None, field: str, snippet: str,
                 withheld: str | None = None) -> None:
        self.session_id, self.title, self.project, self.started_at = session_id, title, project, started_at
        self.note_path, self.machine, self.origin, self.field = note_path, machine, origin, field
        self.snippet, self.withheld = snippet, withheld

    def shown(self) -> dict[str, Any]:
        """Its fields as the search's output gives them (`withheld` only when a snippet is)."""
        fields = self.as_dict()
        if fields["withheld"] is None:
            del fields["withheld"]
        return fields


class RecallDocument(Record):
    """A session's prompt-recall document (`RecallIndex.documents`): its fields' terms as the
    recall index holds them, and what a reader needs of its session."""
    __slots__ = ("doc_id", "session_id", "title_terms", "asked", "outcome", "said", "title", "project", "cwd",
                 "repo_root", "started_at", "note_path", "machine", "repo_id", "origin")

    def __init__(self, doc_id: int, session_id: str, title_terms: str, asked: str, outcome: str, said: str,
                 title: str | None, project: str | None, cwd: str | None, repo_root: str | None,
                 started_at: str | None, note_path: str | None, machine: str | None, repo_id: str | None,
                 origin: str | None) -> None:
        self.doc_id, self.session_id, self.title_terms, self.asked = doc_id, session_id, title_terms, asked
        self.outcome, self.said, self.title, self.project, self.cwd = outcome, said, title, project, cwd
        self.repo_root, self.started_at, self.note_path, self.machine = repo_root, started_at, note_path, machine
        self.repo_id, self.origin = repo_id, origin

    def terms_of(self, field: str) -> str:
        """The terms of the field `field`: "title", "asked", "outcome" or "said"."""
        return {"title": self.title_terms, "asked": self.asked, "outcome": self.outcome, "said": self.said}[field]


class WhereItStopped(Record):
    """Where a session stopped (`Sessions.where_it_stopped`): the start of its last answer and its
    todo items not done, as (text, status)."""
    __slots__ = ("last_answer", "open_todos")

    def __init__(self, last_answer: str | None, open_todos: list[tuple[str, str]]) -> None:
        self.last_answer, self.open_todos = last_answer, open_todos


def text(data: bytes) -> str:
    """The connection's text factory: a damaged row reads as text with replacement marks."""
    return data.decode("utf-8", "replace")


def utc_now() -> str:
    from obsidian_memory.core.clock import utcnow_iso
    return utcnow_iso()


def session_values(session: Session) -> tuple[Any, ...]:
    """The session's values for SESSION_COLUMNS (prompt_count: how many prompts it has)."""
    return tuple(len(session.prompts) if column == "prompt_count" else getattr(session, column)
                 for column in SESSION_COLUMNS)


def details_json(session: Session) -> str:
    from dataclasses import asdict, is_dataclass

    details: dict[str, Any] = {}
    for name in DETAIL_FIELDS:
        value = getattr(session, name)
        if name == "subagents":
            value = [asdict(s) if is_dataclass(s) and not isinstance(s, type) else dict(s) for s in value]
        details[name] = value
    return json.dumps(details, ensure_ascii=False)


def outcome_rows(session: Session) -> list[tuple[str, int, str, str | None]]:
    """(kind, position, text, detail JSON) for each outcome item of the session."""
    rows: list[tuple[str, int, str, str | None]] = [
        ("todo", i, t.text, json.dumps({"status": t.status})) for i, t in enumerate(session.todos)]
    if session.plan:
        rows.append(("plan", 0, session.plan, None))
    rows += [("commit", i, c.message, json.dumps({"hash": c.hash})) for i, c in enumerate(session.commits)]
    rows += [("pull_request", i, url, None) for i, url in enumerate(session.pull_requests)]
    rows += [("command", i, c.command, json.dumps({"runs": c.runs, "failures": c.failures}))
             for i, c in enumerate(session.commands)]
    rows += [("error", i, e.text, json.dumps({"tool": e.tool})) for i, e in enumerate(session.errors)]
    return rows


def read_outcomes(session: Session, rows: Iterable[tuple[Any, ...]]) -> None:
    """Add the outcome `rows` (kind, text, detail JSON) to the session."""
    from obsidian_memory.capture.session_records import Command, Commit, Todo, ToolError

    for kind, text, detail in rows:
        extra = loads(detail)
        if kind == "todo":
            session.todos.append(Todo(text, str(extra.get("status") or "pending")))
        elif kind == "plan":
            session.plan = text
        elif kind == "commit":
            session.commits.append(Commit(text, extra.get("hash")))
        elif kind == "pull_request":
            session.pull_requests.append(text)
        elif kind == "command":
            session.commands.append(Command(text, int(extra.get("runs") or 1), int(extra.get("failures") or 0)))
        elif kind == "error":
            session.errors.append(ToolError(str(extra.get("tool") or "tool"), text))


def loads(text: str | None) -> dict[str, Any]:
    try:
        value = json.loads(text or "{}")
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def loads_list(text: str | None) -> list[Any]:
    try:
        value = json.loads(text or "[]")
    except ValueError:
        return []
    return value if isinstance(value, list) else []


def is_older_parse(existing_row: tuple[Any, ...], parsed_path: str | None, parsed_size: int | None) -> bool:
    """Two hooks parsed the same growing file and the one that read less writes last (the file
    itself is still as long as the archived parse: it was not cut short)."""
    stored_path, stored_size = existing_row[0], existing_row[1]
    if not (parsed_path is not None and stored_path == parsed_path and stored_size is not None
            and parsed_size is not None and parsed_size < stored_size):
        return False
    try:
        return os.stat(parsed_path).st_size >= int(stored_size)
    except OSError:
        return False


def basename(path: str) -> str:
    return os.path.basename(os.path.normpath(path.replace("\\", "/")))


def _normalise(text: str) -> str:
    return " ".join(text.split())


_ANALYSIS = re.compile(r"<analysis>.*?</analysis>", re.S)
_SUMMARY_TAG = re.compile(r"<summary>(.*?)(?:</summary>|\Z)", re.S)


def _summary_core(text: str) -> str:
    """What a summary says, without the `<analysis>` scratch and `<summary>` tags that the
    PostCompact payload carries and the transcript's summary entry does not."""
    text = _ANALYSIS.sub(" ", text)
    match = _SUMMARY_TAG.search(text)
    return _normalise(match.group(1) if match else text)


def same_summary(a: str, b: str) -> bool:
    """The transcript's summary entry wraps the summary PostCompact reports in a preamble and
    other text, so one summary's core found inside the other counts as the same summary."""
    core_a, core_b = _summary_core(a), _summary_core(b)
    if not core_a or not core_b:
        return core_a == core_b
    return core_a in _normalise(b) or core_b in _normalise(a)


def in_time_order(rows: list[Any]) -> list[Any]:
    """Rows (text, timestamp, trigger, origin) by timestamp when every row has one; otherwise in
    the order given (transcript summaries first), since a partial order would be a guess."""
    rows = list(rows)
    if all(row[1] for row in rows):
        rows.sort(key=lambda row: row[1])  # stable
    return rows
