#!/usr/bin/env python3
"""How long the installer takes: a fresh install (venv + pip install of the checkout), a re-install
with nothing changed (no pip), a dry run and an uninstall, each in its own temporary HOME.

usage: python benchmarks/install_time.py [--runs 2] [--baseline DIR]

pip uses the machine's pip cache (as a second install on a user's machine does; the first one
downloads the dependencies once). `--baseline DIR` (an older checkout, e.g. `git archive` of an
earlier commit) runs that checkout's installer through the same steps, interleaved with ours, and
prints new / baseline per step. Its installer is `install.py` when it has one, else `install.sh`.
"""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
STEPS = ("fresh install", "re-install, nothing changed", "dry run", "uninstall")


def installer(checkout: Path) -> list[str]:
    if (checkout / "install.py").exists():
        return [os.path.realpath(sys.executable), str(checkout / "install.py")]
    return ["bash", str(checkout / "install.sh")]


def one_round(checkout: Path) -> dict[str, float]:
    """The four steps once, in a fresh HOME; seconds per step."""
    command = installer(checkout)
    new_style = (checkout / "install.py").exists()
    with tempfile.TemporaryDirectory(prefix="om-bench-install-") as tmp:
        home, vault = Path(tmp) / "home", Path(tmp) / "vault"
        (home / ".claude").mkdir(parents=True)
        env = {k: v for k, v in os.environ.items() if not k.startswith(("CLAUDE", "OBSIDIAN", "PYTHON", "VIRTUAL_ENV"))}
        env.update(HOME=str(home), OMNISEARCH_PORT="9")
        install = ["--vault", str(vault), "--no-import", "--yes"] + (["--create-vault"] if new_style else [])
        times = {}
        for step, args in zip(STEPS, (install, install, ["--dry-run"], ["--uninstall", "--yes"])):
            started = time.perf_counter()
            done = subprocess.run(command + args, capture_output=True, env=env, cwd=tmp, stdin=subprocess.DEVNULL)
            times[step] = time.perf_counter() - started
            if done.returncode != 0:
                raise SystemExit(f"{' '.join(command + args)} failed:\n{done.stdout.decode()}{done.stderr.decode()}")
    return times


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=2)
    parser.add_argument("--baseline", default=None, metavar="DIR", help="an older checkout to compare with")
    args = parser.parse_args()
    checkouts = {"new": REPO} | ({"baseline": Path(args.baseline).resolve()} if args.baseline else {})
    samples: dict[str, dict[str, list[float]]] = {name: {step: [] for step in STEPS} for name in checkouts}
    for _ in range(args.runs):   # interleaved, so that machine noise hits both alike
        for name, checkout in checkouts.items():
            for step, seconds in one_round(checkout).items():
                samples[name][step].append(seconds)
    print(f"median of {args.runs} run(s), {sys.executable}")
    for step in STEPS:
        medians = {name: statistics.median(samples[name][step]) for name in checkouts}
        line = f"  {step:<28} {medians['new']:6.2f} s"
        if "baseline" in medians:
            line += f"   baseline {medians['baseline']:6.2f} s   new/baseline {medians['new'] / medians['baseline']:.2f}"
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
