"""`obsidian_memory.py mcp`: the stdio MCP server, started as a subprocess the way an MCP client
starts it and driven with the SDK's own client (`stdio_client` + `ClientSession`), over a small
vault and an archive made by archiving real fixture transcripts through the real CLI."""
from __future__ import annotations

import json
import subprocess
import sys
import time

import pytest

pytest.importorskip("mcp.client.stdio", reason="the MCP SDK (the tests' MCP client, in the [test] extra) is not installed")

import anyio  # noqa: E402  (after the skip: anyio comes with the SDK)
from archive_fixtures import REAL_2_1_332_ID, copy_real, session_id, write_transcript  # noqa: E402
from mcp import ClientSession  # noqa: E402
from mcp.client.stdio import StdioServerParameters, stdio_client  # noqa: E402
from testkit import CLI, MCP_INITIALIZE, REPO, SEARCH_CLI, Env, mcp_session_lines, without_package  # noqa: E402

from obsidian_memory.search import MODES  # noqa: E402

TOOLS = {"search", "read", "related", "similar", "search_sessions", "status"}
DEMO_ID = session_id(7)
NOTES = {
    "Recipes/Pancakes.md": "---\ntags: [breakfast]\nstatus: tried\n---\n# Pancakes\n"
                           "Whisk flour, eggs and milk into a batter. Serve with [[Syrup]].\n",
    "Recipes/Syrup.md": "# Syrup\nMaple syrup boiled down from sap, poured warm. #sweet\n",
    "Recipes/Crepes.md": "---\nstatus: draft\n---\n# Crepes\nA thin batter of flour, eggs and milk.\n"
                         "Like [[pancakes|thick ones]], but thinner.\n",
    "Projects/Garden.md": "# Garden\nSow the beans after the last frost; the maple tree shades the bed.\n"
                          "Its sap becomes [[Syrup#Boiling|syrup]]. Leaves go to the [[Compost heap]].\n",
    "Old/Batter notes.md": "# Batter notes\nOld flour and eggs batter experiments.\n",
}


@pytest.fixture(scope="module")
def world(tmp_path_factory) -> Env:
    """A vault with folders, tags and frontmatter, and an archive of two sessions archived by the CLI."""
    env = Env(tmp_path_factory.mktemp("mcp"))
    for path, text in NOTES.items():
        (env.vault / path).parent.mkdir(parents=True, exist_ok=True)
        (env.vault / path).write_text(text, encoding="utf-8")
    projects = env.config_dir / "projects"
    demo = write_transcript(projects / "-work-demo" / f"{DEMO_ID}.jsonl", DEMO_ID,
                            ["Refactor the importer so that it streams rows", "Add a --dry-run flag to the importer"],
                            start="2026-03-04T09:00:00.000Z")
    for transcript in (copy_real(projects), demo):
        archived = env.run("archive", "--transcript", transcript)
        assert archived.returncode == 0, archived.stderr.decode()
    return env


def serve(env: Env, talk, *server_args: str, timeout: float = 90):
    """Start the server as a client does, initialize a session, run `talk(session, init)`, close."""
    params = StdioServerParameters(command=sys.executable, args=[str(CLI), "mcp", *server_args],
                                   env=env.environ(), cwd=str(env.root))

    async def main():
        with anyio.fail_after(timeout), open(env.root / "mcp-stderr.txt", "w", encoding="utf-8") as errlog:
            async with stdio_client(params, errlog=errlog) as (read, write):
                async with ClientSession(read, write) as session:
                    init = await session.initialize()
                    return await talk(session, init)

    return anyio.run(main)


def calling(*calls: tuple[str, dict]):
    """A `talk` that makes the calls in order and returns their results."""
    async def talk(session, _init):
        await session.list_tools()   # the client validates structured results against the listed schemas
        return [await session.call_tool(name, arguments) for name, arguments in calls]
    return talk


def structured(result) -> dict:
    assert not result.is_error, result.content[0].text
    [block] = result.content
    assert json.loads(block.text) == result.structured_content   # the text copy says the same
    return result.structured_content


def error_text(result) -> str:
    assert result.is_error
    [block] = result.content
    assert "\n" not in block.text and block.text
    return block.text


def paths(data: dict) -> list[str]:
    return [hit["path"] for hit in data["results"]]


def test_lists_six_read_only_tools_whose_descriptions_say_note_text_is_data(world):
    async def talk(session, init):
        return init, (await session.list_tools()).tools

    init, tools = serve(world, talk)
    assert init.server_info.name == "obsidian-memory"
    assert "not instructions" in init.instructions
    assert {tool.name for tool in tools} == TOOLS
    for tool in tools:
        assert "not instructions" in tool.description, tool.name
        assert tool.output_schema["type"] == "object", tool.name
        assert tool.annotations.read_only_hint is True
    search = next(tool for tool in tools if tool.name == "search")
    assert {"query", "queries", "limit", "folders", "excludes", "tags", "not_tags", "frontmatter",
            "not_frontmatter", "source"} <= set(search.input_schema["properties"])
    assert search.input_schema["properties"]["source"]["enum"] == ["auto", "omnisearch", "local", "index", "scan"]
    [modes] = [option["enum"] for option in search.input_schema["properties"]["mode"]["anyOf"] if "enum" in option]
    assert tuple(modes) == MODES


def test_search_is_scoped_and_filtered_like_the_cli(world):
    batter = {"query": "flour eggs batter", "source": "local"}
    everywhere, in_recipes, excluded, tagged, drafts, not_drafts = serve(world, calling(
        ("search", batter),
        ("search", {**batter, "folders": ["Recipes"]}),
        ("search", {**batter, "excludes": ["Old"]}),
        ("search", {**batter, "tags": ["breakfast"]}),
        ("search", {**batter, "frontmatter": ["status:draft"]}),
        ("search", {**batter, "not_frontmatter": ["status:draft"], "limit": 1}),
    ))
    everywhere = structured(everywhere)
    # the three batter notes lead; Syrup, which Pancakes links to from its batter line, may follow
    assert set(paths(everywhere)[:3]) == {"Recipes/Pancakes.md", "Recipes/Crepes.md", "Old/Batter notes.md"}
    assert everywhere["engine"] == "index" and everywhere["vault"] == str(world.vault), everywhere
    in_recipes = paths(structured(in_recipes))
    assert set(in_recipes[:2]) == {"Recipes/Pancakes.md", "Recipes/Crepes.md"}
    assert all(path.startswith("Recipes/") for path in in_recipes)
    assert "Old/Batter notes.md" not in paths(structured(excluded))
    assert paths(structured(tagged)) == ["Recipes/Pancakes.md"]
    assert paths(structured(drafts)) == ["Recipes/Crepes.md"]
    not_drafts = structured(not_drafts)
    assert len(not_drafts["results"]) == 1 and not_drafts["total_results"] == everywhere["total_results"] - 1
    assert "Recipes/Crepes.md" not in paths(not_drafts)
    cli = world.search("flour eggs batter", "--source", "local", "--json")
    assert everywhere["results"] == json.loads(cli.stdout)["results"]   # the same dispatcher, the same hits


def test_several_queries_are_fused_into_one_ranking_as_search_vault_does(world):
    [fused] = serve(world, calling(("search", {"queries": ["maple syrup", "sow beans"], "source": "local"})))
    fused = structured(fused)
    assert fused["query"] == "maple syrup | sow beans"
    assert set(paths(fused)[:2]) == {"Recipes/Syrup.md", "Projects/Garden.md"}
    cli = world.run("search", "maple syrup", "sow beans", "--source", "local", "--json", script=SEARCH_CLI)
    assert paths(fused) == paths(json.loads(cli.stdout))


def test_search_explains_what_placed_each_hit_when_asked_as_the_cli_does(world):
    plain, explained, fused = serve(world, calling(
        ("search", {"query": "maple syrup", "source": "local"}),
        ("search", {"query": "maple syrup", "source": "local", "explain": True}),
        ("search", {"queries": ["maple syrup", "sow beans"], "source": "local", "explain": True})))
    assert all("explain" not in hit for hit in structured(plain)["results"])
    first = structured(explained)["results"][0]
    assert first["path"] == "Recipes/Syrup.md" and sum(first["explain"]["signals"].values()) == pytest.approx(
        first["score"], abs=1e-3)
    cli = world.search("maple syrup", "--source", "local", "--explain", "--json")
    assert structured(explained)["results"] == json.loads(cli.stdout)["results"]
    assert {p["ranking"] for p in structured(fused)["results"][0]["explain"]["fused"]} <= {"maple syrup", "sow beans"}


def test_title_mode_finds_a_misspelled_note_name(world):
    [result] = serve(world, calling(("search", {"query": "pancaks", "source": "local", "mode": "title"})))
    data = structured(result)
    assert data["mode"] == "title" and paths(data)[0] == "Recipes/Pancakes.md"


def test_search_notes_say_omnisearch_was_offline_and_the_local_index_answered(world):
    [result] = serve(world, calling(("search", {"query": "maple syrup"})))
    data = structured(result)
    assert data["engine"] == "index" and paths(data)[0] == "Recipes/Syrup.md"
    assert any("Omnisearch did not answer on port 9" in note for note in data["notes"])


def test_search_hits_carry_their_links_and_backlinks(world):
    [result] = serve(world, calling(("search", {"query": "whisk flour batter", "source": "local"})))
    [pancakes] = [hit for hit in structured(result)["results"] if hit["path"] == "Recipes/Pancakes.md"]
    assert pancakes["links"] == ["Recipes/Syrup.md"] and pancakes["backlinks"] == ["Recipes/Crepes.md"]


def test_read_titles_a_note_by_its_title_property_else_by_its_file_name(world):
    [demo] = [s for s in json.loads(world.run("sessions", "--json").stdout) if s["session_id"] == DEMO_ID]
    assert demo["note_path"].endswith("_00000007.md") and demo["title"]
    [result] = serve(world, calling(("read", {"paths": [demo["note_path"], "Recipes/Syrup.md"]})))
    session_note, syrup = structured(result)["notes"]
    assert session_note["title"] == demo["title"]   # not "2026-03-04_00000007"
    assert syrup["title"] == "Syrup"


def test_read_returns_body_metadata_and_links_and_suggests_a_misspelled_path(world):
    plain, raw, cut, misspelled, outside = serve(world, calling(
        ("read", {"paths": ["Recipes/Pancakes", "Recipes/Syrup.md"]}),
        ("read", {"paths": ["Recipes/Pancakes.md"], "raw": True}),
        ("read", {"paths": ["Recipes/Pancakes.md"], "max_chars": 9}),
        ("read", {"paths": ["Recipes/Pancaks"]}),
        ("read", {"paths": ["../home/.claude/session-archive.db"]}),
    ))
    pancakes, syrup = structured(plain)["notes"]
    assert pancakes["path"] == "Recipes/Pancakes.md" and pancakes["title"] == "Pancakes"
    assert pancakes["tags"] == ["breakfast"] and pancakes["frontmatter"]["status"] == "tried"
    assert pancakes["body"] == "# Pancakes\nWhisk flour, eggs and milk into a batter. Serve with [[Syrup]].\n"
    assert pancakes["links"] == ["Recipes/Syrup.md"] and pancakes["backlinks"] == ["Recipes/Crepes.md"]
    assert syrup["tags"] == ["sweet"] and syrup["backlinks"] == ["Projects/Garden.md", "Recipes/Pancakes.md"]
    [whole] = structured(raw)["notes"]
    assert whole["body"] == NOTES["Recipes/Pancakes.md"]
    [short] = structured(cut)["notes"]
    assert short["body"] == "# Pancake" and short["truncated"] is True
    assert "Recipes/Pancakes.md" in error_text(misspelled)
    assert "inside the vault" in error_text(outside)


def test_related_walks_links_and_backlinks_breadth_first_with_context(world):
    both, backlinks_2, garden = serve(world, calling(
        ("related", {"path": "Recipes/Pancakes.md"}),
        ("related", {"path": "Recipes/Syrup.md", "depth": 2, "direction": "backlinks"}),
        ("related", {"path": "Projects/Garden.md", "direction": "outgoing"}),
    ))
    both = structured(both)
    assert [(n["path"], n["depth"]) for n in both["notes"]] == [("Recipes/Syrup.md", 1), ("Recipes/Crepes.md", -1)]
    assert "Serve with Syrup" in both["notes"][0]["context"]
    backlinks_2 = structured(backlinks_2)
    assert sorted((n["path"], n["depth"]) for n in backlinks_2["notes"]) == [
        ("Projects/Garden.md", -1), ("Recipes/Crepes.md", -2), ("Recipes/Pancakes.md", -1)]
    garden = structured(garden)
    assert [n["path"] for n in garden["notes"]] == ["Recipes/Syrup.md"]
    assert "Compost heap" in json.dumps(garden["unresolved"])


def test_similar_ranks_the_note_sharing_words_and_a_link_first(world):
    [result] = serve(world, calling(("similar", {"path": "Recipes/Crepes.md", "limit": 2})))
    data = structured(result)
    assert data["path"] == "Recipes/Crepes.md" and len(data["results"]) == 2
    assert data["results"][0]["path"] == "Recipes/Pancakes.md"


def test_search_sessions_matches_prompts_and_titles_with_project_since_and_limit(world):
    importer, by_project, since, limited, everything = serve(world, calling(
        ("search_sessions", {"pattern": r"--dry-RUN\s+flag"}),
        ("search_sessions", {"pattern": "greet|importer", "project": "e2e-repo"}),
        ("search_sessions", {"pattern": "greet|importer", "since": "2026-06-01"}),
        ("search_sessions", {"pattern": ".", "limit": 1}),
        ("search_sessions", {"pattern": "."}),
    ))
    [row] = structured(importer)["results"]
    assert row["session_id"] == DEMO_ID and row["field"] == "prompt" and "--dry-run" in row["snippet"]
    assert [r["session_id"] for r in structured(by_project)["results"]] == [REAL_2_1_332_ID]
    assert [r["session_id"] for r in structured(since)["results"]] == [REAL_2_1_332_ID]
    limited = structured(limited)
    assert limited["total_results"] == 2 and [r["session_id"] for r in limited["results"]] == [REAL_2_1_332_ID]
    assert [r["session_id"] for r in structured(everything)["results"]] == [REAL_2_1_332_ID, DEMO_ID]


def test_a_slow_session_search_blocks_no_other_call_and_ends_with_an_error(world):
    """Python's backtracking engine (a lookahead: RE2 cannot run it) over a prompt: exponential.
    The status call sent after it is answered first, and the search ends with a one-line error."""
    slow = {"name": "search_sessions", "arguments": {"pattern": r"(.+)+(?=\x00)", "timeout_seconds": 3}}
    lines, code, _ = raw_exchange(world, [sys.executable, str(CLI), "mcp"], [
        {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": slow},
        {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "status", "arguments": {}}},
    ])
    answers = [json.loads(line) for line in lines]
    order = [answer["id"] for answer in answers if answer.get("id") in (2, 3)]
    assert order == [3, 2] and code == 0
    search = next(answer for answer in answers if answer.get("id") == 2)["result"]
    assert search["isError"] is True
    [block] = search["content"]
    assert "was too slow: stopped after 3 s" in block["text"] and "\n" not in block["text"]


def test_malformed_input_gets_a_json_rpc_error_instead_of_silence(world):
    """21.9: a line that is not JSON (or not JSON-RPC) got no answer, so a client waited forever."""
    import threading

    lines = [json.dumps(m) for m in MCP_INITIALIZE] + [
        "this is not json", '{"jsonrpc": "2.0", "id": 6, "method": 12}', "[1, 2]",
        json.dumps({"jsonrpc": "2.0", "id": 7, "method": "tools/list"})]
    server = subprocess.Popen([sys.executable, str(CLI), "mcp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              stderr=subprocess.DEVNULL, env=world.environ(), cwd=str(world.root))
    watchdog = threading.Timer(60, server.kill)
    watchdog.start()
    try:
        server.stdin.write(("\n".join(lines) + "\n").encode())
        server.stdin.flush()
        answers = [json.loads(server.stdout.readline()) for _ in range(5)]
        server.stdin.close()
        assert server.wait(timeout=60) == 0
    finally:
        watchdog.cancel()
        if server.poll() is None:
            server.kill()
    errors = [(a["id"], a["error"]["code"]) for a in answers if "error" in a]
    assert errors == [(None, -32700), (6, -32600), (None, -32600)]
    assert [a["id"] for a in answers if "result" in a] == [1, 7]   # and it went on serving


class Session:
    """A server on pipes, driven line by line: `call` sends a request and returns its answer."""

    def __init__(self, env: Env, *args: str):
        self.process = subprocess.Popen([sys.executable, str(CLI), "mcp", *args], stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env.environ(),
                                        cwd=str(env.root))
        self.number = 100
        self.seen: list[dict] = []

    def send(self, *messages: dict) -> None:
        self.process.stdin.write("".join(json.dumps(m) + "\n" for m in messages).encode())
        self.process.stdin.flush()

    def answer(self, number) -> dict:
        while True:
            line = self.process.stdout.readline()
            assert line, "the server closed its stdout"
            self.seen.append(json.loads(line))
            if self.seen[-1].get("id") == number:
                return self.seen[-1]

    def call(self, method: str, params: dict | None = None) -> dict:
        self.number += 1
        self.send({"jsonrpc": "2.0", "id": self.number, "method": method, **({"params": params} if params else {})})
        return self.answer(self.number)

    def search(self, query: str) -> list[str]:
        result = self.call("tools/call", {"name": "search", "arguments": {"query": query, "source": "local"}})
        return [hit["path"] for hit in result["result"]["structuredContent"]["results"]]

    def __enter__(self) -> "Session":
        return self

    def __exit__(self, *exc) -> None:
        self.process.stdin.close()
        try:
            assert self.process.wait(timeout=60) == 0
        finally:
            if self.process.poll() is None:
                self.process.kill()


def test_calls_in_flight_when_the_client_closes_stdin_are_still_answered(world):
    """The SDK dropped them: a client that wrote its last request and closed stdin got no answer."""
    server = Session(world)
    server.send(*MCP_INITIALIZE, {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                                  "params": {"name": "search", "arguments": {"query": "maple syrup", "source": "local"}}})
    server.process.stdin.close()
    out = server.process.stdout.read()
    server.process.wait(timeout=60)
    answers = {message["id"]: message for message in map(json.loads, out.splitlines())}
    assert server.process.returncode == 0 and set(answers) == {1, 2}
    assert answers[2]["result"]["structuredContent"]["results"][0]["path"] == "Recipes/Syrup.md"


def test_the_protocol_version_is_the_clients_when_known_else_the_newest_and_discover_falls_back(world):
    with Session(world) as server:
        older = server.call("initialize", {"protocolVersion": "2025-03-26", "capabilities": {},
                                           "clientInfo": {"name": "old", "version": "1"}})
        unknown = server.call("initialize", {"protocolVersion": "1999-01-01", "capabilities": {},
                                             "clientInfo": {"name": "odd", "version": "1"}})
        discover = server.call("server/discover")
        assert older["result"]["protocolVersion"] == "2025-03-26"
        assert unknown["result"]["protocolVersion"] == "2025-11-25"
        assert older["result"]["capabilities"] == {"tools": {"listChanged": False}}
        assert discover["error"]["code"] == -32601   # a client probing the newer era falls back to the handshake
        assert server.call("ping")["result"] == {}


def test_a_list_argument_sent_as_a_json_string_is_decoded_and_a_cancelled_call_gets_no_answer(world):
    with Session(world) as server:
        server.send(*MCP_INITIALIZE)
        scoped = server.call("tools/call", {"name": "search", "arguments": {
            "query": "flour eggs batter", "source": "local", "folders": '["Recipes"]'}})
        paths = [hit["path"] for hit in scoped["result"]["structuredContent"]["results"]]
        assert set(paths[:2]) == {"Recipes/Pancakes.md", "Recipes/Crepes.md"}
        assert all(path.startswith("Recipes/") for path in paths)
        slow = {"name": "search_sessions", "arguments": {"pattern": r"(.+)+(?=\x00)", "timeout_seconds": 1}}
        server.send({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": slow},
                    {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 7}})
        time.sleep(2)
        assert server.call("ping")["result"] == {}
        assert all(message.get("id") != 7 for message in server.seen)


def test_notes_changed_while_the_stdio_server_runs_are_searched_as_they_are(world, tmp_path):
    """The server watches the vault from its start (Linux) and skips its walk while nothing changed:
    a note added, rewritten in the same second at the same size, moved with its folder and deleted
    is still seen by the very next search."""
    vault = tmp_path / "vault"
    vault.mkdir()
    (vault / "Seed.md").write_text("# Seed\nnothing here\n", encoding="utf-8")
    with Session(world, "--vault", str(vault)) as server:
        server.send(*MCP_INITIALIZE)
        assert server.search("quince") == []
        (vault / "Orchard").mkdir()
        (vault / "Orchard" / "Tree.md").write_text("# Tree\nquince rows\n", encoding="utf-8")
        assert server.search("quince") == ["Orchard/Tree.md"]
        (vault / "Orchard" / "Tree.md").write_text("# Tree\nmedlar rows\n", encoding="utf-8")   # same size
        assert server.search("quince") == [] and server.search("medlar") == ["Orchard/Tree.md"]
        (vault / "Orchard").rename(vault / "Grove")
        assert server.search("medlar") == ["Grove/Tree.md"]
        (vault / "Grove" / "Tree.md").unlink()
        assert server.search("medlar") == []


def test_status_reports_the_vault_index_archive_and_omnisearch_like_the_status_command(world):
    [result] = serve(world, calling(("status", {})))
    data = structured(result)
    cli = json.loads(world.run("status", "--json").stdout)
    assert data["vault"] == cli["vault"] == str(world.vault) and data["vault_exists"] is True
    assert data["archive"] == cli["archive"] and data["archive"]["sessions"] == 2
    assert data["index"]["index_path"] == cli["index"]["index_path"]
    assert data["engines"]["omnisearch"]["answers"] is False and data["engines"]["omnisearch"]["port"] == 9


def test_vault_flag_serves_another_vault(world, tmp_path):
    other = tmp_path / "other"
    other.mkdir()
    (other / "Tides.md").write_text("# Tides\nSpring tides follow the new moon.\n", encoding="utf-8")
    status, search = serve(world, calling(("status", {}), ("search", {"query": "spring tides", "source": "scan"})),
                           "--vault", str(other))
    assert structured(status)["vault"] == str(other)
    assert paths(structured(search)) == ["Tides.md"]


def test_errors_are_one_line_tool_errors_and_the_server_keeps_serving(world, tmp_path):
    results = serve(world, calling(
        ("search_sessions", {"pattern": "(unclosed"}),
        ("search_sessions", {"pattern": "x", "since": "March"}),
        ("search", {}),
        ("search", {"query": "flour", "limit": "many"}),
        ("search", {"query": "flour", "folders": ["../outside"]}),
        ("search", {"query": "flour", "source": "everything"}),
        ("no_such_tool", {}),
        ("search", {"query": "maple syrup", "source": "scan"}),
    ))
    *errors, last = results
    messages = [error_text(result) for result in errors]
    assert messages[0].startswith("bad regular expression '(unclosed'")
    assert "YYYY-MM-DD" in messages[1]
    assert "give `query`" in messages[2]
    assert messages[3].startswith("bad arguments for search: limit:")
    assert "leaves the vault" in messages[4]
    assert messages[5].startswith("bad arguments for search: source:")
    assert "no_such_tool" in messages[6]
    assert paths(structured(last))[0] == "Recipes/Syrup.md"
    [missing] = serve(world, calling(("search", {"query": "flour"})), "--vault", str(tmp_path / "nowhere"))
    assert error_text(missing).startswith("vault not found:")


def test_a_crash_is_one_line_with_the_traceback_in_the_log_and_the_server_keeps_serving(env):
    env.archive_db.write_bytes(b"this is not an SQLite database" * 100)
    crashed, status = serve(env, calling(("search_sessions", {"pattern": "x"}), ("status", {})))
    message = error_text(crashed)
    assert message.startswith("search_sessions failed: DatabaseError:") and message.endswith("(details in the log)")
    log = env.log_file.read_text(encoding="utf-8")
    assert "mcp tool search_sessions: unexpected error" in log and "Traceback" in log
    assert structured(status)["archive"]["detail"].startswith("unreadable")


def raw_exchange(env: Env, command: list[str], requests: list[dict]) -> tuple[list[bytes], int, str]:
    return mcp_session_lines(command, requests, env=env.environ(), cwd=str(env.root))


def test_stdout_carries_only_json_rpc_messages(world):
    lines, code, _ = raw_exchange(world, [sys.executable, str(CLI), "mcp"], [
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
        {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "search", "arguments": {"query": "flour"}}},
        {"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {"name": "status", "arguments": {}}},
        {"jsonrpc": "2.0", "id": 5, "method": "tools/call",
         "params": {"name": "search_sessions", "arguments": {"pattern": "("}}},
    ])
    assert code == 0
    messages = [json.loads(line) for line in lines]   # every line, the ones after the answers too
    assert sorted(m["id"] for m in messages) == [1, 2, 3, 4, 5]
    assert all(line.endswith(b"\n") and line.count(b"\n") == 1 for line in lines)
    assert next(m for m in messages if m["id"] == 5)["result"]["isError"] is True


NOISY_STATUS = f"""
import functools, os, sys
sys.path.insert(0, {str(REPO)!r})
from obsidian_memory.mcp import server as mcp_server
status = mcp_server.Tools.status
@functools.wraps(status)
def noisy(self):
    print("stray print from a tool", flush=True)
    os.write(1, b"stray bytes on fd 1\\n")
    return status(self)
mcp_server.Tools.status = noisy
mcp_server.serve()
"""


def test_stray_output_while_serving_goes_to_stderr_not_into_the_protocol(world):
    """The guard itself: a tool that prints (or writes to fd 1) does not corrupt the stream."""
    lines, code, stderr = raw_exchange(world, [sys.executable, "-c", NOISY_STATUS], [
        {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "status", "arguments": {}}},
    ])
    assert code == 0
    assert [json.loads(line)["id"] for line in lines] == [1, 2]
    assert "stray print from a tool" in stderr and "stray bytes on fd 1" in stderr


def test_without_pydantic_mcp_says_how_to_install_the_extra_in_one_line(env):
    """The stdio server needs pydantic (its tools' schemas and validation), which the [mcp] extra brings."""
    result = subprocess.run([sys.executable, "-c", without_package("pydantic"), "mcp"], capture_output=True,
                            env=env.environ(), timeout=60, cwd=str(env.root))
    assert result.returncode == 2 and result.stdout == b""
    [line] = result.stderr.decode().splitlines()
    assert "pip install 'obsidian-memory[mcp]'" in line and "Traceback" not in line


def test_the_stdio_server_serves_without_importing_the_sdk(world):
    """Its import was most of a client's wait for the first answer: stdio is served by our own loop."""
    lines, code, stderr = raw_exchange(world, [sys.executable, "-c", without_package("mcp"), "mcp"], [
        {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
         "params": {"name": "search", "arguments": {"query": "maple syrup", "source": "local"}}},
    ])
    assert code == 0, stderr
    answers = {message["id"]: message for message in map(json.loads, lines)}
    assert answers[1]["result"]["serverInfo"]["name"] == "obsidian-memory"
    hits = answers[2]["result"]["structuredContent"]["results"]
    assert hits[0]["path"] == "Recipes/Syrup.md"


IMPORT_EVERY_MODULE = f"""
import importlib, pkgutil, sys
sys.path.insert(0, {str(REPO)!r})
import obsidian_memory
server = {{"obsidian_memory.mcp.server", "obsidian_memory.mcp.http", "obsidian_memory.cli.commands.mcp"}}
for info in pkgutil.walk_packages(obsidian_memory.__path__, "obsidian_memory."):
    if info.name not in server | {{"obsidian_memory.__main__"}}:
        importlib.import_module(info.name)
print(sorted(name for name in sys.modules if name.split(".")[0] == "pydantic"))
for name in sorted(server):
    importlib.import_module(name)
print(sorted(name for name in sys.modules if name == "mcp" or name.startswith(("mcp.", "mcp_types"))))
"""


def test_no_module_imports_the_sdk_and_none_but_the_server_pydantic(env):
    """The hooks never pay for pydantic; nothing, the server included, imports the SDK (its import
    was most of a client's wait for the server's first answer)."""
    result = subprocess.run([sys.executable, "-c", IMPORT_EVERY_MODULE], capture_output=True,
                            env=env.environ(), timeout=120, cwd=str(env.root))
    assert result.returncode == 0, result.stderr.decode()
    pydantic_before_the_server, sdk = result.stdout.decode().splitlines()[-2:]
    assert pydantic_before_the_server == "[]" and sdk == "[]"


def test_the_stdio_server_ranks_the_sessions_of_the_repository_it_runs_in_first_among_equals(tmp_path):
    from testkit import mcp_exchange

    env = Env(tmp_path)
    for name, repo in (("a", "github.com/acme/payments"), ("b", "github.com/acme/orders")):
        note = env.vault / "Meta" / "claude-sessions" / f"{name}.md"
        note.parent.mkdir(parents=True, exist_ok=True)
        note.write_text(f"---\nrepo: {repo}\ntags: [claude-session]\n---\n# Reminder emails sent twice\n"
                        "The scheduler ran in both replicas; it runs once now.\n", encoding="utf-8")
    orders = tmp_path / "work" / "orders"
    orders.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(orders)], check=True)
    subprocess.run(["git", "-C", str(orders), "remote", "add", "origin", "git@github.com:acme/orders.git"], check=True)
    call = {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
            "params": {"name": "search", "arguments": {"query": "reminder emails twice", "source": "index"}}}
    for cwd, first in ((orders, "Meta/claude-sessions/b.md"), (tmp_path, "Meta/claude-sessions/a.md")):
        answer = mcp_exchange([sys.executable, str(CLI), "mcp"], [call], env=env.environ(), cwd=str(cwd))
        assert paths(answer[2]["result"]["structuredContent"])[0] == first      # (a and b tie by words: by path)
