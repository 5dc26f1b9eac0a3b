"""What leaving private notes out costs (issue 21): the rule per note, and whole searches.

- in-process: `Privacy.text_is_private` over every note of a vault (ns per character), next to
  what reading the same notes costs;
- whole process, for each engine: `search_vault.py --source omnisearch` against a real HTTP server
  on 127.0.0.1 answering 50 hits of the vault's notes (each hit's note is read to check it),
  `--source scan` (every note read and checked) and `--source index` (the freshness check and a
  query), with this package and, with `--baseline DIR` (a checkout or copy holding an older
  `obsidian_memory` package and `scripts/`), the older one, interleaved run by run; new/old per
  engine. The rules are the defaults (the tag `private`, the property) plus
  `private: [People, '**/secret*']` in a config.yaml of the benchmark's own;
- the history table (rendered again whenever a session is archived): with `--history N`, a
  vault of N session notes (benchmarks/vault_sweep.py's), learned by a sweep, then the median
  time of rendering the table again with nothing changed (every session note is read to check
  it), in a process of each package, interleaved; new/old.

    .venv/bin/python benchmarks/privacy_cost.py [--vault ../shared/eval/obsidian-help-en] [--runs 15]
                                                [--baseline DIR] [--history 2000]
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
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from obsidian_memory.core.fsutil import read_text  # noqa: E402
from obsidian_memory.vault.privacy import Privacy  # noqa: E402

RULES = ["People", "**/secret*"]
QUERY = "canvas file"
HITS = 50


def notes_of(vault: str) -> list[str]:
    return sorted(os.path.relpath(os.path.join(d, f), vault).replace(os.sep, "/")
                  for d, dirs, files in os.walk(vault) if not os.path.basename(d).startswith(".")
                  for f in files if f.endswith(".md"))


def rule_cost(vault: str, notes: list[str], rounds: int = 5) -> None:
    privacy = Privacy(RULES, "private")
    texts = [read_text(os.path.join(vault, p)) or "" for p in notes]
    chars = sum(map(len, texts))
    reads, checks = [], []
    for _ in range(rounds):
        started = time.perf_counter()
        for path in notes:
            read_text(os.path.join(vault, path))
        reads.append(time.perf_counter() - started)
        started = time.perf_counter()
        for path, text in zip(notes, texts):
            privacy.path_is_private(path) or privacy.text_is_private(text)
        checks.append(time.perf_counter() - started)
    read_s, check_s = statistics.median(reads), statistics.median(checks)
    print(f"rule: {len(notes)} notes, {chars / 1e6:.2f} M chars: check {check_s * 1000:.1f} ms "
          f"({check_s / chars * 1e9:.2f} ns/char, {check_s / len(notes) * 1e6:.1f} us/note); "
          f"reading them {read_s * 1000:.1f} ms; check/read {check_s / read_s:.2f}")


def omnisearch_server(vault: str, notes: list[str]) -> ThreadingHTTPServer:
    items = [{"score": 10.0 - i / 10, "vault": os.path.basename(vault), "path": path,
              "basename": path.rsplit("/", 1)[-1][:-3], "foundWords": ["canvas"], "matches": [],
              "excerpt": (read_text(os.path.join(vault, path)) or "")[:300]} for i, path in enumerate(notes[:HITS])]
    body = json.dumps(items).encode("utf-8")

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self):  # noqa: N802 (http.server's name)
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
    return server


def one_search(package: str, env: dict, source: str) -> float:
    started = time.perf_counter()
    result = subprocess.run([sys.executable, os.path.join(package, "scripts", "search_vault.py"), QUERY,
                             "--source", source, "-n", "10", "--json"], env={**env, "PYTHONPATH": package},
                            capture_output=True)
    took = time.perf_counter() - started
    if result.returncode != 0 or (source == "omnisearch" and b'"engine": "omnisearch"' not in result.stdout):
        raise SystemExit(f"{package} --source {source} failed: {result.stderr.decode()[-500:]}")
    return took


HISTORY_SCRIPT = """
import statistics, sys, time
from obsidian_memory.capture import archiving as capture
from obsidian_memory.core import settings as settings_module
from obsidian_memory.archive import open_archive
from obsidian_memory.vault.notes import history
settings = settings_module.load()
capture.sweep(settings, quiet_seconds=0)
with open_archive(settings.archive) as archive:
    history.rebuild(settings, archive)
    times = []
    for _ in range(int(sys.argv[1])):
        started = time.perf_counter()
        history.rebuild(settings, archive)
        times.append(time.perf_counter() - started)
print(statistics.median(times))
"""


def history_cost(packages: dict, notes: int, rounds: int = 3, rebuilds: int = 5) -> None:
    sys.path.insert(0, str(REPO / "benchmarks"))
    import vault_sweep

    with tempfile.TemporaryDirectory(prefix="om-privacy-history-") as tmp:
        env, _ = vault_sweep.build_world(Path(tmp), notes)
        envs = {}
        for name in packages:      # an archive of each package's own (each learns the notes once)
            config = Path(tmp, f"claude-{name}")
            shutil.copytree(env["CLAUDE_CONFIG_DIR"], config)
            envs[name] = {**env, "CLAUDE_CONFIG_DIR": str(config)}
        times = {name: [] for name in packages}
        for _ in range(rounds):
            for name, package in packages.items():
                done = subprocess.run([sys.executable, "-c", HISTORY_SCRIPT, str(rebuilds)], capture_output=True,
                                      env={**envs[name], "PYTHONPATH": package}, cwd=tmp)   # (not a checkout's cwd)
                if done.returncode != 0:
                    raise SystemExit(f"{package}: history rebuild failed: {done.stderr.decode()[-500:]}")
                times[name].append(float(done.stdout))
    line = f"history table, {notes} session notes, nothing changed: new {statistics.median(times['new']) * 1000:.1f} ms"
    if "old" in times:
        old = statistics.median(times["old"])
        line += f"   old {old * 1000:.1f} ms   new/old {statistics.median(times['new']) / old:.2f}"
    print(line)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--vault", default=str(REPO.parent / "shared" / "eval" / "obsidian-help-en"))
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--baseline", default=None, metavar="DIR")
    parser.add_argument("--history", type=int, default=0, metavar="N",
                        help="also time the history table with N session notes")
    args = parser.parse_args()
    vault = os.path.abspath(args.vault)
    notes = notes_of(vault)
    rule_cost(vault, notes)
    packages = {"new": str(REPO)}
    if args.baseline:
        packages["old"] = os.path.abspath(args.baseline)
    work = tempfile.mkdtemp(prefix="om-privacy-bench-")
    server = omnisearch_server(vault, notes)
    try:
        config = Path(work, "claude", "obsidian-memory")
        config.mkdir(parents=True)
        (config / "config.yaml").write_text(f"private: {json.dumps(RULES)}\n", encoding="utf-8")
        envs = {name: {k: v for k, v in os.environ.items() if not k.startswith(("CLAUDE", "OBSIDIAN", "OMNISEARCH"))}
                | {"HOME": work, "CLAUDE_CONFIG_DIR": str(config.parent), "OBSIDIAN_VAULT": vault,
                   "OMNISEARCH_PORT": str(server.server_address[1]),
                   "OBSIDIAN_MEMORY_CACHE_DIR": os.path.join(work, f"cache-{name}")} for name in packages}
        times = {(name, source): [] for name in packages for source in ("omnisearch", "scan", "index")}
        for name, package in packages.items():      # build each index first: the runs time the freshness check
            one_search(package, envs[name], "index")
        for _ in range(args.runs):
            for source in ("omnisearch", "scan", "index"):
                for name, package in packages.items():
                    times[(name, source)].append(one_search(package, envs[name], source))
    finally:
        server.shutdown()
        shutil.rmtree(work, ignore_errors=True)
    if args.history:
        history_cost(packages, args.history)
    print(f"whole process, {QUERY!r}, -n 10, median of {args.runs} (Omnisearch answers {HITS} hits):")
    for source in ("omnisearch", "scan", "index"):
        line = f"  --source {source:<10} new {statistics.median(times[('new', source)]) * 1000:7.1f} ms"
        if "old" in packages:
            old = statistics.median(times[("old", source)])
            line += f"   old {old * 1000:7.1f} ms   new/old {statistics.median(times[('new', source)]) / old:.2f}"
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
