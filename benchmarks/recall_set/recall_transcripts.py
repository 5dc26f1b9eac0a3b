"""Session specs -> transcripts in the shape Claude Code 2.1.x writes (JSONL), for the prompt-recall
judged set (benchmarks/prompt_recall.py) and its tests.

A spec says what a session did, turn by turn: the prompt typed, the tool calls with their results
(a Bash command's output and exit code, an edit, a read that failed), and the answer. The writer
turns it into the entries the real client writes: typed prompts with `promptId`, streamed assistant
lines (one content block per line, one message id), tool results with `toolUseResult` as 2.1.x
writes it (Bash: stdout/stderr; a failed command: `is_error` and "Exit code N" first), `ai-title`,
`last-prompt` and a `date` attachment. Commits print git's `[branch hash] subject` line, so
capture finds them the way it does in real sessions.

Standard library only; deterministic (ids from uuid5 of the spec's key).
"""
from __future__ import annotations

import json
import uuid
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path

NAMESPACE = uuid.UUID("7b5a3c1e-2f4d-4e6a-9b8c-0d1e2f3a4b5c")
VERSION = "2.1.332"
MODEL = "claude-opus-5-5"


# -- the spec ----------------------------------------------------------------------------------

@dataclass
class Step:
    kind: str                 # bash | edit | write | read | say
    text: str = ""            # bash: the command; edit/write/read: the path; say: the text
    output: str = ""          # bash: the output; read: the content or the error
    exit: int = 0             # bash: the exit code (non-zero: an error result)
    extra: dict = field(default_factory=dict)


def bash(command: str, output: str = "", exit: int = 0) -> Step:
    return Step("bash", command, output, exit)


def commit(message: str, hash7: str, branch: str = "main", files: int = 2) -> Step:
    """`git commit -m MESSAGE` and git's answer (the subject line is what the archive keeps)."""
    subject = message.split("\n", 1)[0]
    quoted = message.replace('"', '\\"')
    return Step("bash", f'git add -A && git commit -m "{quoted}"',
                f"[{branch} {hash7}] {subject}\n {files} files changed, {7 * files + 3} insertions(+), {files + 1} deletions(-)")


def edit(path: str, old: str = "old", new: str = "new") -> Step:
    return Step("edit", path, extra={"old": old, "new": new})


def write(path: str, content: str = "") -> Step:
    return Step("write", path, content)


def read(path: str, content: str = "", error: str = "") -> Step:
    return Step("read", path, error or content, 1 if error else 0)


def say(text: str) -> Step:
    return Step("say", text)


@dataclass
class Turn:
    prompt: str
    steps: list[Step]
    answer: str


@dataclass
class Spec:
    key: str                  # the judged set names sessions by this
    repo: str                 # folder under the world's work/ ("" = the home folder, no repository)
    start: str                # "2026-09-14 10:05" UTC
    title: str                # the ai-title the client would have generated
    turns: list[Turn]
    branch: str = "main"

    @property
    def session_id(self) -> str:
        return str(uuid.uuid5(NAMESPACE, self.key))


def turn(prompt: str, *steps: Step, answer: str) -> Turn:
    return Turn(prompt, list(steps), answer)


# -- the writer ----------------------------------------------------------------------------------

class _Writer:
    def __init__(self, spec: Spec, cwd: str):
        self.spec, self.cwd = spec, cwd
        self.sid = spec.session_id
        self.lines: list[dict] = []
        self.parent: str | None = None
        self.count = 0
        self.clock = datetime.strptime(spec.start, "%Y-%m-%d %H:%M").replace(tzinfo=timezone.utc)
        self.prompt_id = ""

    def _uuid(self) -> str:
        self.count += 1
        return str(uuid.uuid5(NAMESPACE, f"{self.spec.key}/{self.count}"))

    def _stamp(self, seconds: int = 7) -> str:
        self.clock += timedelta(seconds=seconds)
        return self.clock.strftime("%Y-%m-%dT%H:%M:%S.") + f"{self.count % 1000:03d}Z"

    def _entry(self, kind: str, seconds: int = 7, **extra) -> dict:
        uid = self._uuid()
        entry = {"parentUuid": self.parent, "isSidechain": False, "userType": "external", "cwd": self.cwd,
                 "sessionId": self.sid, "version": VERSION, "gitBranch": self.spec.branch, "type": kind,
                 "uuid": uid, "timestamp": self._stamp(seconds), **extra}
        self.parent = uid
        self.lines.append(entry)
        return entry

    def prompt(self, text: str) -> None:
        self.prompt_id = self._uuid()
        self._entry("user", 40, promptId=self.prompt_id, permissionMode="default", promptSource="cli",
                    message={"role": "user", "content": text})
        if len(self.lines) == 1:
            self._entry("attachment", 0, attachment={"type": "date", "date": self.clock.strftime("%Y-%m-%d")})

    def assistant(self, blocks: list[dict]) -> None:
        message_id = f"msg_{self._uuid().replace('-', '')[:24]}"
        for block in blocks:   # streamed: one content block per line
            self._entry("assistant", 3, requestId=f"req_{message_id[4:]}", message={
                "id": message_id, "type": "message", "role": "assistant", "model": MODEL, "content": [block],
                "stop_reason": "tool_use" if block["type"] == "tool_use" else "end_turn", "stop_sequence": None,
                "usage": {"input_tokens": 1200, "output_tokens": 180}})

    def tool(self, name: str, tool_input: dict, content: str, tool_result, *, error: bool = False) -> None:
        tool_id = f"toolu_{self._uuid().replace('-', '')[:24]}"
        self.assistant([{"type": "tool_use", "id": tool_id, "name": name, "input": tool_input}])
        block = {"tool_use_id": tool_id, "type": "tool_result", "content": content}
        if error:
            block["is_error"] = True
        self._entry("user", 5, promptId=self.prompt_id, message={"role": "user", "content": [block]},
                    toolUseResult=tool_result)

    def step(self, step: Step) -> None:
        path = step.text if step.text.startswith("/") else f"{self.cwd}/{step.text}"
        if step.kind == "say":
            self.assistant([{"type": "text", "text": step.text}])
        elif step.kind == "bash":
            tool_input = {"command": step.text, "description": step.text.split(" ", 1)[0]}
            if step.exit:
                content = f"Exit code {step.exit}\n{step.output}"
                self.tool("Bash", tool_input, content, f"Error: {content}", error=True)
            else:
                self.tool("Bash", tool_input, step.output or "(no output)",
                          {"stdout": step.output, "stderr": "", "interrupted": False, "isImage": False})
        elif step.kind == "edit":
            self.tool("Edit", {"file_path": path, "old_string": step.extra["old"], "new_string": step.extra["new"]},
                      f"The file {path} has been updated.",
                      {"filePath": path, "oldString": step.extra["old"], "newString": step.extra["new"]})
        elif step.kind == "write":
            self.tool("Write", {"file_path": path, "content": step.output}, f"File created successfully at: {path}",
                      {"type": "create", "filePath": path, "content": step.output})
        elif step.kind == "read":
            if step.exit:
                self.tool("Read", {"file_path": path}, f"<tool_use_error>{step.output}</tool_use_error>",
                          f"Error: {step.output}", error=True)
            else:
                self.tool("Read", {"file_path": path}, step.output,
                          {"type": "text", "file": {"filePath": path, "content": step.output}})

    def write_session(self) -> list[dict]:
        for item in self.spec.turns:
            self.prompt(item.prompt)
            for step in item.steps:
                self.step(step)
            self.assistant([{"type": "text", "text": item.answer}])
            self.lines.append({"type": "last-prompt", "lastPrompt": item.prompt, "leafUuid": self.parent,
                               "sessionId": self.sid})
        self.lines.append({"type": "ai-title", "aiTitle": self.spec.title, "sessionId": self.sid})
        return self.lines


def transcript_lines(spec: Spec, cwd: str) -> list[dict]:
    return _Writer(spec, cwd).write_session()


def project_slug(cwd: str) -> str:
    """Claude Code's folder name under projects/ for a working directory."""
    return "".join(c if c.isalnum() else "-" for c in cwd)


def write_transcript(spec: Spec, cwd: str, projects_dir: Path) -> Path:
    path = projects_dir / project_slug(cwd) / f"{spec.session_id}.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(line, ensure_ascii=False) + "\n" for line in transcript_lines(spec, cwd)),
                    encoding="utf-8")
    return path
