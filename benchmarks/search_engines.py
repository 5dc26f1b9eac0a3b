"""Figures for the search dispatcher: how fast "Omnisearch is offline" is known, what the timeout
costs, and what the reference scanner costs on a real vault. Prints figures, asserts nothing.

    .venv/bin/python benchmarks/search_engines.py [--vault ../shared/eval/obsidian-help-en] [--runs 20]
"""
from __future__ import annotations

import argparse
import os
import socket
import statistics
import subprocess
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from obsidian_memory.search.engines import omnisearch, scan  # noqa: E402
from obsidian_memory.search.base import Query  # noqa: E402

QUERIES = ["canvas file", "embed pdf", "sync vault", "keyboard shortcut", "graph view filter",
           "publish custom domain", "daily notes template", "link to heading"]


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def timed(action, runs: int) -> list[float]:
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        action()
        times.append(time.perf_counter() - started)
    return times


def describe(name: str, times: list[float]) -> None:
    ordered = sorted(times)
    p95 = ordered[min(len(ordered) - 1, int(round(0.95 * (len(ordered) - 1))))]
    print(f"{name:58s} p50 {statistics.median(times) * 1000:8.1f} ms   p95 {p95 * 1000:8.1f} ms   n={len(times)}")


def offline_fetch(port: int) -> None:
    try:
        omnisearch.fetch("x", port)
    except omnisearch.Offline:
        return
    raise SystemExit("something answers on the closed port")


class Sleepy(BaseHTTPRequestHandler):
    def do_GET(self):  # noqa: N802
        time.sleep(3)

    def log_message(self, *args):
        pass


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--vault", default=str(REPO.parent / "shared" / "eval" / "obsidian-help-en"))
    parser.add_argument("--runs", type=int, default=20)
    args = parser.parse_args()
    port = closed_port()
    env = {**os.environ, "OBSIDIAN_VAULT": args.vault, "OMNISEARCH_PORT": str(port)}

    print(f"vault: {args.vault} ({sum(1 for _ in scan.iter_notes(args.vault))} notes)")
    describe("in-process: Omnisearch offline on a closed port", timed(lambda: offline_fetch(port), args.runs))

    server = ThreadingHTTPServer(("127.0.0.1", 0), Sleepy)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
    describe("in-process: Omnisearch offline, server slower than timeout",
             timed(lambda: offline_fetch(server.server_address[1]), max(3, args.runs // 5)))
    server.shutdown()

    queries = iter(QUERIES * args.runs)
    describe("in-process: scan, one query", timed(lambda: scan.search(Query(next(queries)), args.vault), args.runs))

    def process(*extra):
        return lambda: subprocess.run([sys.executable, str(REPO / "scripts" / "search_vault.py"), "canvas file",
                                       *extra], env=env, capture_output=True, check=True)

    bare = timed(lambda: subprocess.run([sys.executable, "-c", "pass"], check=True), args.runs)
    describe("whole process: python -c pass", bare)
    offline = timed(process("--source", "omnisearch"), args.runs)
    describe("whole process: --source omnisearch (closed port)", offline)
    scanned = timed(process("--source", "scan"), args.runs)
    describe("whole process: --source scan", scanned)
    auto_scan = timed(process("--source", "auto"), args.runs)
    describe("whole process: --source auto (closed port -> local)", auto_scan)
    local = timed(process("--source", "local"), args.runs)
    describe("whole process: --source local", local)
    print(f"auto/local ratio (cost of trying Omnisearch first): "
          f"{statistics.median(auto_scan) / statistics.median(local):.2f}")


if __name__ == "__main__":
    main()
