#!/usr/bin/env python3
"""Record a transcript of a session that *does* things, with the real Claude Code client, offline.

usage: python tests/e2e/record_outcomes.py VERSION OUT_DIR
       (the fixture: python tests/e2e/record_outcomes.py 2.1.332 tests/fixtures/transcripts/outcomes-2.1.332)

The session note's outcome parts are extracted from what the client writes when a session
tracks tasks, commits, opens a pull request, runs a failing command and meets errors. This runs, in a
temporary HOME with a git repository as the working directory (and a `gh` stand-in on PATH that prints
the URL `gh pr create` prints), one session of three `claude -p` runs:
  1. "Add a greeting script, commit it and open a pull request.": TaskCreate ×4, TaskUpdate, Write,
     a failing Bash (exit 1), Bash git commit with a heredoc message, Bash `gh pr create`, a subagent
     (its answer must stay out of the note), intermediate text and a final answer;
  2. "Why did the first test run fail?" (resumed): a Read of a missing file (a failed tool result),
     TaskList, a long final answer;
  3. "Plan the README update." (resumed, plan mode): TodoWrite and ExitPlanMode as the model would
     call them (what the client makes of tools it does not offer in `-p` mode is recorded as it is).
The transcript is copied into OUT_DIR with Claude Code's layout, scrubbed and trimmed as
`record_fixtures.py` does. Prints the entry types found.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from claude_code import ClaudeUser, install  # noqa: E402
from mock_messages_api import MockMessagesAPI, text, tool_use  # noqa: E402
from record_fixtures import _check, copy_transcripts, entry_types  # noqa: E402

PR_URL = "https://github.com/example/e2e-repo/pull/7"
GH_STUB = f"""#!/bin/sh
# a stand-in for the GitHub CLI: `gh pr create` prints the new pull request's URL, as the real one does
if [ "$1" = "pr" ] && [ "$2" = "create" ]; then echo "{PR_URL}"; exit 0; fi
echo "gh: unsupported in this recording" >&2; exit 1
"""
COMMIT_MESSAGE = "feat: greeting script with a name argument\n\nPrints 'hello, <name>' (default: world)."
LONG_ANSWER = ("The first test run failed because `tests/test_greet.py` did not exist yet: pytest was asked to "
               "collect a file that was never written, so it stopped with 'file or directory not found' and "
               "exit code 4 before running anything. ") * 6 + "\n\nNext: write the test file, then run it again."


def first_run_steps(repo: Path, agent_tool: str) -> list:
    script = repo / "src" / "greet.py"
    return [
        [text("I'll track the work as tasks first."),
         tool_use("TaskCreate", {"subject": "Write src/greet.py", "description": "A script that greets by name",
                                 "activeForm": "Writing src/greet.py"})],
        tool_use("TaskCreate", {"subject": "Run the tests", "description": "pytest on the new script",
                                "activeForm": "Running the tests"}),
        tool_use("TaskCreate", {"subject": "Commit and open a pull request", "description": "git commit, gh pr create",
                                "activeForm": "Committing"}),
        tool_use("TaskCreate", {"subject": "Ask Dana for a review", "description": "after the PR is open",
                                "activeForm": "Asking for a review"}),
        tool_use("TaskUpdate", {"taskId": "1", "status": "in_progress"}),
        tool_use("Write", {"file_path": str(script),
                           "content": "import sys\n\nprint(f\"hello, {sys.argv[1] if len(sys.argv) > 1 else 'world'}\")\n"}),
        tool_use("TaskUpdate", {"taskId": "1", "status": "completed"}),
        tool_use("Bash", {"command": "python3 -m pytest -q tests/test_greet.py", "description": "run the tests"}),
        [text("The test file does not exist yet; checking the script by hand instead."),
         tool_use("Bash", {"command": "python3 src/greet.py Dana", "description": "try the script"})],
        tool_use(agent_tool, {"description": "Review the script", "prompt": "Review src/greet.py in one sentence.",
                              "subagent_type": "general-purpose", "run_in_background": False}),
        "SUBAGENT-CHATTER: the script looks fine to me.",   # the subagent's answer
        tool_use("TaskUpdate", {"taskId": "2", "status": "completed"}),
        tool_use("Bash", {"command": f"git add src/greet.py && git commit -m \"$(cat <<'EOF'\n{COMMIT_MESSAGE}\nEOF\n)\"",
                          "description": "commit"}),
        tool_use("Bash", {"command": "gh pr create --title 'Greeting script' --body 'Adds src/greet.py'",
                          "description": "open a pull request"}),
        tool_use("TaskUpdate", {"taskId": "3", "status": "completed"}),
        f"Done: src/greet.py greets by name, committed, and the pull request is open at {PR_URL}.",
    ]


def second_run_steps(repo: Path) -> list:
    return [
        tool_use("Read", {"file_path": str(repo / "tests" / "test_greet.py")}),
        tool_use("TaskList", {}),
        LONG_ANSWER,
    ]


def third_run_steps() -> list:
    plan = "## Plan\n1. Add a Usage section to README.md\n2. Show `python3 src/greet.py Dana`"
    return [
        tool_use("TodoWrite", {"todos": [
            {"content": "Add a Usage section", "status": "completed", "activeForm": "Adding a Usage section"},
            {"content": "Show an example run", "status": "pending", "activeForm": "Showing an example run"}]}),
        tool_use("ExitPlanMode", {"plan": plan}),
        "The plan is ready: a Usage section with one example run.",
    ]


def record(version: str, out_dir: Path) -> dict:
    binary = install(version)
    with tempfile.TemporaryDirectory(prefix="cc-e2e-rec-") as tmp:
        user = ClaudeUser(Path(tmp), binary, version)
        bin_dir = user.root / "bin"
        bin_dir.mkdir()
        gh = bin_dir / "gh"
        gh.write_text(GH_STUB, encoding="utf-8")
        gh.chmod(0o755)
        path = f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}"
        git_identity = {"GIT_AUTHOR_NAME": "E2E", "GIT_AUTHOR_EMAIL": "e2e@example.invalid",
                        "GIT_COMMITTER_NAME": "E2E", "GIT_COMMITTER_EMAIL": "e2e@example.invalid"}
        with MockMessagesAPI(fallback="OK.") as api:
            api.script([])
            probe = user.run("Say OK.", api.base_url, "--no-session-persistence")
            _check(probe, "probe")
            names = api.main_requests()[0].tool_names
            agent_tool = "Agent" if "Agent" in names else "Task"
            api.script(first_run_steps(user.repo, agent_tool))
            first = user.run("Add a greeting script, commit it and open a pull request.", api.base_url,
                             "-n", "fixture outcomes", "--allowedTools",
                             f"Bash Write Read Edit TaskCreate TaskUpdate TaskList {agent_tool}",
                             PATH=path, **git_identity)
            _check(first, "first run")
            api.script(second_run_steps(user.repo))
            second = user.run("Why did the first test run fail?", api.base_url, "--resume", first.session_id,
                              "--allowedTools", "Read TaskList", PATH=path)
            _check(second, "second run")
            api.script(third_run_steps())
            third = user.run("Plan the README update.", api.base_url, "--resume", first.session_id,
                             "--permission-mode", "plan", "--allowedTools", "TodoWrite ExitPlanMode", PATH=path)
            if not third.ok:
                print(f"third run: {third.describe()}", file=sys.stderr)
        copied = copy_transcripts(user, {first.session_id}, out_dir, Path(tmp))
        return {"files": copied, "types": entry_types(copied)}


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("version")
    parser.add_argument("out_dir", type=Path)
    args = parser.parse_args(argv)
    report = record(args.version, args.out_dir)
    print(json.dumps({"files": [str(p) for p in report["files"]], "types": report["types"]}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
