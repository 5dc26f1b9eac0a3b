"""A developer's machine holding the judged set's sessions, archived the real way.

`build(root)` makes, under `root`: a HOME whose `.claude/projects/` holds one transcript per session
(recall_corpus.py and recall_filler.py, written by recall_transcripts.py), real git repositories under `work/` (the
capture finds a session's repository from its working directory), a vault, and then runs
`obsidian_memory.py import` as a subprocess: every session goes through the real parser, redaction,
archive and note writer.
"""
from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import recall_corpus as corpus
import recall_filler as filler
from recall_transcripts import Spec, write_transcript

REPO = Path(__file__).resolve().parents[2]
CLI = REPO / "scripts" / "obsidian_memory.py"


@dataclass
class World:
    root: Path
    env: dict            # the environment of a process on this machine
    specs: list[Spec]

    @property
    def home(self) -> Path:
        return self.root / "home"

    @property
    def config_dir(self) -> Path:
        return self.home / ".claude"

    @property
    def vault(self) -> Path:
        return self.root / "vault"

    def cwd(self, repo: str) -> str:
        """The working directory of a session in `repo` ("" = the home folder)."""
        return str(self.root / "work" / repo) if repo else str(self.home)

    def session_id(self, key: str) -> str:
        return next(spec.session_id for spec in self.specs if spec.key == key)

    def run(self, *args: str, stdin: bytes | None = None, cwd: str | None = None) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, str(CLI), *args], input=stdin, capture_output=True, env=self.env,
                              cwd=cwd or str(self.root))


def environment(root: Path) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CLAUDE", "OBSIDIAN", "OMNISEARCH"))}
    env.update(HOME=str(root / "home"), CLAUDE_CONFIG_DIR=str(root / "home" / ".claude"),
               OBSIDIAN_VAULT=str(root / "vault"), OMNISEARCH_PORT="9", TZ="UTC")
    return env


def make_repository(path: Path) -> None:
    path.mkdir(parents=True, exist_ok=True)
    if subprocess.run(["git", "init", "-q", str(path)], capture_output=True).returncode != 0:
        (path / ".git").mkdir(exist_ok=True)   # what capture looks for


def build(root: Path, *, fillers: int = 150, import_sessions: bool = True, judged=None) -> World:
    """The machine with the `judged` sessions (default: all of recall_corpus) and `fillers`
    everyday ones."""
    specs = list(corpus.SESSIONS if judged is None else judged) + filler.filler_specs(fillers)
    world = World(Path(root), environment(Path(root)), specs)
    for folder in (world.config_dir, world.vault):
        folder.mkdir(parents=True, exist_ok=True)
    for repo in sorted({spec.repo for spec in specs if spec.repo}):
        make_repository(root / "work" / repo)
    projects = world.config_dir / "projects"
    for spec in specs:
        write_transcript(spec, world.cwd(spec.repo), projects)
    if import_sessions:
        done = world.run("import")
        if done.returncode != 0:
            raise RuntimeError(f"import failed: {done.stdout.decode()} {done.stderr.decode()}")
    return world
