"""What a session did, read from its tool calls and their results (no model involved).

The transcript reader feeds every main-conversation `tool_use` block and every `tool_result`
(with the entry's `toolUseResult`) to an `OutcomeTracker`, which keeps:
  - the final todo list: `TodoWrite` replaces it; `TaskCreate` / `TaskUpdate` (newer Claude
    Code) edit it task by task; a `TaskList` result is a full snapshot. A call whose result is an
    error changed nothing;
  - the plan the user approved: an `ExitPlanMode` call whose result is not an error (the plan
    from the result's "## Approved Plan:" part, the result's `plan`, or the call's `plan`), or a
    user entry's `planContent`;
  - commits: `git commit` commands whose result is not an error, with the message from the
    command (`-m`, heredoc) or the result's `[branch abc1234] subject` line, and the hash the
    result shows (or its `gitOperation.commit.sha`);
  - pull/merge request URLs: `pr-link` entries, `gitOperation.pr` results, and the URL printed by
    `gh pr create` / `glab mr create`;
  - the distinct shell commands (a multi-line one, e.g. a heredoc, by its first line) with how
    often they ran and failed;
  - the errors met: the first telling line of each failed tool result (user rejections and
    interrupts are not errors).
Everything is bounded (ARCHIVE_LIMITS): a session of any length keeps a bounded outcome.
Pure: no I/O; `re` and `shlex` only.
"""
from __future__ import annotations

import re
import shlex

from obsidian_memory.capture.session_records import Command, Commit, Todo, ToolError
from obsidian_memory.core.textclean import strip_control

# What the archive keeps at most (the note shows less: notes/sessions.py).
MAX_COMMANDS = 1000
MAX_COMMAND_CHARS = 2000
MAX_ERRORS = 500
MAX_ERROR_CHARS = 500
MAX_COMMITS = 500
MAX_COMMIT_CHARS = 4000
MAX_TODOS = 500
MAX_TODO_CHARS = 500
MAX_PULL_REQUESTS = 100
MAX_PLAN_CHARS = 50_000
RESULT_SCAN_CHARS = 20_000        # of a tool result's text, when looking for its telling line

TODO_STATUSES = ("pending", "in_progress", "completed")
_GIT_COMMIT = re.compile(r"\bgit\s+(?:-[Cc]\s+\S+\s+|--?[\w-]+(?:=\S+)?\s+)*commit\b")
_PR_CREATE = re.compile(r"\b(?:gh\s+pr\s+create|glab\s+mr\s+create|hub\s+pull-request)\b")
_PR_URL = re.compile(r"https?://[^\s\"'<>()\[\]`]+/(?:pull|pulls|merge_requests)/\d+")
_COMMIT_LINE = re.compile(r"^\[[^\]\n]*?([0-9a-f]{7,40})\] (.+)$", re.M)
_HEREDOC = re.compile(r"<<-?\s*(['\"]?)([A-Za-z_][\w-]*)\1[^\n]*\n(.*?)\n\s*\2\s*$", re.S | re.M)
_EXIT_CODE = re.compile(r"^(?:Error: )?Exit code (-?\d+)$")
_TOOL_ERROR_TAG = re.compile(r"</?tool_use_error>")
# The memory's own commands (the vault-search skill's search and read, through install.py's bin/ or
# the plugin's scripts/): what the agent looked up is no outcome of the session.
OWN_LAUNCHERS = ("search_vault.py", "obsidian_memory.py")
_PYTHON = re.compile(r"^python[\d.]*(?:\.exe)?$", re.I)
# a line that states the error ("FAILED test_x - AssertionError: ...", "fatal: ...", "E   KeyError")
_STATES_ERROR = re.compile(r"^(?:E +|error|fatal|failed|panic)\b|[a-z](?:Error|Exception)\b|\berror:", re.I)
# a line that at least speaks of one
_TELLING = re.compile(r"error|fatal|fail|exception|not found|no such|denied|cannot|can't|unable"
                      r"|invalid|refused|timed? ?out|panic|abort|missing|undefined", re.I)
_NOT_ERRORS = ("The user doesn't want to proceed", "[Request interrupted by user",
               "The user doesn't want to take this action")
_APPROVED_PLAN = re.compile(r"^User has approved your plan.*?\n## Approved Plan(?: \(edited by user\))?:\n(.*)\Z", re.S)
_TASK_CREATED = re.compile(r"^Task #(\S+) created")


class OutcomeTracker:
    def __init__(self) -> None:
        self.pending: dict[str, tuple] = {}              # tool_use id -> (tool name, input, todo event)
        self.todo_events: list[list] = []                # [kind, data, ok?] in call order
        self.plan: str | None = None
        self.commits: list[Commit] = []
        self.pull_requests: dict[str, None] = {}
        self.commands: dict[str, Command] = {}
        self.errors: dict[tuple[str, str], ToolError] = {}

    # -- feeding -------------------------------------------------------------------------
    def tool_use(self, block: dict) -> None:
        name, tool_input, block_id = block.get("name"), block.get("input"), block.get("id")
        if not isinstance(name, str) or not isinstance(tool_input, dict):
            return
        event = None
        if name == "Bash":
            self._command_ran(tool_input.get("command"))
        elif name == "TodoWrite":
            event = ["replace", _todos_from_write(tool_input.get("todos")), None]
        elif name == "TaskCreate":
            event = ["create", {"subject": tool_input.get("subject")}, None]
        elif name == "TaskUpdate":
            event = ["update", dict(tool_input), None]
        if event is not None:
            self.todo_events.append(event)
        if isinstance(block_id, str):
            self.pending[block_id] = (name, tool_input, event)

    def tool_result(self, block: dict, result) -> None:
        """One `tool_result` block and the `toolUseResult` of its entry (any type, or None)."""
        use_id = block.get("tool_use_id")
        name, tool_input, event = self.pending.pop(use_id, (None, {}, None)) if isinstance(use_id, str) \
            else (None, {}, None)
        failed = bool(block.get("is_error"))
        text = _result_text(block.get("content"))
        result = result if isinstance(result, dict) else {}
        if event is not None:
            event[2] = not failed
            if event[0] == "create" and not failed:
                event[1]["id"] = _created_task_id(result, text)
        if failed:
            self._failed(name or "tool", text, tool_input)
            return
        if name == "TaskList" and isinstance(result.get("tasks"), list):
            self.todo_events.append(["snapshot", result["tasks"], True])
        elif name == "ExitPlanMode":
            self._plan_approved(text, result, tool_input)
        elif name == "Bash":
            self._bash_succeeded(tool_input.get("command"), text, result)
        elif isinstance(result.get("gitOperation"), dict):
            self._created_pull_request(result["gitOperation"])

    def pr_link(self, entry: dict) -> None:
        self._pull_request(entry.get("prUrl"))

    def plan_content(self, text) -> None:
        """A user entry's `planContent`: the plan approved when the user started on it afresh."""
        if isinstance(text, str) and text.strip():
            self.plan = strip_control(text.strip())[:MAX_PLAN_CHARS]

    # -- results -------------------------------------------------------------------------
    def todos(self) -> list[Todo]:
        return _replay_todos(self.todo_events)

    def as_fields(self) -> dict:
        return {"todos": self.todos(), "plan": self.plan, "commits": self.commits,
                "pull_requests": list(self.pull_requests), "commands": list(self.commands.values()),
                "errors": list(self.errors.values())}

    # -- details -------------------------------------------------------------------------
    def _command_ran(self, command) -> None:
        shown = command_shown(command)
        if not shown or is_own_command(shown):
            return
        known = self.commands.get(shown)
        if known is not None:
            known.runs += 1
        elif len(self.commands) < MAX_COMMANDS:
            self.commands[shown] = Command(shown)

    def _failed(self, tool: str, text: str, tool_input: dict) -> None:
        if _is_refusal(text):
            return   # the user said no, or interrupted: nothing ran, nothing failed
        if tool == "Bash" and is_own_command(command_shown(tool_input.get("command"))):
            return   # a search of ours that found nothing or was refused: not the session's error
        if tool == "Bash":
            command = self.commands.get(command_shown(tool_input.get("command")))
            if command is not None:
                command.failures += 1
        line = error_line(text)
        if not line:
            return
        key = (tool, line)
        if key not in self.errors and len(self.errors) < MAX_ERRORS:
            self.errors[key] = ToolError(tool, line)

    def _bash_succeeded(self, command, text: str, result: dict) -> None:
        command = command if isinstance(command, str) else ""
        operation = result.get("gitOperation") if isinstance(result.get("gitOperation"), dict) else {}
        output = result.get("stdout") if isinstance(result.get("stdout"), str) else text
        if _GIT_COMMIT.search(command) or isinstance(operation.get("commit"), dict):
            self._commits(command, output or "", operation)
        if isinstance(operation.get("pr"), dict):
            self._created_pull_request(operation)
        elif _PR_CREATE.search(command):
            for url in _PR_URL.findall(output or "")[:3]:
                self._pull_request(url)

    def _commits(self, command: str, output: str, operation: dict) -> None:
        lines = _COMMIT_LINE.findall(output[:RESULT_SCAN_CHARS])
        message = commit_message(command)
        if not lines:
            commit = operation.get("commit")
            sha = commit.get("sha") if isinstance(commit, dict) else None
            lines = [(sha if isinstance(sha, str) else None, None)]
        for sha, subject in lines:
            text = message if message and (len(lines) == 1 or not subject) else subject
            if not text and not sha:
                continue
            if len(self.commits) < MAX_COMMITS:
                self.commits.append(Commit(strip_control(text or "").strip()[:MAX_COMMIT_CHARS],
                                           sha if isinstance(sha, str) else None))

    def _created_pull_request(self, operation: dict) -> None:
        pr = operation.get("pr")
        if isinstance(pr, dict) and pr.get("action", "created") == "created":
            self._pull_request(pr.get("url"))

    def _pull_request(self, url) -> None:
        if isinstance(url, str) and _PR_URL.fullmatch(url.strip()) and len(self.pull_requests) < MAX_PULL_REQUESTS:
            self.pull_requests.setdefault(url.strip(), None)

    def _plan_approved(self, text: str, result: dict, tool_input: dict) -> None:
        if result.get("awaitingLeaderApproval"):
            return
        match = _APPROVED_PLAN.match(text.strip()) if text.startswith("User has approved your plan") else None
        for plan in (match.group(1) if match else None, result.get("plan"), tool_input.get("plan")):
            if isinstance(plan, str) and plan.strip():
                self.plan = strip_control(plan.strip())[:MAX_PLAN_CHARS]
                return


# -- commands ------------------------------------------------------------------------------

def command_shown(command) -> str:
    """A command as the note lists it: its first line (the start of a heredoc or of a script),
    with a mark when there was more, shortened to MAX_COMMAND_CHARS."""
    if not isinstance(command, str):
        return ""
    text = strip_control(command).strip()
    if not text:
        return ""
    first, _, rest = text.partition("\n")
    first = first.rstrip()
    if rest.strip():
        first += " …"
    return first[:MAX_COMMAND_CHARS]


def is_own_command(shown: str) -> bool:
    """Whether a command (as shown) runs one of obsidian-memory's own launchers: the launcher is
    the program, or the script a Python runs."""
    try:
        words = shlex.split(shown)
    except ValueError:
        words = shown.split()
    names = [re.split(r"[/\\]", word)[-1] for word in words[:4]]
    if names and _PYTHON.match(names[0]):
        names = [name for name in names[1:] if not name.startswith("-")]
    return bool(names) and names[0] in OWN_LAUNCHERS


def commit_message(command: str) -> str | None:
    """The message a `git commit` command gives: a heredoc's text, or its -m/--message values."""
    segment = command[_GIT_COMMIT.search(command).start():] if _GIT_COMMIT.search(command) else command
    heredoc = _HEREDOC.search(segment)
    if heredoc and re.search(r"(?:-m|--message|-F|--file)\b", segment[:heredoc.start()]):
        return heredoc.group(3).strip() or None
    try:
        words = shlex.split(segment.split("\n", 1)[0], posix=True)
    except ValueError:
        return None
    messages, index = [], 0
    while index < len(words):
        word = words[index]
        if word in ("&&", "||", ";", "|"):
            break
        if (word == "--message" or re.fullmatch(r"-[a-zA-Z]*m", word)) and index + 1 < len(words):
            messages.append(words[index + 1])
            index += 2
            continue
        if word.startswith("--message="):
            messages.append(word[len("--message="):])
        elif word.startswith("-m") and len(word) > 2 and not word.startswith("--"):
            messages.append(word[2:])
        index += 1
    message = "\n\n".join(m.strip() for m in messages if m.strip())
    return message if message and "$(" not in message else None


# -- errors ---------------------------------------------------------------------------------

def error_line(text: str) -> str:
    """The first telling line of a failed tool result: "exit 4: ERROR: file not found" for a
    command that failed with output, the first line otherwise (with the next one when it ends in
    a colon); "" for a user's refusal."""
    text = _TOOL_ERROR_TAG.sub("", strip_control(text[:RESULT_SCAN_CHARS])).strip()
    if not text or _is_refusal(text):
        return ""
    if "\\n" in text.split("\n", 1)[0]:   # output whose line ends arrived escaped
        text = text.replace("\\n", "\n")
    lines = [line.strip() for line in text.splitlines() if line.strip()][:60]
    first = lines[0]
    if first.startswith("Error: ") and not _EXIT_CODE.match(first):
        first = first[len("Error: "):]
    code = _EXIT_CODE.match(first)
    rest = lines[1:]
    if code:
        telling = _telling_line(rest)
        if telling is None:
            return f"exit {code.group(1)}"
        first, rest = f"exit {code.group(1)}: {rest[telling]}", rest[telling + 1:]
    if first.endswith(":") and rest:
        first = f"{first} {rest[0]}"
    return _one_line(first, MAX_ERROR_CHARS)


def _telling_line(lines: list[str]) -> int | None:
    """The index of the line that best says what went wrong: one that states an error, else one
    that speaks of one, else the first; banners (`===== FAILURES =====`) are never chosen."""
    words = [i for i, line in enumerate(lines) if sum(c.isalnum() for c in line) * 2 > len(line)]
    for pattern in (_STATES_ERROR, _TELLING):
        found = next((i for i in words if pattern.search(lines[i])), None)
        if found is not None:
            return found
    return words[0] if words else None


def _is_refusal(text: str) -> bool:
    return text.lstrip().startswith(_NOT_ERRORS)


def _one_line(text: str, limit: int) -> str:
    line = " ".join(text.split())
    return line if len(line) <= limit else line[:limit - 1].rstrip() + "…"


def _result_text(content) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(b.get("text") for b in content
                         if isinstance(b, dict) and b.get("type") == "text" and isinstance(b.get("text"), str))
    return ""


# -- todos ------------------------------------------------------------------------------------

def _todos_from_write(todos) -> list[Todo]:
    items = []
    for todo in todos if isinstance(todos, list) else []:
        if isinstance(todo, dict) and isinstance(todo.get("content"), str) and todo["content"].strip():
            items.append(Todo(_one_line(strip_control(todo["content"]), MAX_TODO_CHARS), _status(todo.get("status"))))
    return items[:MAX_TODOS]


def _created_task_id(result: dict, text: str):
    task = result.get("task")
    if isinstance(task, dict) and task.get("id") is not None:
        return str(task["id"])
    match = _TASK_CREATED.match(text.strip())
    return match.group(1) if match else None


def _replay_todos(events: list[list]) -> list[Todo]:
    """The todo list after every call that did not fail, in call order. Tasks are keyed by id;
    a created task whose result is missing takes the next free number, as Claude Code numbers
    them."""
    tasks: dict[str, Todo] = {}
    for kind, data, ok in events:
        if ok is False:
            continue
        if kind == "replace":
            tasks = {str(i): Todo(t.text, t.status) for i, t in enumerate(data)}
        elif kind == "snapshot":
            tasks = {}
            for task in data[:MAX_TODOS]:
                if isinstance(task, dict) and isinstance(task.get("subject"), str):
                    tasks[str(task.get("id"))] = Todo(_one_line(strip_control(task["subject"]), MAX_TODO_CHARS),
                                                      _status(task.get("status")))
        elif kind == "create" and isinstance(data.get("subject"), str) and len(tasks) < MAX_TODOS:
            task_id = data.get("id") or str(_next_number(tasks))
            tasks[task_id] = Todo(_one_line(strip_control(data["subject"]), MAX_TODO_CHARS))
        elif kind == "update":
            task = tasks.get(str(data.get("taskId")))
            if task is None:
                continue
            if data.get("status") == "deleted":
                del tasks[str(data.get("taskId"))]
                continue
            if data.get("status") in TODO_STATUSES:
                task.status = data["status"]
            if isinstance(data.get("subject"), str) and data["subject"].strip():
                task.text = _one_line(strip_control(data["subject"]), MAX_TODO_CHARS)
    return list(tasks.values())


def _next_number(tasks: dict) -> int:
    numbers = [int(key) for key in tasks if key.isdigit()]
    return max(numbers, default=0) + 1


def _status(value) -> str:
    return value if value in TODO_STATUSES else "pending"
