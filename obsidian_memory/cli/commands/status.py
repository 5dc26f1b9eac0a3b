"""`obsidian_memory.py status [--json] [--vault V]`: the local index, semantic search (on or off,
why, how much is embedded) and which engines answer (gathered by `obsidian_memory.setup.status`)."""
from __future__ import annotations

import json
import sys


def add_arguments(parser) -> None:
    parser.add_argument("--json", action="store_true", help="print the status as one JSON object")
    parser.add_argument("--vault", default=None, help="the vault (default: settings)")


def run(args) -> int:
    from obsidian_memory.core import settings as settings_module
    from obsidian_memory.setup.status import collect

    settings = settings_module.load(vault=args.vault)
    report = collect(settings)
    sys.stdout.write(json.dumps(report, indent=2) + "\n" if args.json else format_text(report))
    return 0


def format_text(report: dict) -> str:
    from obsidian_memory.setup.status import age_text, mcp_http_line, semantic_line

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
    if idx.get("skipped", {}).get("count"):
        from obsidian_memory.search.store.build import skipped_text

        lines.append(f"            {skipped_text(idx['skipped']['names'], idx['skipped']['count'])}")
    if idx.get("cut", {}).get("count"):
        from obsidian_memory.search.store.build import cut_text

        lines.append(f"            {cut_text(idx['cut'])}")
    lines.append(semantic_line(report["semantic"]))
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
    if "mcp_http" in report:
        lines.append(mcp_http_line(report["mcp_http"]))
    return "\n".join(lines) + "\n"


def _size(n: int) -> str:
    for unit in ("B", "KB", "MB", "GB"):
        if n < 1024 or unit == "GB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return f"{n} B"
