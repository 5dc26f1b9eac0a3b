"""`obsidian_memory.py status [--json] [--vault V]`: the local index, semantic search (on or off,
why, how much is embedded) and which engines answer."""
from __future__ import annotations

import json
import os
import sys
import time

PROBE_TIMEOUT = 0.5


def add_arguments(parser) -> None:
    parser.add_argument("--json", action="store_true", help="print the status as one JSON object")
    parser.add_argument("--vault", default=None, help="the vault (default: settings)")


def run(args) -> int:
    from obsidian_memory import settings as settings_module

    settings = settings_module.load(vault=args.vault)
    report = collect(settings)
    sys.stdout.write(json.dumps(report, indent=2) + "\n" if args.json else format_text(report))
    return 0


def collect(settings) -> dict:
    from obsidian_memory.search import index

    return {
        "vault": settings.vault,
        "vault_exists": os.path.isdir(settings.vault),
        "index": index.status(settings),
        "semantic": semantic_status(settings),
        "engines": {"index": True, "scan": True, "omnisearch": omnisearch_status(settings)},
        "archive": archive_status(settings.archive),
    }


def semantic_status(settings) -> dict:
    """hybrid.status, or "off" with the reason when even asking fails (never a traceback)."""
    try:
        from obsidian_memory.search import hybrid

        return hybrid.status(settings)
    except Exception as exc:
        reason = f"{type(exc).__name__}: {exc}"
        return {"available": False, "reason": reason, "on": False, "off_reason": reason, "default_mode": "fulltext"}


def omnisearch_status(settings) -> dict:
    """probe_omnisearch, plus what the vault's Omnisearch plugin settings say about it (`advice`)."""
    from obsidian_memory import omnisearch_plugin

    probe = probe_omnisearch(settings.omnisearch_port)
    probe["advice"] = omnisearch_plugin.describe(settings.vault, settings.omnisearch_port, probe["answers"])
    return probe


def probe_omnisearch(port: int) -> dict:
    """Whether Omnisearch answers `/search?q=` on the port, within a short timeout."""
    started = time.perf_counter()
    try:
        from obsidian_memory.search import omnisearch
    except ImportError:
        return {"port": port, "answers": False, "detail": "Omnisearch client not available"}
    try:
        omnisearch.fetch("", port, timeout=PROBE_TIMEOUT)
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

        archive = open_archive(path, readonly=True)
        try:
            info["sessions"] = archive.count_sessions()
        finally:
            close = getattr(archive, "close", None)
            if close:
                close()
    except ImportError:
        info["detail"] = "archive module not available"
    except Exception as exc:
        info["detail"] = f"unreadable: {type(exc).__name__}: {exc}"
    return info


def format_text(report: dict) -> str:
    from obsidian_memory.search.index import age_text

    idx = report["index"]
    lines = [f"vault:      {report['vault']}" + ("" if report["vault_exists"] else "  (not found)")]
    if idx["exists"]:
        lines.append(f"index:      {idx['notes_indexed']} notes, {_size(idx['size_bytes'])}, "
                     f"updated {age_text(idx['last_update'])} (schema {idx['schema_version']})")
    else:
        lines.append("index:      not built yet (the first local search or `reindex` builds it)")
    lines.append(f"            {idx['index_path']}")
    if idx.get("error"):
        lines.append(f"            {idx['error']}")
    lines.append(_semantic_line(report["semantic"]))
    omni = report["engines"]["omnisearch"]
    lines.append(f"omnisearch: {omni['advice']}" + ("" if omni["answers"] else f" [{omni['detail']}]"))
    lines.append("local:      index and scan available")
    archive = report["archive"]
    if archive["exists"]:
        sessions = archive["sessions"]
        lines.append(f"archive:    {sessions if sessions is not None else '?'} sessions ({archive['path']})"
                     + (f" - {archive['detail']}" if archive.get("detail") else ""))
    else:
        lines.append(f"archive:    none yet ({archive['path']})")
    return "\n".join(lines) + "\n"


def _semantic_line(info: dict) -> str:
    from obsidian_memory.search import hybrid

    try:
        return hybrid.status_line(info)
    except (KeyError, TypeError, ValueError):
        return f"semantic:   off ({info.get('off_reason') or info.get('reason') or 'unknown'})"


def _size(n: int) -> str:
    for unit in ("B", "KB", "MB", "GB"):
        if n < 1024 or unit == "GB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return f"{n} B"
