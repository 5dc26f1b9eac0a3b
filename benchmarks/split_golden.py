#!/usr/bin/env python3
"""Split the judged sets into dev and test halves, once: entries that have a "split" keep it.

Hand-written sets are halved per category by a hash of the fixed seed and each entry's id
(`evaluation.assign_splits`); a fan-out entry takes the half of the entry it was made from (its
"source"), so that a query and its phrasings never sit on both sides. The anchor-context sets get
their halves when `make_anchor_queries.py` writes them. Tune on dev, report test.

    python3 benchmarks/split_golden.py          # rewrites benchmarks/golden/*.json in place
"""
from __future__ import annotations

import os
import sys

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, REPO)

from obsidian_memory.search.evaluation import assign_splits, dump_golden  # noqa: E402

GOLDEN = os.path.join(REPO, "benchmarks", "golden")
SOURCES = ("obsidian-help-en.json", "obsidian-help-semantic.json", "obsidian-help-asked.json", "dev-notes.json",
           "debian-handbook.json")
DERIVED = ("obsidian-help-fanout.json",)


def _read(name: str) -> list[dict]:
    import json

    with open(os.path.join(GOLDEN, name), encoding="utf-8") as handle:
        return json.load(handle)


def _write(name: str, entries: list[dict]) -> None:
    path = os.path.join(GOLDEN, name)
    with open(path + ".tmp", "w", encoding="utf-8") as handle:
        handle.write(dump_golden(entries))
    os.replace(path + ".tmp", path)


def main() -> int:
    halves: dict[str, str] = {}
    for name in SOURCES + DERIVED:
        entries = assign_splits(_read(name), inherited=halves)
        halves.update({str(e["id"]): e["split"] for e in entries})
        _write(name, entries)
        dev = sum(1 for e in entries if e["split"] == "dev")
        print(f"{name}: {dev} dev, {len(entries) - dev} test")
    return 0


if __name__ == "__main__":
    sys.exit(main())
