#!/usr/bin/env python3
"""How long archiving the largest fixture transcript takes, against SessionEnd's 1.5 s budget.

usage: python benchmarks/archive_speed.py [--runs 5] [--transcript PATH] [--baseline DIR]

In a temporary CLAUDE_CONFIG_DIR and vault, for the largest transcript under ../shared (or the
one given), prints the median of:
  - in-process: capture.archive_transcript() into a fresh archive (parse, redact, upsert, note,
    history), and its parse / redact parts;
  - whole process: `obsidian_memory.py hook archive` with a SessionEnd payload on stdin, first
    archive of the session (a fresh archive each run), and again when the transcript is
    unchanged (a Stop after nothing new: the fingerprint check skips the parse);
  - `python -c pass` of the same interpreter, for scale;
each also as a ratio of the 1.5 s budget (the first archive with the session template compiled by
an earlier session, as it is on a machine in use, and without: the first session after an install); the size of the note each transcript under ../shared
gets; and the archive queries of the SessionStart hook and of `search --sessions` on an archive of
10,000 sessions. `--baseline DIR` (a checkout or copy holding an older `obsidian_memory` package
and `scripts/`) times that version's `hook archive` too, alternating with this one's run by run,
and prints new/old. The machine is shared: compare ratios of one run.
"""
from __future__ import annotations

import argparse
import glob
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
SHARED = REPO.parent / "shared" / "fixtures" / "transcripts"
CLI = REPO / "scripts" / "obsidian_memory.py"
BUDGET = 1.5
sys.path.insert(0, str(REPO))


def largest_transcript() -> Path:
    candidates = [Path(p) for p in glob.glob(str(SHARED / "**" / "*.jsonl"), recursive=True)]
    candidates += [Path(p) for p in glob.glob(str(REPO / "tests" / "fixtures" / "transcripts" / "**" / "*.jsonl"),
                                              recursive=True)]
    if not candidates:
        sys.exit("no transcript found (../shared is absent): pass --transcript PATH")
    return max(candidates, key=lambda p: p.stat().st_size)


def fresh_user(root: Path, transcript: Path) -> tuple[dict, Path]:
    if root.exists():
        shutil.rmtree(root)
    env, target = user_paths(root, transcript)
    target.parent.mkdir(parents=True)
    (root / "vault").mkdir()
    shutil.copy2(transcript, target)
    side = transcript.with_suffix("")
    if side.is_dir():
        shutil.copytree(side, target.with_suffix(""))
    return env, target


def user_paths(root: Path, transcript: Path) -> tuple[dict, Path]:
    config, vault = root / "claude", root / "vault"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CLAUDE", "OBSIDIAN", "OMNISEARCH"))}
    env.update({"CLAUDE_CONFIG_DIR": str(config), "OBSIDIAN_VAULT": str(vault), "HOME": str(root),
                "OMNISEARCH_PORT": "9"})
    return env, config / "projects" / transcript.parent.name / transcript.name


def timed(function) -> float:
    started = time.perf_counter()
    function()
    return time.perf_counter() - started


def in_process(root: Path, transcript: Path, runs: int) -> dict[str, float]:
    from obsidian_memory.capture import archiving as capture, redact, transcript as parser
    from obsidian_memory.core import settings

    totals, parses, redactions = [], [], []
    for _ in range(runs):
        env, target = fresh_user(root, transcript)
        os.environ.update(env)
        loaded = settings.load()
        totals.append(timed(lambda: capture.archive_transcript(str(target), loaded)))
        session = None

        def parse():
            nonlocal session
            session = parser.parse(str(target))
        parses.append(timed(parse))
        redactions.append(timed(lambda: redact.redact_session(session)))
    return {"archive_transcript()": statistics.median(totals), "  of which parse": statistics.median(parses),
            "  of which redact": statistics.median(redactions)}


def whole_process(root: Path, transcript: Path, runs: int, baseline: Path | None = None) -> dict[str, float]:
    first, cold, unchanged, bare, old = [], [], [], [], []
    for _ in range(runs):
        cold.append(hook_archive(root, transcript, CLI))
        first.append(hook_archive(root, transcript, CLI, keep_compiled=True))
        unchanged.append(timed(lambda: _hook(root, transcript, CLI)))
        if not list((root / "vault").rglob("*.md")):
            sys.exit("the hook wrote no note: see " + str(root / "claude" / "obsidian-memory" / "obsidian-memory.log"))
        if baseline:
            old.append(hook_archive(root, transcript, baseline / "scripts" / "obsidian_memory.py"))
        bare.append(timed(lambda: subprocess.run([sys.executable, "-c", "pass"], check=True)))
    figures = {"hook archive (first archive)": statistics.median(first),
               "  the same, template not compiled yet": statistics.median(cold),
               "hook archive (unchanged transcript)": statistics.median(unchanged),
               "python -c pass": statistics.median(bare)}
    if baseline:
        figures["hook archive (first), baseline"] = statistics.median(old)
    return figures


def hook_archive(root: Path, transcript: Path, cli: Path, keep_compiled: bool = False) -> float:
    """The first `hook archive` of the transcript, in a fresh user (archive and vault). With
    `keep_compiled`, the user's cache holds the session template as compiled by the run before
    (as on a machine where an earlier session was archived); without, nothing is cached."""
    compiled = root / "claude" / "obsidian-memory" / "cache" / "templates"
    saved = root.parent / "compiled-templates"
    if keep_compiled and compiled.is_dir():
        shutil.rmtree(saved, ignore_errors=True)
        shutil.copytree(compiled, saved)
    fresh_user(root, transcript)
    if keep_compiled and saved.is_dir():
        shutil.copytree(saved, compiled)
    return timed(lambda: _hook(root, transcript, cli))


def _hook(root: Path, transcript: Path, cli: Path) -> None:
    env, target = user_paths(root, transcript)
    payload = json.dumps({"session_id": target.stem, "transcript_path": str(target),
                          "hook_event_name": "SessionEnd", "reason": "other", "cwd": str(root)}).encode()
    done = subprocess.run([sys.executable, str(cli), "hook", "archive"], input=payload, env=env,
                          capture_output=True, timeout=60)
    if done.returncode != 0 or done.stdout:
        sys.exit(f"the hook misbehaved: exit {done.returncode}, stdout {done.stdout[:200]!r}")


def note_sizes(root: Path) -> dict[str, int]:
    """Bytes of the note of each transcript under ../shared (and of our own recorded fixtures)."""
    from obsidian_memory.capture import archiving as capture
    from obsidian_memory.core import settings

    paths = sorted(SHARED.glob("projects/*/*.jsonl")) + sorted(SHARED.glob("small/*.jsonl"))
    paths += sorted((REPO / "tests" / "fixtures" / "transcripts").glob("*/*.jsonl"))
    sizes = {}
    for path in paths:
        env, target = fresh_user(root, path)
        os.environ.update(env)
        result = capture.archive_transcript(str(target), settings.load())
        if result.note_path:
            sizes[path.name] = (root / "vault" / result.note_path).stat().st_size
    return sizes


def big_archive_queries(root: Path, count: int = 10_000) -> dict[str, float]:
    """recent_sessions (SessionStart) and grep_sessions on `count` sessions of 20 prompts each."""
    from obsidian_memory.archive import open_archive

    root.mkdir(parents=True, exist_ok=True)
    path = str(root / "big.db")
    fill_archive(path, count, lambda n: f"/work/repo{n % 50}")
    figures = {}
    with open_archive(path, readonly=True) as archive:
        samples = [timed(lambda: archive.sessions.recent(repo_root="/work/repo7", limit=5)) for _ in range(50)]
        figures[f"recent_sessions(repo_root), {count:,} sessions"] = statistics.median(samples)
    figures.update(grep_engines(path, count))
    return figures


def started_in_2025(n: int) -> str:
    return f"2025-{1 + n % 12:02d}-{1 + n % 28:02d}T{n % 24:02d}:00:00.000Z"


def fill_archive(path: str, count: int, repo_of, started_of=started_in_2025) -> None:
    """`count` synthetic sessions of 20 prompts in the archive at `path`, in one transaction;
    session n in the repository folder `repo_of(n)` (project: its base name), started at
    `started_of(n)`."""
    from obsidian_memory.archive import open_archive
    from obsidian_memory.capture.session_records import CompactSummary, Prompt, Session

    with open_archive(path) as archive:
        archive.db.execute("BEGIN")
        for n in range(count):
            repo = repo_of(n)
            session = Session(session_id=f"{n:08x}-0000-4000-8000-{n:012x}", project=os.path.basename(repo), cwd=repo,
                              repo_root=repo, started_at=started_of(n),
                              title=f"session {n} about topic {n % 97}",
                              prompts=[Prompt(f"prompt {i} of session {n}: refactor module {i * n % 31}")
                                       for i in range(20)],
                              compact_summaries=[CompactSummary(f"summary of session {n}")])
            _upsert_in_open_transaction(archive, session)
        archive.db.execute("COMMIT")


def grep_engines(path: str, count: int) -> dict[str, float]:
    """`search --sessions` over the big archive: a plain pattern on each engine (RE2 in-process,
    Python's re in-process as before the time bound, Python's re in the bounded worker), and a
    catastrophic pattern over one 50,000-character run of `a` (RE2; Python's engine is stopped)."""
    import re

    from obsidian_memory.search import session_search
    from obsidian_memory.archive import open_archive
    from obsidian_memory.capture.session_records import Prompt, Session

    pattern = r"module 3[01]"
    figures = {}
    if session_search.compile_pattern(pattern).engine == "re2":
        figures[f"grep '{pattern}' RE2, {count:,} sessions"] = statistics.median(
            [timed(lambda: session_search.grep_sessions(path, pattern, limit=20)) for _ in range(3)])
    python = session_search.Matcher(pattern, re.compile(pattern, re.IGNORECASE), "re")
    with open_archive(path, readonly=True) as archive:
        figures[f"grep '{pattern}' Python re in-process (old), {count:,}"] = statistics.median(
            [timed(lambda: archive.sessions.grep(python, limit=20)) for _ in range(3)])
    original = session_search._re2_compile
    session_search._re2_compile = lambda _pattern: None
    try:
        figures[f"grep '{pattern}' Python re in the worker, {count:,}"] = statistics.median(
            [timed(lambda: session_search.grep_sessions(path, pattern, limit=20)) for _ in range(3)])
    finally:
        session_search._re2_compile = original
    with open_archive(path) as archive:
        archive.sessions.upsert(Session(session_id="ffffffff-0000-4000-8000-000000000000", project="x",
                                       started_at="2026-01-01T00:00:00.000Z", prompts=[Prompt("a" * 50_000 + "b")]))
    for catastrophic in (r"(a+)+$", r"(\w+\s?)+;$"):
        figures[f"grep '{catastrophic}' (catastrophic), {count + 1:,}"] = timed(
            lambda: session_search.grep_sessions(path, catastrophic, limit=20))
    slow = r"(a+)+(?=c)"
    started = time.perf_counter()
    try:
        session_search.grep_sessions(path, slow, limit=20, deadline=2.0)
    except session_search.PatternTooSlow:
        pass
    figures[f"grep '{slow}' (Python only; deadline 2 s)"] = time.perf_counter() - started
    return figures


def _upsert_in_open_transaction(archive, session) -> None:
    from obsidian_memory.archive.store import Store

    class _Joined:  # reuse the outer transaction: one COMMIT for the whole bulk load
        def __init__(self, db):
            self.db = db

        def __enter__(self):
            return self.db

        def __exit__(self, *exc):
            return False
    original = Store._write
    Store._write = lambda self: _Joined(self.db)
    try:
        archive.sessions.upsert(session)
    finally:
        Store._write = original


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--transcript", type=Path, default=None)
    parser.add_argument("--baseline", type=Path, default=None, metavar="DIR",
                        help="also time the hook of the obsidian_memory under DIR, and print new/old")
    args = parser.parse_args()
    transcript = (args.transcript or largest_transcript()).resolve()
    size = transcript.stat().st_size
    lines = sum(1 for _ in open(transcript, "rb"))
    print(f"transcript: {transcript.name} ({size / 1e6:.1f} MB, {lines:,} lines), {args.runs} runs, median")
    with tempfile.TemporaryDirectory(prefix="om-archive-bench-") as tmp:
        figures = whole_process(Path(tmp) / "user", transcript, args.runs, args.baseline)
        figures.update(in_process(Path(tmp) / "user", transcript, args.runs))
        sizes = note_sizes(Path(tmp) / "notes")
        queries = big_archive_queries(Path(tmp) / "big")
    for name, seconds in figures.items():
        print(f"  {name:<38} {seconds * 1000:8.1f} ms   {seconds / BUDGET:6.3f} x the {BUDGET} s budget")
    if args.baseline:
        ratio = figures["hook archive (first archive)"] / figures["hook archive (first), baseline"]
        print(f"  hook archive (first), new/old: {ratio:.2f}")
    print("  note size per session:")
    for name, size in sizes.items():
        print(f"    {name:<60} {size / 1000:7.1f} KB")
    for name, seconds in queries.items():
        print(f"  {name:<50} {seconds * 1000:8.3f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
