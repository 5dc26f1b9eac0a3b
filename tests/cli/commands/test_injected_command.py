"""`obsidian_memory.py injected [SESSION]`: what SessionStart and prompt recall injected into a
session and why, as the real hooks (subprocesses) recorded it."""
from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "context" / "recall"))
from recall_kit import KOTLIN, REVISIT, build, hook, injected, new_session, prompt_payload, start_payload  # noqa: E402


@pytest.fixture(scope="module")
def machine(tmp_path_factory):
    return build(tmp_path_factory.mktemp("injected-command"))


def context_of(result) -> str:
    assert result.returncode == 0 and result.stderr == b""
    return json.loads(result.stdout)["hookSpecificOutput"]["additionalContext"]


def test_injected_shows_what_each_hook_gave_the_session_and_why(machine):
    session = new_session()
    start = context_of(hook(machine, "session-start", start_payload(machine, "trailmap-android", session)))
    recalled = injected(hook(machine, "user-prompt", prompt_payload(machine, "trailmap-android", REVISIT, session)))
    assert recalled

    data = json.loads(machine.run("injected", session[:8], "--json").stdout)
    assert data["session_id"] == session
    first, second = data["injected"]
    assert first["event"] == "SessionStart" and first["text"] == start and first["chars"] == len(start)
    assert {s["name"] for s in first["sections"]} == {"state", "learnings", "sessions"}
    assert sum(s["chars"] for s in first["sections"]) <= first["budget"] - first["framing"]
    assert [s["session_id"] for s in first["sessions"]][:1] and first["sessions"][0]["latest"] is True
    assert all(s["session_id"] in start for s in first["sessions"])
    assert second["event"] == "UserPromptSubmit" and second["text"] == recalled and second["prompt"] == REVISIT
    # (a session the SessionStart context listed is not shown again)
    assert set(second["chosen"] + second["already_shown"]) == {machine.session_id(key) for key in KOTLIN}
    assert second["candidates"][0]["score"] == 1.0 and second["reason"].startswith("covers 100%")

    shown = machine.run("injected").stdout.decode()     # the session whose hooks ran last
    assert shown.startswith(f"session {session}\nSessionStart (startup) at ")
    assert f"{len(start):,} of 6,000 characters" in shown and "sessions   weight 35 (" in shown
    assert "prompt recall at " in shown and f"injected {len(recalled):,} characters: covers 100%" in shown
    assert "kotlin 2.73 (kotlin 5)" in shown and "matched: kotlin (title), daemon (title)" in shown
    assert start.splitlines()[0] not in shown and start.splitlines()[0] in machine.run("injected", "--text").stdout.decode()


def test_a_session_with_no_record_or_an_unknown_id_is_one_line(machine):
    done = machine.run("injected", "ffffffff-no-such")
    assert done.returncode == 1 and done.stdout == b"" and len(done.stderr.splitlines()) == 1
    assert b"no record of what was injected into a session 'ffffffff-no-such'" in done.stderr
