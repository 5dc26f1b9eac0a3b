#!/usr/bin/env python3
"""How long obsidian-memory's hooks take when the real Claude Code client runs them.

usage: python benchmarks/e2e_hooks.py [--version 2.1.332] [--sessions 3]

In a temporary HOME (a git repository as the working directory, the scripted model server from
tests/e2e standing in for the API): a few short `claude -p` sessions without obsidian-memory, then
`./install.sh --vault <temp> --no-import --yes`, then a session with tool calls, a few short sessions,
and `/compact` on a resumed session. Prints, per hook event:
  - the wall time of our hook process as the client spawned it (each installed hook command is
    wrapped in `sh` timestamps, written to a file; the hook itself is unchanged),
  - the duration the client itself logs (its debug log, where it logs one),
and the median `claude -p` session time without and with obsidian-memory, as a ratio, plus a bare
`python -c pass` of the same interpreter for scale. The machine is shared: compare ratios of one run.
"""
from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests" / "e2e"))

from claude_code import ClaudeUser, install  # noqa: E402
from mock_messages_api import MockMessagesAPI, tool_use  # noqa: E402
from world import OWN_MARK, hook_timings  # noqa: E402


def run_install(user: ClaudeUser) -> float:
    started = time.perf_counter()
    done = subprocess.run(["bash", str(REPO / "install.sh"), "--vault", str(user.vault), "--no-import", "--yes"],
                          capture_output=True, text=True, env=user.environ(), cwd=str(user.home), timeout=900,
                          stdin=subprocess.DEVNULL)
    if done.returncode != 0:
        raise SystemExit(f"install.sh failed (exit {done.returncode}):\n{done.stdout}\n{done.stderr}")
    return time.perf_counter() - started


def wrap_our_hooks(user: ClaudeUser, timing_log: Path) -> int:
    """Put `sh` timestamps around each installed hook command of ours; returns how many were wrapped."""
    settings = user.settings()
    wrapped = 0
    for event, groups in settings.get("hooks", {}).items():
        for group in groups:
            for handler in group.get("hooks", []):
                command = handler.get("command", "")
                if OWN_MARK not in command.replace("\\", "/"):
                    continue
                handler["command"] = (f"t0=$(date +%s%N); {command}; rc=$?; "
                                      f"echo \"{event} $t0 $(date +%s%N) $rc\" >> '{timing_log}'; exit $rc")
                wrapped += 1
    user.settings_path.write_text(json.dumps(settings, indent=2) + "\n", encoding="utf-8")
    return wrapped


def timed_session(user: ClaudeUser, api: MockMessagesAPI, prompt: str, steps, *args: str, debug: Path | None = None):
    api.script(steps)
    extra = ("--debug-file", str(debug)) if debug else ()
    result = user.run(prompt, api.base_url, *args, *extra)
    if not result.ok:
        raise SystemExit(f"claude -p {prompt!r} failed: {result.describe()}")
    return result


def bare_python_ms(python: str, repeat: int = 10) -> float:
    """`python -c pass` timed by the same `sh` + `date` wrapper as the hooks, for a fair ratio."""
    times = []
    for _ in range(repeat):
        script = f't0=$(date +%s%N); "{python}" -c pass; echo "$t0 $(date +%s%N)"'
        start, end = subprocess.run(["sh", "-c", script], check=True, capture_output=True, text=True).stdout.split()
        times.append((int(end) - int(start)) / 1e6)
    return statistics.median(times)


def standalone_session_start_ms(user: ClaudeUser, python: str, repeat: int = 10) -> float:
    """The SessionStart hook fed a startup payload for the same repository, outside the client."""
    launcher = user.config_dir / "obsidian-memory" / "bin" / "obsidian_memory.py"
    payload = json.dumps({"session_id": "00000000-0000-4000-8000-000000000000", "cwd": str(user.repo),
                          "hook_event_name": "SessionStart", "source": "startup",
                          "transcript_path": str(user.config_dir / "projects" / "none.jsonl")})
    script = f't0=$(date +%s%N); "{python}" "{launcher}" hook session-start >/dev/null; echo "$t0 $(date +%s%N)"'
    times = []
    for _ in range(repeat):
        out = subprocess.run(["sh", "-c", script], input=payload, capture_output=True, text=True,
                             env=user.environ(), check=True).stdout.split()
        times.append((int(out[1]) - int(out[0])) / 1e6)
    return statistics.median(times)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--version", default="2.1.332")
    parser.add_argument("--sessions", type=int, default=3, help="short sessions before and after install")
    args = parser.parse_args(argv)
    binary = install(args.version)
    with tempfile.TemporaryDirectory(prefix="om-e2e-bench-") as tmp, MockMessagesAPI() as api:
        user = ClaudeUser(Path(tmp), binary, args.version)
        before = [timed_session(user, api, "Say OK.", ["OK."]).seconds for _ in range(args.sessions)]
        install_seconds = run_install(user)
        timing_log = user.root / "hook-times.txt"
        wrapped = wrap_our_hooks(user, timing_log)
        debug_files = []

        def session(prompt, steps, *extra):
            debug_files.append(user.root / f"debug-{len(debug_files)}.txt")
            return timed_session(user, api, prompt, steps, *extra, debug=debug_files[-1])

        target = user.repo / "bench.py"
        first = session("Write bench.py", [
            tool_use("Bash", {"command": "ls", "description": "list"}),
            tool_use("Write", {"file_path": str(target), "content": "print('bench')\n"}),
            "Wrote bench.py."], "-n", "benchmark session", "--allowedTools", "Bash Write")
        after = [session("Say OK.", ["OK."]).seconds for _ in range(args.sessions)]
        session("/compact", [], "--resume", first.session_id)
        venv_python = str(user.config_dir / "obsidian-memory" / "venv" / "bin" / "python")

        print(f"Claude Code {args.version}: install.sh {install_seconds:.1f} s; {wrapped} hook commands of ours wrapped")
        bare = bare_python_ms(venv_python)
        alone = standalone_session_start_ms(user, venv_python)
        print(f"bare `python -c pass` of the hooks' interpreter, same wrapper: {bare:.0f} ms median")
        print(f"`hook session-start` run alone (not by the client), same wrapper: {alone:.0f} ms median "
              f"({alone / bare:.1f}x bare)\n")
        print_hook_table(timing_log, debug_files, bare)
    med_before, med_after = statistics.median(before), statistics.median(after)
    print(f"\nclaude -p 'Say OK.' session: {med_before:.2f} s without, {med_after:.2f} s with obsidian-memory "
          f"(median of {args.sessions}); ratio {med_after / med_before:.2f}")
    return 0


def print_hook_table(timing_log: Path, debug_files: list[Path], bare_ms: float) -> None:
    wall: dict[str, list[float]] = {}
    for line in timing_log.read_text().splitlines() if timing_log.exists() else []:
        event, start, end, status = line.split()
        wall.setdefault(event, []).append((int(end) - int(start)) / 1e6)
    logged: dict[str, list[int]] = {}
    for debug in debug_files:
        text = debug.read_text(encoding="utf-8", errors="replace") if debug.exists() else ""
        for run in hook_timings(text):
            if OWN_MARK in run["command"].replace("\\", "/") and run["ms"] is not None:
                logged.setdefault(run["event"], []).append(run["ms"])
    print(f"{'hook event':<14} {'runs':>4} {'median ms':>10} {'max ms':>8} {'x bare':>7}   client-logged median ms")
    for event in sorted(wall):
        times = wall[event]
        client = f"{statistics.median(logged[event]):.0f}" if logged.get(event) else "not logged"
        median = statistics.median(times)
        print(f"{event:<14} {len(times):>4} {median:>10.0f} {max(times):>8.0f} {median / bare_ms:>7.1f}   {client}")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
