#!/usr/bin/env python3
"""How long `obsidian_memory.py mcp` takes from process start to its first tool result, and what a
search costs once it runs, over stdio and over HTTP (`mcp --http`), against the one-shot CLI; and
the HTTP server's memory over many requests. Prints figures and ratios, asserts nothing.

    .venv/bin/python benchmarks/mcp_server.py [--vault ../shared/eval/obsidian-help-en] [--runs 5]
                                              [--requests 5000] [--old CHECKOUT] [--large-notes N]
                                              [--memory-only [--trace]]

`--memory-only` measures only the HTTP server's memory (with `--old`, the old checkout's too, in
the same run; `--trace` adds the server's Python heap by tracemalloc snapshots, to tell a leak of
objects from memory the C allocator keeps). `--old` names another checkout of the project (e.g. `git worktree add /tmp/old <commit>`): its
server's first search after spawn, over stdio and over HTTP, is timed in the same runs, interleaved
with this checkout's (each in its own HOME and index), and the ratios printed. `--large-notes N`
times the first search after spawn once more on a generated vault of N notes (there the index's
freshness check weighs), old and new alike.

In a temporary HOME (the index is built there, the vault is only read). Each run, interleaved so that
machine noise hits all alike:
  - `python -c pass` and `python -c "import mcp.server.mcpserver"` (the interpreter and the SDK),
  - the server spawned on pipes, sent `initialize`, `notifications/initialized` and a `tools/call` at
    once, as a client does: time to the initialize answer, then to the first result of `status` and of
    `search` (local index, already built),
  - `search_vault.py QUERY --source local --json`, the one-shot CLI with the same index.
  - `mcp --http --port 0` spawned: time until its first `search` result (the client polls the
    port, sends initialize and the call as soon as it listens), then stopped with SIGTERM.
Then one server session answers every query of QUERIES in turn (the per-call cost of a long-lived
server), over stdio and over HTTP (one kept-alive connection, raw JSON-RPC: no client library's
own cost counted), and once the stdio server's first search has to build the index (cold cache).
Last, one HTTP server answers --requests calls of every tool, in rounds of calls one after the
other and calls from 20 clients at once, while its resident memory is sampled. And, in this
process, what a request's freshness check costs when it walks the vault (every one-shot process,
and the server where there is no watch) against when the server's watch hears of no change (Linux):
on the vault and on a generated vault of --watch-notes notes.
"""
from __future__ import annotations

import argparse
import http.client
import json
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
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
IDLE_REST = 1.5             # seconds: more than mcp_http.IDLE_TRIM_SECONDS


def tool_call(number: int, name: str, arguments: dict) -> dict:
    return {"jsonrpc": "2.0", "id": number, "method": "tools/call", "params": {"name": name, "arguments": arguments}}


class Server:
    """The server on pipes; `send` writes requests, `wait_for(id)` returns the seconds since spawn."""

    def __init__(self, environ: dict, cli: Path = CLI):
        self.started = time.perf_counter()
        self.process = subprocess.Popen([sys.executable, str(cli), "mcp"], stdin=subprocess.PIPE,
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

    def close(self) -> float:
        """Close stdin and wait for the end; the process's CPU seconds (user + system), a figure that
        the other loads of a shared machine inflate less than wall time."""
        self.process.stdin.close()
        _, status, usage = os.wait4(self.process.pid, 0)
        self.process.returncode = os.waitstatus_to_exitcode(status)
        return usage.ru_utime + usage.ru_stime


def first_result(environ: dict, name: str, arguments: dict, cli: Path = CLI, cpu: list | None = None
                 ) -> tuple[float, float]:
    """(seconds to the initialize answer, seconds to the first tool result), both from spawn; the
    server's CPU seconds (to its exit, right after) appended to `cpu`."""
    server = Server(environ, cli)
    server.send(INITIALIZE, INITIALIZED, tool_call(1, name, arguments))
    ready, _ = server.wait_for(0)
    done, _ = server.wait_for(1)
    used = server.close()
    if cpu is not None:
        cpu.append(used)
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


class HttpServer:
    """`mcp --http --port 0`: its port and token from the files it writes; requests over one
    kept-alive connection, as a client with a connection pool sends them."""

    def __init__(self, environ: dict, home: Path, cli: Path = CLI, wrapper: tuple = ()):
        self.started = time.perf_counter()
        self.home = home
        self.process = subprocess.Popen([sys.executable, *wrapper, str(cli), "mcp", "--http", "--port", "0"],
                                        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                        stderr=subprocess.DEVNULL, env=environ)
        while True:
            state = _read_json(home / "mcp-http.json")
            if state and state.get("pid") == self.process.pid:
                break
            if self.process.poll() is not None:
                raise SystemExit("the HTTP server ended at start")
            time.sleep(0.005)
        self.port = state["port"]
        self.token = (home / "mcp-http.token").read_text(encoding="ascii").strip()
        self.connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=120)

    def call(self, message: dict, connection=None) -> dict:
        connection = connection or self.connection
        connection.request("POST", "/mcp", body=json.dumps(message), headers={
            "Authorization": f"Bearer {self.token}", "Content-Type": "application/json",
            "Accept": "application/json, text/event-stream", "MCP-Protocol-Version": "2025-06-18"})
        response = connection.getresponse()
        answer = json.loads(response.read())
        if response.status != 200 or "error" in answer or answer["result"].get("isError"):
            raise SystemExit(f"HTTP request failed ({response.status}): {answer}")
        return answer

    def rss_kb(self) -> int:
        done = subprocess.run(["ps", "-o", "rss=", "-p", str(self.process.pid)], capture_output=True, text=True)
        return int(done.stdout.strip() or 0)

    def close(self) -> None:
        self.connection.close()
        self.process.send_signal(signal.SIGTERM)
        self.process.wait(timeout=30)


def _read_json(path: Path):
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def http_first_search(environ: dict, home: Path, arguments: dict, cli: Path = CLI) -> float:
    """Seconds from spawning `mcp --http` to its first search result."""
    server = HttpServer(environ, home, cli)
    server.call(INITIALIZE)
    server.call(tool_call(1, "search", arguments))
    seconds = time.perf_counter() - server.started
    server.close()
    return seconds


def http_session_calls(environ: dict, home: Path) -> list[float]:
    """Seconds per search over HTTP, one after the other on one connection (after a first call)."""
    server = HttpServer(environ, home)
    server.call(INITIALIZE)
    server.call(tool_call(1, "status", {}))
    times = []
    for number, query in enumerate(QUERIES * 2, start=2):
        started = time.perf_counter()
        server.call(tool_call(number, "search", {"query": query, "source": "local"}))
        times.append(time.perf_counter() - started)
    server.close()
    return times


# The server under tracemalloc, for --trace: the Python heap it holds, written to a file when asked
# (the benchmark touches `<dir>/ask<n>`; the server answers with `<dir>/heap<n>`, after a collection).
TRACED = """import gc, os, runpy, sys, threading, time, tracemalloc
tracemalloc.start()
folder = os.environ["HEAP_DIR"]
def answer():
    n = 0
    while True:
        time.sleep(0.05)
        if os.path.exists(os.path.join(folder, f"ask{n}")):
            gc.collect()
            snapshot = tracemalloc.take_snapshot()
            snapshot.dump(os.path.join(folder, f"heap{n}.tmp"))
            os.replace(os.path.join(folder, f"heap{n}.tmp"), os.path.join(folder, f"heap{n}"))
            n += 1
threading.Thread(target=answer, daemon=True).start()
sys.argv = sys.argv[1:]
runpy.run_path(sys.argv[0], run_name="__main__")
"""


class Heap:
    """The traced server's Python heap, snapshot by snapshot (--trace)."""

    def __init__(self, folder: Path):
        self.folder, self.snapshots = folder, []
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "traced.py").write_text(TRACED, encoding="utf-8")

    @property
    def wrapper(self) -> tuple:
        return (str(self.folder / "traced.py"),)

    def take(self) -> None:
        import tracemalloc

        n = len(self.snapshots)
        (self.folder / f"ask{n}").touch()
        while not (self.folder / f"heap{n}").exists():
            time.sleep(0.02)
        self.snapshots.append(tracemalloc.Snapshot.load(str(self.folder / f"heap{n}")))

    @staticmethod
    def size(snapshot) -> int:
        return sum(stat.size for stat in snapshot.statistics("filename"))


def http_memory(environ: dict, home: Path, requests: int, cli: Path = CLI, heap: Heap | None = None) -> dict:
    """The server's RSS at start, after a warm-up of 200 calls, and after each round of 510 more
    (250 calls of every tool in turn on one connection, then 260 from 20 clients at once) until
    `requests`, right after the round and once the server has rested (IDLE_REST seconds: a
    server gives its freed memory back when idle); and the p50 of a search while 20 clients call at
    once. With `heap`, the server runs under tracemalloc and its Python heap is taken after the
    warm-up and after each round."""
    if heap:
        environ = dict(environ, HEAP_DIR=str(heap.folder))
    server = HttpServer(environ, home, cli, heap.wrapper if heap else ())
    server.call(INITIALIZE)
    figures = {"start": server.rss_kb()}
    calls = [("search", {"query": q, "source": "local"}) for q in QUERIES] + [
        ("search", {"queries": ["sync vault", "obsidian sync"], "source": "local", "limit": 20}),
        ("read", {"paths": ["Obsidian Sync/Headless Sync.md", "Plugins/Canvas.md"]}),
        ("related", {"path": "Plugins/Canvas.md", "depth": 2}),
        ("similar", {"path": "Plugins/Canvas.md"}),
        ("search", {"query": "canvas", "mode": "title", "source": "local"}),
        ("search_sessions", {"pattern": "canvas"})]
    concurrent_latency: list[float] = []

    def calls_on_one_connection(count: int, offset: int, timed: bool = False) -> None:
        connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=120)
        for number in range(count):
            name, arguments = calls[(offset + number) % len(calls)]
            started = time.perf_counter()
            server.call(tool_call(number, name, arguments), connection)
            if timed and name == "search":
                concurrent_latency.append(time.perf_counter() - started)
        connection.close()

    calls_on_one_connection(200, 0)
    figures["warm"] = server.rss_kb()
    if heap:
        heap.take()
    samples, rested, done = [], [], 0
    while done < requests:
        calls_on_one_connection(250, done)
        clients = [threading.Thread(target=calls_on_one_connection, args=(13, done + number, True))
                   for number in range(20)]
        for thread in clients:
            thread.start()
        for thread in clients:
            thread.join()
        done += 250 + 20 * 13
        samples.append(server.rss_kb())
        time.sleep(IDLE_REST)
        rested.append(server.rss_kb())
        if heap:
            heap.take()
    figures.update(end=samples[-1], peak=max(samples), samples=samples, rested=rested, requests=200 + done,
                   concurrent_p50=statistics.median(concurrent_latency))
    server.close()
    return figures


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
    parser.add_argument("--requests", type=int, default=5000, help="calls for the HTTP server's memory figure")
    parser.add_argument("--watch-notes", type=int, default=20000,
                        help="notes of the generated vault for the walk-against-watch figure (0: skip it)")
    parser.add_argument("--semantic", action="store_true",
                        help="then embed the vault and compare hybrid searches (the model loaded per process)")
    parser.add_argument("--old", default=None, help="another checkout whose first search after spawn is timed "
                                                   "alongside (e.g. main before a change)")
    parser.add_argument("--large-notes", type=int, default=0,
                        help="also time the first search after spawn on a generated vault of this many notes")
    parser.add_argument("--memory-only", action="store_true",
                        help="only the HTTP server's memory over --requests calls (and --old's, in the same run)")
    parser.add_argument("--trace", action="store_true",
                        help="with --memory-only: the server's Python heap too (tracemalloc; slows the server)")
    args = parser.parse_args()
    vault = Path(args.vault).resolve()
    if not vault.is_dir():
        raise SystemExit(f"no vault at {vault} (pass --vault)")
    if args.memory_only:
        return memory_only(vault, args.requests, args.old, args.trace)
    notes = sum(1 for _ in vault.rglob("*.md"))
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp)
        new = Install(CLI, home / "new", vault)
        old = Install(Path(args.old).resolve() / "scripts" / "obsidian_memory.py", home / "old", vault) \
            if args.old else None
        environ, ours = new.environ, new.ours
        search_args = {"query": QUERIES[0], "source": "local"}
        figures: dict[str, list[float]] = {key: [] for key in
                                           ("bare", "sdk", "ready", "status", "search", "cli_search", "http_search",
                                            "old_search", "old_http_search", "search_cpu", "old_search_cpu")}
        for _ in range(args.runs):
            figures["bare"].append(run_seconds([sys.executable, "-c", "pass"], environ))
            figures["sdk"].append(run_seconds([sys.executable, "-c", "import mcp.server.mcpserver"], environ))
            ready, status = first_result(environ, "status", {})
            figures["ready"].append(ready)
            figures["status"].append(status)
            figures["search"].append(new.first_search(search_args, figures["search_cpu"]))
            if old:
                figures["old_search"].append(old.first_search(search_args, figures["old_search_cpu"]))
            figures["cli_search"].append(run_seconds([sys.executable, str(SEARCH_CLI), QUERIES[0], "--source",
                                                      "local", "--json"], environ))
            figures["http_search"].append(http_first_search(environ, ours, search_args))
            if old:
                figures["old_http_search"].append(old.http_first_search(search_args))
        warm = session_calls(environ)
        warm_http = http_session_calls(environ, ours)
        memory = http_memory(environ, ours, args.requests) if args.requests else None
        shutil.rmtree(ours / "cache")
        cold_ready, cold_search = first_result(environ, "search", search_args)
        hybrid = semantic_figures(environ, ours, search_args, args.runs) if args.semantic else None
        large = large_vault_figures(home, args.large_notes, old is not None and Path(args.old), args.runs) \
            if args.large_notes else None
        freshness = [freshness_figures(vault, home / "fresh-small")]
        if args.watch_notes:
            freshness.append(freshness_figures(generated_vault(home / "generated", args.watch_notes),
                                               home / "fresh-large"))

    med = {key: statistics.median(values) for key, values in figures.items() if values}
    print(f"vault: {vault} ({notes} notes), runs: {args.runs}, medians")
    print(f"  python -c pass                              {ms(med['bare'])}")
    print(f"  python -c 'import mcp.server.mcpserver'     {ms(med['sdk'])}   (the SDK: the server does without)")
    print(f"  server spawn -> initialize answered         {ms(med['ready'])}")
    print(f"  server spawn -> first `status` result       {ms(med['status'])}   (probes Omnisearch, 0.5 s cap)")
    print(f"  server spawn -> first `search` result       {ms(med['search'])}")
    print(f"  search_vault.py one-shot (same index)       {ms(med['cli_search'])}")
    print(f"  search in a running session (p50 of {len(warm)})      {ms(statistics.median(warm))}"
          f"   max {ms(max(warm)).strip()}")
    print(f"  cold cache: spawn -> first `search` result  {ms(cold_search)}   (index built first; "
          f"initialize at {ms(cold_ready).strip()})")
    print(f"  HTTP: spawn -> first `search` result        {ms(med['http_search'])}")
    print(f"  HTTP: search in a running server (p50 of {len(warm_http)}) {ms(statistics.median(warm_http))}"
          f"   max {ms(max(warm_http)).strip()}")
    if memory:
        print(f"  HTTP: search p50 while 20 clients call       {ms(memory['concurrent_p50'])}")
        print_memory("HTTP server", memory)
    p50_http, p50_stdio = statistics.median(warm_http), statistics.median(warm)
    print("ratios")
    print(f"  first search via server / one-shot CLI      {med['search'] / med['cli_search']:7.2f}")
    print(f"  one-shot CLI / search in a running session  {med['cli_search'] / p50_stdio:7.1f}")
    print(f"  warm search: HTTP / stdio                   {p50_http / p50_stdio:7.2f}")
    print(f"  one-shot CLI / warm search over HTTP        {med['cli_search'] / p50_http:7.1f}")
    print(f"  HTTP first search / stdio first search      {med['http_search'] / med['search']:7.2f}")
    if memory:
        print(f"  HTTP RSS growth, 200 calls -> {memory['requests']} calls     {memory['end'] / memory['warm']:7.2f}")
        print(f"  HTTP RSS at rest, 200 calls -> {memory['requests']} calls    {memory['rested'][-1] / memory['warm']:7.2f}")
    if old:
        print_against_old(args.old, med)
    if large:
        print_large(large)
    print_freshness(freshness)
    if hybrid:
        print_semantic(hybrid)
    return 0


def print_memory(label: str, memory: dict, heap: Heap | None = None) -> None:
    mb = lambda kb: f"{kb / 1024:.1f} MB"  # noqa: E731
    print(f"  {label} RSS: at start {mb(memory['start'])}, after 200 calls {mb(memory['warm'])}, after "
          f"{memory['requests']} calls {mb(memory['end'])} (peak {mb(memory['peak'])}), at rest "
          f"{mb(memory['rested'][-1])}")
    print(f"    after each round of 510 calls: {', '.join(f'{kb / 1024:.1f}' for kb in memory['samples'])} MB")
    print(f"    the same, {IDLE_REST:g} s later:      {', '.join(f'{kb / 1024:.1f}' for kb in memory['rested'])} MB")
    if heap:
        sizes = [Heap.size(snapshot) / 1e6 for snapshot in heap.snapshots]
        print(f"    Python heap (tracemalloc) after 200 calls, then each round: {', '.join(f'{mb:.2f}' for mb in sizes)} MB")
        for stat in heap.snapshots[-1].compare_to(heap.snapshots[0], "lineno")[:5]:
            print(f"      {stat}")


def memory_only(vault: Path, requests: int, old_checkout: str | None, trace: bool) -> int:
    """The HTTP server's memory over `requests` calls: this checkout's and `old_checkout`'s, one
    after the other in this run, each in its own HOME over the same vault."""
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp)
        installs = {"new": Install(CLI, home / "new", vault)}
        if old_checkout:
            installs["old"] = Install(Path(old_checkout).resolve() / "scripts" / "obsidian_memory.py", home / "old", vault)
        figures, heaps = {}, {}
        for name, install in installs.items():
            heaps[name] = Heap(home / f"heap-{name}") if trace else None
            figures[name] = http_memory(install.environ, install.ours, requests, install.cli, heaps[name])
    print(f"vault: {vault}; {requests} calls of every tool, one client then 20 at once, round after round")
    for name, memory in figures.items():
        print_memory(f"{name}:", memory, heaps[name])
    if "old" in figures:
        new, old = figures["new"], figures["old"]
        print("ratios new / old")
        print(f"  RSS right after the last round             {new['end'] / old['end']:7.2f}")
        print(f"  RSS at rest after the last round           {new['rested'][-1] / old['rested'][-1]:7.2f}")
        print(f"  search p50 while 20 clients call           {new['concurrent_p50'] / old['concurrent_p50']:7.2f}")
    return 0


class Install:
    """A checkout's CLI with a HOME of its own (its own config dir and index) over `vault`."""

    def __init__(self, cli: Path, home: Path, vault: Path, build: bool = True):
        self.cli = cli
        # (bytecode written and used, as in an install: PYTHONDONTWRITEBYTECODE would make every spawn compile)
        self.environ = {**{k: v for k, v in os.environ.items() if not k.startswith(("CLAUDE", "OBSIDIAN", "OMNISEARCH"))
                           and k != "PYTHONDONTWRITEBYTECODE"},
                        "HOME": str(home), "CLAUDE_CONFIG_DIR": str(home / ".claude"), "OBSIDIAN_VAULT": str(vault),
                        "OMNISEARCH_PORT": "9", "PYTHONPYCACHEPREFIX": str(home / "pycache")}
        self.ours = home / ".claude" / "obsidian-memory"
        home.mkdir(parents=True, exist_ok=True)
        if build:
            subprocess.run([sys.executable, str(cli), "reindex"], check=True, capture_output=True, env=self.environ)

    def first_search(self, arguments: dict, cpu: list | None = None) -> float:
        return first_result(self.environ, "search", arguments, self.cli, cpu)[1]

    def http_first_search(self, arguments: dict) -> float:
        return http_first_search(self.environ, self.ours, arguments, self.cli)


def print_against_old(checkout: str, med: dict) -> None:
    print(f"against {checkout} (same runs, interleaved; medians)")
    print(f"  stdio: spawn -> first `search` result: old {ms(med['old_search']).strip()}, "
          f"new {ms(med['search']).strip()}, old / new {med['old_search'] / med['search']:.2f}")
    print(f"         its CPU time, spawn to exit:    old {ms(med['old_search_cpu']).strip()}, "
          f"new {ms(med['search_cpu']).strip()}, old / new {med['old_search_cpu'] / med['search_cpu']:.2f}")
    print(f"  HTTP:  spawn -> first `search` result: old {ms(med['old_http_search']).strip()}, "
          f"new {ms(med['http_search']).strip()}, old / new {med['old_http_search'] / med['http_search']:.2f}")


def large_vault_figures(home: Path, count: int, old_checkout, runs: int) -> dict:
    """The first search after spawn (stdio and HTTP) on a generated vault of `count` notes, whose
    index is built first; with an old checkout, its figures in the same runs."""
    vault = generated_vault(home / "large-vault", count)
    installs = {"new": Install(CLI, home / "large-new", vault)}
    if old_checkout:
        installs["old"] = Install(old_checkout / "scripts" / "obsidian_memory.py", home / "large-old", vault)
    arguments = {"query": "word5 text", "source": "local"}
    times: dict[str, list[float]] = {}
    for _ in range(runs):
        for name, install in installs.items():
            times.setdefault(f"{name} stdio", []).append(install.first_search(arguments))
            times.setdefault(f"{name} HTTP", []).append(install.http_first_search(arguments))
    return {"notes": count, **{key: statistics.median(values) for key, values in times.items()}}


def print_large(figures: dict) -> None:
    print(f"generated vault of {figures['notes']} notes: spawn -> first `search` result (medians)")
    for transport in ("stdio", "HTTP"):
        line = f"  {transport:5s}: new {ms(figures[f'new {transport}']).strip()}"
        if f"old {transport}" in figures:
            old = figures[f"old {transport}"]
            line += f", old {ms(old).strip()}, old / new {old / figures[f'new {transport}']:.2f}"
        print(line)


def generated_vault(root: Path, count: int) -> Path:
    """`count` short notes in folders of 100, for the freshness figure only."""
    for number in range(count):
        folder = root / f"area{number // 1000}" / f"topic{number // 100}"
        if number % 100 == 0:
            folder.mkdir(parents=True)
        (folder / f"note {number}.md").write_text(f"# Note {number}\nword{number % 997} text {number}\n",
                                                  encoding="utf-8")
    return root


def freshness_figures(vault: Path, config_dir: Path) -> dict:
    """p50 of `VaultIndex.open_fresh` with nothing changed: walking the vault, then watched."""
    sys.path.insert(0, str(REPO))
    from obsidian_memory.core import settings as settings_module
    from obsidian_memory.search.store import VaultIndex

    settings = settings_module.Settings(str(config_dir), vault=str(vault))
    started = time.perf_counter()
    VaultIndex.open_fresh(settings).close()
    built = time.perf_counter() - started

    def p50(count: int = 40) -> float:
        times = []
        for _ in range(count):
            started = time.perf_counter()
            VaultIndex.open_fresh(settings).close()
            times.append(time.perf_counter() - started)
        return statistics.median(times)

    walked = p50()
    why = VaultIndex.watch_vault(settings)
    VaultIndex.open_fresh(settings).close()
    return {"notes": sum(1 for _ in vault.rglob("*.md")), "built": built, "walk": walked,
            "watch": None if why else p50(), "why": why}


def print_freshness(rows: list[dict]) -> None:
    print("a request's freshness check with nothing changed (in process, p50 of 40)")
    for row in rows:
        if row["watch"] is None:
            print(f"  {row['notes']:6d} notes: walk {ms(row['walk']).strip()}; no watch: {row['why']}")
            continue
        print(f"  {row['notes']:6d} notes: walk {ms(row['walk']).strip()}, watched {row['watch'] * 1000:.2f} ms, "
              f"walk / watched {row['walk'] / row['watch']:.0f}x  (index built in {row['built']:.0f} s)")


def semantic_figures(environ: dict, home: Path, search_args: dict, runs: int) -> dict:
    """The same comparison once the vault is embedded: every search is hybrid, and a process must
    load the model before its first one."""
    subprocess.run([sys.executable, str(CLI), "embed"], check=True, capture_output=True, env=environ)
    figures: dict[str, list[float]] = {"cli": [], "stdio_first": [], "http_first": []}
    for _ in range(runs):
        figures["cli"].append(run_seconds([sys.executable, str(SEARCH_CLI), QUERIES[0], "--source", "local",
                                           "--json"], environ))
        figures["stdio_first"].append(first_result(environ, "search", search_args)[1])
        figures["http_first"].append(http_first_search(environ, home, search_args))
    result = {key: statistics.median(values) for key, values in figures.items()}
    result.update(stdio_warm=statistics.median(session_calls(environ)),
                  http_warm=statistics.median(http_session_calls(environ, home)))
    return result


def print_semantic(figures: dict) -> None:
    print("with the vault embedded (hybrid searches), medians")
    print(f"  search_vault.py one-shot                    {ms(figures['cli'])}")
    print(f"  stdio: spawn -> first search result         {ms(figures['stdio_first'])}")
    print(f"  HTTP: spawn -> first search result          {ms(figures['http_first'])}")
    print(f"  stdio: search in a running session (p50)    {ms(figures['stdio_warm'])}")
    print(f"  HTTP: search in a running server (p50)      {ms(figures['http_warm'])}")
    print("ratios")
    print(f"  warm hybrid search: HTTP / stdio            {figures['http_warm'] / figures['stdio_warm']:7.2f}")
    print(f"  one-shot CLI / warm hybrid search over HTTP {figures['cli'] / figures['http_warm']:7.1f}")


if __name__ == "__main__":
    sys.exit(main())
