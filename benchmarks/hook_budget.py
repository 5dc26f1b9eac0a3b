#!/usr/bin/env python3
"""The archive hook on a very long session, against the same hook on a small one in the same run.

usage: python benchmarks/hook_budget.py [--prompts 10000] [--runs 3] [--baseline DIR]

In temporary users (CLAUDE_CONFIG_DIR, HOME and vault of their own), through the real hook
process (`scripts/obsidian_memory.py hook archive`, the payload on stdin, as Claude Code runs it):
  - a session of `--prompts` prompts over 55 hours (about 11 KB of transcript a prompt: each
    prompt runs a command whose output is 9 KB and edits a file; 10,000 prompts: ~110 MB), and a
    small one of 20 prompts, each:
      first:     SessionEnd, the first archive of the session (a fresh archive);
      re-archive: PreCompact after one more prompt (the session archived before);
    with the seconds and CPU seconds (medians of `--runs`; CPU seconds say more on a machine
    shared with other work) and the peak RSS of the hook process (its own, read by a small
    launcher), the ratios big / small of the same version, and the size of the note;
  - the big session's SessionEnd killed at the default budget (1.5 s): whether its archive row
    was there afterwards, and how long the next sweep then took.
Targets (docs/size.md): each hook <= 1.0 s and <= 5x the small session's, <= 150 MB.
`--baseline DIR` (a copy of an older checkout: `obsidian_memory/`, `scripts/`, `templates/`) runs
the same cases with that version too, alternating with this one run by run. The machine is
shared: compare the ratios of one run.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "benchmarks"))
from stress import LAUNCHER, make_world  # noqa: E402

BUDGET = 1.5
TARGET_SECONDS, TARGET_RATIO, TARGET_MB = 1.0, 5.0, 150
MB = 1024 * 1024
WORDS = "fix the parser bug in module add test for cache why does it fail refactor loader".split()


def write_prompts(path: Path, sid: str, first: int, count: int, total: int) -> None:
    """Append prompts first..first+count of a session of `total` prompts spread over 55 hours."""
    start = datetime(2026, 3, 2, 8, 0, tzinfo=timezone.utc)
    step = timedelta(hours=55) / max(total, 1)
    base = {"sessionId": sid, "cwd": "/work/demo", "gitBranch": "main", "version": "2.1.39", "userType": "external",
            "isSidechain": False}
    with open(path, "a", encoding="utf-8") as handle:
        for i in range(first, first + count):
            moment = start + step * i

            def entry(kind: str, uuid: str, seconds: int, **fields) -> str:
                stamp = (moment + timedelta(seconds=seconds)).strftime("%Y-%m-%dT%H:%M:%S.000Z")
                return json.dumps({**base, "type": kind, "uuid": f"{uuid}{i}", "timestamp": stamp, **fields}) + "\n"

            words = " ".join(WORDS[(i * 7 + k * 3) % len(WORDS)] for k in range(5 + i % 35))
            handle.write(entry("user", "u", 0, message={"role": "user", "content": f"prompt {i}: {words}"}))
            handle.write(entry("assistant", "a", 2, message={"id": f"m{i}", "role": "assistant", "model": "claude-test",
                               "content": [{"type": "tool_use", "id": f"tb{i}", "name": "Bash",
                                            "input": {"command": f"pytest -q tests/test_{i % 50}.py"}}]}))
            handle.write(entry("user", "r", 5, message={"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": f"tb{i}", "content": "ok\n" + "." * 9000}]}))
            handle.write(entry("assistant", "b", 8, message={"id": f"n{i}", "role": "assistant", "model": "claude-test",
                               "content": [{"type": "text", "text": f"Done with {i}. " + words * 3},
                                           {"type": "tool_use", "id": f"te{i}", "name": "Edit",
                                            "input": {"file_path": f"/work/demo/src/f{i % 300}.py",
                                                      "old_string": "a", "new_string": "b"}}]}))
            handle.write(entry("user", "e", 9, message={"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": f"te{i}", "content": "The file was updated."}]}))


def session_id(n: int) -> str:
    return f"{n:08x}-bbbb-4ccc-8ddd-{n:012x}"


def payload(path: Path, event: str) -> bytes:
    return json.dumps({"session_id": path.stem, "transcript_path": str(path), "hook_event_name": event,
                       "reason": "other", "cwd": "/work/demo"}).encode()


def hook(version: Path, env: dict, path: Path, event: str, *,
         kill_after: float | None = None, extra: list[str] = ()) -> tuple[float, int, float]:
    """(seconds, peak RSS bytes, CPU seconds) of one `hook archive` process of `version` (killed
    after `kill_after`; `extra`: more arguments)."""
    peak_file = path.with_suffix(".peak")
    argv = [sys.executable, "-c", LAUNCHER, str(peak_file), sys.executable, str(version / "scripts" / "obsidian_memory.py"),
            "hook", "archive", *extra]
    started = time.perf_counter()
    if kill_after is None:
        subprocess.run(argv, input=payload(path, event), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                       env=env, check=True)
        seconds = time.perf_counter() - started
        peak, cpu = peak_file.read_text().split()
        return seconds, int(peak), float(cpu)
    launcher = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                env=env, start_new_session=True)
    launcher.stdin.write(payload(path, event))
    launcher.stdin.close()
    try:
        launcher.wait(timeout=kill_after)
    except subprocess.TimeoutExpired:
        os.killpg(launcher.pid, signal.SIGKILL)   # the launcher and the hook under it, as Claude Code's timeout does
        launcher.wait()
    return time.perf_counter() - started, 0, 0.0


def archived(env: dict, sid: str) -> bool:
    db_path = Path(env["CLAUDE_CONFIG_DIR"]) / "session-archive.db"
    if not db_path.exists():
        return False
    db = sqlite3.connect(db_path)
    try:
        return db.execute("SELECT COUNT(*) FROM sessions WHERE session_id = ?", (sid,)).fetchone()[0] == 1
    except sqlite3.DatabaseError:
        return False
    finally:
        db.close()


def note_size(env: dict) -> int:
    notes = list((Path(env["OBSIDIAN_VAULT"]) / "Meta" / "claude-sessions").rglob("*.md"))
    return max((p.stat().st_size for p in notes), default=0)


def one_run(version: Path, source: Path, prompts: int, n: int, tmp: Path) -> dict:
    """Every case once for `version`, on a copy of the `source` transcript of `prompts` prompts."""
    figures = {}
    for label, count, original in (("small", 20, None), ("big", prompts, source)):
        world = tmp / f"{version.name}-{label}-{n}"
        env = make_world(world)
        sid = session_id(count)
        path = Path(env["CLAUDE_CONFIG_DIR"]) / "projects" / "-work-demo" / f"{sid}.jsonl"
        path.parent.mkdir(parents=True, exist_ok=True)
        if original is None:
            write_prompts(path, sid, 0, count, count + 1)
        else:
            shutil.copyfile(original, path)
        figures[f"{label} first"] = hook(version, env, path, "SessionEnd")
        figures[f"{label} note"] = note_size(env)
        write_prompts(path, sid, count, 1, count + 1)
        figures[f"{label} re-archive"] = hook(version, env, path, "PreCompact")
        shutil.rmtree(world)
    world = tmp / f"{version.name}-killed-{n}"
    env = make_world(world)
    sid = session_id(prompts)
    path = Path(env["CLAUDE_CONFIG_DIR"]) / "projects" / "-work-demo" / f"{sid}.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(source, path)
    hook(version, env, path, "SessionEnd", kill_after=BUDGET)
    figures["killed archived"] = archived(env, sid)
    started = time.perf_counter()
    subprocess.run([sys.executable, str(version / "scripts" / "obsidian_memory.py"), "sweep", "--quiet-seconds", "0"],
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env, check=True)
    figures["sweep after kill"] = time.perf_counter() - started
    shutil.rmtree(world)
    return figures


def report(name: str, runs: list[dict]) -> None:
    def median_of(key: str, part: int) -> float:
        return statistics.median(r[key][part] for r in runs)

    print(f"\n{name}:")
    print(f"  {'case':<22} {'seconds':>8} {'x small':>8} {'CPU s':>7} {'x small':>8} {'peak MB':>8}   "
          f"target <= {TARGET_SECONDS} s, <= {TARGET_RATIO:g}x, <= {TARGET_MB} MB")
    for case in ("first", "re-archive"):
        small, small_cpu = median_of(f"small {case}", 0), median_of(f"small {case}", 2)
        for label in ("small", "big"):
            seconds, cpu = median_of(f"{label} {case}", 0), median_of(f"{label} {case}", 2)
            peak = max(r[f"{label} {case}"][1] for r in runs) / MB
            met = "" if label == "small" else ("  met" if seconds <= TARGET_SECONDS and seconds <= TARGET_RATIO * small
                                                and peak <= TARGET_MB else "  NOT met")
            print(f"  {label + ' ' + case:<22} {seconds:8.2f} {seconds / small:8.1f} {cpu:7.2f} {cpu / small_cpu:8.1f} "
                  f"{peak:8.0f}{met}")
    print(f"  note size: big {runs[0]['big note'] / 1024:.1f} KB, small {runs[0]['small note'] / 1024:.1f} KB "
          f"(target <= 60 KB)")
    kept = sum(1 for r in runs if r["killed archived"])
    print(f"  SessionEnd killed at {BUDGET} s: archive row there in {kept} of {len(runs)} runs; the next sweep "
          f"{statistics.median(r['sweep after kill'] for r in runs):.2f} s")


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--prompts", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--baseline", type=Path, help="an older checkout to run alternately with this one")
    args = parser.parse_args(argv)
    versions = [REPO] + ([args.baseline.resolve()] if args.baseline else [])
    with tempfile.TemporaryDirectory(prefix="om-hook-budget-") as tmp:
        tmp = Path(tmp)
        source = tmp / "big.jsonl"
        write_prompts(source, session_id(args.prompts), 0, args.prompts, args.prompts + 1)
        print(f"the big session: {args.prompts:,} prompts, {source.stat().st_size / MB:.0f} MB; "
              f"{args.runs} run(s) of each version, alternating")
        results: dict[Path, list[dict]] = {v: [] for v in versions}
        for n in range(args.runs):
            for version in versions:
                results[version].append(one_run(version, source, args.prompts, n, tmp))
        for version in versions:
            report("this checkout" if version == REPO else f"baseline {version}", results[version])
        if args.baseline:
            new, old = results[REPO], results[args.baseline.resolve()]
            print("\nnew / old (medians):")
            print(f"  {'case':<22} {'seconds':>8} {'CPU s':>7}")
            for key in ("big first", "big re-archive", "small first", "small re-archive"):
                ratios = [statistics.median(r[key][part] for r in new) / statistics.median(r[key][part] for r in old)
                          for part in (0, 2)]
                print(f"  {key:<22} {ratios[0]:8.2f} {ratios[1]:7.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
