"""A memory the user steers and can check, in the real Claude Code client (2.1.332 and 2.1.197),
offline: `injected` shows what a session was given and why, exactly as the client accepted it; a
session started with `OBSIDIAN_MEMORY=off` gets nothing injected and is never archived."""
from __future__ import annotations

import json

import pytest

from world import FIRST_PROMPT

pytestmark = pytest.mark.e2e

OUR_HEADER = "# Memory from the Obsidian vault"
RECALL_LABEL = "Earlier work on this (obsidian-memory prompt recall)"
REVISIT = FIRST_PROMPT + " again: the warmup is cold once more"


@pytest.fixture(scope="session")
def remembered(world, first_session):
    """A session with memory on, whose first prompt revisits session 1."""
    world.ensure_installed()
    run = world.session(REVISIT, ["Looking."])
    assert run.result.ok, run.describe()
    assert first_session.session_id in "\n".join(run.hook_additional_context()), "the test needs context to show"
    return run


def test_injected_shows_what_the_client_accepted_and_why(installed, first_session, remembered):
    world, run = installed, remembered
    done = world.om("injected", run.session_id, "--json")
    assert done.returncode == 0, done.stderr
    records = json.loads(done.stdout)["injected"]
    starts = [r for r in records if r["event"] == "SessionStart"]
    accepted = run.hook_additional_context("SessionStart")
    assert [r["text"] for r in starts] == [text for text in accepted if OUR_HEADER in text], (records, accepted)
    assert first_session.session_id in [s["session_id"] for s in starts[0]["sessions"]]
    recalls = [r for r in records if r["event"] == "UserPromptSubmit"]
    assert len(recalls) == 1 and recalls[0]["prompt"] == REVISIT and recalls[0]["reason"]
    # session 1 was listed by the context already: recall does not show it twice, and says so
    assert first_session.session_id not in recalls[0]["chosen"] and first_session.session_id not in recalls[0]["text"]
    assert recalls[0]["already_shown"] == [first_session.session_id], recalls[0]
    assert "shown in this session already" in recalls[0]["reason"]
    assert recalls[0]["chars"] == 0 or recalls[0]["text"] in run.hook_additional_context("UserPromptSubmit")
    shown = world.om("injected", run.session_id[:8]).stdout
    assert "SessionStart (startup)" in shown and f"{len(starts[0]['text']):,} of 6,000 characters" in shown


def test_a_session_started_with_memory_off_gets_no_memory_and_leaves_no_archive(installed, first_session, remembered):
    world = installed
    vault_before = world.vault_snapshot()
    off = world.session(REVISIT, ["Looking, without memory."], env={"OBSIDIAN_MEMORY": "off"})
    assert off.result.ok, off.describe()
    given = off.hook_additional_context("SessionStart") + off.hook_additional_context("UserPromptSubmit")
    assert not [text for text in given if OUR_HEADER in text or RECALL_LABEL in text], given
    assert all(first_session.session_id not in request.text() for request in off.main_requests())
    # not archived by its own hooks, nor later by a sweep or an import run without the variable
    for args in (("sweep", "--quiet-seconds", "0"), ("import",)):
        done = world.om(*args)
        assert done.returncode == 0, done.stderr
    kept = [table for table, _row in world.archive_rows_containing(off.session_id) if table != "transcripts"]
    assert not world.notes_of(off.session_id) and not kept, kept   # (transcripts: "excluded", for good)
    assert off.session_id not in [s["session_id"] for s in json.loads(world.om("sessions", "--json").stdout)]
    changed = {name for name, data in world.vault_snapshot().items() if vault_before.get(name) != data}
    assert not [name for name in changed if off.session_id[:8] in name], changed
    assert world.om("injected", off.session_id).returncode == 1   # nothing was recorded of it either
