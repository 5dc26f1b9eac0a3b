#!/usr/bin/env python3
"""The session archive at scale (issue 20): a synthetic archive of 100,000 sessions by default.

usage: python benchmarks/archive_scale.py [--sessions 100000] [--runs 5]

In a temporary user (CLAUDE_CONFIG_DIR, HOME and vault of its own) whose archive holds
`--sessions` sessions of 20 prompts each over 50 git repositories, prints the median of:
  - in-process: the SessionStart context (context.build_context, in a repository of the
    archive: target <= 5 ms), and the archive query it makes (recent_sessions of a repository);
  - whole process: `hook session-start` (the payload on stdin, as Claude Code runs it),
    `sessions -n 20`, `search "module 3[01]" --sessions -n 20` (regex), and `python -c pass` for
    scale.
Byte code is written and used as in an install. The machine is shared: compare ratios of one run.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
CLI = REPO / "scripts" / "obsidian_memory.py"
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "benchmarks"))

REPOSITORIES = 50
PATTERN = "module 3[01]"
CONTEXT_TARGET = 0.005


def make_user(root: Path) -> dict:
    """The environment of a user under `root`, with REPOSITORIES git repositories (a .git folder
    with a config) under root/src."""
    config, vault = root / "claude", root / "vault"
    vault.mkdir(parents=True)
    # a sweep just ran (as it does at most hourly): SessionStart starts none, which would write
    # a note for each synthetic session in the background
    (config / "obsidian-memory").mkdir(parents=True)
    (config / "obsidian-memory" / "sweep.stamp").touch()
    for n in range(REPOSITORIES):
        git = root / "src" / f"repo{n}" / ".git"
        git.mkdir(parents=True)
        (git / "config").write_text(f'[remote "origin"]\n\turl = https://example.com/team/repo{n}.git\n')
        (git / "HEAD").write_text("ref: refs/heads/main\n")
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("CLAUDE", "OBSIDIAN", "OMNISEARCH")) and k != "PYTHONDONTWRITEBYTECODE"}
    env.update({"CLAUDE_CONFIG_DIR": str(config), "OBSIDIAN_VAULT": str(vault), "HOME": str(root),
                "OMNISEARCH_PORT": "9"})
    return env


def fill_archive(path: str, root: Path, count: int) -> float:
    """`count` sessions of 20 prompts over the repositories under root/src; returns the seconds it took."""
    import archive_speed

    started = time.perf_counter()
    archive_speed.fill_archive(path, count, lambda n: str(root / "src" / f"repo{n % REPOSITORIES}"))
    return time.perf_counter() - started


def median_of(runs: int, function) -> float:
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        function()
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def in_process(env: dict, root: Path, runs: int) -> dict[str, float]:
    from obsidian_memory import context, settings as settings_module
    from obsidian_memory.archive import open_archive

    os.environ.update(env)
    settings = settings_module.load()
    cwd = str(root / "src" / "repo7")
    text = context.build_context(settings, cwd=cwd, source="startup")
    if "session 4" not in text and "session" not in text:
        sys.exit("the SessionStart context lists no session: the benchmark measures nothing")
    figures = {"SessionStart context (in-process)": median_of(runs * 10, lambda: context.build_context(
        settings, cwd=cwd, source="startup"))}
    with open_archive(settings.archive, readonly=True) as archive:
        figures["  of which recent_sessions(repo_root)"] = median_of(runs * 10, lambda: archive.recent_sessions(
            repo_root=cwd, limit=5))
    return figures


def whole_process(env: dict, root: Path, runs: int) -> dict[str, float]:
    payload = json.dumps({"session_id": "11111111-2222-4333-8444-555555555555", "hook_event_name": "SessionStart",
                          "source": "startup", "cwd": str(root / "src" / "repo7")}).encode()
    commands = {
        "hook session-start": ([str(CLI), "hook", "session-start"], payload),
        "sessions -n 20": ([str(CLI), "sessions", "-n", "20"], None),
        f"search '{PATTERN}' --sessions -n 20": ([str(CLI), "search", PATTERN, "--sessions", "-n", "20"], None),
        "python -c pass": (["-c", "pass"], None),
    }
    times: dict[str, list[float]] = {name: [] for name in commands}
    for run in range(runs + 1):              # taking turns; the first round writes byte code, not counted
        for name, (argv, stdin) in commands.items():
            started = time.perf_counter()
            done = subprocess.run([sys.executable, *argv], input=stdin, env=env, capture_output=True, timeout=300,
                                  cwd=str(root / "src" / "repo7"))
            elapsed = time.perf_counter() - started
            if done.returncode != 0:
                sys.exit(f"{name}: exit {done.returncode}: {done.stderr.decode(errors='replace')[-400:]}")
            if name != "python -c pass" and not done.stdout.strip():
                sys.exit(f"{name}: printed nothing")
            if run:
                times[name].append(elapsed)
    return {f"{name} (whole process)": statistics.median(found) for name, found in times.items()}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=100_000)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="om-archive-scale-") as tmp:
        root = Path(tmp)
        env = make_user(root)
        from obsidian_memory import settings as settings_module

        os.environ.update(env)
        archive = settings_module.load().archive
        os.makedirs(os.path.dirname(archive), exist_ok=True)
        filled = fill_archive(archive, root, args.sessions)
        size = os.path.getsize(archive)
        print(f"archive: {args.sessions:,} sessions of 20 prompts, {size / 1e6:.0f} MB, written in {filled:.1f} s;"
              f" {args.runs} runs, median")
        figures = in_process(env, root, args.runs)
        figures.update(whole_process(env, root, args.runs))
    bare = figures["python -c pass (whole process)"]
    for name, seconds in figures.items():
        line = f"  {name:<52} {seconds * 1000:9.2f} ms"
        if name.endswith("(whole process)") and not name.startswith("python"):
            line += f"   {seconds / bare:5.1f}x python -c pass"
        if name.startswith("SessionStart context"):
            line += f"   {seconds / CONTEXT_TARGET:5.2f}x the {CONTEXT_TARGET * 1000:.0f} ms target"
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
