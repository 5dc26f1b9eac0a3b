"""Where everything is and whether it answers: the vault, the local index, semantic search,
Omnisearch and the session archive. The `status` command prints it, `doctor` checks it and
the MCP server's `status` tool returns it; gathering it never raises and never builds anything.
"""
from __future__ import annotations

import os
import time

PROBE_TIMEOUT = 0.5


def collect(settings) -> dict:
    from obsidian_memory.search import store

    return {
        "vault": settings.vault,
        "vault_exists": os.path.isdir(settings.vault),
        "index": store.status(settings),
        "semantic": semantic_status(settings),
        "engines": {"index": True, "scan": True, "omnisearch": omnisearch_status(settings)},
        "archive": archive_status(settings.archive),
        "mcp_http": mcp_http_status(settings),
    }


def mcp_http_status(settings) -> dict:
    """Whether the HTTP MCP server runs, where, and its token file's permissions (never raises)."""
    from obsidian_memory.mcp import endpoint as mcp_endpoint

    try:
        return mcp_endpoint.server_status(settings.home)
    except Exception as exc:
        return {"running": False, "stale": False, "detail": f"cannot tell: {type(exc).__name__}: {exc}",
                "token": {"exists": False, "problem": None}}


def mcp_http_line(info: dict) -> str:
    """One line for `status`: e.g. "mcp http:   running on http://127.0.0.1:51362/mcp (pid 7); token file 0600"."""
    token = info.get("token") or {}
    if token.get("problem"):
        token_text = f"; token file refused: {token['problem']}"
    elif token.get("exists"):
        token_text = f"; token file {token.get('mode')} ({token.get('path')})"
    else:
        token_text = ""
    return f"mcp http:   {info.get('detail')}{token_text}"


def semantic_status(settings) -> dict:
    """`hybrid.status`, or "off" with the reason when even asking fails (never a traceback)."""
    try:
        from obsidian_memory.search.engines import hybrid

        return hybrid.status(settings)
    except Exception as exc:
        reason = f"{type(exc).__name__}: {exc}"
        return {"available": False, "reason": reason, "on": False, "off_reason": reason, "default_mode": "fulltext"}


def omnisearch_status(settings) -> dict:
    """probe_omnisearch, plus what the vault's Omnisearch plugin settings say about it (`advice`)."""
    from obsidian_memory.vault import omnisearch_plugin

    probe = probe_omnisearch(settings.omnisearch_port)
    probe["advice"] = omnisearch_plugin.describe(settings.vault, settings.omnisearch_port, probe["answers"])
    return probe


def probe_omnisearch(port: int, timeout: float = PROBE_TIMEOUT) -> dict:
    """Whether Omnisearch answers `/search?q=` on the port, within a short timeout."""
    from obsidian_memory.search.engines import omnisearch

    started = time.perf_counter()
    try:
        omnisearch.fetch("", port, timeout=timeout)
    except omnisearch.Offline as exc:
        return {"port": port, "answers": False, "detail": str(exc)}
    except Exception as exc:  # an unexpected answer is still "not usable", never a traceback
        return {"port": port, "answers": False, "detail": f"{type(exc).__name__}: {exc}"}
    return {"port": port, "answers": True, "detail": f"answered in {time.perf_counter() - started:.2f}s"}


def archive_status(path: str) -> dict:
    info = {"path": path, "exists": os.path.exists(path), "sessions": None}
    if not info["exists"]:
        return info
    try:
        from obsidian_memory.archive import open_archive

        with open_archive(path, readonly=True) as archive:
            info["sessions"] = archive.sessions.count()
    except Exception as exc:
        info["detail"] = f"unreadable: {type(exc).__name__}: {exc}"
    return info


def age_text(timestamp: float | None) -> str:
    """"3 min ago", "2 h ago", "never"."""
    if not timestamp:
        return "never"
    seconds = max(0, time.time() - timestamp)
    for unit, size in (("d", 86400), ("h", 3600), ("min", 60)):
        if seconds >= size:
            return f"{int(seconds // size)} {unit} ago"
    return f"{int(seconds)} s ago"


def semantic_line(info: dict) -> str:
    """One line for `status`: e.g. "semantic:   on, 171 of 171 notes embedded (3.1 MB)"."""
    if not info.get("available"):
        return f"semantic:   off ({info.get('reason') or 'unknown'})"
    if not info.get("on"):
        return f"semantic:   off ({info.get('off_reason') or 'unknown'})"
    size = (f"{info['size_bytes'] / 1048576:.1f} MB" if info["size_bytes"] >= 1048576
            else f"{info['size_bytes'] / 1024:.0f} KB")
    return f"semantic:   on, {info['embedded']} of {info['notes']} notes embedded ({size}); default mode hybrid"
