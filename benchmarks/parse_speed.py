"""Parse time of the largest fixture transcript (3.2 MB, ~1,500 lines, with 2 subagents).

Prints the best and median of several runs, the throughput, the ratio to a bare `json.loads`
of every line (the floor any JSONL reader pays), and the peak memory of one parse.
Skips cleanly when ../shared is absent.

    .venv/bin/python benchmarks/parse_speed.py [--runs N]
"""
from __future__ import annotations

import glob
import json
import os
import statistics
import sys
import time
import tracemalloc

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
LARGEST = os.path.join(os.path.dirname(ROOT), "shared", "fixtures", "transcripts", "projects", "*",
                       "4d5611e5-*.jsonl")

from obsidian_memory.capture.transcript import parse  # noqa: E402


def timed(function, runs: int) -> list[float]:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        function()
        times.append(time.perf_counter() - start)
    return times


def json_floor(path: str) -> None:
    with open(path, "rb") as handle:
        for raw in handle:
            json.loads(raw.decode("utf-8", "replace"))


def main(argv: list[str]) -> int:
    runs = int(argv[argv.index("--runs") + 1]) if "--runs" in argv else 15
    paths = glob.glob(LARGEST)
    if not paths:
        print("parse_speed: skipped (../shared/fixtures/transcripts/projects is absent)")
        return 0
    path = paths[0]
    size = os.path.getsize(path)
    parse(path)  # warm the page cache and the imports
    with_subagents = timed(lambda: parse(path), runs)
    main_only = timed(lambda: parse(path, include_subagents=False), runs)
    floor = timed(lambda: json_floor(path), runs)
    tracemalloc.start()
    session = parse(path)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    best, median = min(with_subagents), statistics.median(with_subagents)
    print(f"transcript: {os.path.basename(path)} ({size / 1e6:.2f} MB, {session.entry_count} entries, "
          f"{len(session.subagents)} subagents)")
    print(f"parse (with subagents): best {best * 1000:.1f} ms, median {median * 1000:.1f} ms over {runs} runs "
          f"({size / best / 1e6:.0f} MB/s)")
    print(f"parse (main file only): best {min(main_only) * 1000:.1f} ms")
    print(f"json.loads of every line: best {min(floor) * 1000:.1f} ms  -> parse/json ratio "
          f"{min(main_only) / min(floor):.2f}")
    print(f"peak memory of one parse: {peak / 1e6:.1f} MB ({peak / size:.2f}x the file size)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
