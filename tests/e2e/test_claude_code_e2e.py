"""obsidian-memory in the real Claude Code client (2.1.332 and 2.1.197), offline, against the scripted
model server: install, archive, context, the skill, compaction, uninstall (scenarios 1-5).

The scenarios share one machine per client version and run in this order, as a person would:
session 1, session 2 with context, a skill search, /compact on session 1 resumed, uninstall.
"""
from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest
import yaml

from mock_messages_api import tool_use
from obsidian_memory.setup.install import HOOKS
from obsidian_memory.core.settings import CONTEXT_BUDGET_HARD_CAP, DEFAULT_CONTEXT_BUDGET
from world import FIRST_PROMPT, FIRST_TITLE, OWN_MARK, skill_read_command, skill_search_command

pytestmark = pytest.mark.e2e

STATE = "Moving the zebrafish cache to Redis (STATE-4242)"
LEARNING = "Warm every cache before the first request (LEARN-5151)"
SUMMARY_MARK = "ZEBRA-SUMMARY-7781"
# Text that only the client's newer bookkeeping entries carry (attachment, api-request*, last-prompt,
# cost-state, ...): none of it belongs in a note.
LEAKS = ("SessionStart hook additional context", "hookSpecificOutput", "hook_success", "lastPrompt",
         "totalCostUSD", "api-request", "prompt_snapshot", "skill_listing", "deferred_tools", "atis",
         "You are an agent working with the user", "Primary working directory", "<system-reminder>",
         "Co-Authored-By", "queue-operation", "cost-state", "last-prompt", "gitStatus", "x-anthropic-billing")


def _frontmatter(text: str) -> dict:
    match = re.match(r"---\n(.*?)\n---\n", text, re.S)
    assert match, f"the note has no YAML frontmatter:\n{text[:500]}"
    return yaml.safe_load(match.group(1)) or {}


def _history_rows(world, note_stem: str) -> list[str]:
    history = world.user.vault / "Meta" / "claude-session-history.md"
    assert history.exists(), world.evidence("Meta/claude-session-history.md was not written")
    return [line for line in history.read_text(encoding="utf-8").splitlines() if f"[[{note_stem}" in line]


def _sessions_json(world) -> list[dict]:
    done = world.om("sessions", "--json")
    assert done.returncode == 0, world.evidence(f"sessions --json failed: {done.stderr}")
    data = json.loads(done.stdout)
    return data if isinstance(data, list) else data.get("sessions") or data.get("results") or []


def test_first_session_is_archived_as_one_note_with_its_title_and_prompt(installed, first_session):
    world, run = installed, first_session
    session_id = run.session_id
    assert not run.result.permission_denials, run.describe()

    notes = world.wait_for_note(session_id)
    assert len(notes) == 1, world.evidence(f"expected one note for {session_id}, found {notes}")
    note = notes[0]
    relative = note.relative_to(world.user.vault).as_posix()
    assert re.fullmatch(rf"Meta/claude-sessions/\d{{4}}-\d{{2}}/\d{{4}}-\d{{2}}-\d{{2}}_{session_id[:8]}\.md", relative)
    text = note.read_text(encoding="utf-8")
    meta = _frontmatter(text)
    assert meta.get("title") == FIRST_TITLE, text[:800]
    assert str(meta.get("session_id")) == session_id, text[:800]
    assert f"# {FIRST_TITLE}" in text
    assert FIRST_PROMPT in text
    assert f"claude --resume {session_id}" in text
    assert "cache.py" in text, "the file the session wrote and edited is not listed"

    leaked = [marker for marker in LEAKS if marker in text]
    injected = [c for c in run.hook_additional_context() if c.strip() and c.strip() in text]
    assert not leaked and not injected, f"bookkeeping leaked into the note: {leaked} {injected[:1]}\n{text}"

    rows = [s for s in _sessions_json(world) if s.get("session_id") == session_id]
    assert len(rows) == 1, world.evidence(f"archive rows for {session_id}: {rows}")
    assert rows[0].get("title") == FIRST_TITLE
    assert rows[0].get("prompt_count") == 1, f"only the typed prompt is a prompt: {rows[0]}"
    assert str(rows[0].get("note_path", "")).endswith(note.name)
    history = _history_rows(world, note.stem)
    assert len(history) == 1 and FIRST_TITLE in history[0], history


def test_second_session_starts_with_context_naming_session_one_the_state_and_the_learning(installed, first_session):
    world = installed
    for command in (("state", "set", STATE), ("learn", LEARNING)):
        done = world.om(*command)
        assert done.returncode == 0, world.evidence(f"{command[0]} failed: {done.stdout} {done.stderr}")

    run = world.session("What was I working on?", ["You were moving the zebrafish cache to Redis."])
    assert run.result.ok, run.describe()

    context = "\n".join(run.hook_additional_context())
    assert context, world.evidence("no SessionStart context was accepted by the client", run.debug_text()[-2000:])
    first_request = run.main_requests()[0].text()
    for piece in run.hook_additional_context():
        assert piece in first_request, "the context the client accepted did not reach the model"
    assert first_session.session_id in context, f"session 1's resume id is missing from the context:\n{context}"
    assert FIRST_TITLE in context, f"session 1's title is missing from the context:\n{context}"
    assert "STATE-4242" in context, f"the working state is missing from the context:\n{context}"
    assert "LEARN-5151" in context, f"the learning is missing from the context:\n{context}"
    assert len(context) <= min(DEFAULT_CONTEXT_BUDGET, CONTEXT_BUDGET_HARD_CAP), (
        f"context of {len(context)} characters exceeds the default budget of {DEFAULT_CONTEXT_BUDGET}")


@pytest.fixture(scope="session")
def skill_run(world, first_session):
    """Scenario 3's session, run once: the model calls `Skill` vault-search, then `Bash` with the search
    command exactly as the installed SKILL.md teaches it, for a word of session 1, then `Bash` with the
    skill's `read` command for session 1's note (the path as the search prints it). No `--allowedTools`:
    what the user has after install.sh is what must approve it."""
    world.ensure_installed()
    assert world.skill_md.exists(), world.evidence("the vault-search skill was not installed")
    skill_text = world.skill_md.read_text(encoding="utf-8")
    command = skill_search_command(skill_text, "zebrafish")
    notes = world.notes_of(first_session.session_id)
    assert notes, world.evidence("session 1 has no note to find and read")
    read = skill_read_command(skill_text, notes[0].relative_to(world.user.vault).as_posix())
    skill_call = tool_use("Skill", {"skill": "vault-search"})
    bash_call = tool_use("Bash", {"command": command, "description": "Search the vault"})
    read_call = tool_use("Bash", {"command": read, "description": "Read the best hit"})
    run = world.session("Search my notes for the zebrafish cache fix", [skill_call, bash_call, read_call, "Found it."])
    assert run.result.ok, run.describe()
    results = {r["tool_use_id"]: r for request in run.main_requests() for r in request.tool_results()}
    return run, command, results.get(skill_call["id"]), results.get(bash_call["id"]), (read, results.get(read_call["id"]))


def _denied(run, tool: str) -> list:
    return [d for d in run.result.permission_denials if d.get("tool_name") == tool]


def test_skill_search_command_runs_without_a_permission_denial_and_finds_session_one(installed, first_session,
                                                                                      skill_run):
    world, (run, command, _, output, _read) = installed, skill_run
    assert "vault-search" in run.main_requests()[0].text(), "the skill is not listed to the model"
    assert not _denied(run, "Bash"), f"the skill's search command was denied: {_denied(run, 'Bash')}"
    assert output is not None, f"the search command never returned a result; command: {command}"
    assert not output["is_error"], f"{command}\n{output['content']}"
    notes = world.notes_of(first_session.session_id)
    assert notes, world.evidence(f"session 1 has no note to find; the search printed:\n{output['content']}")
    note_stem = notes[0].stem
    assert note_stem in output["content"], world.evidence(f"{command}\n--- tool result:\n{output['content']}")


def test_reading_the_hit_the_search_found_needs_no_permission_and_gives_the_note(installed, first_session, skill_run):
    """The loop's second step: the hit is read with the skill's pre-approved `read` (the Read tool would
    ask, and in `-p` mode refuse, for a note outside the project)."""
    _world, (run, _command, _skill, _search, (read, output)) = installed, skill_run
    assert not _denied(run, "Bash"), f"a Bash call of the skill was denied: {_denied(run, 'Bash')}"
    assert output is not None, f"the read command never returned a result; command: {read}"
    assert not output["is_error"], f"{read}\n{output['content']}"
    content = output["content"]
    assert FIRST_PROMPT in content and f"claude --resume {first_session.session_id}" in content, content[:2000]


def test_invoking_the_vault_search_skill_needs_no_permission(installed, skill_run):
    run, _command, skill_result, _output, _read = skill_run
    assert not _denied(run, "Skill"), (
        "Claude Code denied the Skill call (in an interactive session it asks the user): a skill with "
        "`allowed-tools` needs `Skill(vault-search)` in permissions.allow on both versions; "
        f"denials: {run.result.permission_denials}")
    assert skill_result is not None and not skill_result["is_error"], skill_result


def test_compact_on_a_resumed_session_stores_the_summary_in_its_one_note(installed, first_session):
    world, session_id = installed, first_session.session_id
    summary = (f"<analysis>The user fixed the zebrafish cache.</analysis>\n<summary>1. Primary Request and "
               f"Intent: fix the zebrafish cache warmup in src/cache.py ({SUMMARY_MARK}).</summary>")
    run = world.session("/compact keep the zebrafish details", [], "--resume", session_id, summary=summary)
    assert run.result.ok, run.describe()

    fired = [(h.get("hook_event_name"), h.get("source") or h.get("trigger")) for h in run.user_hooks
             if h.get("session_id") == session_id]
    for event in (("PreCompact", "manual"), ("SessionStart", "compact"), ("PostCompact", "manual")):
        assert event in fired, f"{event} did not fire; fired: {fired}"
    post = [h for h in run.user_hooks if h.get("hook_event_name") == "PostCompact"]
    assert SUMMARY_MARK in post[0].get("compact_summary", ""), post

    failing = [t for t in run.our_hook_timings() if t["status"] != 0]
    assert not failing, f"our hooks exited non-zero: {failing}"
    assert world.archive_rows_containing(SUMMARY_MARK), world.evidence("the compact summary is not in the archive")
    notes = world.wait_for_note(session_id)
    assert len(notes) == 1, world.evidence(f"expected exactly one note for {session_id}: {notes}")
    text = notes[0].read_text(encoding="utf-8")
    assert SUMMARY_MARK in text, world.evidence("the note does not show the summary")
    assert len(_history_rows(world, notes[0].stem)) == 1
    # one prompt, one compaction, whatever order the hooks and the transcript arrive in
    (row,) = [s for s in _sessions_json(world) if s.get("session_id") == session_id]
    assert row.get("prompt_count") == 2, f"two typed prompts (the first and /compact): {row}"
    assert text.count("keep the zebrafish details") == 1, world.evidence(f"the /compact prompt is not listed once:\n{text}")
    assert text.count(SUMMARY_MARK) == 1, world.evidence(f"the one compaction is not shown once:\n{text}")
    assert "lacks" not in world.log_text(), world.log_text()[-2000:]


def test_the_hooks_are_written_in_exec_form_and_the_client_runs_them_without_a_shell(installed):
    """settings.json names an interpreter and an argument list (no shell between the client and us, the
    form that survives Windows quoting); both pinned clients run it: SessionStart's context arrives, and
    the session end runs our launcher with its arguments and sees it exit 0."""
    world = installed
    ours = [h for groups in world.user.settings()["hooks"].values() for group in groups for h in group["hooks"]
            if OWN_MARK in json.dumps(h)]
    assert len(ours) == len(HOOKS) and all(isinstance(h.get("args"), list) and OWN_MARK in h["args"][1]
                                  and Path(h["command"]).is_file() for h in ours), ours
    run = world.session("Anything to remember?", ["Nothing new."])
    assert run.result.ok, run.describe()
    assert any("# Memory from the Obsidian vault" in c for c in run.hook_additional_context())
    ends = [t for t in run.our_hook_timings() if t["event"] == "SessionEnd"]
    assert ends and all(t["status"] == 0 and "hook archive" in t["command"] for t in ends), run.our_hook_timings()


def test_uninstall_then_a_session_gets_no_context_no_note_and_the_users_settings_are_as_before(installed, first_session):
    world = installed
    # the MCP server, added as the README says: the uninstall names the one command that removes it
    mcp_add = [str(world.user.binary), "mcp", "add", "--scope", "user", "obsidian-memory", "--",
               str(world.venv_python), str(world.our_home / "bin" / "obsidian_memory.py"), "mcp"]
    assert subprocess.run(mcp_add, capture_output=True, env=world.environ(), cwd=str(world.user.repo),
                          timeout=120, stdin=subprocess.DEVNULL).returncode == 0
    done = world.uninstall()
    assert done.returncode == 0, f"./install.sh --uninstall --yes failed:\n{done.stdout}\n{done.stderr}"
    [command] = re.findall(r"`(claude mcp remove [^`]*)` removes it", done.stdout) or [done.stdout]
    removed = subprocess.run(["sh", "-c", command.replace("claude", f'"{world.user.binary}"', 1)], capture_output=True,
                             text=True, env=world.environ(), cwd=str(world.user.repo), timeout=120,
                             stdin=subprocess.DEVNULL)
    assert removed.returncode == 0, removed.stdout + removed.stderr
    listed = subprocess.run([str(world.user.binary), "mcp", "list"], capture_output=True, text=True,
                            env=world.environ(), cwd=str(world.user.repo), timeout=120, stdin=subprocess.DEVNULL)
    assert "obsidian-memory" not in listed.stdout, listed.stdout
    assert world.user.settings_path.read_bytes() == world.settings_before, world.user.settings_path.read_text()
    assert world.claude_md.read_bytes() == world.claude_md_before, world.claude_md.read_text()
    assert not world.skill_md.exists(), "the skill is still installed"

    vault_before = world.vault_snapshot()
    run = world.session("Hello again.", ["Hello."])
    assert run.result.ok, run.describe()

    reached = run.all_text()
    ours = [mark for mark in (first_session.session_id, "STATE-4242", "LEARN-5151", "vault-search",
                              "search the Obsidian vault", FIRST_TITLE) if mark in reached]
    assert not ours, f"context of ours still reached the model after uninstall: {ours}"
    assert not run.hook_additional_context(), run.hook_additional_context()
    assert any(h.get("session_id") == run.session_id for h in run.user_hooks), "the user's own hooks stopped running"
    assert not world.notes_of(run.session_id), "a note was written after uninstall"
    assert world.vault_snapshot() == vault_before, "the vault changed after uninstall"
    assert not world.archive_rows_containing(run.session_id), "the session was archived after uninstall"
