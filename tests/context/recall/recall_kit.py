"""A machine whose archive holds the prompt-recall judged set's sessions (benchmarks/recall_set:
transcripts in Claude Code's shape, archived by the real `import`), and the prompt hook run on it
as Claude Code runs it: a subprocess fed a real UserPromptSubmit payload."""
from __future__ import annotations

import json
import subprocess
import sys
import uuid

from testkit import FIXTURES, REPO

sys.path.insert(0, str(REPO / "benchmarks" / "recall_set"))

import recall_corpus as corpus  # noqa: E402
import recall_transcripts as transcripts  # noqa: E402
import recall_world  # noqa: E402

PAYLOAD = FIXTURES / "hooks" / "cc-2.1.332_UserPromptSubmit.json"
SESSION_START = FIXTURES / "hooks" / "cc-2.1.332_SessionStart.json"
KOTLIN = ("and-kotlin-daemon", "and-kotlin-daemon-2")
REVISIT = "the kotlin daemon error is back"
UNRELATED = "Add a dark theme toggle to the settings screen"


def build(root, *, specs=None, fillers: int = 0):
    """The judged set's machine (all corpus sessions unless `specs`), archived by `import`."""
    if specs is None:
        return recall_world.build(root, fillers=fillers)
    machine = recall_world.World(root, recall_world.environment(root), list(specs))
    for folder in (machine.config_dir, machine.vault):
        folder.mkdir(parents=True, exist_ok=True)
    for repo in {spec.repo for spec in specs if spec.repo}:
        recall_world.make_repository(root / "work" / repo)
    for spec in specs:
        transcripts.write_transcript(spec, machine.cwd(spec.repo), machine.config_dir / "projects")
    done = machine.run("import")
    assert done.returncode == 0, done.stderr.decode()
    return machine


def spec(key: str):
    return next(s for s in corpus.SESSIONS if s.key == key)


def new_session() -> str:
    return str(uuid.uuid4())


def prompt_payload(machine, repo: str, prompt, session_id: str, **changes) -> dict:
    data = json.loads(PAYLOAD.read_text(encoding="utf-8"))
    data.update(cwd=machine.cwd(repo), prompt=prompt, session_id=session_id,
                transcript_path=str(machine.config_dir / "projects" / "x" / f"{session_id}.jsonl"), **changes)
    return data


def start_payload(machine, repo: str, session_id: str, source: str = "startup") -> dict:
    data = json.loads(SESSION_START.read_text(encoding="utf-8"))
    data.update(cwd=machine.cwd(repo), session_id=session_id, source=source)
    return data


def hook(machine, event: str, payload, *, env: dict | None = None) -> subprocess.CompletedProcess:
    data = payload if isinstance(payload, bytes) else json.dumps(payload).encode("utf-8")
    return subprocess.run([sys.executable, str(recall_world.CLI), "hook", event], input=data, capture_output=True,
                          env={**machine.env, **(env or {})}, cwd=str(machine.root), timeout=60)


def injected(result: subprocess.CompletedProcess) -> str | None:
    """The additionalContext of a prompt hook run (None when it printed nothing), after checking
    the contract: exit 0, nothing on stderr, stdout empty or exactly the documented object."""
    assert result.returncode == 0, result.stderr
    assert result.stderr == b""
    if not result.stdout:
        return None
    output = json.loads(result.stdout.decode("utf-8"))
    assert list(output) == ["hookSpecificOutput"]
    assert list(output["hookSpecificOutput"]) == ["hookEventName", "additionalContext"]
    assert output["hookSpecificOutput"]["hookEventName"] == "UserPromptSubmit"
    return output["hookSpecificOutput"]["additionalContext"]


def ask(machine, repo: str, prompt: str, session_id: str | None = None, **env) -> str | None:
    return injected(hook(machine, "user-prompt", prompt_payload(machine, repo, prompt, session_id or new_session()),
                         env=env or None))


def set_mode(machine, mode: str) -> None:
    config = machine.config_dir / "obsidian-memory" / "config.yaml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(f"prompt_recall: {mode}\n", encoding="utf-8")
