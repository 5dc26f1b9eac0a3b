#!/usr/bin/env python3
"""Make the forty near-duplicate sessions with the real Claude Code client, offline.

usage: python benchmarks/session_families/make_sessions.py [--out DIR] [--version 2.1.332]

One person's machine in DIR (default: the cache folder `machine_dir()`, reused when complete):
a HOME with the pinned client (tests/e2e/claude_code.py), obsidian-memory installed by
`./install.sh --vault DIR/vault --no-import --yes` (the hooks as users get them), eight git
repositories with their `origin` remotes under ~/work, and stand-ins on PATH for the tools this
machine lacks (kubectl, psql, ssh, ...: each prints what `specs.py` says it printed). Each session
of specs.py runs as one `claude -p` in its repository, in a seeded shuffled order, against the
scripted model server (tests/e2e/mock_messages_api.py): its Bash, Read and Edit calls run for real
(greps, file edits, git commits); a family's session is then resumed for a follow-up prompt
(`specs.follow_up`: two siblings' causes asked about and ruled out). Our hooks archive each run
and write its note into the vault. `manifest.json` maps each session key to its session id,
repository and note. ~5 minutes.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import shutil
import stat
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
sys.path[:0] = [str(HERE), str(REPO / "tests" / "e2e")]

import specs  # noqa: E402
from claude_code import install  # noqa: E402
from world import World  # noqa: E402

VERSION = "2.1.332"
ORDER_SEED = 4404
TOOLS = "Bash Read Edit Write"
GIT_IDENTITY = {"GIT_AUTHOR_NAME": "Dana Developer", "GIT_AUTHOR_EMAIL": "dana@acme.example",
                "GIT_COMMITTER_NAME": "Dana Developer", "GIT_COMMITTER_EMAIL": "dana@acme.example"}
STUB = """#!{python}
# A stand-in for a tool this machine lacks: prints what the session's spec says it printed.
import json, os, sys
args = " ".join(sys.argv[1:])
table = json.load(open({table!r}, encoding="utf-8")).get(os.path.basename(sys.argv[0]), [])
for needle, output, status in table:
    if needle in args:
        print(output)
        sys.exit(status)
"""


def machine_dir(version: str = VERSION) -> Path:
    """The cache folder of the machine made from this version of the specs and the generator."""
    digest = hashlib.sha256()
    for source in (HERE / "specs.py", Path(__file__)):
        digest.update(source.read_bytes())
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "obsidian-memory-bench" / f"session-families-{version}-{digest.hexdigest()[:12]}"


def make_repos(world: World) -> dict[str, Path]:
    out = {}
    env = world.environ(**GIT_IDENTITY)
    for name, remote in specs.REMOTES.items():
        folder = world.user.home / "work" / name
        folder.mkdir(parents=True, exist_ok=True)
        git = ["git", "-C", str(folder)]
        subprocess.run([*git, "init", "-q", "-b", "main"], check=True, env=env)
        subprocess.run([*git, "remote", "add", "origin", remote], check=True, env=env)
        (folder / "README.md").write_text(f"# {name}\n", encoding="utf-8")
        subprocess.run([*git, "add", "README.md"], check=True, env=env)
        subprocess.run([*git, "commit", "-q", "-m", "initial commit"], check=True, env=env)
        out[name] = folder
    return out


def make_stubs(root: Path) -> tuple[Path, Path]:
    """(the stand-ins' folder, their table): one stand-in per tool name any spec stubs."""
    folder, table = root / "stubs", root / "stub-table.json"
    folder.mkdir(exist_ok=True)
    table.write_text("{}", encoding="utf-8")
    for name in sorted({tool for spec in specs.SPECS for tool in spec.stubs}):
        path = folder / name
        path.write_text(STUB.format(python=sys.executable, table=str(table)), encoding="utf-8")
        path.chmod(path.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return folder, table


def prepare(spec: specs.Spec, repo: Path, world: World) -> None:
    """The repository as it stood before the session: the spec's files, committed."""
    for relative, text in spec.files.items():
        path = repo / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        if text.startswith("#!"):
            path.chmod(path.stat().st_mode | stat.S_IXUSR)
    if spec.files:
        env = world.environ(**GIT_IDENTITY)
        subprocess.run(["git", "-C", str(repo), "add", *spec.files], check=True, env=env)
        subprocess.run(["git", "-C", str(repo), "commit", "-q", "-m", f"wip: {', '.join(sorted(spec.files))}"],
                       check=True, env=env)


def resolved(steps: list, repo: Path) -> list:
    """The steps with `@/` paths made absolute in `repo`."""
    def fix(block):
        if isinstance(block, list):
            return [fix(b) for b in block]
        if isinstance(block, dict) and block.get("type") == "tool_use":
            data = dict(block["input"])
            if str(data.get("file_path", "")).startswith("@/"):
                data["file_path"] = str(repo / data["file_path"][2:])
            return {**block, "input": data}
        return block
    return [fix(step) for step in steps]


def run_all(root: Path, version: str) -> dict:
    binary = install(version)
    world = World(root, binary, version)
    try:
        world.ensure_installed()
        repos = make_repos(world)
        stubs, table = make_stubs(root)
        os.environ["PATH"] = f"{stubs}{os.pathsep}{os.environ.get('PATH', '')}"
        os.environ.update(GIT_IDENTITY)
        order = list(specs.SPECS)
        rng = random.Random(ORDER_SEED)
        rng.shuffle(order)
        manifest = {}
        for n, spec in enumerate(order, 1):
            repo = repos[spec.repo]
            prepare(spec, repo, world)
            table.write_text(json.dumps(spec.stubs), encoding="utf-8")
            world.api.title = spec.title
            run = world.session(spec.prompt, resolved(spec.steps, repo), "--allowedTools", TOOLS, cwd=repo)
            if not run.result.ok:
                raise SystemExit(f"{spec.key}: claude -p failed: {run.describe()}")
            if spec.key in specs.RECAP:
                prompt, answer = specs.follow_up(spec, rng)
                again = world.session(prompt, [answer], "--resume", run.session_id, "--allowedTools", TOOLS, cwd=repo)
                if not again.result.ok:
                    raise SystemExit(f"{spec.key}: the follow-up failed: {again.describe()}")
            notes = world.wait_for_note(run.session_id, seconds=30)
            if len(notes) != 1:
                raise SystemExit(f"{spec.key}: expected one note, found {notes}\n{world.evidence()}")
            denied = run.result.permission_denials
            manifest[spec.key] = {"session_id": run.session_id, "repo": spec.repo, "cwd": str(repo),
                                  "note": str(notes[0].relative_to(world.user.vault)), "denials": len(denied)}
            print(f"[{n:>2}/{len(order)}] {spec.key} {spec.repo:<15} {run.result.seconds:5.1f} s  "
                  f"{notes[0].name}" + (f"  ({len(denied)} denied)" if denied else ""), flush=True)
        return manifest
    finally:
        world.close()


def ensure_machine(out: Path | None = None, version: str = VERSION) -> Path:
    """The machine's folder, made when it has no manifest yet (written last: a half-made one is
    made again). It is made in place: the transcripts and notes name its folders."""
    root = out or machine_dir(version)
    if (root / "manifest.json").exists():
        return root
    if root.exists():
        shutil.rmtree(root)
    root.mkdir(parents=True)
    manifest = run_all(root, version)
    (root / "manifest.json").write_text(json.dumps(manifest, indent=1) + "\n", encoding="utf-8")
    return root


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, help="make the machine here (default: the cache folder)")
    parser.add_argument("--version", default=VERSION)
    args = parser.parse_args(argv)
    print(ensure_machine(args.out, args.version))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
