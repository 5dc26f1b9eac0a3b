"""A session note read back into a `model.Session`: how a machine learns another machine's session.

The inverse of notes/sessions.py + templates/session.md.j2: the properties (title, session_id,
project, cwd, branch, started, ended, duration, machine, repo), and the sections the template
writes: the Outcome (tasks, approved plan, commits, pull requests), compaction summaries, prompts
with their answers, the last answer (answers and the plan as quoted prose, or code blocks in notes
of earlier versions), commands, errors, files touched, tools, subagents. A note
holds what its caps let it show (a shortened text keeps its visible mark); there is no transcript.
Notes written by earlier versions (without the Outcome, answers or typed properties) are read as
far as they go; a section the reader does not know is skipped; everything from `## My notes` on is
the user's and is not read, nor is anything outside the generated part's markers (note_layout).
Times: the properties and headings show the owner machine's wall clock; `started_utc` says the
instant, hence that machine's offset (vault_sessions.note_times; a note without it is read in
this machine's zone).
"""
from __future__ import annotations

import re

from obsidian_memory.vault import frontmatter
from obsidian_memory.capture.session_records import Command, Commit, CompactSummary, Prompt, Session, Subagent, Todo, ToolError
from obsidian_memory.vault.notes import vault_sessions
from obsidian_memory.core.textclean import unquoted_prose

_FENCE_OPEN = re.compile(r"^(`{3,}|~{3,})(.*)$")
_PROMPT_HEAD = re.compile(r"^\*\*(\d+)\.\*\*(?: ((?:\d{4}-\d\d-\d\d )?\d\d:\d\d))?\s*$")
_COMPACTION_HEAD = re.compile(r"^### Compaction \d+(?: · ([0-9: -]+?))?(?: \((.*)\))?\s*$")
_TODO = re.compile(r"^- (done|in progress|open): (.*)$")
_TODO_STATUS = {"done": "completed", "in progress": "in_progress", "open": "pending"}
_MORE = re.compile(r"^- … \d+ more in the archive$")
_TOOL = re.compile(r"^- (`+) ?(.*?) ?\1 × (\d+)$")
_SUBAGENT = re.compile(r"^- (`+) ?(.*?) ?\1 \((\d+) entries\)(?:: (.*))?$")
_CLAUDE_VERSION = re.compile(r"Claude Code (\S+)\s*$")
_ESCAPED = re.compile(r"\\([^A-Za-z0-9\s])")
_CODE_SPAN = re.compile(r"(`+)( ?)(.*?)\2\1(?!`)")
_MARK_RUNS = re.compile(r"^(?:failed(?: all (\d+) runs)?|failed (\d+) of (\d+) runs|ran (\d+)×)$")


def read_session(text: str) -> Session | None:
    """The session a note holds, or None when it is not a session note."""
    properties = vault_sessions.properties_of(text)
    session_id = vault_sessions._text(properties.get("session_id"))
    if not session_id:
        return None
    times = vault_sessions.note_times(properties)
    session = Session(
        session_id=session_id,
        title=vault_sessions._text(properties.get("title")) or "",
        title_source="note",
        project=vault_sessions._text(properties.get("project")) or "",
        cwd=vault_sessions._text(properties.get("cwd")),
        git_branch=vault_sessions._text(properties.get("branch")),
        started_at=times.started_at,
        ended_at=times.ended_at,
        machine=vault_sessions._text(properties.get("machine")),
        repo_id=vault_sessions._text(properties.get("repo")),
        origin="vault",
    )
    session.cwds = [session.cwd] if session.cwd else []
    minutes = properties.get("duration")
    if isinstance(minutes, (int, float)) and not isinstance(minutes, bool) and minutes >= 0:
        session.duration_seconds = float(minutes) * 60
    elif session.started_at and session.ended_at:
        session.duration_seconds = _seconds_between(session.started_at, session.ended_at)
    _Body(session, times).read(_body_lines(text))
    return session


def _body_lines(text: str) -> list[str]:
    """The lines of the generated part (the user's text around it is not read), or of the whole
    body in a note of an earlier version (without the markers)."""
    from obsidian_memory.vault.notes import note_layout

    text = text.replace("\r\n", "\n").lstrip("\ufeff")
    region = note_layout.split(text).region
    if region is not None:
        return region.split("\n")[1:-2]
    return text[frontmatter.body_start(text):].split("\n")


class _Body:
    """Reads the body line by line: `## ` headings outside code blocks start sections."""

    def __init__(self, session: Session, times: vault_sessions.NoteTimes):
        self.session = session
        self.day = (times.started or "")[:10]
        self.offset = times.offset     # the body's times are the writer's wall clock, like `started`
        self.section = ""
        self.label = ""            # the bold label a code block belongs to (**Approved plan:** ...)
        self.prompt: Prompt | None = None
        self.summary: dict | None = None
        self.last_answer: str | None = None

    def read(self, lines: list[str]) -> None:
        index = 0
        while index < len(lines):
            line = lines[index]
            fence = _FENCE_OPEN.match(line)
            if fence and not (fence.group(1)[0] == "`" and "`" in fence.group(2)):
                body, index = _fenced_block(lines, index, fence.group(1))
                self.block(body)
                continue
            if line.startswith(">"):   # answers and plans as quoted prose (textclean.quoted_prose)
                body, index = _quoted_block(lines, index)
                self.block(body)
                continue
            if line.startswith("## "):
                if line.rstrip() == "## My notes":
                    break
                self.section, self.label, self.prompt, self.summary = line[3:].strip().lower(), "", None, None
            else:
                self.line(line)
            index += 1
        self.finish()

    # -- lines outside code blocks ------------------------------------------------------
    def line(self, line: str) -> None:
        stripped = line.strip()
        if not stripped or _MORE.match(stripped):
            return
        session = self.session
        if not self.section:
            if stripped.startswith("**Started:**"):
                version = _CLAUDE_VERSION.search(stripped)
                session.version = _unescape(version.group(1)) if version else None
            return
        if stripped.startswith("**") and stripped.endswith(":**"):
            self.label = stripped.strip("*: ").lower()
            return
        if stripped.startswith("**") and "**" in stripped[2:] and self.section == "outcome":
            self.label = stripped[2:stripped.index("**", 2)].strip(": ").lower()
            return
        handler = getattr(self, "_" + self.section.replace(" ", "_"), None)
        if handler:
            handler(stripped)

    def _outcome(self, line: str) -> None:
        if self.label.startswith("tasks"):
            todo = _TODO.match(line)
            if todo:
                self.session.todos.append(Todo(_unescape(todo.group(2)), _TODO_STATUS[todo.group(1)]))
        elif self.label.startswith("commits") and line.startswith("- "):
            self.session.commits.append(_commit(line[2:]))
        elif self.label.startswith("pull requests") and line.startswith("- "):
            self.session.pull_requests.append(_pull_request(line[2:]))

    def _compaction_summaries(self, line: str) -> None:
        head = _COMPACTION_HEAD.match(line)
        if head:
            self.summary = {"when": head.group(1), "trigger": _unescape(head.group(2)) if head.group(2) else None}

    def _prompts(self, line: str) -> None:
        head = _PROMPT_HEAD.match(line)
        if head:
            self.prompt = Prompt("", timestamp=self._utc_at(head.group(2)))
            self.session.prompts.append(self.prompt)
            self.label = "prompt"

    def _commands(self, line: str) -> None:
        span = _CODE_SPAN.match(line[2:]) if line.startswith("- ") else None
        if span:
            runs, failures = _runs(line[2 + span.end():].strip().lstrip("—").strip())
            self.session.commands.append(Command(span.group(3), runs, failures))

    def _errors(self, line: str) -> None:
        spans = _CODE_SPAN.findall(line[2:]) if line.startswith("- ") else []
        if len(spans) >= 2:
            self.session.errors.append(ToolError(spans[0][2], spans[1][2]))

    def _files_touched(self, line: str) -> None:
        if line.startswith("- "):
            self.session.files_touched.append(_code(line[2:]))

    def _tools_used(self, line: str) -> None:
        tool = _TOOL.match(line)
        if tool:
            self.session.tools[tool.group(2)] = int(tool.group(3))

    def _subagents(self, line: str) -> None:
        agent = _SUBAGENT.match(line)
        if agent:
            self.session.subagents.append(Subagent(agent.group(2), "", int(agent.group(3)),
                                                   _unescape(agent.group(4)) if agent.group(4) else None))

    # -- code blocks ----------------------------------------------------------------------
    def block(self, body: str) -> None:
        session, label = self.session, self.label
        self.label = ""   # a label owns the one code block after it (not the resume command's)
        if self.section == "outcome" and label == "approved plan":
            session.plan = body
        elif self.section == "compaction summaries" and self.summary is not None:
            session.compact_summaries.append(CompactSummary(body, self._utc_at(self.summary["when"]),
                                                            self.summary["trigger"], "note"))
            self.summary = None
        elif self.section == "prompts" and self.prompt is not None:
            if label == "prompt" and not self.prompt.text:
                self.prompt.text = body
            elif label == "answer":
                self.prompt.answer = body
            elif label == "last answer":
                self.last_answer = body
        elif self.section == "prompts" and label == "last answer":
            self.last_answer = body

    def finish(self) -> None:
        session = self.session
        session.prompts = [p for p in session.prompts if p.text or p.answer]
        answered = [p.answer for p in session.prompts if p.answer]
        session.last_assistant_message = self.last_answer or (answered[-1] if answered else None)
        if not session.title:
            session.title = session.prompts[0].text.split("\n", 1)[0][:80] if session.prompts else ""

    def _utc_at(self, when: str | None) -> str | None:
        """A heading's local time (`HH:MM` on the session's day, or `YYYY-MM-DD HH:MM`) in UTC."""
        if not when:
            return None
        when = when.strip()
        local = f"{self.day}T{when}:00" if len(when) == 5 and self.day else when.replace(" ", "T") + ":00"
        return vault_sessions.utc_at(local, self.offset)


def _fenced_block(lines: list[str], index: int, fence: str) -> tuple[str, int]:
    """(the text of the code block opening at lines[index], the index after its closing line)."""
    body = []
    index += 1
    while index < len(lines):
        line = lines[index]
        if line.startswith(fence[0] * len(fence)) and not line.strip(fence[0]).strip():
            return "\n".join(body), index + 1
        body.append(line)
        index += 1
    return "\n".join(body), index


def _quoted_block(lines: list[str], index: int) -> tuple[str, int]:
    """(the text of the blockquote starting at lines[index], the index after its last line)."""
    end = index
    while end < len(lines) and lines[end].startswith(">"):
        end += 1
    return unquoted_prose("\n".join(lines[index:end])), end


def _unescape(text: str | None) -> str:
    return _ESCAPED.sub(r"\1", text or "")


def _code(text: str) -> str:
    """The text of an inline code span (notes.sessions.code_span)."""
    match = _CODE_SPAN.match(text.strip())
    return match.group(3) if match else _unescape(text.strip())


def _commit(line: str) -> Commit:
    """`` `abc1234` subject — body `` or `(no hash shown) subject`."""
    commit_hash = None
    match = _CODE_SPAN.match(line)
    if match:
        commit_hash, line = match.group(3), line[match.end():].strip()
    elif line.startswith("(no hash shown) "):
        line = line[len("(no hash shown) "):]
    subject, _, body = line.partition(" — ")
    message = _unescape(subject) + (f"\n\n{_unescape(body)}" if body else "")
    return Commit(message, commit_hash)


def _pull_request(line: str) -> str:
    """`[label](url)`, or the label of a link that was not shown as one."""
    if line.startswith("[") and line.endswith(")") and "](" in line:
        return line[line.rindex("](") + 2:-1]
    return _unescape(line)


def _runs(mark: str) -> tuple[int, int]:
    """(runs, failures) from a command's mark ("", "failed", "failed all 3 runs", "failed 1 of
    3 runs", "ran 2×")."""
    match = _MARK_RUNS.match(mark)
    if not match:
        return 1, 0
    all_runs, failed, of, ran = match.groups()
    if ran:
        return int(ran), 0
    if of:
        return int(of), int(failed)
    runs = int(all_runs) if all_runs else 1
    return runs, runs


def _seconds_between(start: str, end: str) -> float | None:
    from obsidian_memory.core import clock

    first, last = clock.parse_iso(start), clock.parse_iso(end)
    return max(0.0, (last - first).total_seconds()) if first and last else None


def told_apart_text(text: str) -> tuple[str, str] | None:
    """(title, Markdown) a session note is embedded by, or None when it is not a session note.

    Sessions of one kind of problem share their words and their layout; what tells one from the
    others is what was asked, answered and done in it. So this is the session's title, its
    repository, its prompts each with its answer, its compaction summaries, commits, errors,
    commands and the files it touched (named within its folder), and the user's own text around
    the generated part: not the layout's labels, times, the resume command or the tool counts,
    which every session note has and which fill the head a note is first judged by."""
    from obsidian_memory.vault.notes import note_layout

    if not frontmatter.block_mentions(text, "session_id"):
        return None
    session = read_session(text)
    if session is None:
        return None
    parts = note_layout.split(text.replace("\r\n", "\n").lstrip("\ufeff"))
    lines = [session.project and f"In {session.project}."]
    for prompt in session.prompts:
        lines += [prompt.text, prompt.answer or ""]
    if session.last_assistant_message and all(session.last_assistant_message != p.answer for p in session.prompts):
        lines.append(session.last_assistant_message)
    sections = {"Compaction summaries": [s.text for s in session.compact_summaries],
                "Commits": [c.message for c in session.commits],
                "Errors": [e.text for e in session.errors],
                "Commands": [c.command for c in session.commands],
                "Files touched": [_within(path, session.cwd) for path in session.files_touched]}
    body = "\n\n".join(line for line in lines if line)
    for heading, items in sections.items():
        if items:
            body += f"\n\n## {heading}\n\n" + "\n".join(items)
    own = [_users_words(piece) for piece in (parts.before, parts.after)] if parts.region is not None else []
    return session.title, "\n\n".join([body, *(piece for piece in own if piece)])


_COMMENT = re.compile(r"<!--.*?-->|%%.*?%%", re.S)


def _users_words(text: str) -> str:
    """The user's text around the generated part without comments (the template's placeholder is
    one), or "" when only headings are left."""
    text = _COMMENT.sub("", text).strip()
    return text if any(line.strip() and not line.lstrip().startswith("#") for line in text.split("\n")) else ""


def _within(path: str, folder: str | None) -> str:
    """`path` relative to `folder` when it is inside it (a session's files, without the clone's place)."""
    prefix = (folder or "").rstrip("/\\") + "/"
    return path[len(prefix):] if folder and path.replace("\\", "/").startswith(prefix.replace("\\", "/")) else path
