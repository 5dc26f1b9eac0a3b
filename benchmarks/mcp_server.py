#!/usr/bin/env python3
"""How long `obsidian_memory.py mcp` takes from process start to its first tool result, and what a
search costs once it runs, against the one-shot CLI. Prints figures and ratios, asserts nothing.

    .venv/bin/python benchmarks/mcp_server.py [--vault ../shared/eval/obsidian-help-en] [--runs 5]

In a temporary HOME (the index is built there, the vault is only read). Each run, interleaved so that
machine noise hits all alike:
  - `python -c pass` and `python -c "import mcp.server.mcpserver"` (the interpreter and the SDK),
  - the server spawned on pipes, sent `initialize`, `notifications/initialized` and a `tools/call` at
    once, as a client does: time to the initialize answer, then to the first result of `status` and of
    `search` (local index, already built),
  - `search_vault.py QUERY --source local --json`, the one-shot CLI with the same index.
Then one server session answers every query of QUERIES in turn (the per-call cost of a long-lived
server), and once the server's first search has to build the index (cold cache).
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
CLI = REPO / "scripts" / "obsidian_memory.py"
SEARCH_CLI = REPO / "scripts" / "search_vault.py"
DEFAULT_VAULT = REPO.parent / "shared" / "eval" / "obsidian-help-en"
QUERIES = ["canvas file", "embed pdf", "sync vault", "keyboard shortcut", "graph view filter",
           "publish custom domain", "daily notes template", "link to heading"]
INITIALIZE = {"jsonrpc": "2.0", "id": 0, "method": "initialize",
              "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                         "clientInfo": {"name": "benchmark", "version": "1"}}}
INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}


def tool_call(number: int, name: str, arguments: dict) -> dict:
    return {"jsonrpc": "2.0", "id": number, "method": "tools/call", "params": {"name": name, "arguments": arguments}}


class Server:
    """The server on pipes; `send` writes requests, `wait_for(id)` returns the seconds since spawn."""

    def __init__(self, environ: dict):
        self.started = time.perf_counter()
        self.process = subprocess.Popen([sys.executable, str(CLI), "mcp"], stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=environ)

    def send(self, *messages: dict) -> None:
        self.process.stdin.write("".join(json.dumps(m) + "\n" for m in messages).encode())
        self.process.stdin.flush()

    def wait_for(self, number: int) -> tuple[float, dict]:
        while True:
            line = self.process.stdout.readline()
            if not line:
                raise SystemExit("the server closed its stdout")
            message = json.loads(line)
            if message.get("id") == number:
                if "error" in message or message["result"].get("isError"):
                    raise SystemExit(f"request {number} failed: {message}")
                return time.perf_counter() - self.started, message

    def close(self) -> None:
        self.process.stdin.close()
        self.process.wait(timeout=30)


def first_result(environ: dict, name: str, arguments: dict) -> tuple[float, float]:
    """(seconds to the initialize answer, seconds to the first tool result), both from spawn."""
    server = Server(environ)
    server.send(INITIALIZE, INITIALIZED, tool_call(1, name, arguments))
    ready, _ = server.wait_for(0)
    done, _ = server.wait_for(1)
    server.close()
    return ready, done


def session_calls(environ: dict) -> list[float]:
    """Seconds per search, one after the other in one session (after a first call)."""
    server = Server(environ)
    server.send(INITIALIZE, INITIALIZED, tool_call(1, "status", {}))
    server.wait_for(1)
    times = []
    for number, query in enumerate(QUERIES * 2, start=2):
        started = time.perf_counter()
        server.send(tool_call(number, "search", {"query": query, "source": "local"}))
        server.wait_for(number)
        times.append(time.perf_counter() - started)
    server.close()
    return times


def run_seconds(args: list[str], environ: dict) -> float:
    started = time.perf_counter()
    subprocess.run(args, check=True, capture_output=True, env=environ)
    return time.perf_counter() - started


def ms(seconds: float) -> str:
    return f"{seconds * 1000:7.0f} ms"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--vault", default=str(DEFAULT_VAULT))
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    vault = Path(args.vault).resolve()
    if not vault.is_dir():
        raise SystemExit(f"no vault at {vault} (pass --vault)")
    notes = sum(1 for _ in vault.rglob("*.md"))
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp)
        environ = {**{k: v for k, v in os.environ.items() if not k.startswith(("CLAUDE", "OBSIDIAN", "OMNISEARCH"))},
                   "HOME": str(home), "CLAUDE_CONFIG_DIR": str(home / ".claude"), "OBSIDIAN_VAULT": str(vault),
                   "OMNISEARCH_PORT": "9", "PYTHONPYCACHEPREFIX": str(home / "pycache")}
        subprocess.run([sys.executable, str(CLI), "reindex"], check=True, capture_output=True, env=environ)
        search_args = {"query": QUERIES[0], "source": "local"}
        figures: dict[str, list[float]] = {key: [] for key in
                                           ("bare", "sdk", "ready", "status", "search", "cli_search")}
        for _ in range(args.runs):
            figures["bare"].append(run_seconds([sys.executable, "-c", "pass"], environ))
            figures["sdk"].append(run_seconds([sys.executable, "-c", "import mcp.server.mcpserver"], environ))
            ready, status = first_result(environ, "status", {})
            figures["ready"].append(ready)
            figures["status"].append(status)
            figures["search"].append(first_result(environ, "search", search_args)[1])
            figures["cli_search"].append(run_seconds([sys.executable, str(SEARCH_CLI), QUERIES[0], "--source",
                                                      "local", "--json"], environ))
        warm = session_calls(environ)
        shutil.rmtree(home / ".claude" / "obsidian-memory" / "cache")
        cold_ready, cold_search = first_result(environ, "search", search_args)

    med = {key: statistics.median(values) for key, values in figures.items()}
    print(f"vault: {vault} ({notes} notes), runs: {args.runs}, medians")
    print(f"  python -c pass                              {ms(med['bare'])}")
    print(f"  python -c 'import mcp.server.mcpserver'     {ms(med['sdk'])}")
    print(f"  server spawn -> initialize answered         {ms(med['ready'])}")
    print(f"  server spawn -> first `status` result       {ms(med['status'])}   (probes Omnisearch, 0.5 s cap)")
    print(f"  server spawn -> first `search` result       {ms(med['search'])}")
    print(f"  search_vault.py one-shot (same index)       {ms(med['cli_search'])}")
    print(f"  search in a running session (p50 of {len(warm)})      {ms(statistics.median(warm))}"
          f"   max {ms(max(warm)).strip()}")
    print(f"  cold cache: spawn -> first `search` result  {ms(cold_search)}   (index built first; "
          f"initialize at {ms(cold_ready).strip()})")
    print("ratios")
    print(f"  first search via server / one-shot CLI      {med['search'] / med['cli_search']:7.2f}")
    print(f"  one-shot CLI / search in a running session  {med['cli_search'] / statistics.median(warm):7.1f}")
    print(f"  SDK import / server ready                   {(med['sdk'] - med['bare']) / med['ready']:7.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
