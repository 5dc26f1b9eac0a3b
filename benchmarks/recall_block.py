#!/usr/bin/env python3
"""The prompt-recall block, measured: how large is what the UserPromptSubmit hook injects, and how
much of it says what came of the session (where it stopped, its commits, its open tasks)?

usage: python benchmarks/recall_block.py [--split dev|test|both] [--fillers 150] [--show]

A machine is built in a temporary folder as benchmarks/prompt_recall.py builds it (the judged set's
sessions and `--fillers` everyday ones, archived by the real `import`). Every revisiting prompt of
benchmarks/recall_set/prompts.json is sent to the real hook process (`hook user-prompt`, a fresh
session each time). Printed, over the prompts that got a block: its size in characters (median,
p90, max) against render.MAX_CHARS; the sessions per block; the share of shown sessions with a
`stopped:` line and with a `commits:` line; and the outcome lines' share of the block (the
ratio of the block with them to the block without them, measured on the same blocks).
"""
from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SET = REPO / "benchmarks" / "recall_set"
sys.path[:0] = [str(REPO), str(SET)]

import recall_world as world_module  # noqa: E402
from obsidian_memory.context.recall import render  # noqa: E402

PAYLOAD = REPO / "tests" / "fixtures" / "hooks" / "cc-2.1.332_UserPromptSubmit.json"
OUTCOME_PREFIXES = ("  stopped: ", "  commits: ", "  open tasks: ")


def blocks(world, prompts) -> list[str]:
    payload = json.loads(PAYLOAD.read_text(encoding="utf-8"))
    found = []
    for n, item in enumerate(prompts):
        stdin = json.dumps(dict(payload, cwd=world.cwd(item["repo"]), prompt=item["prompt"],
                                session_id=f"block-{int(time.time())}-{n}")).encode()
        done = subprocess.run([sys.executable, str(world_module.CLI), "hook", "user-prompt"], input=stdin,
                              capture_output=True, env=world.env, cwd=world.cwd(item["repo"]))
        out = done.stdout.decode("utf-8").strip()
        found.append(json.loads(out)["hookSpecificOutput"]["additionalContext"] if out else "")
    return found


def without_outcome(block: str) -> str:
    return "\n".join(line for line in block.split("\n") if not line.startswith(OUTCOME_PREFIXES))


def percentile(values, share: float):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(share * (len(ordered) - 1))))]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--split", choices=("dev", "test", "both"), default="both")
    parser.add_argument("--fillers", type=int, default=150)
    parser.add_argument("--show", action="store_true", help="print every block")
    args = parser.parse_args()
    prompts = [p for p in json.loads((SET / "prompts.json").read_text(encoding="utf-8"))["prompts"]
               if p["kind"] == "revisit" and args.split in ("both", p.get("split"))]
    with tempfile.TemporaryDirectory(prefix="recall-block-") as root:
        started = time.perf_counter()
        world = world_module.build(Path(root), fillers=args.fillers)
        print(f"machine: {len(world.specs)} sessions archived in {time.perf_counter() - started:.0f} s; "
              f"{len(prompts)} revisiting prompts ({args.split})")
        shown = [b for b in blocks(world, prompts) if b]
    if not shown:
        print("no prompt got a block")
        return 1
    sizes = [len(b) for b in shown]
    bare = [len(without_outcome(b)) for b in shown]
    items = [b.count("\n  why: ") for b in shown]
    stopped = sum(b.count("\n  stopped: ") for b in shown)
    commits = sum(b.count("\n  commits: ") for b in shown)
    tasks = sum(b.count("\n  open tasks: ") for b in shown)
    if args.show:
        for block in shown:
            print(block, "\n" + "-" * 60)
    print(f"blocks: {len(shown)} of {len(prompts)} prompts; sessions per block: median "
          f"{statistics.median(items):g}, max {max(items)}")
    print(f"block size (characters): median {statistics.median(sizes):.0f}, p90 {percentile(sizes, 0.9)}, "
          f"max {max(sizes)}; budget render.MAX_CHARS = {render.MAX_CHARS} (max / budget "
          f"{max(sizes) / render.MAX_CHARS:.2f})")
    print(f"shown sessions with `stopped:` {stopped / sum(items):.0%}, with `commits:` {commits / sum(items):.0%}, "
          f"with `open tasks:` {tasks / sum(items):.0%}")
    print(f"with the outcome lines / without them, same blocks: median "
          f"{statistics.median(s / b for s, b in zip(sizes, bare)):.2f}x "
          f"({statistics.median(bare):.0f} -> {statistics.median(sizes):.0f} characters)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
