"""The MCP tools over Streamable HTTP: one warm server on loopback for every client (Claude Code
windows, Claude Desktop, Cursor), instead of one stdio server per client.

Only `obsidian_memory.py mcp --http` imports this module (the `[mcp]` extra brings uvicorn and
pydantic). The answers are `mcp_server.Server`'s, the very ones stdio gives; this module is the
transport (`Endpoint`, an ASGI application that uvicorn serves) and its guard. It does without the
SDK's transport, whose import (~0.55 s of CPU, the SDK's models of two protocol eras, Starlette,
its HTTP client) was most of the wait for the first answer after a start:

- It listens on loopback addresses only (`mcp_endpoint.listen_addresses`), one server per config
  dir (a lock), and writes the state file once it listens; it removes it when it stops (SIGTERM,
  SIGINT, SIGHUP), leaving no port open.
- Every request passes `Guard` first: without the bearer token, or with a wrong one, it gets 401
  and nothing else (compared in constant time). Then the `Host` header must name this port on a
  loopback name, and an `Origin` header, if any, this very port too: a web page that rebinds its
  domain to 127.0.0.1 cannot reach the tools.
- `Endpoint` serves the protocol stateless, in plain JSON (see there).
- While it runs, the index stays warm (`mcp_server.warm_up`, from the start, while uvicorn is
  imported): a watch of the vault (Linux, a local file system) spares the walk while nothing
  changed, a first freshness check and the semantic model are loaded at start, and
  `VaultIndex.open_fresh` shares one check among requests that arrive together.
"""
from __future__ import annotations

import asyncio
import errno
import hashlib
import hmac
import os
import signal
import socket
import sys
import threading

from obsidian_memory.mcp import endpoint as endpoint, server as mcp_server
from obsidian_memory.core.errors import UserError

MAX_BODY_BYTES = 1024 * 1024        # the largest tool call is a few kilobytes
MAX_REQUESTS = 100                  # requests being answered at once; beyond this, 503
HEAD_SECONDS = 10.0                 # for a connection's request line and headers, from its first byte or the last answer
BODY_SECONDS = 10.0                 # for a request's body, once its headers are in
GRACE_SECONDS = 5                   # a stop waits this long for requests in flight
IDLE_TRIM_SECONDS = 1.0             # after this long with no call running, freed memory goes back to the system
BACKLOG = 128
_NOT_HERE = (errno.EADDRNOTAVAIL, errno.EAFNOSUPPORT, getattr(errno, "EPROTONOSUPPORT", -1))


class Stopped(Exception):
    """A stop signal arrived."""


class StopRequest:
    """A stop signal. Before uvicorn's server exists it is raised as `Stopped` (to end a long
    warm-up) and also remembered: Python drops an exception raised where it cannot propagate (a
    signal landing in an import's weakref callback is only printed as "Exception ignored"), so
    the server, once made, is told at once. After that the handler only tells the server, which
    stops at its next tick whether or not it serves yet (uvicorn takes the signals over only once
    its loop runs)."""

    def __init__(self) -> None:
        self.signum: int | None = None
        self.server = None

    def arrived(self, signum: int, frame=None) -> None:
        self.signum = signum
        if self.server is not None:
            self.server.should_exit = True
            return
        raise Stopped(signum)

    def serving(self, server) -> None:
        self.server = server
        if self.signum is not None:
            raise Stopped(self.signum)


def serve(vault: str | None, port: int, host: str | None, out=None, err=None) -> int:
    """Serve until stopped; the state file exists exactly while the server listens."""
    from obsidian_memory.core import settings as settings_module
    from obsidian_memory.core.locks import FileLock, LockBusy

    out, err = out or sys.stdout, err or sys.stderr
    addresses = endpoint.listen_addresses(host)            # a refused address binds nothing
    settings = settings_module.load(vault=vault)
    home = settings.home
    lock = FileLock(endpoint.lock_path(home), timeout=0)
    sockets: list[socket.socket] = []
    stop = _install_stop_handlers()
    try:
        try:
            lock.acquire()
        except LockBusy:
            state = endpoint.read_state(home) or {}
            raise UserError(f"an HTTP MCP server already runs for this config dir (pid {state.get('pid', '?')}, "
                            f"{state.get('url', 'port ' + str(state.get('port', '?')))}): stop it first") from None
        token, created = endpoint.ensure_token(home)
        sockets = bind(addresses, port)
        port = sockets[0].getsockname()[1]
        bound = [sock.getsockname()[0] for sock in sockets]
        mcp_server.warm_up(vault, err, load_model=True)   # meanwhile uvicorn is imported
        app = build_app(vault, token, port)
        server = _uvicorn_server(app)
        stop.serving(server)
        endpoint.write_state(home, port, bound, settings.vault)
        try:
            _announce(out, err, port, bound, home, token, created)
            server.run(sockets=sockets)
        finally:
            endpoint.remove_state(home)
    except (Stopped, KeyboardInterrupt):
        pass
    finally:
        for sock in sockets:
            sock.close()
        lock.release()
    err.write("obsidian-memory: the MCP server stopped\n")
    err.flush()
    out.flush()
    _exit_now_if_calls_still_run()
    return 0


def bind(addresses, port: int) -> list[socket.socket]:
    """Listening sockets on each address, all on one port (`port` 0: a free one, the first
    address's). An address this machine lacks (no IPv6) is skipped unless it is the only one; a
    port already taken on any of them is an error, never half a server: a client that reaches
    the other program there would hand it the token."""
    sockets: list[socket.socket] = []
    try:
        for address in addresses:
            sock = _listening_socket(address, port, only=len(addresses) == 1 or not sockets)
            if sock is None:
                continue
            sockets.append(sock)
            port = sock.getsockname()[1]
    except BaseException:
        for sock in sockets:
            sock.close()
        raise
    return sockets


def _listening_socket(address: str, port: int, only: bool) -> socket.socket | None:
    family = socket.AF_INET6 if ":" in address else socket.AF_INET
    try:
        # IPPROTO_TCP, not 0: asyncio turns Nagle off (TCP_NODELAY) only on sockets that say they are
        # TCP, and with it on, an answer's body waits ~40 ms for the client's delayed ACK of its headers
        sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    except OSError as exc:
        if only or exc.errno not in _NOT_HERE:
            raise UserError(f"cannot listen on {address}: {exc.strerror}") from None
        return None
    try:
        if family == socket.AF_INET6:
            sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
        if os.name != "nt":   # a restart right after a stop (POSIX never lets two sockets listen on one port)
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((address, port))
        sock.listen(BACKLOG)
    except OSError as exc:
        sock.close()
        if exc.errno == errno.EADDRINUSE:
            raise UserError(f"port {port} is already in use on {address} by another program: choose another "
                            f"with --port, or set mcp_http_port in config.yaml") from None
        if not only and exc.errno in _NOT_HERE:
            return None
        raise UserError(f"cannot listen on {address} port {port}: {exc.strerror}") from None
    sock.set_inheritable(False)
    return sock


# -- the application ---------------------------------------------------------------------------------

def build_app(vault: str | None, token: str, port: int):
    """The tools of `mcp_server` as an ASGI application at /mcp, behind `Guard`."""
    return Guard(Endpoint(mcp_server.build(vault)), token, port)


class Endpoint:
    """Streamable HTTP, stateless, in plain JSON (MCP 2025-03-26 and later): each POST to /mcp
    carries one JSON-RPC message; a request gets its answer as the body, a notification (or an
    answer) 202 and nothing. A request holds nothing after its answer (memory stays flat over a
    day of use) and a restarted server serves the clients it had without them noticing; the tools
    never ask the client anything back, so nothing is lost by it. There is no stream to open
    (GET) nor a session to end (DELETE): any method but POST gets 405. The answers are
    `mcp_server.Server`'s, the very ones stdio gives; requests are answered on worker threads, so
    that a slow call holds up no other.

    Memory: what the calls allocate is freed when they end, but the C allocator keeps it, in one
    arena per worker thread that ever ran beside another (glibc), so with 20 clients at once the
    process's RSS went from 60 MB to ~110 MB and stayed there, levelling off (the Python heap did
    not grow: tracemalloc, benchmarks/mcp_server.py --memory-only --trace). Once no call has run
    for IDLE_TRIM_SECONDS, `malloc_trim` hands the free pages back: ~70 MB at rest."""

    def __init__(self, server):
        from concurrent.futures import ThreadPoolExecutor

        self.server = server
        self.workers = ThreadPoolExecutor(mcp_server.MAX_CALLS, thread_name_prefix="mcp-call")
        self._running = 0
        self._trim_later = None
        self._trim = _allocator_trim()

    async def __call__(self, scope, receive, send):
        if scope["type"] == "lifespan":
            return await self.lifespan(receive, send)
        if scope.get("path") != endpoint.PATH:
            return await _refuse(send, 404, b"Not Found")
        if scope.get("method") != "POST":
            return await _refuse(send, 405, b"", [(b"allow", b"POST")])
        headers = scope.get("headers") or []
        if not _accepts_json(_values(headers, b"accept")):
            return await _answer(send, 406, _error("Not Acceptable: the client must accept application/json"))
        if not any(value.split(";")[0].strip().lower() == "application/json" for value in _values(headers, b"content-type")):
            return await _answer(send, 415, _error("Unsupported Media Type: Content-Type must be application/json"))
        try:
            body = await asyncio.wait_for(_body(scope, receive, MAX_BODY_BYTES), BODY_SECONDS)
        except asyncio.TimeoutError:
            return await _refuse(send, 408, b"Request Timeout: the body did not arrive in time")
        if body is None:
            return await _refuse(send, 413, b"Payload Too Large")
        message = mcp_server.incoming(body)
        if message.kind == "invalid":
            return await _answer(send, 400, message.reply)
        versions = _values(headers, b"mcp-protocol-version")
        if versions and versions[0].strip() not in mcp_server.PROTOCOL_VERSIONS:
            return await _answer(send, 400, mcp_server.error_reply(
                message.request_id, mcp_server.INVALID_REQUEST,
                f"Bad Request: unsupported protocol version {versions[0].strip()!r} (supported: "
                f"{', '.join(mcp_server.PROTOCOL_VERSIONS)})"))
        if message.kind != "request":
            return await _refuse(send, 202, b"")
        loop = asyncio.get_running_loop()
        self._call_starts()
        try:
            reply = await loop.run_in_executor(self.workers, self.server.answer, message)
        finally:
            self._call_ended(loop)
        return await _answer(send, 200, reply)

    def _call_starts(self) -> None:
        self._running += 1
        if self._trim_later is not None:
            self._trim_later.cancel()
            self._trim_later = None

    def _call_ended(self, loop) -> None:
        self._running -= 1
        if self._running == 0 and self._trim is not None:
            self._trim_later = loop.call_later(IDLE_TRIM_SECONDS, self._trim_when_idle, loop)

    def _trim_when_idle(self, loop) -> None:
        self._trim_later = None
        if self._running == 0:
            try:
                loop.run_in_executor(self.workers, self._trim)
            except RuntimeError:        # (the workers were shut down: the server stops)
                pass

    async def lifespan(self, receive, send) -> None:
        while True:
            event = await receive()
            if event["type"] == "lifespan.startup":
                await send({"type": "lifespan.startup.complete"})
            elif event["type"] == "lifespan.shutdown":
                if self._trim_later is not None:
                    self._trim_later.cancel()
                self.workers.shutdown(wait=False)
                await send({"type": "lifespan.shutdown.complete"})
                return


def _allocator_trim():
    """glibc's `malloc_trim(0)` (free memory of every arena back to the system), or None where the C
    library has none (macOS, Windows, musl)."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        import ctypes

        trim = ctypes.CDLL(None).malloc_trim
    except (OSError, AttributeError):
        return None
    trim.argtypes, trim.restype = [ctypes.c_size_t], ctypes.c_int
    return lambda: trim(0)


def _accepts_json(values: list[str]) -> bool:
    """No Accept header, or one that takes JSON."""
    if not values:
        return True
    kinds = {part.split(";")[0].strip().lower() for value in values for part in value.split(",")}
    return bool(kinds & {"application/json", "application/*", "*/*"})


async def _body(scope, receive, limit: int) -> bytes | None:
    """The request's body, or None when it is longer than `limit` bytes (not read past that)."""
    declared = _values(scope.get("headers") or [], b"content-length")
    if declared and declared[0].strip().isdigit() and int(declared[0]) > limit:
        return None
    chunks, size = [], 0
    while True:
        event = await receive()
        if event["type"] != "http.request":
            return b""                                   # the client left: an empty body, answered -32700
        chunk = event.get("body", b"")
        size += len(chunk)
        if size > limit:
            return None
        chunks.append(chunk)
        if not event.get("more_body"):
            return b"".join(chunks)


def _error(message: str) -> dict:
    return mcp_server.error_reply(None, mcp_server.INVALID_REQUEST, message)


async def _answer(send, status: int, message: dict) -> None:
    body = mcp_server.encoded(message)
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode("ascii"))]})
    await send({"type": "http.response.body", "body": body})


class Guard:
    """ASGI middleware in front of everything: at most MAX_REQUESTS requests at once (503
    beyond; idle and slow connections count for nothing, `HeadDeadline` closes them), the bearer
    token, then Host, then Origin."""

    def __init__(self, app, token: str, port: int):
        self.app = app
        self._digest = _digest(token.encode("ascii"))
        self.hosts = frozenset(host.lower() for host in endpoint.allowed_hosts(port))
        self.origins = frozenset(origin.lower() for origin in endpoint.allowed_origins(port))
        self.requests = 0

    async def __call__(self, scope, receive, send):
        if scope["type"] == "lifespan":
            return await self.app(scope, receive, send)
        if scope["type"] != "http":
            return await send({"type": "websocket.close", "code": 1008})
        if self.requests >= MAX_REQUESTS:
            return await _refuse(send, 503, b"Service Unavailable: too many requests at once")
        self.requests += 1
        try:
            return await self._checked(scope, receive, send)
        finally:
            self.requests -= 1

    async def _checked(self, scope, receive, send):
        headers = scope.get("headers") or []
        if not self.authorized(_values(headers, b"authorization")):
            return await _refuse(send, 401, b"", [(b"www-authenticate", b"Bearer")])
        hosts = _values(headers, b"host")
        if len(hosts) != 1 or hosts[0].lower() not in self.hosts:
            return await _refuse(send, 421, b"Invalid Host header")
        origins = _values(headers, b"origin")
        if origins and (len(origins) != 1 or origins[0].lower() not in self.origins):
            return await _refuse(send, 403, b"Invalid Origin header")
        return await self.app(scope, receive, send)

    def authorized(self, values: list[str]) -> bool:
        if len(values) != 1:
            return False
        scheme, _, presented = values[0].strip().partition(" ")
        if scheme.lower() != "bearer":
            return False
        # digests of equal length: the comparison's time says nothing about the token, not even its length
        return hmac.compare_digest(_digest(presented.strip().encode("utf-8", "surrogateescape")), self._digest)


def _digest(data: bytes) -> bytes:
    return hashlib.sha256(data).digest()


def _values(headers, name: bytes) -> list[str]:
    return [value.decode("latin-1") for key, value in headers if key.lower() == name]


async def _refuse(send, status: int, body: bytes, extra: list | None = None) -> None:
    headers = [(b"content-length", str(len(body)).encode("ascii"))] + (extra or [])
    if body:
        headers.append((b"content-type", b"text/plain; charset=utf-8"))
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


# -- running it --------------------------------------------------------------------------------------

def _uvicorn_server(app):
    import uvicorn

    config = uvicorn.Config(app, log_level="warning", access_log=False, lifespan="on", ws="none",
                            http=head_deadline_protocol(), server_header=False, date_header=False,
                            timeout_graceful_shutdown=GRACE_SECONDS)
    return uvicorn.Server(config)


def head_deadline_protocol():
    """uvicorn's h11 protocol, with a deadline for each request's line and headers: a connection
    that sends nothing, or its headers a byte at a time, is closed HEAD_SECONDS after it opened
    (or after its last answer). uvicorn alone keeps such a connection open for good, and counts
    it against its concurrency limit: 110 of them from any local process got every client 503."""
    from uvicorn.protocols.http.h11_impl import H11Protocol

    class HeadDeadline(H11Protocol):
        _head_timer = None

        def connection_made(self, transport) -> None:
            super().connection_made(transport)
            self._arm()

        def data_received(self, data: bytes) -> None:
            cycle = self.cycle
            super().data_received(data)
            if self.cycle is not cycle:          # a request's head arrived whole
                self._disarm()

        def on_response_complete(self) -> None:
            cycle = self.cycle
            self._arm()                          # the next request's head, if any, must come in time too
            super().on_response_complete()
            if self.cycle is not cycle:          # a pipelined request was already there
                self._disarm()

        def connection_lost(self, exc) -> None:
            self._disarm()
            super().connection_lost(exc)

        def _arm(self) -> None:
            self._disarm()
            self._head_timer = self.loop.call_later(HEAD_SECONDS, self._head_too_slow)

        def _disarm(self) -> None:
            if self._head_timer is not None:
                self._head_timer.cancel()
                self._head_timer = None

        def _head_too_slow(self) -> None:
            self._head_timer = None
            if (self.cycle is None or self.cycle.response_complete) and not self.transport.is_closing():
                self.transport.close()

    return HeadDeadline


def _install_stop_handlers() -> StopRequest:
    """SIGTERM and SIGINT end the server through the `finally` blocks (SIGTERM's default action
    would kill it on the spot and leave the state file; SIGINT's KeyboardInterrupt can be dropped
    as any exception raised in a callback can); SIGHUP (the terminal closed) is taken for a
    SIGTERM. uvicorn takes SIGINT and SIGTERM over while it serves, shuts down gracefully, and
    raises them again once done: then these run."""
    stop = StopRequest()
    signal.signal(signal.SIGTERM, stop.arrived)
    signal.signal(signal.SIGINT, stop.arrived)
    if hasattr(signal, "SIGHUP"):
        signal.signal(signal.SIGHUP, lambda signum, frame: signal.raise_signal(signal.SIGTERM))
    return stop


def _announce(out, err, port: int, addresses: list[str], home: str, token: str, created: bool) -> None:
    urls = " and ".join(endpoint.url(port, address) for address in addresses)
    err.write(f"obsidian-memory: MCP server on {urls} (pid {os.getpid()}); every request needs the token in "
              f"{endpoint.token_path(home)}. Ctrl-C or SIGTERM stops it.\n")
    if created and out.isatty():
        out.write("A new token was made. " + endpoint.client_configuration(port, token, endpoint.token_path(home)))
    elif created:
        err.write("obsidian-memory: a new token was made; `obsidian_memory.py mcp --http --show-config` prints "
                  "the client configuration\n")
    out.flush()
    err.flush()


def _exit_now_if_calls_still_run() -> None:
    """A tool call still running after the graceful window (a long first index build) holds a
    worker thread the interpreter would wait for: the server is gone, so is the process."""
    main = threading.main_thread()
    if any(t is not main and t.is_alive() and not t.daemon for t in threading.enumerate()):
        os._exit(0)
