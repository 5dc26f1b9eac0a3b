#!/usr/bin/env python3
"""What the sweep costs with thousands of other machines' session notes in the vault (issue 16).

usage: python benchmarks/vault_sweep.py [--notes 5000] [--runs 7]

In a temporary HOME: a vault holding N session notes of another machine (rendered by the real
renderer from sessions with prompts, answers, an outcome, commands; over 12 months), and, when
../shared is there, a copy of the 171 notes of the obsidian-help vault as the user's own notes.
This machine has an empty archive and no transcripts. Then:
  - first sight: one `sweep` in-process (reads every note, learns every session, writes the
    history table), and the same as a whole `obsidian_memory.py sweep` process on a fresh archive;
  - unchanged: the median of `--runs` sweeps in-process once everything was learned (lists and
    stats the vault, reads nothing, the history table already right), with two of its parts
    (listing the vault, the archive's quick_check), and as whole processes against `python -c pass`;
  - one note changed: the median in-process sweep after one note was touched;
  - a SessionEnd hook archiving a new session of this machine, as a whole process, with the N notes
    in the vault and with none of another machine's (the cost they add to every session's end).
Target: the unchanged sweep <= 100 ms in-process. The machine is shared: compare within one run.
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
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SHARED_VAULT = REPO.parent / "shared" / "eval" / "obsidian-help-en"
CLI = REPO / "scripts" / "obsidian_memory.py"
TARGET_MS = 100.0
sys.path.insert(0, str(REPO))


def make_session(n: int):
    from obsidian_memory.capture.session_records import Command, Commit, Prompt, Session, Todo

    month, day = 1 + n % 12, 1 + n % 28
    start = f"2026-{month:02d}-{day:02d}T{n % 24:02d}:{n % 60:02d}:00.000Z"
    prompts = [Prompt(f"step {k} of task {n}: change the importer so that module {k} reads the new schema",
                      start, answer=f"Done: module {k} now reads the new schema; tests pass ({k + 3} passed).")
               for k in range(4)]
    return Session(
        session_id=f"{n:08x}-dddd-4eee-8fff-{n:012x}", title=f"task {n}: importer schema migration",
        project=f"proj-{n % 40}", cwd=f"/Users/me/src/proj-{n % 40}", git_branch="main", version="2.1.300",
        started_at=start, ended_at=start.replace("T", "T").replace(":00.000Z", ":30.000Z"), duration_seconds=1800,
        prompts=prompts, last_assistant_message=prompts[-1].answer,
        todos=[Todo("write the migration", "completed"), Todo("update the docs", "pending")],
        commits=[Commit(f"importer: module {n} reads the new schema", f"{n:07x}")],
        commands=[Command("pytest -q", 3, 1), Command("git status")],
        tools={"Edit": 12, "Bash": 7, "Read": 20}, files_touched=[f"src/importer/m{k}.py" for k in range(5)],
        machine="desk-5e5e5e", repo_id=f"github.com/me/proj-{n % 40}")


def build_world(root: Path, notes: int) -> tuple[dict, Path]:
    from obsidian_memory.core import settings as settings_module
    from obsidian_memory.vault.notes import sessions as session_notes

    home, vault = root / "home", root / "vault"
    (home / ".claude" / "obsidian-memory").mkdir(parents=True)
    vault.mkdir()
    (home / ".claude" / "obsidian-memory" / "machine.json").write_text('{"id": "laptop-1a1a1a"}', "utf-8")
    if SHARED_VAULT.is_dir():
        shutil.copytree(SHARED_VAULT, vault, dirs_exist_ok=True)
    settings = settings_module.Settings(str(home / ".claude"), vault=str(vault))
    from obsidian_memory.core import fsutil
    for n in range(notes):   # as the other machine wrote them (rendered, written atomically)
        session = make_session(n)
        fsutil.atomic_write_text(settings.vault_path(session_notes.note_relative_path(session, settings)),
                                 session_notes.render_note(session, settings))
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CLAUDE", "OBSIDIAN", "OMNISEARCH"))}
    env.update(HOME=str(home), CLAUDE_CONFIG_DIR=str(home / ".claude"), OBSIDIAN_VAULT=str(vault),
               PYTHONPYCACHEPREFIX=str(root / "pycache"), OMNISEARCH_PORT="9")
    return env, vault


def in_process_sweep(env: dict) -> tuple[float, str]:
    from obsidian_memory.capture import archiving as capture
    from obsidian_memory.core import settings as settings_module

    saved = dict(os.environ)
    os.environ.clear()
    os.environ.update(env)
    try:
        settings = settings_module.load()
        started = time.perf_counter()
        summary = capture.sweep(settings, quiet_seconds=0)
        return time.perf_counter() - started, summary.line()
    finally:
        os.environ.clear()
        os.environ.update(saved)


def parts(env: dict, runs: int) -> tuple[float, float]:
    """Medians (ms) of two parts of an unchanged sweep: listing the vault, the archive's quick_check."""
    from obsidian_memory.archive import open_archive
    from obsidian_memory.vault.notes import vault_sessions

    root = os.path.realpath(env["OBSIDIAN_VAULT"])
    archive_path = os.path.join(env["CLAUDE_CONFIG_DIR"], "session-archive.db")

    def median_ms(work) -> float:
        times = []
        for _ in range(runs):
            started = time.perf_counter()
            work()
            times.append(time.perf_counter() - started)
        return statistics.median(times) * 1000

    with open_archive(archive_path, readonly=True) as archive:
        return median_ms(lambda: vault_sessions.list_notes(root)), median_ms(archive.quick_check)


def session_end_hooks(env: dict, runs: int, first: int) -> float:
    """The median of `runs` SessionEnd hooks (`hook archive`, a whole process, as Claude Code runs
    it), each archiving a new session of this machine (ms)."""
    sys.path.insert(0, str(REPO / "tests"))
    from archive_fixtures import write_transcript

    projects = Path(env["CLAUDE_CONFIG_DIR"]) / "projects" / "-bench"
    times = []
    for n in range(first, first + runs):
        session_id = f"{n:08x}-eeee-4eee-8eee-{n:012x}"
        path = write_transcript(projects / f"{session_id}.jsonl", session_id, [f"bench work {n}"], cwd=str(REPO),
                                start="2026-12-01T09:00:00.000Z")
        payload = json.dumps({"hook_event_name": "SessionEnd", "session_id": session_id, "transcript_path": str(path),
                              "cwd": str(REPO), "reason": "exit"}).encode()
        started = time.perf_counter()
        subprocess.run([sys.executable, str(CLI), "hook", "archive"], input=payload, env=env, capture_output=True,
                       check=True)
        times.append(time.perf_counter() - started)
    return statistics.median(times) * 1000


def process(command: list[str], env: dict) -> float:
    started = time.perf_counter()
    done = subprocess.run(command, env=env, capture_output=True)
    elapsed = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"{command} failed: {done.stderr.decode()}")
    return elapsed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--notes", type=int, default=5000)
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="om-vault-sweep-") as tmp:
        root = Path(tmp)
        started = time.perf_counter()
        env, vault = build_world(root, args.notes)
        user_notes = len(list(SHARED_VAULT.rglob("*.md"))) if SHARED_VAULT.is_dir() else 0
        print(f"vault: {args.notes} session notes of another machine, {user_notes} notes of the user's "
              f"(built in {time.perf_counter() - started:.1f} s)")
        archive = Path(env["CLAUDE_CONFIG_DIR"]) / "session-archive.db"

        first, line = in_process_sweep(env)
        print(f"\nfirst sight, in-process sweep:        {first * 1000:8.1f} ms   ({line})")
        unchanged = [in_process_sweep(env)[0] for _ in range(args.runs)]
        median = statistics.median(unchanged)
        print(f"unchanged, in-process sweep (median): {median * 1000:8.1f} ms   "
              f"ratio to the {TARGET_MS:.0f} ms target {median * 1000 / TARGET_MS:.2f}")
        listing, checking = parts(env, args.runs)
        print(f"  of which listing the vault (a stat of every note; the floor of any freshness check): {listing:.1f} ms, "
              f"ratio sweep/listing {median * 1000 / listing:.2f}")
        print(f"  of which the archive's quick_check before a batch (reads the whole archive, "
              f"{archive.stat().st_size / 1e6:.1f} MB): {checking:.1f} ms")
        touched = []
        for n in range(args.runs):
            note = next((vault / "Meta" / "claude-sessions").rglob(f"*_{n:08x}.md"))
            os.utime(note, (time.time() + n + 1, time.time() + n + 1))
            touched.append(in_process_sweep(env)[0])
        print(f"one note changed, in-process (median):{statistics.median(touched) * 1000:8.1f} ms")

        bare, whole = [], []
        sweep = [sys.executable, str(CLI), "sweep", "--quiet-seconds", "0"]
        for _ in range(args.runs):
            bare.append(process([sys.executable, "-c", "pass"], env))
            whole.append(process(sweep, env))
        print(f"\nwhole process, unchanged (median):    {statistics.median(whole) * 1000:8.1f} ms   "
              f"`python -c pass` {statistics.median(bare) * 1000:.1f} ms, "
              f"ratio {statistics.median(whole) / statistics.median(bare):.2f}x")
        with tempfile.TemporaryDirectory(prefix="om-vault-sweep-empty-") as empty:
            empty_env, _ = build_world(Path(empty), 0)
            alone = session_end_hooks(empty_env, args.runs, 10_000)
        crowded = session_end_hooks(env, args.runs, 20_000)
        print(f"SessionEnd hook, a new session (median): {crowded:.1f} ms with the {args.notes} notes, {alone:.1f} ms "
              f"with none of another machine's; ratio {crowded / alone:.2f}x")
        archive.unlink()
        for suffix in ("-wal", "-shm"):
            Path(str(archive) + suffix).unlink(missing_ok=True)
        print(f"whole process, first sight:           {process(sweep, env) * 1000:8.1f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
