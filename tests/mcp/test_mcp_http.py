"""`obsidian_memory.py mcp --http`: the MCP tools over Streamable HTTP on loopback, behind a bearer
token. Real server processes on free loopback ports, driven by the SDK's own HTTP client, and by
raw HTTP (http.client) for what a well-behaved client never sends."""
from __future__ import annotations

import http.client
import json
import os
import signal
import socket
import stat
import subprocess
import sys
import time

import pytest

pytest.importorskip("mcp.client.streamable_http", reason="the MCP SDK (the tests' MCP client, in the [test] extra) is not installed")

import anyio  # noqa: E402  (after the skip: anyio comes with the SDK)
from mcp_http_kit import (INITIALIZE, JSON_RPC_HEADERS, HttpServer, env_with_notes, free_port,  # noqa: E402
                          ipv6_loopback, listening, process_gone)
from testkit import CLI, Env, without_package  # noqa: E402

TOOLS = {"search", "read", "related", "similar", "search_sessions", "status"}
NOTES = {
    "Recipes/Pancakes.md": "---\ntags: [breakfast]\n---\n# Pancakes\nWhisk flour, eggs and milk into a batter. "
                           "Serve with [[Syrup]].\n",
    "Recipes/Syrup.md": "# Syrup\nMaple syrup boiled down from sap, poured warm.\n",
    "Projects/Garden.md": "# Garden\nSow the beans after the last frost; the maple tree shades the bed.\n",
}


@pytest.fixture
def world(tmp_path) -> Env:
    return env_with_notes(tmp_path, NOTES)


def run(coroutine_function, *args, timeout: float = 120):
    async def main():
        with anyio.fail_after(timeout):
            return await coroutine_function(*args)
    return anyio.run(main)


async def search_paths(server: HttpServer, query: str, **more) -> list[str]:
    async with server.client() as client:
        result = await client.call_tool("search", {"query": query, "source": "local", **more})
    assert not result.is_error, result.content[0].text
    return [hit["path"] for hit in result.structured_content["results"]]


# -- the tools, with the token ---------------------------------------------------------------------

def test_with_the_token_the_sdk_client_lists_the_tools_and_gets_answers(world):
    async def talk(server):
        async with server.client() as client:
            tools = {tool.name for tool in (await client.list_tools()).tools}
            found = await client.call_tool("search", {"query": "flour eggs batter", "source": "local"})
            read = await client.call_tool("read", {"paths": ["Recipes/Syrup"]})
            status = await client.call_tool("status", {})
        async with server.client(mode="legacy") as client:   # the initialize handshake of older clients
            legacy = await client.call_tool("search", {"query": "maple", "source": "local"})
        return tools, found, read, status, legacy

    with HttpServer.of(world) as server:
        tools, found, read, status, legacy = run(talk, server)
        assert tools == TOOLS
        assert [hit["path"] for hit in found.structured_content["results"]][0] == "Recipes/Pancakes.md"
        assert json.loads(found.content[0].text) == found.structured_content   # the text copy says the same
        assert "Maple syrup" in read.structured_content["notes"][0]["body"]
        http = status.structured_content["mcp_http"]
        assert http["running"] is True and http["port"] == server.port and http["token"]["mode"] == "0600"
        assert {hit["path"] for hit in legacy.structured_content["results"]} == {"Recipes/Syrup.md",
                                                                                  "Projects/Garden.md"}


def test_a_note_written_while_the_server_runs_is_found_by_the_next_search(world):
    with HttpServer.of(world) as server:
        assert run(search_paths, server, "zucchini") == []
        (world.vault / "Projects" / "Zucchini.md").write_text("# Zucchini\nzucchini everywhere\n", encoding="utf-8")
        assert run(search_paths, server, "zucchini") == ["Projects/Zucchini.md"]
        (world.vault / "Projects" / "Zucchini.md").unlink()
        assert run(search_paths, server, "zucchini") == []


def test_a_folder_made_filled_renamed_and_edited_while_the_server_runs_is_searched_as_it_is(world):
    """The server watches the vault (Linux) and skips its walk while nothing changed: folders made
    and moved, and notes written into them at once, are still seen by the very next search."""
    with HttpServer.of(world) as server:
        assert run(search_paths, server, "quince") == []
        (world.vault / "Orchard" / "Rows").mkdir(parents=True)
        (world.vault / "Orchard" / "Rows" / "Tree.md").write_text("# Tree\nquince rows\n", encoding="utf-8")
        assert run(search_paths, server, "quince") == ["Orchard/Rows/Tree.md"]
        (world.vault / "Orchard").rename(world.vault / "Grove")
        assert run(search_paths, server, "quince") == ["Grove/Rows/Tree.md"]
        (world.vault / "Grove" / "Rows" / "Tree.md").write_text("# Tree\nmedlar now\n", encoding="utf-8")
        assert run(search_paths, server, "quince") == []
        assert run(search_paths, server, "medlar") == ["Grove/Rows/Tree.md"]


def test_a_vault_that_cannot_be_watched_is_said_once_and_still_searched_as_it_is(world):
    """A symbolically linked note may change where no watch hears it: the server says so at start
    and walks the vault for every search."""
    (world.vault / "Linked.md").symlink_to(world.vault / "Recipes" / "Syrup.md")
    with HttpServer.of(world) as server:
        said = stderr_until(server, b"not watched", timeout=60)
        (world.vault / "Recipes" / "Syrup.md").write_text("# Syrup\nbirch sap\n", encoding="utf-8")
        assert sorted(run(search_paths, server, "birch")) == ["Linked.md", "Recipes/Syrup.md"]
        said += server.stop()[2].encode()
    assert said.decode().count("the vault is not watched (a note in it is a link") == 1


def stderr_until(server: HttpServer, text: bytes, timeout: float) -> bytes:
    """What the server wrote on stderr up to `text` (read as it comes, without waiting for the end)."""
    import select

    seen, deadline = b"", time.monotonic() + timeout
    while text not in seen and time.monotonic() < deadline:
        ready, _, _ = select.select([server.process.stderr], [], [], 0.2)
        if ready:
            seen += os.read(server.process.stderr.fileno(), 4096)
    return seen


def test_twenty_concurrent_clients_are_all_answered(world):
    (world.vault / "Fresh.md").write_text("# Fresh\nquince jelly\n", encoding="utf-8")

    async def many(server):
        answers = [None] * 20

        async def one(number):
            answers[number] = await search_paths(server, "quince" if number % 2 else "maple")
        async with anyio.create_task_group() as group:
            for number in range(20):
                group.start_soon(one, number)
        return answers

    with HttpServer.of(world) as server:
        answers = run(many, server)
    for number, paths in enumerate(answers):
        assert paths == (["Fresh.md"] if number % 2 else ["Recipes/Syrup.md", "Projects/Garden.md"]), number


def test_a_server_that_rested_and_gave_its_memory_back_answers_as_before_and_stops_cleanly(world):
    """Once no call has run for IDLE_TRIM_SECONDS the server hands freed memory back to the system
    (malloc_trim, where the C library has it): calls after it are answered alike, and a stop while
    that wait is pending (a call just ended) is as clean as any."""
    from obsidian_memory.mcp.http import IDLE_TRIM_SECONDS

    async def twenty(server):
        answers = [None] * 20

        async def one(number):
            answers[number] = await search_paths(server, "maple")
        async with anyio.create_task_group() as group:
            for number in range(20):
                group.start_soon(one, number)
        return answers

    server = HttpServer.of(world).start()
    first = run(twenty, server)
    time.sleep(IDLE_TRIM_SECONDS + 0.5)
    assert run(twenty, server) == first == [["Recipes/Syrup.md", "Projects/Garden.md"]] * 20
    run(search_paths, server, "maple")                   # ... and at once a stop, the trim still to come
    code, _, err = server.stop(signal.SIGTERM)
    assert code == 0 and "the MCP server stopped" in err and "Traceback" not in err and "Error" not in err, err


# -- refused: no token, a wrong token, another site, another address ------------------------------

def test_without_the_token_or_with_a_wrong_one_every_request_gets_401_and_nothing_else(world):
    with HttpServer.of(world) as server:
        token = server.token
        refused = [
            server.post(INITIALIZE, JSON_RPC_HEADERS),
            server.post(INITIALIZE, {**JSON_RPC_HEADERS, "Authorization": "Bearer wrong"}),
            server.post(INITIALIZE, {**JSON_RPC_HEADERS, "Authorization": f"Bearer {token[:-1]}"}),
            server.post(INITIALIZE, {**JSON_RPC_HEADERS, "Authorization": f"Bearer {token}x"}),
            server.post(INITIALIZE, {**JSON_RPC_HEADERS, "Authorization": f"Basic {token}"}),
            server.post(INITIALIZE, {**JSON_RPC_HEADERS, "Authorization": token}),
            server.post(INITIALIZE, {**JSON_RPC_HEADERS, "Authorization": "Bearer "}),
            server.post(b"{not json", JSON_RPC_HEADERS),
            server.post(b"", {}, path="/", method="GET"),
            server.post(b"", {}, path="/.well-known/oauth-protected-resource", method="GET"),
            server.post(b"", {"Origin": "http://evil.example", "Access-Control-Request-Method": "POST"},
                        method="OPTIONS"),
        ]
        for status, headers, body in refused:
            assert (status, body) == (401, b"")
            assert headers["www-authenticate"] == "Bearer"
            assert set(headers) <= {"content-length", "www-authenticate"}   # no server name, no CORS, nothing
        connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
        connection.putrequest("POST", "/mcp")
        for name, value in [("Authorization", f"Bearer {token}"), ("Authorization", "Bearer wrong"),
                            *JSON_RPC_HEADERS.items(), ("Content-Length", str(len(json.dumps(INITIALIZE))))]:
            connection.putheader(name, value)   # two Authorization headers: refused as well
        connection.endheaders(json.dumps(INITIALIZE).encode())
        assert connection.getresponse().status == 401
        connection.close()

        async def with_headers(headers):
            connected = server.client(headers=headers)
            try:
                async with connected as client:
                    await client.list_tools()
            except Exception:
                return connected.statuses, "refused"
            return connected.statuses, "answered"

        for headers in ({}, {"Authorization": "Bearer wrong"}):   # the SDK's own client, without / with a wrong token
            statuses, outcome = run(with_headers, headers, timeout=60)
            assert outcome == "refused" and statuses and set(statuses) == {401}
        assert server.post(INITIALIZE, server.authorized())[0] == 200   # and the right one still works


def test_an_origin_or_host_of_another_site_is_refused(world):
    with HttpServer.of(world) as server:
        port = server.port
        assert server.post(INITIALIZE, server.authorized(Origin="http://evil.example"))[0] == 403
        assert server.post(INITIALIZE, server.authorized(Origin=f"http://evil.example:{port}"))[0] == 403
        assert server.post(INITIALIZE, server.authorized(Origin="null"))[0] == 403
        assert server.post(INITIALIZE, server.authorized(Origin=f"http://localhost:{port + 1}"))[0] == 403
        # DNS rebinding: a page of evil.example whose name now resolves to 127.0.0.1
        assert server.post(INITIALIZE, server.authorized(Host=f"evil.example:{port}"))[0] == 421
        assert server.post(INITIALIZE, server.authorized(Host="127.0.0.1"))[0] == 421   # another port
        for origin in (None, f"http://127.0.0.1:{port}", f"http://localhost:{port}"):
            more = {"Origin": origin} if origin else {}
            status, _, body = server.post(INITIALIZE, server.authorized(**more))
            assert status == 200 and json.loads(body)["result"]["serverInfo"]["name"] == "obsidian-memory"
        assert server.post(INITIALIZE, server.authorized(Host=f"localhost:{port}"))[0] == 200


@pytest.mark.parametrize("host", ["0.0.0.0", "::", "192.168.1.10", "10.0.0.1", "localhost", "example.com"])
def test_an_address_that_is_not_loopback_is_refused_and_nothing_listens(world, host):
    port = free_port()
    result = world.run("mcp", "--http", "--host", host, "--port", str(port), timeout=60)
    assert result.returncode == 2 and result.stdout == b""
    [line] = result.stderr.decode().splitlines()
    assert "loopback" in line and "Traceback" not in line
    assert listening(port) == []
    assert not (world.config_dir / "obsidian-memory" / "mcp-http.json").exists()


def test_by_default_it_listens_on_both_loopbacks_and_host_narrows_it_to_one(world):
    with HttpServer.of(world) as server:
        expected = ["127.0.0.1", "::1"] if ipv6_loopback() else ["127.0.0.1"]
        assert server.state["addresses"] == expected and listening(server.port) == expected
    with HttpServer.of(world, "--host", "127.0.0.1") as server:
        assert server.state["addresses"] == ["127.0.0.1"] and listening(server.port) == ["127.0.0.1"]
    if ipv6_loopback():
        with HttpServer.of(world, "--host", "::1") as server:
            assert listening(server.port) == ["::1"]
            assert server.post(INITIALIZE, server.authorized(Host=f"[::1]:{server.port}"), host="::1")[0] == 200


# -- malformed requests are answered ---------------------------------------------------------------

def test_a_malformed_body_gets_a_json_rpc_parse_error_not_silence(world):
    with HttpServer.of(world) as server:
        status, headers, body = server.post(b"{not json", server.authorized())
        assert status == 400 and headers["content-type"].startswith("application/json")
        answer = json.loads(body)
        assert answer["id"] is None and answer["error"]["code"] == -32700
        status, _, body = server.post(b'{"jsonrpc": "2.0", "id": 5, "method": 5}', server.authorized())
        assert status == 400 and "error" in json.loads(body)
        status, _, body = server.post(b"{bad", server.authorized(**{"MCP-Protocol-Version": "2026-07-28"}))
        assert status == 400 and json.loads(body)["error"]["code"] == -32700
        status, headers, _ = server.post(b"", server.authorized(), method="GET")   # no stream to hold open
        assert status == 405 and headers["allow"] == "POST"
        assert server.post(b"x" * (2 * 1024 * 1024), server.authorized())[0] == 413


def test_notifications_get_202_and_requests_their_answer_in_plain_json_without_the_sdk(world):
    """The transport is our own (the SDK's import was most of the wait for a first answer): a
    notification gets 202 and no body, a request its JSON answer; a body that is not JSON, a
    protocol version the server does not speak, no JSON accepted: each refused with its status."""
    argv = [sys.executable, "-c", without_package("mcp"), "mcp", "--http", "--port", "0"]
    with HttpServer(argv, world.environ(), world.root, world.config_dir / "obsidian-memory") as server:
        status, headers, body = server.post(INITIALIZE, server.authorized())
        assert status == 200 and headers["content-type"] == "application/json"
        assert json.loads(body)["result"]["protocolVersion"] == "2025-06-18"
        notified = server.post({"jsonrpc": "2.0", "method": "notifications/initialized"},
                               server.authorized(**{"MCP-Protocol-Version": "2025-06-18"}))
        assert notified[0] == 202 and notified[2] == b""
        call = {"jsonrpc": "2.0", "id": "a", "method": "tools/call",
                "params": {"name": "search", "arguments": {"query": "maple syrup", "source": "local"}}}
        status, _, body = server.post(call, server.authorized(**{"MCP-Protocol-Version": "2025-06-18"}))
        answer = json.loads(body)
        assert status == 200 and answer["id"] == "a"
        assert answer["result"]["structuredContent"]["results"][0]["path"] == "Recipes/Syrup.md"
        status, _, body = server.post(call, server.authorized(**{"MCP-Protocol-Version": "2099-01-01"}))
        assert status == 400 and json.loads(body)["error"]["code"] == -32600
        assert server.post(call, server.authorized(Accept="text/event-stream"))[0] == 406
        assert server.post(call, server.authorized(**{"Content-Type": "text/plain"}))[0] == 415
        assert server.post(call, server.authorized(), path="/elsewhere")[0] == 404
        unknown = json.loads(server.post({"jsonrpc": "2.0", "id": 9, "method": "server/discover"},
                                         server.authorized())[2])
        assert unknown["error"]["code"] == -32601   # a client probing the newer era falls back to the handshake


# -- stopping ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT, signal.SIGHUP])
def test_a_stop_signal_leaves_no_port_open_no_state_file_and_no_process(world, sig):
    server = HttpServer.of(world).start()
    port, pid = server.port, server.process.pid
    assert listening(port)
    code, _, err = server.stop(sig)
    assert code == 0 and "the MCP server stopped" in err and "Traceback" not in err
    assert listening(port) == [] and process_gone(pid)
    assert not server.state_file.exists()
    again = HttpServer([sys.executable, str(CLI), "mcp", "--http", "--port", str(port)], world.environ(),
                       world.root, server.home)
    with again:   # the same port at once, and the lock was released
        assert again.port == port


def test_a_stop_signal_at_any_point_of_start_up_stops_the_server(world):
    """Signals across the whole start-up, from the interpreter's own to just after the state file
    appears (where uvicorn's loop is not running yet): each run ends, leaving no state file."""
    probe = HttpServer.of(world)
    began = time.monotonic()
    probe.start()
    start_up = time.monotonic() - began
    probe.stop()
    port = free_port()
    for delay in [start_up * step / 8 for step in range(10)]:
        server = HttpServer([sys.executable, str(CLI), "mcp", "--http", "--port", str(port)], world.environ(),
                            world.root, probe.home)
        server.process = subprocess.Popen(server.argv, env=server.env, cwd=str(server.cwd), stdin=subprocess.DEVNULL,
                                          stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        time.sleep(delay)
        code, _, err = server.stop(signal.SIGTERM, timeout=30)
        assert code in (0, -signal.SIGTERM), err      # -SIGTERM: before the interpreter reached our handlers
        assert not server.state_file.exists() and listening(port) == [], f"stopped {delay:.2f} s in: {err}"


@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")
def test_a_stop_signal_an_import_swallowed_still_stops_the_server():
    """Python prints and drops an exception raised in a weakref callback or a __del__; a stop
    signal handled there must still stop the server once it is made, and one handled after that
    tells the server instead of raising."""
    from obsidian_memory.mcp.http import Stopped, StopRequest

    class Dropping:
        def __del__(self):
            stop.arrived(signal.SIGTERM)

    class Server:
        should_exit = False

    stop = StopRequest()
    Dropping()                                   # its __del__ raises Stopped, which Python only prints
    with pytest.raises(Stopped):
        stop.serving(Server())
    stop, server = StopRequest(), Server()
    stop.serving(server)
    stop.arrived(signal.SIGINT)                  # uvicorn's loop not yet running: no exception
    assert server.should_exit


def test_a_stop_during_a_request_still_stops_and_cleans_up(world):
    for number in range(300):
        (world.vault / f"Bulk/Note {number}.md").parent.mkdir(exist_ok=True)
        (world.vault / f"Bulk/Note {number}.md").write_text(f"# Note {number}\nbulk words {number}\n", encoding="utf-8")
    server = HttpServer.of(world).start()

    async def search_then_stop():
        async with anyio.create_task_group() as group:
            group.start_soon(search_paths, server, "bulk words")
            await anyio.sleep(0.05)
            server.process.send_signal(signal.SIGTERM)
            group.cancel_scope.cancel()

    run(search_then_stop)
    code, _, err = server.stop(signal.SIGTERM)
    assert code == 0, err
    assert listening(server.port) == [] and not server.state_file.exists()


# -- the token --------------------------------------------------------------------------------------

def test_the_token_is_made_once_readable_by_the_user_only_and_kept(world):
    with HttpServer.of(world) as server:
        first = server.token
        mode = stat.S_IMODE(server.token_file.stat().st_mode)
    assert mode == 0o600 and len(first) >= 43
    with HttpServer.of(world) as server:
        assert server.token == first


@pytest.mark.parametrize("damage", ["readable by others", "a symbolic link", "not a token"])
def test_a_token_file_that_cannot_be_trusted_stops_the_start(world, tmp_path, damage):
    home = world.config_dir / "obsidian-memory"
    home.mkdir(parents=True, exist_ok=True)
    token_file = home / "mcp-http.token"
    if damage == "readable by others":
        token_file.write_text("A" * 43 + "\n")
        token_file.chmod(0o644)
    elif damage == "a symbolic link":
        target = tmp_path / "elsewhere"
        target.write_text("A" * 43 + "\n")
        target.chmod(0o600)
        token_file.symlink_to(target)
    else:
        token_file.write_text("hunter2\n")
        token_file.chmod(0o600)
    port = free_port()
    result = world.run("mcp", "--http", "--port", str(port), timeout=60)
    assert result.returncode == 2, result.stderr
    [line] = result.stderr.decode().splitlines()
    assert "mcp-http.token" in line and "Traceback" not in line
    assert listening(port) == [] and not (home / "mcp-http.json").exists()
    doctor = world.run("doctor", timeout=120).stdout.decode()
    assert any(row.startswith("fail") and "mcp http" in row for row in doctor.splitlines()), doctor


# -- one server per config dir, a stale state file, status and doctor -----------------------------------

def test_a_second_server_is_refused_and_a_killed_ones_state_file_is_stale_until_the_next_start(world):
    first = HttpServer.of(world).start()
    second = world.run("mcp", "--http", "--port", "0", timeout=60)
    assert second.returncode == 2 and b"already runs" in second.stderr and str(first.process.pid).encode() in second.stderr
    first.process.kill()   # SIGKILL: no chance to clean up
    first.process.wait()
    assert first.state_file.exists() and listening(first.port) == []
    status = json.loads(world.run("status", "--json", timeout=60).stdout)["mcp_http"]
    assert status["running"] is False and status["stale"] is True and "did not stop cleanly" in status["detail"]
    doctor = world.run("doctor", timeout=120).stdout.decode()
    assert any(row.startswith("warn") and "mcp http" in row and "did not stop cleanly" in row
               for row in doctor.splitlines()), doctor
    with HttpServer.of(world) as replacement:
        assert replacement.state["pid"] == replacement.process.pid


def test_status_and_doctor_show_whether_it_runs_its_port_and_the_token_files_mode(world):
    before = world.run("status", timeout=60).stdout.decode()
    assert "mcp http:   not running" in before
    with HttpServer.of(world) as server:
        text = world.run("status", timeout=60).stdout.decode()
        line = next(row for row in text.splitlines() if row.startswith("mcp http:"))
        assert f"running on http://127.0.0.1:{server.port}/mcp (pid {server.process.pid})" in line
        assert "token file 0600" in line
        doctor = world.run("doctor", timeout=120).stdout.decode()
        row = next(row for row in doctor.splitlines() if "mcp http" in row)
        assert row.startswith("info") and f":{server.port}/mcp" in row and "mode 0600" in row
    after = world.run("doctor", timeout=120).stdout.decode()
    assert any(row.startswith("info") and "mcp http" in row and "off" in row for row in after.splitlines())


def test_a_port_in_use_is_one_line_and_nothing_else_starts(world):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = world.run("mcp", "--http", "--port", str(port), timeout=60)
    assert result.returncode == 2
    [line] = result.stderr.decode().splitlines()
    assert f"port {port} is already in use" in line
    assert not (world.config_dir / "obsidian-memory" / "mcp-http.json").exists()


def test_the_configured_port_is_used_and_show_config_prints_every_client_with_the_token(world):
    port = free_port()
    (world.config_dir / "obsidian-memory").mkdir(parents=True, exist_ok=True)
    (world.config_dir / "obsidian-memory" / "config.yaml").write_text(f"mcp_http_port: {port}\n", encoding="utf-8")
    server = HttpServer([sys.executable, str(CLI), "mcp", "--http"], world.environ(), world.root,
                        world.config_dir / "obsidian-memory")
    with server:
        assert server.port == port
        shown = world.run("mcp", "--http", "--show-config", timeout=60)
        assert shown.returncode == 0, shown.stderr
        text = shown.stdout.decode()
        address = f"http://127.0.0.1:{port}/mcp"
        assert f"claude mcp add --scope user --transport http obsidian-memory {address}" in text
        command = next(row for row in text.splitlines() if "Authorization: Bearer $(cat " in row)
        header = subprocess.run(["sh", "-c", "printf %s " + command.strip().removeprefix("--header ")],
                                capture_output=True, check=True).stdout.decode()
        assert header == f"Authorization: Bearer {server.token}"   # what the shell hands to `claude mcp add`
        configs = [json.loads(row) for row in text.splitlines() if row.strip().startswith("{")]
        cursor, desktop = configs
        assert cursor["mcpServers"]["obsidian-memory"] == {"url": address,
                                                           "headers": {"Authorization": f"Bearer {server.token}"}}
        assert desktop["mcpServers"]["obsidian-memory"]["env"]["AUTH"] == f"Bearer {server.token}"
        assert server.post(INITIALIZE, server.authorized())[0] == 200


@pytest.mark.parametrize("args, says", [
    (["--http", "--port", "80"], "--port"), (["--http", "--port", "65536"], "--port"),
    (["--http", "--port", "x"], "--port"), (["--port", "5000"], "go with --http"),
    (["--show-config"], "go with --http"), (["--host", "127.0.0.1"], "go with --http"),
])
def test_bad_flags_are_one_line(world, args, says):
    result = world.run("mcp", *args, timeout=60)
    assert result.returncode == 2
    [line] = result.stderr.decode().splitlines()
    assert says in line and "Traceback" not in line


def test_without_uvicorn_the_http_server_says_how_to_install_it_in_one_line(world):
    result = subprocess.run([sys.executable, "-c", without_package("uvicorn"), "mcp", "--http", "--port", "0"],
                            capture_output=True, env=world.environ(), timeout=60, cwd=str(world.root))
    assert result.returncode == 2 and result.stdout == b""
    [line] = result.stderr.decode().splitlines()
    assert "pip install 'obsidian-memory[mcp]'" in line and "Traceback" not in line
    assert not (world.config_dir / "obsidian-memory" / "mcp-http.json").exists()


def test_the_tools_are_the_stdio_servers_own(world):
    """One definition of the tools: the HTTP server lists exactly what stdio lists, schemas included."""
    from mcp import Client
    from mcp.client.stdio import StdioServerParameters

    async def both(server):
        async with server.client() as client:
            over_http = (await client.list_tools()).tools
        params = StdioServerParameters(command=sys.executable, args=[str(CLI), "mcp"], env=world.environ(),
                                       cwd=str(world.root))
        async with Client(params) as client:
            over_stdio = (await client.list_tools()).tools
        return over_http, over_stdio

    with HttpServer.of(world) as server:
        over_http, over_stdio = run(both, server)
    dump = lambda tools: sorted(json.dumps(t.model_dump(), sort_keys=True) for t in tools)  # noqa: E731
    assert dump(over_http) == dump(over_stdio)


def test_the_server_process_survives_a_flood_of_unauthenticated_connections(world):
    with HttpServer.of(world) as server:
        started = time.monotonic()
        for _ in range(200):
            assert server.post(INITIALIZE, JSON_RPC_HEADERS)[0] == 401
        assert time.monotonic() - started < 60
        assert server.post(INITIALIZE, server.authorized())[0] == 200
        assert os.path.exists(server.state_file)


def test_idle_and_slow_connections_neither_crowd_out_clients_nor_stay_open(world):
    from obsidian_memory.mcp import http as mcp_http

    with HttpServer.of(world) as server:
        idle = [socket.create_connection(("127.0.0.1", server.port), timeout=5) for _ in range(mcp_http.MAX_REQUESTS + 10)]
        slow = socket.create_connection(("127.0.0.1", server.port), timeout=5)
        slow.sendall(b"POST /mcp HTTP/1.1\r\n")
        try:
            time.sleep(0.5)
            for _ in range(3):   # 110 sockets that send nothing, and one that is slow with its headers
                assert server.post(INITIALIZE, server.authorized())[0] == 200
            started = time.monotonic()
            for byte in b"Host: 127.0.0.1\r\nX-Slow: " + b"x" * 40:    # a byte a second keeps no connection open
                try:
                    slow.sendall(bytes([byte]))
                except OSError:
                    break
                time.sleep(1)
            assert time.monotonic() - started < mcp_http.HEAD_SECONDS + 8
            for sock in [*idle[:5], slow]:     # the server closed them: a read sees the end
                sock.settimeout(mcp_http.HEAD_SECONDS + 5)
                assert sock.recv(1) == b""
        finally:
            for sock in [*idle, slow]:
                sock.close()
        assert server.post(INITIALIZE, server.authorized())[0] == 200
