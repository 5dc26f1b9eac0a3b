"""What the pre-approved commands let an agent do in the real Claude Code client (2.1.332 and
2.1.197), offline against the scripted model: a shell glob over a folder outside the vault runs
without a prompt (the search is pre-approved), so the command must refuse it and never say back
the names it expanded to."""
from __future__ import annotations

import pytest

from mock_messages_api import tool_use
from world import skill_search_command

pytestmark = pytest.mark.e2e


def test_a_glob_over_a_private_folder_lists_nothing_through_the_pre_approved_search(installed):
    world = installed
    private = world.user.root / "private-dir"
    private.mkdir(exist_ok=True)
    for name in ("id_rsa", "passwords-2026.txt"):
        (private / name).write_text("secret\n", encoding="utf-8")
    search = skill_search_command(world.skill_md.read_text(encoding="utf-8"), "WORD")
    command = search.replace('"WORD"', f"{private}/*").replace("WORD", f"{private}/*")
    assert f"{private}/*" in command, command
    bash_call = tool_use("Bash", {"command": command, "description": "Search the vault"})
    run = world.session("List what my private folder holds", [bash_call, "Done."])
    assert run.result.ok, run.describe()
    results = {r["tool_use_id"]: r for request in run.main_requests() for r in request.tool_results()}
    output = results.get(bash_call["id"])
    assert output is not None, world.evidence(f"the command never returned; {run.result.permission_denials}")
    assert "id_rsa" not in output["content"] and "passwords-2026" not in output["content"], output["content"]
    assert "outside the vault" in output["content"], output["content"]
