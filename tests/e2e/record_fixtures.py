#!/usr/bin/env python3
"""Record fresh transcripts and hook payloads with the real Claude Code client, offline.

usage: python tests/e2e/record_fixtures.py VERSION OUT_DIR [--hooks-dir DIR]

Runs, in a temporary HOME with a git repository as the working directory and a logging hook on every
event: (1) a named session (`-n`) with Bash, Write, Read and Edit calls and a subagent (`Agent` /
`Task`), (2) `/compact` on that session resumed, (3) one more prompt after the compaction. Copies the
transcripts into OUT_DIR with Claude Code's layout (`<session-id>.jsonl`,
`<session-id>/subagents/agent-*.jsonl`), with the temporary root replaced by `/tmp/cc-e2e` and the
interpreter path by `python3`, and (with --hooks-dir) one payload per hook event as
`cc-<VERSION>_<Event>[-<source>].json`. Prints the entry types found.
"""
from __future__ import annotations

import argparse
import collections
import json
import re
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from claude_code import ClaudeUser, install, read_jsonl  # noqa: E402
from mock_messages_api import MockMessagesAPI, tool_use  # noqa: E402

STABLE_ROOT = "/tmp/cc-e2e"
BULKY_TYPES = {"prompt_snapshot", "api-request-shape", "api-request-blob", "skill_listing", "agent_listing_delta",
               "deferred_tools_delta"}
TRIM_LIMIT = 300
TRIM_ITEMS = 5
LOGGED_EVENTS = ("SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop", "SubagentStart",
                 "SubagentStop", "PreCompact", "PostCompact", "SessionEnd", "Notification")
LOGGER = """import json, sys, time
payload = json.loads(sys.stdin.buffer.read().decode("utf-8"))
with open(sys.argv[1], "a", encoding="utf-8") as log:
    log.write(json.dumps({"received_at": time.time(), "payload": payload}) + "\\n")
if payload.get("hook_event_name") == "SessionStart":
    print(json.dumps({"hookSpecificOutput": {"hookEventName": "SessionStart",
                                             "additionalContext": "FIXTURE-CONTEXT from the logging hook"}}))
"""
SUMMARY = ("<analysis>The user asked for a greeting script.</analysis>\n<summary>1. Primary Request and Intent: "
           "write src/greet.py that prints a greeting, then rename the greeting to 'hello, fixtures'.\n"
           "2. Files and Code Sections: src/greet.py, notes.txt.</summary>")


def write_logging_hooks(user: ClaudeUser, python: str, log: Path) -> None:
    script = user.root / "log_hook.py"
    script.write_text(LOGGER, encoding="utf-8")
    handler = {"type": "command", "command": f'"{python}" "{script}" "{log}"', "timeout": 30}
    hooks = {event: [{"hooks": [handler]}] for event in LOGGED_EVENTS}
    hooks["SessionStart"] = [{"matcher": "startup|resume|clear|compact", "hooks": [handler]}]
    user.settings_path.write_text(json.dumps({"hooks": hooks}, indent=2), encoding="utf-8")


def agent_tool_name(api: MockMessagesAPI) -> str:
    names = api.main_requests()[0].tool_names if api.main_requests() else []
    return "Agent" if "Agent" in names else "Task"


def first_session_steps(user: ClaudeUser, subagent_tool: str) -> list:
    app = user.repo / "src" / "greet.py"
    return [
        tool_use("Bash", {"command": "echo 'fixture notes' > notes.txt && ls", "description": "write notes"}),
        tool_use("Write", {"file_path": str(app), "content": "print('hello')\n"}),
        tool_use("Read", {"file_path": str(app)}),
        tool_use("Edit", {"file_path": str(app), "old_string": "hello", "new_string": "hello, fixtures"}),
        tool_use(subagent_tool, {"description": "Count files", "prompt": "Count the files in this repository.",
                                 "subagent_type": "general-purpose",
                                 "run_in_background": False}),  # in the foreground: the script's order holds
        "The repository has 3 files.",      # the subagent's answer
        "Done: src/greet.py prints 'hello, fixtures'.",
    ]


def record(version: str, out_dir: Path, hooks_dir: Path | None, request_log: Path | None = None) -> dict:
    binary = install(version)
    python = sys.executable
    with tempfile.TemporaryDirectory(prefix="cc-e2e-rec-") as tmp:
        user = ClaudeUser(Path(tmp), binary, version)
        hook_log = user.root / "hooks.jsonl"
        write_logging_hooks(user, python, hook_log)
        log = str(request_log) if request_log else None
        with MockMessagesAPI(fallback="OK.", summary=SUMMARY, log_path=log) as api:
            probe_tool = _probe_agent_tool(user, api)
            hook_log.write_text("", encoding="utf-8")  # keep only the recorded session's payloads
            api.script(first_session_steps(user, probe_tool))
            first = user.run("Write a greeting script in src/greet.py and count the files.", api.base_url,
                             "-n", "fixture greeting script",
                             "--allowedTools", f"Bash Write Read Edit {probe_tool}")
            _check(first, "first session")
            api.script([])
            compact = user.run("/compact keep the file names", api.base_url, "--resume", first.session_id)
            _check(compact, "compaction")
            api.script(["Still here after the compaction."])
            after = user.run("What did we change?", api.base_url, "--resume", first.session_id)
            _check(after, "prompt after compaction")
        sessions = {first.session_id}
        copied = copy_transcripts(user, sessions, out_dir, Path(tmp))
        hooks = [json.loads(line)["payload"] for line in hook_log.read_text(encoding="utf-8").splitlines()]
        if hooks_dir:
            save_hook_payloads(hooks, version, hooks_dir, Path(tmp), python)
        return {"files": copied, "types": entry_types(copied), "hooks": [_hook_key(h) for h in hooks]}


def _probe_agent_tool(user: ClaudeUser, api: MockMessagesAPI) -> str:
    """Ask once with no steps to learn the subagent tool's name (`Agent` on new versions, `Task` before)."""
    api.script([])
    probe = user.run("Say OK.", api.base_url, "--no-session-persistence")
    _check(probe, "probe")
    name = agent_tool_name(api)
    api.clear_requests()
    return name


def _check(result, what: str) -> None:
    if not result.ok:
        raise SystemExit(f"{what} failed: {result.describe()}")


def scrub(text: str, tmp_root: Path, python: str | None = None) -> str:
    root = str(tmp_root)
    text = text.replace(root, STABLE_ROOT).replace(re.sub(r"[^A-Za-z0-9]", "-", root), re.sub(r"[^A-Za-z0-9]", "-", STABLE_ROOT))
    if python:
        text = text.replace(python, "python3")
    return text


def copy_transcripts(user: ClaudeUser, session_ids: set[str], out_dir: Path, tmp_root: Path) -> list[Path]:
    copied = []
    for session_id in session_ids:
        transcript = user.transcript(session_id)
        sources = [transcript, *sorted((transcript.parent / session_id / "subagents").glob("*"))]
        for source in sources:
            relative = source.relative_to(transcript.parent)
            target = out_dir / relative
            target.parent.mkdir(parents=True, exist_ok=True)
            text = scrub(source.read_text(encoding="utf-8"), tmp_root, sys.executable)
            target.write_text(trim_jsonl(text) if source.suffix == ".jsonl" else text, encoding="utf-8")
            copied.append(target)
    return copied


def trim_jsonl(text: str) -> str:
    """Shorten the bulky client-internal blobs (system prompt snapshots, request shapes, skill listings)
    to keep the fixture small; every entry and every key stays, only long strings are cut."""
    lines = []
    for line in text.splitlines():
        try:
            entry = json.loads(line)
        except ValueError:
            continue
        if entry.get("type") in BULKY_TYPES or (entry.get("attachment") or {}).get("type") in BULKY_TYPES:
            entry = _cut_strings(entry)
        lines.append(json.dumps(entry, ensure_ascii=False, separators=(",", ":")))
    return "\n".join(lines) + "\n"


def _cut_strings(value, limit: int = TRIM_LIMIT):
    if isinstance(value, str) and len(value) > limit:
        return value[:limit] + f"...[trimmed {len(value) - limit} chars]"
    if isinstance(value, list):
        kept = [_cut_strings(item, limit) for item in value[:TRIM_ITEMS]]
        return kept + ([f"...[trimmed {len(value) - TRIM_ITEMS} items]"] if len(value) > TRIM_ITEMS else [])
    if isinstance(value, dict):
        return {key: _cut_strings(item, limit) for key, item in value.items()}
    return value


def _hook_key(payload: dict) -> str:
    event = payload.get("hook_event_name", "unknown")
    detail = payload.get("source") if event == "SessionStart" else None
    return f"{event}-{detail}" if detail and detail != "startup" else event


def save_hook_payloads(hooks: list[dict], version: str, hooks_dir: Path, tmp_root: Path, python: str) -> None:
    hooks_dir.mkdir(parents=True, exist_ok=True)
    seen = set()
    for payload in hooks:
        key = _hook_key(payload)
        if key in seen:
            continue
        seen.add(key)
        text = scrub(json.dumps(payload, indent=2, ensure_ascii=False), tmp_root, python)
        (hooks_dir / f"cc-{version}_{key}.json").write_text(text + "\n", encoding="utf-8")


def entry_types(files: list[Path]) -> dict:
    found = collections.defaultdict(collections.Counter)
    for path in files:
        for entry in read_jsonl(path):
            kind = entry.get("type", "?")
            sub = entry.get("subtype") or (entry.get("attachment") or {}).get("type") if kind in ("system", "attachment") else None
            found[path.name][f"{kind}:{sub}" if sub else kind] += 1
    return {name: dict(counter) for name, counter in found.items()}


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("version")
    parser.add_argument("out_dir", type=Path)
    parser.add_argument("--hooks-dir", type=Path)
    parser.add_argument("--request-log", type=Path, help="append every request the server receives here")
    args = parser.parse_args(argv)
    report = record(args.version, args.out_dir, args.hooks_dir, args.request_log)
    print(json.dumps({"files": [str(p) for p in report["files"]], "types": report["types"],
                      "hooks": report["hooks"]}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
