#!/usr/bin/env python3
"""The session archive at scale (issue 20): a synthetic archive of 100,000 sessions by default.

usage: python benchmarks/archive_scale.py [--sessions 100000] [--runs 5] [--history 2000,20000,100000]

In a temporary user (CLAUDE_CONFIG_DIR, HOME and vault of its own) whose archive holds
`--sessions` sessions of 20 prompts each over 50 git repositories, prints the median of:
  - in-process: the SessionStart context (context.build_context, in a repository of the
    archive: target <= 5 ms), and the archive query it makes (recent_sessions of a repository);
  - whole process: `hook session-start` (the payload on stdin, as Claude Code runs it),
    `sessions -n 20`, `search "module 3[01]" --sessions -n 20` (regex), and `python -c pass` for
    scale.
With `--history N,...` (instead of the above), for each N: a user whose archive holds N sessions
and whose vault holds their N session notes (the real renderer's note, one per session, over
twelve months), once swept (the archive's record of the vault made); then the median of
  - in-process: what one archive run spends on the notes it derives from the vault (the history
    table, the activity note: capture._rebuild_history, nothing changed but this run's note);
  - whole process: the SessionEnd hook (`hook archive`) archiving a new session, as Claude Code
    runs it at the end of every session (and of every /clear), against `python -c pass`;
and the ratios to the smallest N: what a bigger archive adds to every session's end.
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


def fill_archive(path: str, root: Path, count: int, started_of=None) -> float:
    """`count` sessions of 20 prompts over the repositories under root/src (started at
    `started_of(n)`: by default over 2025); returns the seconds it took."""
    import archive_speed

    started = time.perf_counter()
    archive_speed.fill_archive(path, count, lambda n: str(root / "src" / f"repo{n % REPOSITORIES}"),
                               started_of or archive_speed.started_in_2025)
    return time.perf_counter() - started


def median_of(runs: int, function) -> float:
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        function()
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def in_process(env: dict, root: Path, runs: int) -> dict[str, float]:
    from obsidian_memory.context import session_start as context
    from obsidian_memory.core import settings as settings_module
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
        figures["  of which recent_sessions(repo_root)"] = median_of(runs * 10, lambda: archive.sessions.recent(
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


def write_session_notes(env: dict, count: int, started_of=None) -> None:
    """The session notes of the `count` sessions fill_archive made (the real renderer's note of one
    session, its id, title, project and start changed for each), recorded in the archive as written."""
    import archive_speed

    from obsidian_memory.core import fsutil, settings as settings_module
    from obsidian_memory.archive import open_archive
    from obsidian_memory.capture.session_records import Prompt, Session
    from obsidian_memory.vault.notes import sessions as session_notes

    settings = settings_module.Settings(env["CLAUDE_CONFIG_DIR"], vault=env["OBSIDIAN_VAULT"])
    model_id, model_start = "ffffffff-0000-4000-8000-ffffffffffff", "2025-01-01T00:00:00.000Z"
    model = session_notes.render_note(Session(
        session_id=model_id, project="repo99", cwd="/src/repo99", repo_root="/src/repo99", title="session model",
        started_at=model_start, machine="bench-000001", prompts=[Prompt(f"prompt {i} of the model: refactor module {i}")
                                                                 for i in range(20)]), settings)
    paths = []
    for n in range(count):
        session = Session(session_id=f"{n:08x}-0000-4000-8000-{n:012x}", project=f"repo{n % REPOSITORIES}",
                          started_at=(started_of or archive_speed.started_in_2025)(n))
        relative = session_notes.note_relative_path(session, settings)
        text = (model.replace(model_id, session.session_id).replace(model_id[:8], session.session_id[:8])
                .replace("session model", f"session {n} about topic {n % 97}").replace("repo99", session.project)
                .replace(model_start[:10], session.started_at[:10]))
        fsutil.atomic_write_bytes(settings.vault_path(relative), text.encode("utf-8"), durable=False)
        paths.append((relative, session.session_id))
    with open_archive(settings.archive) as archive:
        with archive.sessions._write():
            archive.db.executemany("UPDATE sessions SET note_path = ?, note_revision = revision WHERE session_id = ?",
                                   paths)


def history_at(size: int, runs: int) -> dict[str, float]:
    """The history figures (see the module's docstring) for an archive and a vault of `size` sessions."""
    sys.path.insert(0, str(REPO / "tests"))
    from archive_fixtures import write_transcript

    with tempfile.TemporaryDirectory(prefix="om-archive-history-") as tmp:
        root = Path(tmp)
        env = make_user(root)
        archive_path = os.path.join(env["CLAUDE_CONFIG_DIR"], "session-archive.db")
        fill_archive(archive_path, root, size)
        write_session_notes(env, size)
        started = time.perf_counter()
        swept = subprocess.run([sys.executable, str(CLI), "sweep", "--quiet-seconds", "0"], env=env,
                               capture_output=True, timeout=3600)
        if swept.returncode != 0:
            sys.exit(f"sweep: {swept.stderr.decode(errors='replace')[-400:]}")
        first = time.perf_counter() - started
        code = ("import os, statistics, sys, time\n"
                "from obsidian_memory.capture import archiving as capture\nfrom obsidian_memory.core import settings as settings_module\n"
                "from obsidian_memory.archive import open_archive\n"
                "settings = settings_module.load(); times = []\n"
                "with open_archive(settings.archive) as archive:\n"
                "    for _ in range(int(sys.argv[1])):\n"
                "        started = time.perf_counter()\n"
                "        capture._rebuild_history(settings, archive, force=True)\n"
                "        times.append(time.perf_counter() - started)\n"
                "print(statistics.median(times))\n")
        rebuilt = subprocess.run([sys.executable, "-c", code, str(runs)], env={**env, "PYTHONPATH": str(REPO)},
                                 capture_output=True, timeout=3600, cwd=tmp)
        if rebuilt.returncode != 0:
            sys.exit(f"history rebuild: {rebuilt.stderr.decode(errors='replace')[-400:]}")
        hooks, bare = [], []
        projects = Path(env["CLAUDE_CONFIG_DIR"]) / "projects" / "-bench"
        for n in range(runs):
            session_id = f"{n:08x}-eeee-4eee-8eee-{n:012x}"
            transcript = write_transcript(projects / f"{session_id}.jsonl", session_id, [f"bench work {n}"],
                                          cwd=str(root / "src" / "repo7"), start="2026-12-01T09:00:00.000Z")
            payload = json.dumps({"hook_event_name": "SessionEnd", "session_id": session_id, "reason": "exit",
                                  "transcript_path": str(transcript), "cwd": str(root / "src" / "repo7")}).encode()
            for times, argv, stdin in ((bare, ["-c", "pass"], None), (hooks, [str(CLI), "hook", "archive"], payload)):
                started = time.perf_counter()
                subprocess.run([sys.executable, *argv], input=stdin, env=env, capture_output=True, timeout=600)
                times.append(time.perf_counter() - started)
        table = Path(env["OBSIDIAN_VAULT"], "Meta", "claude-session-history.md")
        if "bench work" not in table.read_text(encoding="utf-8"):
            sys.exit("the SessionEnd hook did not list its session in the history: the benchmark measures nothing")
        return {"first sweep": first, "rebuild": float(rebuilt.stdout), "hook": statistics.median(hooks),
                "bare": statistics.median(bare), "table bytes": table.stat().st_size}


def history_report(sizes: list[int], runs: int) -> None:
    print(f"history (the table and the activity note from the session notes in the vault), median of {runs}:")
    figures = {}
    for size in sizes:
        figures[size] = found = history_at(size, runs)
        print(f"  {size:>7,} sessions: first sweep {found['first sweep']:7.1f} s; one archive run's notes "
              f"(in-process) {found['rebuild'] * 1000:8.1f} ms; SessionEnd hook (whole process) "
              f"{found['hook'] * 1000:8.1f} ms = {found['hook'] / found['bare']:5.1f}x python -c pass; "
              f"history note {found['table bytes'] / 1e6:.2f} MB", flush=True)
    smallest = figures[sizes[0]]
    for size in sizes[1:]:
        print(f"  {size:,} / {sizes[0]:,}: in-process {figures[size]['rebuild'] / smallest['rebuild']:.2f}x, "
              f"SessionEnd hook {figures[size]['hook'] / smallest['hook']:.2f}x")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=100_000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--history", default=None, metavar="N,N,...",
                        help="the history figures at these archive sizes (e.g. 2000,20000,100000)")
    args = parser.parse_args()
    if args.history:
        history_report([int(size) for size in args.history.split(",")], args.runs)
        return 0
    with tempfile.TemporaryDirectory(prefix="om-archive-scale-") as tmp:
        root = Path(tmp)
        env = make_user(root)
        from obsidian_memory.core import settings as settings_module

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
