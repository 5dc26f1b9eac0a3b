"""The MCP server in the real Claude Code client, over both transports, added as the README says.
Stdio (`claude mcp add --scope user obsidian-memory -- PYTHON obsidian_memory.py mcp`): the client
spawns it, and its search and read answers reach the model. HTTP (`claude mcp add --scope user
--transport http ... --header "Authorization: Bearer $(cat TOKEN_FILE)"`): its search tool is
offered to the model and its answer reaches the model; with a wrong token the client gets no tool
of ours at all. (The server speaks the protocol itself, not through the SDK: this is the client it
must satisfy.)"""
from __future__ import annotations

import shlex
import subprocess
import sys

import pytest

pytest.importorskip("uvicorn", reason="the optional [mcp] extra (pydantic, uvicorn) is not installed")

from claude_code import ClaudeUser  # noqa: E402
from mock_messages_api import MockMessagesAPI, tool_use  # noqa: E402
from mcp_http_kit import HttpServer  # noqa: E402
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
    return user


def http_server(user: ClaudeUser) -> HttpServer:
    """The server (started by `with`) over the person's vault and config dir."""
    environ = {**user.environ(), "CLAUDE_CONFIG_DIR": str(user.config_dir), "OBSIDIAN_VAULT": str(user.vault)}
    return HttpServer([sys.executable, str(CLI), "mcp", "--http", "--port", "0"], environ, user.root,
                      user.config_dir / "obsidian-memory")


def add_server(user: ClaudeUser, arguments: str) -> None:
    """`claude mcp add --scope user ARGUMENTS`, through a shell as a user types the README's command."""
    done = subprocess.run(["sh", "-c", f'"{user.binary}" mcp add --scope user {arguments}'], capture_output=True,
                          text=True, env=user.environ(), cwd=str(user.repo), timeout=120, stdin=subprocess.DEVNULL)
    assert done.returncode == 0, done.stdout + done.stderr


def add_http_server(user: ClaudeUser, server: HttpServer, header_value: str) -> None:
    add_server(user, f'--transport http obsidian-memory {server.url} --header "Authorization: Bearer {header_value}"')


def add_stdio_server(user: ClaudeUser) -> None:
    command = [sys.executable, str(CLI), "mcp"]
    add_server(user, f"obsidian-memory -e {shlex.quote(f'OBSIDIAN_VAULT={user.vault}')} "
                     f"-e {shlex.quote(f'CLAUDE_CONFIG_DIR={user.config_dir}')} -- {shlex.join(command)}")


def test_claude_code_spawns_the_stdio_server_and_its_search_and_read_answers_reach_the_model(person):
    add_stdio_server(person)
    with MockMessagesAPI() as api:
        api.script([tool_use(SEARCH_TOOL, {"query": "quince hedge", "source": "local"}),
                    tool_use(READ_TOOL, {"paths": ["Garden/Quince hedge"]}), "The hedge wants March."])
        run = person.run("When do I prune the quince hedge?", api.base_url, "--allowedTools",
                         f"{SEARCH_TOOL},{READ_TOOL}", **DIRECT_TOOLS)
        assert run.ok, run.describe()
        _first, second, third = api.main_requests()[:3]
        # the request that carries the search's answer lists both tools: the client connects a stdio
        # server beside its first request, so on a loaded machine (a 2 s start) that one may lack them
        assert {SEARCH_TOOL, READ_TOOL} <= set(second.tool_names)
        [found] = second.tool_results()
        assert not found["is_error"] and "Garden/Quince hedge.md" in found["content"], found
        read = third.tool_results()[-1]
        assert not read["is_error"] and "Prune the quince hedge in March." in read["content"], read


def test_claude_code_calls_the_search_tool_over_http_with_the_token(person):
    with http_server(person) as server, MockMessagesAPI() as api:
        add_http_server(person, server, f"$(cat {server.token_file})")
        api.script([tool_use(SEARCH_TOOL, {"query": "quince hedge", "source": "local"}), "The hedge wants March."])
        run = person.run("When do I prune the quince hedge?", api.base_url, "--allowedTools", SEARCH_TOOL,
                         **DIRECT_TOOLS)
        assert run.ok, run.describe()
        first, second = api.main_requests()[:2]
        assert SEARCH_TOOL in first.tool_names
        [result] = second.tool_results()
        assert not result["is_error"] and "Garden/Quince hedge.md" in result["content"], result


def test_with_a_wrong_token_claude_code_gets_no_tool_of_ours(person):
    with http_server(person) as server, MockMessagesAPI() as api:
        add_http_server(person, server, "not-the-token")
        api.script(["No tools."])
        run = person.run("Anything in the vault?", api.base_url, **DIRECT_TOOLS)
        assert run.ok, run.describe()
        assert not [name for request in api.main_requests() for name in request.tool_names
                    if name.startswith("mcp__obsidian-memory__")]
        assert server.post(b"{}", {"Content-Type": "application/json"})[0] == 401   # still refusing, still up
