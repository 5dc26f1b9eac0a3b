#!/usr/bin/env python3
"""How long the SessionStart hook takes, against a bare interpreter.

usage: python benchmarks/session_start.py [--sessions 10000] [--runs 40] [--baseline DIR]

In a temporary HOME: an archive of N sessions (built with the archive API; a tenth of them in the
benchmark's git repository, the rest spread over 200 other repositories, a third with a
compaction summary, each with a last answer and a todo list half open), and a vault with a
working-state note, 300 learnings and a ~6 KB note for each session of the benchmark's
repository (their privacy judged in the archive's record of the vault, as a sweep leaves it:
SessionStart stats the notes it lists instead of reading them). Then, interleaved
so that machine noise hits both alike:
  - `python -c pass` of this interpreter (same environment),
  - `python scripts/obsidian_memory.py hook session-start` fed a real startup payload (the launcher
    of a checkout), `python -m obsidian_memory hook session-start` (the plugin's form), and the form
    install.py registers: the Python the venv is made from running bin/obsidian_memory.py, which puts
    the venv's site-packages first in the same process (here a venv whose site-packages point at
    this checkout through a .pth file),
with the sweep's stamp fresh (the steady state: the sweep starts at most once per 10 minutes),
and once more with the stamp removed before each run (a sweep spawned every time; each run
waits half a second first, so that no run competes with the previous one's sweep).
`--baseline DIR` (a checkout or copy holding an older `obsidian_memory` package, e.g. a worktree of
main) adds that package's hook to the same interleaved runs, and prints new / baseline; it reads
a copy of the same archive, marked with the schema version it knows.
Prints the medians and the ratio hook / bare (target <= 1.5), the hook as installed against the
floor (the base Python with -S importing json and sqlite3: target <= 1.6), the in-process build_context time,
and the size of the injected context. Bytecode is cached (PYTHONPYCACHEPREFIX in the temp dir),
as it is after a pip install; the same without bytecode is printed for information.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from obsidian_memory.context import session_start as context_module  # noqa: E402
from obsidian_memory.core import settings as settings_module  # noqa: E402
from obsidian_memory.archive import open_archive  # noqa: E402
from obsidian_memory.cli.commands import sweep as sweep_command  # noqa: E402
from obsidian_memory.capture.session_records import CompactSummary, Prompt, Session, Todo  # noqa: E402
from obsidian_memory.vault.notes import vault_sessions  # noqa: E402

CLI = REPO / "scripts" / "obsidian_memory.py"
PAYLOAD = REPO / "tests" / "fixtures" / "hooks" / "session_start_v2.1.332_startup.json"
SCRATCH = "/home/me/scratch"   # sessions outside any repository: listed by cwd
FLOOR = "python3 -S: import json, sqlite3"   # the interpreter and the two imports the hook cannot do without


def build_world(root: Path, sessions: int) -> tuple[dict, Path]:
    home, vault, repo = root / "home", root / "vault", root / "work" / "project"
    for folder in (home / ".claude", vault / "Meta", repo / "src"):
        folder.mkdir(parents=True, exist_ok=True)
    if subprocess.run(["git", "init", "-q", str(repo)], capture_output=True).returncode != 0:
        (repo / ".git").mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CLAUDE", "OBSIDIAN", "OMNISEARCH"))}
    env.update(HOME=str(home), CLAUDE_CONFIG_DIR=str(home / ".claude"), OBSIDIAN_VAULT=str(vault),
               PYTHONPYCACHEPREFIX=str(root / "pycache"))
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    (vault / "Meta" / "claude-state.md").write_text(
        "".join(f"- step {i}: migrate the importer module {i} to the new schema\n" for i in range(60)), "utf-8")
    (vault / "Meta" / "claude-learnings.md").write_text("# Claude learnings\n\n" + "".join(
        f"- 2026-02-{1 + i % 28:02d} 10:{i % 60:02d} — learning {i}: the staging database needs the VPN #infra\n"
        for i in range(300)), "utf-8")
    archive_path = home / ".claude" / "session-archive.db"
    with open_archive(str(archive_path)) as archive:
        for n in range(sessions):
            root_dir = str(repo) if n % 10 == 0 else f"/work/other-{n % 200}"
            in_scratch = n % 10 == 5   # a tenth started in a folder that is no repository
            cwd = SCRATCH if in_scratch else root_dir
            sid = f"{n:08x}-bbbb-4ccc-8ddd-{n:012x}"
            archive.sessions.upsert(Session(
                session_id=sid, project=os.path.basename(cwd), cwd=cwd, repo_root=None if in_scratch else root_dir,
                git_branch="main", started_at=f"2026-{1 + n % 12:02d}-{1 + n % 28:02d}T{n % 24:02d}:{n % 60:02d}:00.000Z",
                title=f"session {n}: fix the importer edge case", prompts=[Prompt(f"prompt {n}")],
                compact_summaries=[CompactSummary("1. Primary Request: fix the importer\n" * 40)] if n % 3 == 0 else [],
                # where it stopped (issue 15): a last answer and a todo list, half of it open
                last_assistant_message="Fixed the importer edge case; the tests pass.\n" * 30,
                todos=[Todo(f"step {i} of the importer fix", "completed" if i % 2 else "pending") for i in range(8)]),
                note_path=f"Meta/claude-sessions/2026-01/2026-01-01_{sid[:8]}.md")
            if cwd == str(repo):
                write_session_note(vault, sid, n)
        # the record of the vault's notes, privacy verdicts included, as every archive run and sweep leaves it
        settings = settings_module.load(vault=str(vault), config_dir=str(home / ".claude"))
        vault_sessions.refresh(settings, archive)
    return env, repo


def write_session_note(vault: Path, sid: str, n: int) -> None:
    """A session note of the size real ones have (~6 KB: properties, prompts, answers, files)."""
    note = vault / "Meta" / "claude-sessions" / "2026-01" / f"2026-01-01_{sid[:8]}.md"
    note.parent.mkdir(parents=True, exist_ok=True)
    body = "".join(f"- prompt {i}: fix the importer edge case number {i} in module {n}\n" for i in range(40))
    note.write_text(f"---\nsession_id: {sid}\ntitle: session {n}\nproject: project\nmachine: bench-000001\n"
                    f"started: 2026-01-01T09:00:00Z\ntags: [claude-session]\n---\n# session {n}\n\n{body}"
                    + "Fixed the importer edge case; the tests pass.\n" * 60, encoding="utf-8")


def baseline_config(env: dict, baseline: str, root: Path) -> dict:
    """The environment for the baseline's hook: a copy of the config folder whose archive says
    the schema version the baseline knows (the tables later migrations added are left in place;
    an older version reads only what it knows), so that both versions read the same sessions."""
    known = subprocess.run([sys.executable, "-c", f"import sys; sys.path.insert(0, {baseline!r}); "
                            "from obsidian_memory.archive import SCHEMA_VERSION; print(SCHEMA_VERSION)"],
                           capture_output=True, text=True, check=True).stdout.strip()
    copy = root / "baseline-config"
    shutil.copytree(env["CLAUDE_CONFIG_DIR"], copy, symlinks=True)
    db = sqlite3.connect(copy / "session-archive.db")
    version = db.execute("PRAGMA user_version").fetchone()[0]
    db.execute(f"PRAGMA user_version = {min(int(version), int(known))}")
    db.close()
    return dict(env, CLAUDE_CONFIG_DIR=str(copy))


def baseline_hook(baseline: str) -> list[str]:
    """The hook of the package under `baseline`, as its launcher runs it (its own folder first on
    sys.path, before the PYTHONPATH that points at this checkout)."""
    script = Path(baseline) / "scripts" / "obsidian_memory.py"
    code = (f"import sys; sys.path.insert(0, {str(Path(baseline))!r}); sys.argv[0] = {str(script)!r}; "
            "from obsidian_memory.cli import main; sys.exit(main(sys.argv[1:]))")
    return [sys.executable, "-c", code, "hook", "session-start"]


LAUNCHER_FILES = ("obsidian_memory.py", "_launcher.py")   # scripts/ files install.py puts in bin/


def installed_hook(home: Path, source: Path = REPO) -> list[str]:
    """The hook as settings.json runs it after install.py: base Python + bin/ launcher + the venv
    (of the checkout `source`)."""
    ours = home / ".claude" / "obsidian-memory"
    (ours / "bin").mkdir(parents=True)
    for name in LAUNCHER_FILES:
        shutil.copy2(source / "scripts" / name, ours / "bin" / name)
    base = os.path.realpath(sys.executable)
    subprocess.run([base, "-m", "venv", "--without-pip", str(ours / "venv")], check=True)
    (site,) = (ours / "venv").glob("lib/python*/site-packages")
    (site / "obsidian_memory.pth").write_text(str(source) + "\n", encoding="utf-8")
    return [base, "-S", str(ours / "bin" / "obsidian_memory.py"), "hook", "session-start"]


def timed(command: list[str], env: dict, stdin: bytes | None, cwd: Path) -> float:
    started = time.perf_counter()
    done = subprocess.run(command, input=stdin, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env, cwd=cwd)
    elapsed = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"{command} failed with {done.returncode}")
    return elapsed


def measure(commands: dict[str, list[str]], env: dict, stdin: bytes, cwd: Path, runs: int,
            before=None, envs: dict | None = None) -> dict[str, float]:
    times: dict[str, list[float]] = {name: [] for name in commands}
    envs = envs or {}
    for name, command in commands.items():  # warm up: bytecode, page cache
        timed(command, envs.get(name, env), stdin if name != "bare" else None, cwd)
    for _ in range(runs):
        for name, command in commands.items():
            if before:
                before(name)
            times[name].append(timed(command, envs.get(name, env), stdin if name != "bare" else None, cwd))
    return {name: statistics.median(values) for name, values in times.items()}


def report(title: str, medians: dict[str, float]) -> None:
    bare = medians["bare"]
    print(f"\n{title}")
    for name, value in medians.items():
        ratio = "" if name == "bare" else f"   ratio {value / bare:.2f}x"
        print(f"  {name:<24} {value * 1000:7.1f} ms{ratio}")
    if FLOOR in medians:
        print(f"  as installed / the floor: {medians['hook (as installed)'] / medians[FLOOR]:.2f}x (target <= 1.6)")
    if "hook (baseline)" in medians:
        print(f"  new / baseline (launcher script): "
              f"{medians['hook (launcher script)'] / medians['hook (baseline)']:.2f}")


def folder_listing(archive_path: str, runs: int = 200) -> None:
    """The sessions of a folder outside any repository: by the cwd index in SQL, against the way
    context.py did it before (the newest 200 overall, filtered in Python)."""
    def in_sql(archive):
        return archive.sessions.recent(cwd=SCRATCH, limit=context_module.SESSION_LIMIT)

    def in_python(archive):
        rows = archive.sessions.recent(limit=max(context_module.SESSION_LIMIT * 20, 200))
        return [r for r in rows if r.cwd == SCRATCH and not r.repo_root][:context_module.SESSION_LIMIT]

    with open_archive(archive_path, readonly=True) as archive:
        medians = {}
        for name, listing in (("cwd index (SQL)", in_sql), ("newest 200, filtered in Python", in_python)):
            found = listing(archive)
            times = []
            for _ in range(runs):
                started = time.perf_counter()
                listing(archive)
                times.append(time.perf_counter() - started)
            medians[name] = statistics.median(times)
            print(f"  {name:<32} {medians[name] * 1000:7.3f} ms, {len(found)} sessions found")
    sql, python = medians.values()
    print(f"  ratio Python filter / SQL: {python / sql:.1f}x")


def privacy_check(settings, cwd: str, runs: int = 200) -> None:
    """The recent sessions' privacy, checked as SessionStart does (the archive's verdict for each
    note whose stamp is unchanged: a stat) against a read of each note (as before issue 20's last round)."""
    from obsidian_memory.vault.privacy import note_is_private

    def by_record(archive, rows):
        return [row for row, _ in context_module._without_private_notes(settings, archive, rows,
                                                                           context_module.SESSION_LIMIT)]

    def by_reading(archive, rows):
        return [row for row in rows if not note_is_private(settings, row.note_path)][:context_module.SESSION_LIMIT]

    with open_archive(settings.archive, readonly=True) as archive:
        rows = archive.sessions.recent(repo_root=cwd, limit=context_module.SESSION_LIMIT + context_module.PRIVATE_SLACK)
        medians = {}
        for name, check in (("archive's verdict (stat)", by_record), ("read each note", by_reading)):
            assert [r.session_id for r in check(archive, rows)] == [r.session_id for r in by_reading(archive, rows)]
            times = []
            for _ in range(runs):
                started = time.perf_counter()
                check(archive, rows)
                times.append(time.perf_counter() - started)
            medians[name] = statistics.median(times)
            print(f"  {name:<28} {medians[name] * 1000:7.3f} ms for {len(rows)} sessions")
    cached, read = medians.values()
    print(f"  ratio verdict / read: {cached / read:.2f}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=10000)
    parser.add_argument("--runs", type=int, default=40)
    parser.add_argument("--baseline", default=None, metavar="DIR", help="an older checkout to compare with")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="om-bench-session-start-", ignore_cleanup_errors=True) as tmp:  # (a sweep may still write)
        root = Path(tmp)
        started = time.perf_counter()
        env, repo = build_world(root, args.sessions)
        print(f"archive of {args.sessions:,} sessions built in {time.perf_counter() - started:.1f} s "
              f"({sys.executable}, Python {sys.version.split()[0]})")
        payload = json.loads(PAYLOAD.read_text(encoding="utf-8"))
        payload.update(cwd=str(repo / "src"), session_id="bench-session")
        stdin = json.dumps(payload).encode()
        commands = {
            "bare": [sys.executable, "-c", "pass"],
            "hook (launcher script)": [sys.executable, str(CLI), "hook", "session-start"],
            "hook (-m obsidian_memory)": [sys.executable, "-m", "obsidian_memory", "hook", "session-start"],
            "hook (as installed)": installed_hook(root / "home"),
            FLOOR: [os.path.realpath(sys.executable), "-S", "-c", "import json, sqlite3"],
        }
        module_env = dict(env, PYTHONPATH=str(REPO))
        envs = {}
        if args.baseline:
            commands["hook (baseline)"] = baseline_hook(os.path.abspath(args.baseline))
            envs["hook (baseline)"] = baseline_config(module_env, os.path.abspath(args.baseline), root)
        done = subprocess.run(commands["hook (launcher script)"], input=stdin, capture_output=True, env=env, cwd=repo)
        text = json.loads(done.stdout)["hookSpecificOutput"]["additionalContext"]
        stamp = root / "home" / ".claude" / "obsidian-memory" / sweep_command.STAMP
        stamp.touch()

        if args.baseline:
            baseline_stamp = Path(envs["hook (baseline)"]["CLAUDE_CONFIG_DIR"]) / "obsidian-memory" / sweep_command.STAMP
            baseline_stamp.parent.mkdir(parents=True, exist_ok=True)
            baseline_stamp.touch()
        report(f"steady state (sweep stamp fresh), median of {args.runs}",
               measure(commands, module_env, stdin, repo, args.runs, envs=envs))

        def drop_stamp(name):
            time.sleep(0.5)  # let the previous sweep finish: it runs after the hook, beside Claude Code
            if name != "bare":
                stamp.unlink(missing_ok=True)
                if name in envs:
                    baseline_stamp.unlink(missing_ok=True)
        report(f"sweep spawned on every run, median of {max(10, args.runs // 4)}",
               measure(commands, module_env, stdin, repo, max(10, args.runs // 4), before=drop_stamp, envs=envs))
        stamp.touch()
        if args.baseline:
            baseline_stamp.touch()
        cold_env = dict(module_env, PYTHONDONTWRITEBYTECODE="1")
        cold_env.pop("PYTHONPYCACHEPREFIX")
        report("for information: no bytecode cache (PYTHONDONTWRITEBYTECODE=1), median of 15",
               measure({k: commands[k] for k in ("bare", "hook (launcher script)")}, cold_env, stdin, repo, 15))

        os.environ.update({k: env[k] for k in ("HOME", "CLAUDE_CONFIG_DIR", "OBSIDIAN_VAULT")})
        settings = settings_module.load()
        in_process = []
        for _ in range(50):
            started = time.perf_counter()
            context_module.build_context(settings, cwd=str(repo / "src"), source="startup", session_id="bench-session")
            in_process.append(time.perf_counter() - started)
        print(f"\nin-process build_context: median {statistics.median(in_process) * 1000:.2f} ms (50 runs)")
        print("\nthe listed sessions' privacy (median of 200):")
        privacy_check(settings, str(repo))
        print("\nsessions of a folder outside any repository (median of 200):")
        folder_listing(settings.archive)
        print(f"injected context: {len(text):,} characters of the {settings.effective_context_budget:,} budget; "
              f"hook stdout {len(done.stdout):,} bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
