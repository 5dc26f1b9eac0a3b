"""The stdio MCP server in the real Claude Code client: added as the README says (`claude mcp add
--scope user obsidian-memory -- PYTHON obsidian_memory.py mcp`), the client spawns it, its search
tool is offered to the model and its answer reaches the model. (The server speaks the protocol with
its own JSON-RPC loop, not the SDK's: this is the client it must satisfy.)"""
from __future__ import annotations

import subprocess
import sys

import pytest

pytest.importorskip("pydantic", reason="the optional [mcp] extra is not installed")

from claude_code import ClaudeUser  # noqa: E402
from mock_messages_api import MockMessagesAPI, tool_use  # noqa: E402
from testkit import CLI  # noqa: E402

pytestmark = pytest.mark.e2e
SEARCH_TOOL = "mcp__obsidian-memory__search"
READ_TOOL = "mcp__obsidian-memory__read"
DIRECT_TOOLS = {"ENABLE_TOOL_SEARCH": "false"}   # MCP tools in the request itself, not behind the ToolSearch tool


@pytest.fixture
def person(claude_binary, tmp_path):
    version, binary = claude_binary
    user = ClaudeUser(tmp_path, binary, version)
    (user.vault / "Garden").mkdir()
    (user.vault / "Garden" / "Quince hedge.md").write_text("# Quince hedge\nPrune the quince hedge in March.\n",
                                                           encoding="utf-8")
    command = [str(user.binary), "mcp", "add", "--scope", "user", "obsidian-memory", "-e", f"OBSIDIAN_VAULT={user.vault}",
               "-e", f"CLAUDE_CONFIG_DIR={user.config_dir}", "--", sys.executable, str(CLI), "mcp"]
    done = subprocess.run(command, capture_output=True, text=True, env=user.environ(), cwd=str(user.repo),
                          timeout=120, stdin=subprocess.DEVNULL)
    assert done.returncode == 0, done.stdout + done.stderr
    return user


def test_claude_code_spawns_the_stdio_server_and_its_search_and_read_answers_reach_the_model(person):
    with MockMessagesAPI() as api:
        api.script([tool_use(SEARCH_TOOL, {"query": "quince hedge", "source": "local"}),
                    tool_use(READ_TOOL, {"paths": ["Garden/Quince hedge"]}), "The hedge wants March."])
        run = person.run("When do I prune the quince hedge?", api.base_url, "--allowedTools",
                         f"{SEARCH_TOOL},{READ_TOOL}", **DIRECT_TOOLS)
        assert run.ok, run.describe()
        first, second, third = api.main_requests()[:3]
        assert {SEARCH_TOOL, READ_TOOL} <= set(first.tool_names)
        [found] = second.tool_results()
        assert not found["is_error"] and "Garden/Quince hedge.md" in found["content"], found
        read = third.tool_results()[-1]
        assert not read["is_error"] and "Prune the quince hedge in March." in read["content"], read
