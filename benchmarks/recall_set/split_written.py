#!/usr/bin/env python3
"""Take the prompts the writer wrote (from descriptions.md only) into the judged set, split once.

usage: python benchmarks/recall_set/split_written.py WRITTEN.json [--into NAME --seed N | --test-only]

Run once, when the writer's file arrived: it writes written_prompts.json (or NAME) beside this file, each
prompt as written (text untouched), its folder ("home" = the home folder), and its half: per kind
(revisit / nothing), shuffled with random.Random(SEED) and cut in two, dev (tune on it) and test
(report it). The split is committed with the set and never drawn again. `--test-only`: a set held out
whole, all of it test (never tuned on).
"""
from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
SEED = 3030     # the written set's; the blind set (blind_prompts.json) was drawn with 4040


def about(seed: int | None) -> str:
    split = ("split: test, all of it (a held-out set: never tuned on, no dev half)." if seed is None
             else f"split: drawn once per kind with random.Random({seed}) (split_written.py): dev to tune on, test "
             "to report.")
    return ("First prompts written by a writer who saw only descriptions.md (one line per past problem, as a "
            "colleague would say it, and one per topic that must get nothing), never the sessions, their notes or "
            "the code. kind: revisit (any one of `relevant` must be injected) or nothing (nothing may be injected). "
            f"repo: the folder the prompt is typed in (\"\" = the home folder). {split}")


def main(path: str, into: str = "written_prompts.json", seed: int | None = SEED) -> int:
    """`seed` None: every prompt is test."""
    written = json.loads(Path(path).read_text(encoding="utf-8"))
    prompts = written["prompts"] if isinstance(written, dict) else written
    out = []
    for p in prompts:
        repo = (p.get("repo") or "").strip()
        kind = "revisit" if p["kind"] == "revisit" else "nothing"
        out.append({"id": p["id"], "kind": kind, "repo": "" if repo in ("home", "~") else repo,
                    "prompt": p["prompt"], "relevant": list(p.get("relevant") or []) if kind == "revisit" else []})
    rng = random.Random(seed)
    for kind in ("revisit", "nothing"):
        part = [p for p in out if p["kind"] == kind]
        rng.shuffle(part)
        for n, p in enumerate(part):
            p["split"] = "dev" if seed is not None and n < (len(part) + 1) // 2 else "test"
    target = HERE / into
    target.write_text(json.dumps({"about": about(seed), "prompts": out}, ensure_ascii=False, indent=1) + "\n",
                      encoding="utf-8")
    counts = {(k, s): sum(1 for p in out if p["kind"] == k and p["split"] == s)
              for k in ("revisit", "nothing") for s in ("dev", "test")}
    print(f"{target}: {len(out)} prompts; " + ", ".join(f"{k}/{s} {n}" for (k, s), n in counts.items()))
    return 0


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("written", help="the writer's JSON file")
    parser.add_argument("--into", default="written_prompts.json", help="the set's file name beside this script")
    parser.add_argument("--seed", type=int, default=SEED, help="the split's seed (drawn once)")
    parser.add_argument("--test-only", action="store_true", help="no dev half: every prompt is test")
    args = parser.parse_args()
    sys.exit(main(args.written, args.into, None if args.test_only else args.seed))
