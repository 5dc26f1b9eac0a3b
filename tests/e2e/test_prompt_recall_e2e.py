"""Prompt recall in the real Claude Code client (2.1.332 and 2.1.197), offline: a problem solved in one
repository comes back in a new session started in another; the first prompt that names it reaches the
model with the past session attached, and a prompt about something else reaches it with nothing; a
resumed session's prompt gets nothing either."""
from __future__ import annotations

import subprocess

import pytest

from mock_messages_api import tool_use

pytestmark = pytest.mark.e2e

ERROR = "QuetzalSchemaError: column 'wingspan' missing in birds.csv"
COMMIT = "Quetzal importer: default the wingspan column to 0 when birds.csv lacks it"
REVISIT = "The quetzal importer fails again with QuetzalSchemaError, the wingspan column is missing"
LABEL = "Earlier work on this (obsidian-memory prompt recall)"


def _git(*args, cwd) -> None:
    subprocess.run(["git", "-c", "user.name=E2E", "-c", "user.email=e2e@example.invalid", *args], cwd=str(cwd),
                   check=True, capture_output=True)


@pytest.fixture(scope="session")
def solved(world):
    """A session in a second repository that met the error, fixed it and committed, archived by our
    SessionEnd hook."""
    world.ensure_installed()
    aviary = world.user.home / "work" / "aviary"
    aviary.mkdir(parents=True, exist_ok=True)
    if not (aviary / ".git").exists():
        _git("init", "-q", "-b", "main", cwd=aviary)
        _git("commit", "-q", "--allow-empty", "-m", "init", cwd=aviary)
    fail = f'python3 -c "import sys; sys.exit(\\"{ERROR}\\")"'
    steps = [tool_use("Bash", {"command": fail, "description": "Run the importer"}),
             tool_use("Bash", {"command": f'git -c user.name=E2E -c user.email=e2e@example.invalid commit -q '
                                          f'--allow-empty -m "{COMMIT}"', "description": "Commit"}),
             "The importer now defaults a missing wingspan column to 0; committed."]
    run = world.session("Import birds.csv into the quetzal database", steps, "--allowedTools", "Bash", cwd=aviary)
    assert run.result.ok, run.describe()
    assert world.wait_for_note(run.session_id), world.evidence("the solved session was not archived")
    return run


def _recall_context(run) -> list[str]:
    return [text for text in run.hook_additional_context("UserPromptSubmit") if LABEL in text]


def test_a_first_prompt_that_revisits_the_problem_reaches_the_model_with_the_past_session(installed, solved):
    world = installed
    run = world.session(REVISIT, ["I'll apply the same fix as last time."])
    assert run.result.ok, run.describe()
    (context,) = _recall_context(run) or [None]
    assert context, world.evidence("no prompt-recall context was accepted by the client",
                                   run.debug_text()[-3000:])
    assert solved.session_id in context and "why: " in context
    # what came of it, in the block itself: where it stopped and its commit (unless the why line quotes it)
    assert "stopped: The importer now defaults a missing wingspan column to 0" in context, context
    assert COMMIT in context, context
    request = run.main_requests()[0].text()
    assert solved.session_id in request and LABEL in request, "the recalled session did not reach the model"
    assert REVISIT in request
    ours = [t for t in run.our_hook_timings() if t["event"] == "UserPromptSubmit"]   # (2.1.197 logs none)
    assert all(t["status"] == 0 for t in ours), ours


def test_a_prompt_about_something_else_reaches_the_model_with_nothing_recalled(installed, solved):
    world = installed
    run = world.session("What does the README of this repository say?", ["It says: e2e repo."])
    assert run.result.ok, run.describe()
    assert not _recall_context(run)
    assert all(LABEL not in request.text() for request in run.main_requests())
    assert solved.session_id not in run.main_requests()[0].text()   # (its repository is another one)

    resumed = world.session(REVISIT, ["Same as before."], "--resume", run.session_id)   # not a first prompt
    assert resumed.result.ok, resumed.describe()
    assert not _recall_context(resumed)
    assert all(LABEL not in request.text() for request in resumed.main_requests())
