#!/usr/bin/env python3
"""A search touching a 20 MB note (a log pasted into the vault), against a normal search in the same run.

usage: python benchmarks/giant_note.py [--notes 2000] [--mb 20] [--runs 3] [--baseline DIR]

A vault of --notes notes of ~5 KB (benchmarks/index_speed.py), indexed; then, each as a whole
process under a small launcher that reads its own CPU seconds and peak RSS:
  - the first search after a --mb MB note appears (the index update reads it);
  - a search whose words the giant note holds (it is a hit: scored and excerpted), median of --runs;
  - a normal search that does not touch it, median of --runs;
and the ratios giant / normal (target <= 2x). `--baseline DIR` (a copy of an older checkout) does
the same with that version, on a copy of the same vault with its own index, alternating. The
machine is shared: compare the CPU seconds and ratios of one run.
"""
from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "benchmarks"))
import index_speed  # noqa: E402
from stress import LAUNCHER, make_world  # noqa: E402

HIT, NORMAL = "zanzibar protocol loader", "meeting reading sleep"
PARAGRAPH = "The zanzibar protocol notes: parser cache invalidation and the loader retry budget. " * 12 + "\n\n"


def measured(argv: list[str], env: dict, peak_file: Path) -> tuple[float, float, str]:
    """(CPU seconds, peak MB, stdout) of one process."""
    done = subprocess.run([sys.executable, "-c", LAUNCHER, str(peak_file), sys.executable, *argv], env=env,
                          capture_output=True, text=True)
    peak, cpu = peak_file.read_text().split()
    return float(cpu), int(peak) / 2**20, done.stdout


def write_giant(vault: str, megabytes: int) -> None:
    with open(os.path.join(vault, "Giant log.md"), "w", encoding="utf-8") as handle:
        handle.write("---\ntags: [log]\n---\n# Giant log\n\n")
        while handle.tell() < megabytes * 2**20:
            handle.write("## Day entry\n\n" + PARAGRAPH)


def one_run(version: Path, env: dict, tmp: Path, megabytes: int, runs: int) -> dict:
    search = [str(version / "scripts" / "search_vault.py"), "--source", "index", "--mode", "fulltext", "--json"]
    peak = tmp / f"peak-{version.name}"
    giant = os.path.join(env["OBSIDIAN_VAULT"], "Giant log.md")
    if os.path.exists(giant):
        os.unlink(giant)
    measured(search + [NORMAL], env, peak)                    # the index as it is without the note
    write_giant(env["OBSIDIAN_VAULT"], megabytes)
    figures = {"first search after it appears": measured(search + [NORMAL], env, peak)[:2]}
    hits = [measured(search + [HIT], env, peak) for _ in range(runs)]
    if "Giant log.md" not in hits[0][2]:
        sys.exit("the giant note is not a hit: the benchmark measures nothing")
    normal = [measured(search + [NORMAL], env, peak) for _ in range(runs)]
    figures["a search it is a hit of"] = (statistics.median(h[0] for h in hits), max(h[1] for h in hits))
    figures["a normal search"] = (statistics.median(n[0] for n in normal), max(n[1] for n in normal))
    return figures


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--notes", type=int, default=2000)
    parser.add_argument("--mb", type=int, default=20)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--baseline", type=Path)
    args = parser.parse_args(argv)
    versions = [REPO] + ([args.baseline.resolve()] if args.baseline else [])
    with tempfile.TemporaryDirectory(prefix="om-giant-note-") as tmp:
        tmp = Path(tmp)
        envs = {}
        for n, version in enumerate(versions):
            env = make_world(tmp / f"world-{n}")
            if n == 0:
                index_speed.generate_vault(env["OBSIDIAN_VAULT"], args.notes)
            else:
                shutil.rmtree(env["OBSIDIAN_VAULT"])
                shutil.copytree(envs[versions[0]]["OBSIDIAN_VAULT"], env["OBSIDIAN_VAULT"])
            env["OBSIDIAN_MEMORY_CACHE_DIR"] = str(tmp / f"cache-{n}")
            envs[version] = env
        results = {v: [] for v in versions}
        for _ in range(2):        # a second round: the note appears again to an index that had it once
            for version in versions:
                results[version].append(one_run(version, envs[version], tmp, args.mb, args.runs))
        print(f"{args.notes:,} notes of ~5 KB and one of {args.mb} MB; CPU seconds and peak MB of whole processes "
              f"(medians of the rounds)")
        for version in versions:
            rounds = results[version]
            print(f"\n{'this checkout' if version == REPO else f'baseline {version}'}:")
            normal = statistics.median(r["a normal search"][0] for r in rounds)
            for case in rounds[0]:
                cpu = statistics.median(r[case][0] for r in rounds)
                peak = max(r[case][1] for r in rounds)
                print(f"  {case:<32} {cpu:6.2f} CPU s {peak:6.0f} MB   {cpu / normal:5.1f}x a normal search")
        if args.baseline:
            print("\nnew / old (CPU seconds):")
            for case in results[REPO][0]:
                new = statistics.median(r[case][0] for r in results[REPO])
                old = statistics.median(r[case][0] for r in results[args.baseline.resolve()])
                print(f"  {case:<32} {new / old:6.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
