"""Which git repository a folder belongs to, without running git (the SessionStart path).

`toplevel` is the working tree that holds the folder (a linked worktree is its own toplevel);
`repo_root` is the main working tree of the repository, shared by all its worktrees, so that
sessions in subfolders and worktrees of one repository are recognised as the same repository.

`repo_identity` names a repository the same way on every machine, whatever folder its clone is
in: the normalized URL of its `origin` remote (`github.com/o/r` for `git@github.com:o/r.git`,
`https://user:token@github.com/o/r`, `ssh://git@github.com:22/o/r/`), read from the repository's
config file; else (no remote) its root commit (`git:<sha>`, which needs git: only capture
runs it, SessionStart asks the archive what it found); else its folder name (`name:<folder>`).
"""
from __future__ import annotations

import os

ROOT_COMMIT_TIMEOUT = 3.0     # seconds `git rev-list` may take for a repository without a remote


def find_repo(cwd: str | None) -> tuple[str | None, str | None]:
    """(toplevel, repo_root) for `cwd`, or (None, None) outside a repository or if unknown."""
    found = _find_git(cwd)
    if found is None:
        return None, None
    toplevel, common_dir = found
    if common_dir and os.path.basename(common_dir) == ".git":
        return toplevel, os.path.dirname(common_dir)
    return toplevel, toplevel  # a submodule or bare layout: treat the toplevel as the repository


def _find_git(cwd: str | None) -> tuple[str, str | None] | None:
    """(toplevel, the repository's common git folder, or None when a `.git` file cannot be read)."""
    if not cwd:
        return None
    folder = os.path.abspath(cwd)
    if not os.path.isdir(folder):
        return None  # a folder from another machine: its parents here prove nothing
    while True:
        dotgit = os.path.join(folder, ".git")
        if os.path.isdir(dotgit):
            return folder, dotgit
        if os.path.isfile(dotgit):
            return folder, _common_dir(folder, dotgit)
        parent = os.path.dirname(folder)
        if parent == folder:
            return None
        folder = parent


def _common_dir(toplevel: str, dotgit_file: str) -> str | None:
    """A `.git` file says `gitdir: <main>/.git/worktrees/<name>` (a worktree: its `commondir` file
    names the shared folder) or `gitdir: <super>/.git/modules/<name>` (a submodule: the gitdir is
    its own)."""
    try:
        with open(dotgit_file, encoding="utf-8", errors="replace") as handle:
            line = handle.readline().strip()
    except OSError:
        return None
    if not line.startswith("gitdir:"):
        return None
    gitdir = line[len("gitdir:"):].strip()
    if not os.path.isabs(gitdir):
        gitdir = os.path.normpath(os.path.join(toplevel, gitdir))
    try:
        with open(os.path.join(gitdir, "commondir"), encoding="utf-8", errors="replace") as handle:
            common = handle.readline().strip()
        if common and not os.path.isabs(common):
            common = os.path.normpath(os.path.join(gitdir, common))
        return common or gitdir
    except OSError:
        parts = os.path.normpath(gitdir).split(os.sep)
        if "worktrees" in parts:
            return os.sep.join(parts[: len(parts) - 1 - parts[::-1].index("worktrees")])
        return gitdir


# -- the repository's identity across machines -------------------------------------------------

def remote_identity(cwd: str | None) -> str | None:
    """The normalized URL of the `origin` remote (else of the first remote) of the repository
    holding `cwd`, read from its config file; None outside a repository or without a remote that
    names a place other machines can reach. No git is run."""
    found = _find_git(cwd)
    if found is None or found[1] is None:
        return None
    remotes = remote_urls(os.path.join(found[1], "config"))
    for name in ["origin", *remotes]:
        for url in remotes.get(name, ()):
            identity = normalize_remote_url(url)
            if identity:
                return identity
    return None


def repo_identity(cwd: str | None, *, known=None, run_git: bool = False) -> str | None:
    """The repository's identity (see the module's docstring), or None outside a repository.
    `known(repo_root)` may say what was found for that repository before (the archive remembers
    it); `run_git` allows `git rev-list` for the root commit when there is no remote."""
    toplevel, repo_root = find_repo(cwd)
    if repo_root is None:
        return None
    identity = remote_identity(cwd)
    if identity:
        return identity
    earlier = known(repo_root) if known else None
    if earlier:
        return earlier
    commit = root_commit(toplevel) if run_git else None
    if commit:
        return f"git:{commit}"
    return f"name:{os.path.basename(os.path.normpath(repo_root)).lower()}"


def root_commit(toplevel: str) -> str | None:
    """The oldest root commit of HEAD's history (`git rev-list --max-parents=0 HEAD`), or None
    without git, commits or an answer within ROOT_COMMIT_TIMEOUT."""
    import subprocess

    try:
        done = subprocess.run(["git", "-C", toplevel, "rev-list", "--max-parents=0", "HEAD"],
                              capture_output=True, timeout=ROOT_COMMIT_TIMEOUT, stdin=subprocess.DEVNULL)
    except (OSError, subprocess.SubprocessError):
        return None
    lines = done.stdout.decode("ascii", errors="replace").split() if done.returncode == 0 else []
    commit = lines[-1].lower() if lines else ""
    return commit if len(commit) in (40, 64) and all(c in "0123456789abcdef" for c in commit) else None


def remote_urls(config_path: str) -> dict[str, list[str]]:
    """{remote name: its urls} from a git config file, in the order the file gives them."""
    try:
        with open(config_path, "rb") as handle:
            text = handle.read(1_000_000).decode("utf-8", errors="replace")
    except OSError:
        return {}
    remotes: dict[str, list[str]] = {}
    section = None
    for raw in text.splitlines():
        line = raw.strip()
        if line.startswith("["):
            section = _remote_section(line)
            line = line[line.find("]") + 1:].strip() if "]" in line else ""
            if not line:
                continue
        if section is None or "=" not in line:
            continue
        key, _, value = line.partition("=")
        if key.strip().lower() == "url":
            url = _config_value(value)
            if url:
                remotes.setdefault(section, []).append(url)
    return remotes


def _remote_section(line: str) -> str | None:
    """The remote's name of a `[remote "name"]` header, else None."""
    head = line[1:line.find("]")] if "]" in line else line[1:]
    kind, _, rest = head.strip().partition(" ")
    rest = rest.strip()
    if kind.lower() != "remote" or len(rest) < 2 or rest[0] != '"' or rest[-1] != '"':
        return None
    return rest[1:-1].replace('\\"', '"').replace("\\\\", "\\")


def _config_value(value: str) -> str:
    """A git config value: quotes joined, escapes read, a comment (`#`, `;` outside quotes) cut."""
    out, quoted, i = [], False, 0
    value = value.strip()
    while i < len(value):
        char = value[i]
        if char == "\\" and i + 1 < len(value):
            out.append({"n": "\n", "t": "\t", "b": "\b"}.get(value[i + 1], value[i + 1]))
            i += 2
            continue
        if char == '"':
            quoted = not quoted
        elif char in "#;" and not quoted:
            break
        else:
            out.append(char)
        i += 1
    return "".join(out).strip()


def normalize_remote_url(url: str) -> str | None:
    """`host/path` of a remote URL, the same for every spelling of one repository: scheme, user,
    password or token, port, a trailing `.git` or `/` dropped, lower case. `git@github.com:o/r.git`,
    `https://github.com/o/r`, `ssh://git@github.com/o/r` all give `github.com/o/r`. Azure DevOps'
    SSH and HTTPS forms give one name too. None for a local path (`/srv/r.git`, `file://`,
    `../r`, `C:\\r`): it names a different place on every machine."""
    text = (url or "").strip()
    if not text or any(ord(c) < 32 for c in text):
        return None
    scheme, sep, rest = text.partition("://")
    if sep and scheme and scheme[0].isalpha() and all(c.isalnum() or c in "+.-" for c in scheme):
        if scheme.lower() == "file":
            return None
        authority, slash, path = rest.partition("/")
        host = _host(authority.rpartition("@")[2], strip_port=True)
        path = path if slash else ""
    else:
        before, colon, after = text.partition(":")
        if not colon or "/" in before or "\\" in before:
            return None   # a local path
        host = _host(before.rpartition("@")[2], strip_port=False)
        if len(host) == 1:
            return None   # a Windows drive letter
        path = after
    if not host:
        return None
    path = _unquote(path.split("?", 1)[0].split("#", 1)[0]).replace("\\", "/")
    parts = [p for p in path.split("/") if p and p != "."]
    if parts and parts[-1].lower().endswith(".git"):
        parts[-1] = parts[-1][:-4]
    parts = [p for p in parts if p]
    if not parts:
        return None
    host, parts = _azure(host.lower(), [p.lower() for p in parts])
    return "/".join([host, *parts])


def _host(authority: str, *, strip_port: bool) -> str:
    host = authority.strip()
    if host.startswith("["):   # [ipv6]:port
        return host[: host.find("]") + 1] if "]" in host else ""
    if strip_port and ":" in host:
        host = host.split(":", 1)[0]
    return host.rstrip(".")


def _azure(host: str, parts: list[str]) -> tuple[str, list[str]]:
    """Azure DevOps: `git@ssh.dev.azure.com:v3/org/project/repo`, `https://org@dev.azure.com/org/
    project/_git/repo` and `https://org.visualstudio.com/project/_git/repo` are one repository."""
    if host in ("ssh.dev.azure.com", "vs-ssh.visualstudio.com") and parts[:1] == ["v3"] and len(parts) == 4:
        return "dev.azure.com", parts[1:]
    if host == "dev.azure.com" and len(parts) == 4 and parts[2] == "_git":
        return host, [parts[0], parts[1], parts[3]]
    if host.endswith(".visualstudio.com") and len(parts) >= 3 and parts[-2] == "_git":
        org = host[: -len(".visualstudio.com")]
        project = [p for p in parts[:-2] if p != "defaultcollection"]
        if len(project) == 1:
            return "dev.azure.com", [org, project[0], parts[-1]]
    return host, parts


def _unquote(text: str) -> str:
    """%XX escapes decoded (as UTF-8); anything that is not one is kept as it is."""
    if "%" not in text:
        return text
    out = bytearray()
    i = 0
    raw = text.encode("utf-8")
    while i < len(raw):
        if raw[i:i + 1] == b"%" and i + 2 < len(raw) and _is_hex(raw[i + 1:i + 3]):
            out.append(int(raw[i + 1:i + 3], 16))
            i += 3
        else:
            out.append(raw[i])
            i += 1
    return out.decode("utf-8", errors="replace")


def _is_hex(pair: bytes) -> bool:
    return len(pair) == 2 and all(c in b"0123456789abcdefABCDEF" for c in pair)
