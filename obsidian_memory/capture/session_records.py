"""Plain data passed between the parser, the redactor, the archive and the note renderer.

No I/O here. Timestamps are ISO-8601 strings in UTC as Claude Code writes them.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass, field


@dataclass
class Prompt:
    text: str                      # what the person typed; slash commands as "/name args"
    timestamp: str | None = None
    uuid: str | None = None
    answer: str | None = None      # the assistant's last text before the next typed prompt


@dataclass
class Todo:
    text: str                      # the todo's content, or the task's subject
    status: str = "pending"        # pending | in_progress | completed


@dataclass
class Commit:
    message: str                   # the whole message when the command shows it, else the subject
    hash: str | None = None        # abbreviated, as git printed it


@dataclass
class Command:
    command: str                   # as shown: its first line (a heredoc's start), shortened
    runs: int = 1
    failures: int = 0              # runs whose result was an error (non-zero exit, timeout, ...)


@dataclass
class ToolError:
    tool: str
    text: str                      # the first telling line of the failed tool result


@dataclass
class CompactSummary:
    text: str                      # the summary, in full
    timestamp: str | None = None
    trigger: str | None = None     # "manual" | "auto" when known
    origin: str = "transcript"     # "transcript" (isCompactSummary entry) | "post_compact" (hook payload)


@dataclass
class Subagent:
    agent_id: str
    path: str
    entry_count: int = 0
    first_prompt: str | None = None   # the task the subagent was given (shortened), for listing only


@dataclass
class Session:
    session_id: str
    transcript_path: str | None = None
    project: str = ""                  # git toplevel folder name of the cwd, else its last component
    cwd: str | None = None             # the first cwd of the session
    cwds: list[str] = field(default_factory=list)
    repo_root: str | None = None       # main working tree of the repository (shared by worktrees)
    git_branch: str | None = None
    version: str | None = None         # Claude Code version
    started_at: str | None = None
    ended_at: str | None = None
    duration_seconds: float | None = None
    title: str = ""
    title_source: str = ""             # custom-title | ai-title | summary | prompt | none
    prompts: list[Prompt] = field(default_factory=list)
    compact_summaries: list[CompactSummary] = field(default_factory=list)
    last_assistant_message: str | None = None
    # what the session did: the final task list, the approved plan, commits, pull
    # requests, distinct shell commands and the errors met, all from the main conversation
    todos: list[Todo] = field(default_factory=list)
    plan: str | None = None
    commits: list[Commit] = field(default_factory=list)
    pull_requests: list[str] = field(default_factory=list)
    commands: list[Command] = field(default_factory=list)
    errors: list[ToolError] = field(default_factory=list)
    tools: dict[str, int] = field(default_factory=dict)      # tool name -> uses
    files_touched: list[str] = field(default_factory=list)   # in first-touch order
    subagents: list[Subagent] = field(default_factory=list)
    models: list[str] = field(default_factory=list)
    entry_count: int = 0               # distinct entries read
    bad_lines: int = 0                 # lines skipped as unreadable JSON
    oversized_lines: int = 0           # lines skipped unread for their size (transcript.LINE_LIMIT)
    transcript_size: int | None = None
    transcript_mtime: float | None = None
    # one vault, many machines: the machine that owns the transcript, the repository's
    # identity on every machine (gitinfo.repo_identity), and where the record came from:
    # "transcript" (this machine's own session) or "vault" (learned from the session's note)
    machine: str | None = None
    repo_id: str | None = None
    origin: str = "transcript"

    def to_dict(self) -> dict:
        return asdict(self)
