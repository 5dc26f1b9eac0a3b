#!/usr/bin/env python3
"""Archiving under load and faults: throughput, kill-and-resume, memory on a huge transcript.

usage: python benchmarks/stress.py [--sessions 96] [--import-sessions 300] [--big-mb 50]

Each part runs in its own temporary CLAUDE_CONFIG_DIR and vault, through the real CLI and hook
processes (`scripts/obsidian_memory.py hook archive` with a SessionEnd payload on stdin):
  1. throughput: N sessions archived by one hook process each, run one at a time, then by 8
     workers at once (8 hook processes alive together on one archive and vault); sessions/s for
     both and the ratio 8 / 1 (bounded by the cores: this machine has os.cpu_count() of them),
     with the integrity check and the row/note counts afterwards;
  2. kill and resume: `import` of M transcripts timed whole, then in a fresh world an `import`
     SIGKILLed once half the notes are written and a second `import` timed to completion; the
     ratio resume / whole (about 0.5 when the resumed run redoes nothing);
  3. memory: peak RSS (the hook process's own, read in a small launcher) archiving a transcript with one
     50 MB tool result, against the file size and against a hook run on a tiny transcript.
The machine is shared with other work: compare the ratios of one run.
"""
from __future__ import annotations

import argparse
import json
import os
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
CLI = REPO / "scripts" / "obsidian_memory.py"
MB = 1024 * 1024


def make_world(root: Path) -> dict:
    home, vault = root / "home", root / "vault"
    (home / ".claude" / "projects").mkdir(parents=True)
    vault.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CLAUDE", "OBSIDIAN", "OMNISEARCH"))}
    env.update(HOME=str(home), CLAUDE_CONFIG_DIR=str(home / ".claude"), OBSIDIAN_VAULT=str(vault),
               OMNISEARCH_PORT="9", TZ="UTC")
    return env


def session_id(n: int) -> str:
    return f"{n:08x}-bbbb-4ccc-8ddd-{n:012x}"


def write_transcript(env: dict, n: int, *, prompts: int = 6, blob_bytes: int = 0) -> Path:
    sid = session_id(n)
    path = Path(env["CLAUDE_CONFIG_DIR"]) / "projects" / f"-work-repo{n % 5}" / f"{sid}.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", encoding="utf-8") as handle:
        for i in range(prompts):
            base = {"sessionId": sid, "cwd": f"/work/repo{n % 5}", "gitBranch": "main", "version": "2.1.39",
                    "timestamp": f"2026-0{n % 9 + 1}-1{n % 10}T{i % 24:02d}:{n % 60:02d}:00.000Z"}
            handle.write(json.dumps({**base, "type": "user", "uuid": f"{sid}-u{i}",
                                     "message": {"role": "user", "content": f"prompt {i} of session {n}: fix it"}}) + "\n")
            if blob_bytes and i == 0:
                handle.write(json.dumps({**base, "type": "user", "uuid": f"{sid}-r{i}", "message": {
                    "role": "user", "content": [{"type": "tool_result", "tool_use_id": "t",
                                                 "content": "x" * blob_bytes}]}}) + "\n")
            handle.write(json.dumps({**base, "type": "assistant", "uuid": f"{sid}-a{i}", "message": {
                "id": f"m{i}", "role": "assistant", "model": "claude-test",
                "content": [{"type": "text", "text": f"answer {i}"},
                            {"type": "tool_use", "id": f"tu{i}", "name": "Edit",
                             "input": {"file_path": f"/work/repo/src/f{i}.py"}}]}}) + "\n")
    return path


def hook_archive(env: dict, path: Path) -> int:
    payload = json.dumps({"session_id": path.stem, "transcript_path": str(path), "hook_event_name": "SessionEnd",
                          "reason": "other", "cwd": "/work"}).encode()
    return subprocess.run([sys.executable, str(CLI), "hook", "archive"], input=payload,
                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env).returncode


def check(env: dict) -> str:
    db = sqlite3.connect(Path(env["CLAUDE_CONFIG_DIR"]) / "session-archive.db")
    try:
        integrity = db.execute("PRAGMA integrity_check").fetchone()[0]
        rows = db.execute("SELECT COUNT(*), COUNT(DISTINCT session_id), COUNT(note_path) FROM sessions").fetchone()
    finally:
        db.close()
    notes = len(list((Path(env["OBSIDIAN_VAULT"]) / "Meta" / "claude-sessions").rglob("*.md")))
    return f"integrity {integrity}, {rows[0]} rows ({rows[1]} distinct), {rows[2]} note paths, {notes} notes"


def throughput(sessions: int) -> None:
    print(f"1. throughput: {sessions} sessions, one hook process per session")
    rates = {}
    for workers in (1, 8):
        with tempfile.TemporaryDirectory(prefix="om-stress-") as tmp:
            env = make_world(Path(tmp))
            paths = [write_transcript(env, n) for n in range(sessions)]
            started = time.perf_counter()
            with ThreadPoolExecutor(max_workers=workers) as pool:
                codes = list(pool.map(lambda p: hook_archive(env, p), paths))
            elapsed = time.perf_counter() - started
            rates[workers] = sessions / elapsed
            print(f"   {workers} process{'es' if workers > 1 else ''} at a time: {elapsed:6.2f} s, "
                  f"{rates[workers]:6.1f} sessions/s, exit codes {sorted(set(codes))}; {check(env)}")
    print(f"   ratio 8 / 1: {rates[8] / rates[1]:.2f}x ({os.cpu_count()} cores)")


def run_import(env: dict) -> float:
    started = time.perf_counter()
    done = subprocess.run([sys.executable, str(CLI), "import"], capture_output=True, env=env)
    if done.returncode != 0:
        raise SystemExit(f"import failed: {done.stderr.decode(errors='replace')}")
    return time.perf_counter() - started


def kill_and_resume(count: int) -> None:
    print(f"\n2. kill and resume: import of {count} transcripts")
    with tempfile.TemporaryDirectory(prefix="om-stress-") as tmp:
        env = make_world(Path(tmp))
        for n in range(count):
            write_transcript(env, n)
        whole = run_import(env)
        print(f"   whole import:               {whole:6.2f} s; {check(env)}")
    with tempfile.TemporaryDirectory(prefix="om-stress-") as tmp:
        env = make_world(Path(tmp))
        for n in range(count):
            write_transcript(env, n)
        notes = Path(env["OBSIDIAN_VAULT"]) / "Meta" / "claude-sessions"
        started = time.perf_counter()
        proc = subprocess.Popen([sys.executable, str(CLI), "import"], stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL, env=env)
        while proc.poll() is None and (not notes.exists() or len(list(notes.rglob("*.md"))) < count // 2):
            time.sleep(0.005)
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        killed_after = time.perf_counter() - started
        written = len(list(notes.rglob("*.md")))
        resume = run_import(env)
        print(f"   killed after {killed_after:6.2f} s with {written} notes written; resumed import: {resume:6.2f} s")
        print(f"   after the resume: {check(env)}")
        print(f"   ratio resume / whole: {resume / whole:.2f}; killed + resumed / whole: "
              f"{(killed_after + resume) / whole:.2f}")


# A child's peak RSS (wait4) includes the RSS of the process it was forked from, taken at exec:
# this script holds the big transcript's text for a moment, so the hook is started by a small
# launcher and its own peak is read there (with its CPU seconds: "peak-bytes cpu-seconds").
LAUNCHER = """
import os, subprocess, sys
proc = subprocess.Popen(sys.argv[2:])
_, status, usage = os.wait4(proc.pid, 0)
open(sys.argv[1], "w").write(f"{usage.ru_maxrss * 1024} {usage.ru_utime + usage.ru_stime}")
sys.exit(os.waitstatus_to_exitcode(status))
"""


def peak_rss(env: dict, path: Path) -> tuple[int, float]:
    payload = json.dumps({"session_id": path.stem, "transcript_path": str(path),
                          "hook_event_name": "SessionEnd"}).encode()
    peak_file = path.with_suffix(".peak")
    started = time.perf_counter()
    subprocess.run([sys.executable, "-c", LAUNCHER, str(peak_file), sys.executable, str(CLI), "hook", "archive"],
                   input=payload, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env, check=True)
    return int(peak_file.read_text().split()[0]), time.perf_counter() - started


def memory(big_mb: int) -> None:
    print(f"\n3. memory: a transcript with one {big_mb} MB tool result")
    with tempfile.TemporaryDirectory(prefix="om-stress-") as tmp:
        env = make_world(Path(tmp))
        small = write_transcript(env, 1)
        big = write_transcript(env, 2, blob_bytes=big_mb * MB)
        small_rss, small_s = peak_rss(env, small)
        big_rss, big_s = peak_rss(env, big)
        size = big.stat().st_size
        print(f"   tiny transcript ({small.stat().st_size:,} bytes): peak RSS {small_rss / MB:6.1f} MB, {small_s:.2f} s")
        print(f"   big transcript ({size / MB:.1f} MB):       peak RSS {big_rss / MB:6.1f} MB, {big_s:.2f} s")
        print(f"   ratio peak RSS / file size: {big_rss / size:.2f}; growth over the tiny run / file size: "
              f"{(big_rss - small_rss) / size:.2f}; {check(env)}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=96)
    parser.add_argument("--import-sessions", type=int, default=300)
    parser.add_argument("--big-mb", type=int, default=50)
    args = parser.parse_args()
    print(f"{sys.executable}, Python {sys.version.split()[0]}, {os.cpu_count()} cores")
    throughput(args.sessions)
    kill_and_resume(args.import_sessions)
    memory(args.big_mb)
    return 0


if __name__ == "__main__":
    sys.exit(main())
