"""Which sessions a listing covers: `--project PATTERN` and `--machine PATTERN` / `--this-machine`."""
from __future__ import annotations

import sqlite3

from obsidian_memory.archive.rows import basename
from obsidian_memory.core.errors import UserError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from obsidian_memory.core.settings import Settings

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


class MachineScope:
    """Which machines' sessions a listing covers: those whose id or readable name matches
    `pattern` (a glob), or with `this_machine` this installation's own (`current` is its id)."""

    def __init__(self, *, pattern: str | None = None, this_machine: bool = False, current: str | None = None):
        self.pattern, self.this_machine, self.current = pattern, this_machine, current

    @classmethod
    def of(cls, settings: Settings, *, machine: str | None = None, this_machine: bool = False) -> "MachineScope | None":
        """The scope of `--machine PATTERN` / `--this-machine` (None: every machine)."""
        if machine is None and not this_machine:
            return None
        if machine is not None and this_machine:
            raise UserError("--machine and --this-machine exclude each other")
        if machine is not None and not machine.strip():
            raise UserError("--machine needs a machine id or name (`obsidian_memory.py doctor` lists them)")
        from obsidian_memory.core.machine import current
        return cls(pattern=machine, this_machine=this_machine, current=current(settings))

    def as_dict(self) -> dict[str, Any]:
        return {"pattern": self.pattern, "this_machine": self.this_machine, "current": self.current}

    def matches(self, machine: str | None) -> bool:
        from obsidian_memory.core.machine import matches
        return self.pattern is not None and matches(self.pattern, machine)


def project_matches(pattern: str, project: str | None, repo_root: str | None) -> bool:
    """`--project PATTERN`: the session's project, or its repository's name (the main working
    tree's folder, which its worktrees share), matches the glob, case aside; a plain name
    matches itself. So `spotter` finds the sessions of the spotter-gqc worktrees too."""
    import fnmatch

    wanted = pattern.strip().lower()
    names = [project or "", basename(repo_root) if repo_root else ""]
    return any(name and fnmatch.fnmatchcase(name.lower(), wanted) for name in names)


def project_scope(db: sqlite3.Connection, alias: str, pattern: str | None) -> tuple[list[str], list[Any]]:
    """SQL conditions for `--project PATTERN` (see project_matches), on indexed columns."""
    if pattern is None:
        return [], []
    projects, roots = set(), set()
    for project, repo_root in db.execute("SELECT DISTINCT project, repo_root FROM sessions"):
        if project_matches(pattern, project, None):
            projects.add(project)
        if project_matches(pattern, None, repo_root):
            roots.add(repo_root)
    if not projects and not roots:
        return ["0"], []
    conditions = [f"{alias}.{column} IN ({', '.join('?' for _ in values)})"
                  for column, values in (("project", projects), ("repo_root", roots)) if values]
    return [f"({' OR '.join(conditions)})"], [*sorted(projects), *sorted(roots)]


def machine_scope(db: sqlite3.Connection, alias: str, scope: MachineScope | None) -> tuple[list[str], list[Any]]:
    """SQL conditions for `--machine PATTERN` / `--this-machine` (see MachineScope)."""
    if scope is None:
        return [], []
    if scope.this_machine:
        if scope.current is None:
            return [f"{alias}.origin = 'transcript'"], []
        return [f"({alias}.origin = 'transcript' OR {alias}.machine = ?)"], [scope.current]
    ids = sorted(m for (m,) in db.execute("SELECT DISTINCT machine FROM sessions WHERE machine IS NOT NULL")
                 if scope.matches(m))
    conditions = [f"{alias}.machine IN ({', '.join('?' for _ in ids)})"] if ids else []
    if scope.matches(scope.current):   # this machine's sessions archived before it had an id
        conditions.append(f"({alias}.origin = 'transcript' AND {alias}.machine IS NULL)")
    return [f"({' OR '.join(conditions) or '0'})"], ids
