"""`obsidian_memory.py mcp [--vault V]`: serve the vault and the session archive to an MCP client
over stdio (the client starts the server). `mcp --http [--port N] [--host ADDR]`: one server on
loopback for every client, each request with the bearer token; `mcp --http --show-config` prints
what to paste into Claude Code, Cursor and Claude Desktop.

The optional `[mcp]` extra brings what they need (pydantic; and uvicorn for HTTP): without it,
one line says how to install it.
"""
from __future__ import annotations

import sys

from obsidian_memory.cli.cliutil import bounded_number
from obsidian_memory.core.errors import UserError

INSTALL_HINT = "pip install 'obsidian-memory[mcp]'"


def add_arguments(parser) -> None:
    parser.description = ("Run the MCP server (tools: search, read, related, similar, search_sessions, status): "
                          "over stdio for the client that starts it, or with --http one server on loopback for "
                          "every client. Vault and settings as for the other commands.")
    parser.add_argument("--vault", default=None, help="the vault (default: $OBSIDIAN_VAULT, config.yaml, ~/Vault)")
    parser.add_argument("--http", action="store_true",
                        help="serve Streamable HTTP on 127.0.0.1 and ::1 instead of stdio; every request needs "
                             "the bearer token (made at the first start)")
    parser.add_argument("--port", type=_port, default=None,
                        help="with --http: the port (default: mcp_http_port in config.yaml, 51362; 0: any free "
                             "port, shown by `status`)")
    parser.add_argument("--host", default=None,
                        help="with --http: listen on this loopback address only (127.0.0.1 or ::1); any other "
                             "address is refused")
    parser.add_argument("--show-config", action="store_true",
                        help="with --http: print the client configuration (with the token) and exit")


def _port(text: str) -> int:
    """0 (any free port) or an unprivileged one, like the mcp_http_port setting."""
    import argparse

    value = bounded_number(0, 65535)(text)
    if 0 < value < 1024:
        raise argparse.ArgumentTypeError(f"{text!r} is a privileged port: choose 0 (any free port) or one "
                                         f"from 1,024 to 65,535")
    return value


def run(args) -> int:
    if not args.http:
        if args.port is not None or args.host is not None or args.show_config:
            raise UserError("--port, --host and --show-config go with --http")
        server = load_server_module()
        server.serve(vault=args.vault)
        return 0
    from obsidian_memory.mcp import endpoint as mcp_endpoint
    from obsidian_memory.core import settings as settings_module

    mcp_endpoint.listen_addresses(args.host)   # a refused address: one line, before anything is loaded
    settings = settings_module.load(vault=args.vault)
    if args.show_config:
        return show_config(settings, args.port)
    port = settings.mcp_http_port if args.port is None else args.port
    return load_http_module().serve(args.vault, port, args.host)


def show_config(settings, port: int | None) -> int:
    """The client configuration for the running server's port (else the configured one)."""
    from obsidian_memory.mcp import endpoint as mcp_endpoint

    state = mcp_endpoint.server_status(settings.home)
    if port is None:
        port = state["port"] if state["running"] else settings.mcp_http_port
    token, created = mcp_endpoint.ensure_token(settings.home)
    if created:
        sys.stdout.write("A new token was made. ")
    sys.stdout.write(mcp_endpoint.client_configuration(port, token, mcp_endpoint.token_path(settings.home)))
    if not state["running"]:
        sys.stdout.write("(The server is not running: start it with `obsidian_memory.py mcp --http`.)\n")
    return 0


def load_server_module():
    try:
        from obsidian_memory.mcp import server as mcp_server
    except ImportError as exc:
        _explain(exc)
    return mcp_server


def load_http_module():
    """mcp_http, once uvicorn is known to be installed (found, not imported yet: the server imports
    it while its warm-up checks the index)."""
    import importlib.util

    try:
        from obsidian_memory.mcp import http as mcp_http, server as mcp_server  # noqa: F401  (pydantic's import fails here, if it does)

        if importlib.util.find_spec("uvicorn") is None:
            raise ModuleNotFoundError("No module named 'uvicorn'", name="uvicorn")
    except ImportError as exc:
        _explain(exc)
    return mcp_http


def _explain(exc: ImportError):
    missing = getattr(exc, "name", None) or ""
    if missing in ("uvicorn", "h11", "pydantic") or missing.startswith(("uvicorn.", "pydantic.", "pydantic_core")):
        raise UserError(f"the MCP server needs the [mcp] extra (pydantic, and uvicorn for --http): {INSTALL_HINT} "
                        f"({exc})") from exc
    raise exc
