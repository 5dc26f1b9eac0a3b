"""The one way we start ourselves in the background, and the command line of one of our subcommands.

`start(argv)` starts a detached child at a lower priority: its own session (POSIX) or a detached
process group (Windows), stdin and stdout on the null device, stderr on the null device or
appended to a log, and none of the caller's descriptors (a hook's stdout pipe held open would make
Claude Code wait for the child). The caller does not wait for it.

`command("sweep", ...)` runs our CLI with the current interpreter and this package's `__main__.py`
by path: neither `-m` nor `-c`, which put the current folder (a user's repository, which may hold
modules named like ours or the standard library's) first on sys.path.

Import-light, standard library only and Python 3.8-compatible: the SessionStart hook starts the
sweep through it (on macOS and Linux with os.posix_spawn, not subprocess), and so does the plugin's
hook launcher, run by whatever python3 is on PATH.
"""
from __future__ import annotations

import os
import sys

MAIN = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "__main__.py")
NICENESS = 10
# Windows process creation flags (subprocess has them only on Windows)
DETACHED_PROCESS = 0x00000008
CREATE_NEW_PROCESS_GROUP = 0x00000200
BELOW_NORMAL_PRIORITY_CLASS = 0x00004000
CREATE_BREAKAWAY_FROM_JOB = 0x01000000


def command(*args: str, python: str | None = None) -> list:
    """The command line running `obsidian_memory.py <args>` with `python` (default: this one)."""
    return [python or sys.executable, MAIN, *args]


def start(argv: list, *, stdin_bytes: bytes | None = None, log_path: str | None = None) -> int:
    """Start `argv` detached and return its pid without waiting. `stdin_bytes` is what it reads
    on stdin (else the null device); `log_path` gets its stderr appended (else the null device)."""
    if log_path:
        os.makedirs(os.path.dirname(os.path.abspath(log_path)), exist_ok=True)
    stdin = _stdin_file(stdin_bytes) if stdin_bytes is not None else None
    try:
        if os.name != "nt" and hasattr(os, "posix_spawn"):
            try:
                return _start_posix(argv, stdin, log_path)
            except NotImplementedError:  # pragma: no cover - a posix_spawn without setsid
                pass
        return _start_with_subprocess(argv, stdin, log_path)
    finally:
        if stdin is not None:
            stdin.close()


def _stdin_file(data: bytes):
    import tempfile

    handle = tempfile.TemporaryFile()   # gone once the child and we have closed it
    handle.write(data)
    handle.flush()
    handle.seek(0)
    return handle


def _start_posix(argv: list, stdin, log_path: str | None) -> int:
    actions = [
        (os.POSIX_SPAWN_DUP2, stdin.fileno(), 0) if stdin is not None
        else (os.POSIX_SPAWN_OPEN, 0, os.devnull, os.O_RDONLY, 0),
        (os.POSIX_SPAWN_OPEN, 1, os.devnull, os.O_WRONLY, 0),
        (os.POSIX_SPAWN_OPEN, 2, log_path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600) if log_path
        else (os.POSIX_SPAWN_OPEN, 2, os.devnull, os.O_WRONLY, 0),
    ]
    actions += [(os.POSIX_SPAWN_CLOSE, fd) for fd in _inherited_descriptors()]
    pid = os.posix_spawn(argv[0], list(argv), dict(os.environ), file_actions=actions, setsid=True)
    _lower_priority(pid)
    return pid


def _inherited_descriptors() -> list:
    """Descriptors above stderr that a child would inherit (Python's own are not inheritable;
    these came from whoever started us)."""
    folder = "/proc/self/fd" if os.path.isdir("/proc/self/fd") else "/dev/fd"
    try:
        names = os.listdir(folder)
    except OSError:
        return []
    found = []
    for name in names:
        if not name.isdigit() or int(name) <= 2:
            continue
        try:
            if os.get_inheritable(int(name)):
                found.append(int(name))
        except OSError:
            continue   # (the listing's own descriptor, closed by now)
    return found


def _lower_priority(pid: int) -> None:
    try:
        own = os.getpriority(os.PRIO_PROCESS, 0)
        os.setpriority(os.PRIO_PROCESS, pid, min(19, own + NICENESS))
    except (AttributeError, OSError):
        pass   # the child may already be gone; a background job at normal priority is no failure


def _start_with_subprocess(argv: list, stdin, log_path: str | None) -> int:
    import subprocess

    stderr = open(log_path, "ab") if log_path else subprocess.DEVNULL
    try:
        options = dict(stdin=stdin if stdin is not None else subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                       stderr=stderr, close_fds=True)
        if os.name != "nt":  # pragma: no cover - POSIX without posix_spawn
            process = subprocess.Popen(argv, start_new_session=True, **options)
            _lower_priority(process.pid)
            return process.pid
        flags = DETACHED_PROCESS | CREATE_NEW_PROCESS_GROUP | BELOW_NORMAL_PRIORITY_CLASS  # pragma: no cover
        home = os.path.expanduser("~")   # not the caller's folder: Windows keeps a process's folder from deletion
        try:  # pragma: no cover - Windows: out of Claude Code's job, so that closing it does not end us
            return subprocess.Popen(argv, creationflags=flags | CREATE_BREAKAWAY_FROM_JOB, cwd=home, **options).pid
        except OSError:  # pragma: no cover - a job that allows no breakaway
            return subprocess.Popen(argv, creationflags=flags, cwd=home, **options).pid
    finally:
        if log_path:
            stderr.close()
