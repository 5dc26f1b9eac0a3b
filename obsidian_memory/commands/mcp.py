"""`obsidian_memory.py mcp [--vault V]`: serve the vault and the session archive to MCP clients over stdio.

The SDK is the optional `[mcp]` extra: without it, one line says how to install it.
"""
from __future__ import annotations

from obsidian_memory.errors import UserError

INSTALL_HINT = "pip install 'obsidian-memory[mcp]'"


def add_arguments(parser) -> None:
    parser.description = ("Run the stdio MCP server (tools: search, read, related, similar, search_sessions, "
                          "status). Vault and settings as for the other commands.")
    parser.add_argument("--vault", default=None, help="the vault (default: $OBSIDIAN_VAULT, config.yaml, ~/Vault)")


def run(args) -> int:
    server = load_server_module()
    server.serve(vault=args.vault)
    return 0


def load_server_module():
    try:
        from obsidian_memory import mcp_server
    except ImportError as exc:
        missing = getattr(exc, "name", None) or ""
        if missing == "mcp" or missing.startswith("mcp."):
            raise UserError(f"the MCP server needs the mcp package (version 2 or later): {INSTALL_HINT} "
                            f"({exc})") from exc
        raise
    return mcp_server
