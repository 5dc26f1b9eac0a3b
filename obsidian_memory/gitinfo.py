"""Which git repository a folder belongs to, without running git (the SessionStart path).

`toplevel` is the working tree that holds the folder (a linked worktree is its own toplevel);
`repo_root` is the main working tree of the repository, shared by all its worktrees, so that
sessions in subfolders and worktrees of one repository are recognised as the same repository.
"""
from __future__ import annotations

import os


def find_repo(cwd: str | None) -> tuple[str | None, str | None]:
    """(toplevel, repo_root) for `cwd`, or (None, None) outside a repository or if unknown."""
    if not cwd:
        return None, None
    folder = os.path.abspath(cwd)
    if not os.path.isdir(folder):
        return None, None  # a folder from another machine: its parents here prove nothing
    while True:
        dotgit = os.path.join(folder, ".git")
        if os.path.isdir(dotgit):
            return folder, folder
        if os.path.isfile(dotgit):
            return folder, _main_worktree(folder, dotgit)
        parent = os.path.dirname(folder)
        if parent == folder:
            return None, None
        folder = parent


def _main_worktree(toplevel: str, dotgit_file: str) -> str:
    """A `.git` file says `gitdir: <main>/.git/worktrees/<name>`; the main tree is <main>."""
    try:
        with open(dotgit_file, encoding="utf-8", errors="replace") as handle:
            line = handle.readline().strip()
    except OSError:
        return toplevel
    if not line.startswith("gitdir:"):
        return toplevel
    gitdir = line[len("gitdir:"):].strip()
    if not os.path.isabs(gitdir):
        gitdir = os.path.normpath(os.path.join(toplevel, gitdir))
    commondir_file = os.path.join(gitdir, "commondir")
    common = None
    try:
        with open(commondir_file, encoding="utf-8", errors="replace") as handle:
            common = handle.readline().strip()
        if common and not os.path.isabs(common):
            common = os.path.normpath(os.path.join(gitdir, common))
    except OSError:
        parts = os.path.normpath(gitdir).split(os.sep)
        if "worktrees" in parts:
            common = os.sep.join(parts[: len(parts) - 1 - parts[::-1].index("worktrees")])
    if common and os.path.basename(common) == ".git":
        return os.path.dirname(common)
    return toplevel  # a submodule or bare layout: treat the toplevel as the repository

