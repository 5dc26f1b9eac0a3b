"""The HTTP MCP server (`obsidian_memory.py mcp --http`) as a test drives it: a real server
process on a free loopback port, the SDK's own HTTP client with the token, and raw HTTP for what
no well-behaved client sends. Shared by the server, installer and end-to-end tests."""
from __future__ import annotations

import http.client
import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

from testkit import CLI, Env, write_note

START_TIMEOUT = 90.0
INITIALIZE = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
              "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                         "clientInfo": {"name": "test", "version": "0"}}}
JSON_RPC_HEADERS = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}


def env_with_notes(root: Path, notes: dict[str, str]) -> Env:
    """An isolated user whose vault holds `notes` ({vault-relative path: text})."""
    env = Env(root)
    for path, text in notes.items():
        write_note(env.vault, path, text)
    return env


class HttpServer:
    """`mcp --http` started as a user starts it; `port`, `token` and `url` once it listens (from
    its state file). Stopped with SIGTERM unless the test stops it otherwise."""

    def __init__(self, argv: list[str], env: dict, cwd, home: Path):
        self.home = home                              # our folder in the config dir
        self.argv, self.env, self.cwd = argv, env, cwd
        self.process: subprocess.Popen | None = None
        self.state: dict = {}

    @classmethod
    def of(cls, env, *args: str) -> "HttpServer":
        """For a testkit.Env: `obsidian_memory.py mcp --http --port 0 ARGS`."""
        return cls([sys.executable, str(CLI), "mcp", "--http", "--port", "0", *args], env.environ(), env.root,
                   env.config_dir / "obsidian-memory")

    @property
    def state_file(self) -> Path:
        return self.home / "mcp-http.json"

    @property
    def token_file(self) -> Path:
        return self.home / "mcp-http.token"

    def start(self) -> "HttpServer":
        self.process = subprocess.Popen(self.argv, env=self.env, cwd=str(self.cwd), stdin=subprocess.DEVNULL,
                                        stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        deadline = time.monotonic() + START_TIMEOUT
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                out, err = self.process.communicate()
                raise AssertionError(f"the server ended (exit {self.process.returncode}): {err.decode()} {out.decode()}")
            state = _read_json(self.state_file)
            if state and state.get("pid") == self.process.pid:
                self.state = state
                return self
            time.sleep(0.05)
        self.process.kill()
        raise AssertionError("the server wrote no state file in time")

    @property
    def port(self) -> int:
        return self.state["port"]

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/mcp"

    @property
    def token(self) -> str:
        return self.token_file.read_text(encoding="ascii").strip()

    def stop(self, sig: int = signal.SIGTERM, timeout: float = 30) -> tuple[int, str, str]:
        """(exit code, stdout, stderr) after `sig`."""
        self.process.send_signal(sig)
        try:
            out, err = self.process.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()
            out, err = self.process.communicate()
            raise AssertionError(f"the server did not stop within {timeout} s of signal {sig}: {err.decode()}")
        return self.process.returncode, out.decode(), err.decode()

    def __enter__(self) -> "HttpServer":
        return self.start()

    def __exit__(self, *exc) -> None:
        if self.process is not None and self.process.poll() is None:
            self.stop()

    # -- talking to it ------------------------------------------------------------------------------
    def post(self, body: bytes | dict, headers: dict | None = None, path: str = "/mcp", method: str = "POST",
             host: str = "127.0.0.1") -> tuple[int, dict, bytes]:
        """One raw request (no header added but those given): (status, headers, body)."""
        data = json.dumps(body).encode() if isinstance(body, dict) else body
        connection = http.client.HTTPConnection(host, self.port, timeout=30)
        try:
            connection.request(method, path, body=data, headers=headers or {})
            response = connection.getresponse()
            return response.status, {k.lower(): v for k, v in response.getheaders()}, response.read()
        finally:
            connection.close()

    def authorized(self, **more) -> dict:
        return {"Authorization": f"Bearer {self.token}", **JSON_RPC_HEADERS, **more}

    def client(self, headers: dict | None = None, mode: str = "auto"):
        """The SDK's client (an async context manager) over Streamable HTTP, sending the token
        (or `headers` instead); `mode` "auto" (the SDK's default: it probes the newer protocol
        first) or "legacy" (the initialize handshake)."""
        from mcp import Client
        from mcp.client.streamable_http import streamable_http_client
        from mcp.shared._httpx_utils import create_mcp_http_client

        headers = {"Authorization": f"Bearer {self.token}"} if headers is None else headers
        return _Connected(Client, streamable_http_client, create_mcp_http_client, self.url, headers, mode)


class _Connected:
    """`async with server.client() as client:` — the HTTP client and the MCP client, both closed
    after; `statuses` are the HTTP statuses the SDK's client received."""

    def __init__(self, client_class, transport, http_client, url: str, headers: dict, mode: str):
        self.statuses: list[int] = []

        async def record(response):
            self.statuses.append(response.status_code)

        self._http = http_client(headers=headers)
        self._http.event_hooks["response"].append(record)
        self._client = client_class(transport(url, http_client=self._http), mode=mode)



    async def __aenter__(self):
        await self._http.__aenter__()
        try:
            return await self._client.__aenter__()
        except BaseException:
            await self._http.__aexit__(None, None, None)
            raise

    async def __aexit__(self, *exc):
        try:
            await self._client.__aexit__(*exc)
        finally:
            await self._http.__aexit__(None, None, None)


def _read_json(path: Path) -> dict | None:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def listening(port: int) -> list[str]:
    """The loopback addresses where something accepts connections on `port`."""
    found = []
    for family, address in ((socket.AF_INET, "127.0.0.1"), (socket.AF_INET6, "::1")):
        try:
            with socket.socket(family, socket.SOCK_STREAM) as probe:
                probe.settimeout(1)
                if probe.connect_ex((address, port)) == 0:
                    found.append(address)
        except OSError:
            continue
    return found


def ipv6_loopback() -> bool:
    try:
        with socket.socket(socket.AF_INET6, socket.SOCK_STREAM) as sock:
            sock.bind(("::1", 0))
        return True
    except OSError:
        return False


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def process_gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False
