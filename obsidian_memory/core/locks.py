"""The one file lock: every writer that must run alone (a vault note, the sweep, the memory notes,
the index update) takes a `FileLock` on a file outside the vault.

Three ways to hold it, chosen once per platform:
- `flock`: fcntl.flock (macOS, Linux, BSD);
- `msvcrt`: msvcrt.locking on the file's first byte (Windows);
- `portable`: the lock file itself, made by exclusive create and removed on release (anywhere).
The first two are the kernel's: they die with their process, so a killed writer never leaves a
lock behind. The portable one records pid, host and time in the file; a lock whose process is gone
(same host) or that is older than `stale_after` is taken over. Tests force it on Linux, so the
code a platform without the kernel locks runs is the code the suite runs.

Import-light: no subprocess, socket or platform module.
"""
from __future__ import annotations

import os
import time

from obsidian_memory.core.fsutil import unlink_quietly

POLL_SECONDS = 0.02
STALE_SECONDS = 3600.0     # a portable lock this old is stale even if its pid is alive (pid reused)
NEW_FILE_GRACE = 5.0       # a portable lock file still empty after this long: its maker died mid-write


class LockBusy(OSError):
    """Another process holds the lock (for longer than the caller waits)."""


def default_kind() -> str:
    try:
        import fcntl  # noqa: F401
        return "flock"
    except ImportError:
        pass
    try:
        import msvcrt  # noqa: F401
        return "msvcrt"
    except ImportError:
        return "portable"


class FileLock:
    """`with FileLock(path, timeout=10):` holds the lock or raises LockBusy after `timeout`
    seconds (0: at once). `waited` tells whether another process held it first (so what the
    caller read before may be stale)."""

    def __init__(self, path: str, *, timeout: float = 0.0, kind: str | None = None,
                 stale_after: float = STALE_SECONDS):
        self.path = path
        self.timeout = timeout
        self.waited = False
        self._held = _KINDS[kind or default_kind()](path, stale_after)

    def acquire(self) -> "FileLock":
        os.makedirs(os.path.dirname(os.path.abspath(self.path)), exist_ok=True)
        deadline = time.monotonic() + self.timeout
        while not self._held.try_acquire():
            self.waited = True
            if time.monotonic() >= deadline:
                self._held.give_up()
                raise LockBusy(f"{self.path} is held by another process")
            time.sleep(POLL_SECONDS)
        return self

    def release(self) -> None:
        self._held.release()

    def __enter__(self) -> "FileLock":
        return self.acquire()

    def __exit__(self, *exc) -> None:
        self.release()


# -- the kernel's locks ------------------------------------------------------------------------

class _KernelLock:
    """A lock held on an open descriptor of the lock file; the file itself stays."""

    def __init__(self, path: str, stale_after: float):
        self.path = path
        self.fd: int | None = None

    def try_acquire(self) -> bool:
        if self.fd is None:
            self.fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            self._lock(self.fd)
        except OSError as exc:
            if not _contended(exc):
                self.give_up()
                raise
            return False
        return True

    def release(self) -> None:
        if self.fd is None:
            return
        try:
            self._unlock(self.fd)
        except OSError:
            pass
        self.give_up()

    def give_up(self) -> None:
        if self.fd is not None:
            os.close(self.fd)   # closing drops whatever lock the descriptor held
            self.fd = None

    def _lock(self, fd: int) -> None:
        raise NotImplementedError

    def _unlock(self, fd: int) -> None:
        raise NotImplementedError


def _contended(exc: OSError) -> bool:
    import errno
    return isinstance(exc, BlockingIOError) or exc.errno in (errno.EACCES, errno.EAGAIN, errno.EDEADLK)


class _Flock(_KernelLock):
    def _lock(self, fd: int) -> None:
        import fcntl
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)

    def _unlock(self, fd: int) -> None:
        import fcntl
        fcntl.flock(fd, fcntl.LOCK_UN)


class _Msvcrt(_KernelLock):
    """msvcrt.locking locks bytes from the current position: always the first byte (a lock past the
    end of an empty file is allowed). A held byte fails at once with EACCES/EDEADLOCK."""

    def _lock(self, fd: int) -> None:
        import msvcrt
        os.lseek(fd, 0, os.SEEK_SET)
        msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)

    def _unlock(self, fd: int) -> None:
        import msvcrt
        os.lseek(fd, 0, os.SEEK_SET)
        msvcrt.locking(fd, msvcrt.LK_UNLCK, 1)


# -- the portable lock file ----------------------------------------------------------------------

class _PortableLock:
    """The lock is the file: created with O_EXCL, holding `pid host time`, removed on release."""

    def __init__(self, path: str, stale_after: float):
        self.path = path
        self.stale_after = stale_after
        self.token: bytes | None = None

    def try_acquire(self) -> bool:
        for _ in range(2):   # once more right after taking over a stale lock
            token = f"{os.getpid()} {_host()} {time.time():.3f}\n".encode()
            try:
                fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
            except FileExistsError:
                seen = _read(self.path)
                if seen is None or not self._stale(seen):
                    return False
                _take_over(self.path, seen)
                continue
            try:
                os.write(fd, token)
            finally:
                os.close(fd)
            self.token = token
            return True
        return False

    def _stale(self, seen: bytes) -> bool:
        try:
            age = time.time() - os.stat(self.path).st_mtime
        except OSError:
            return False   # gone meanwhile: the next attempt creates it
        if age >= self.stale_after:
            return True
        pid, host = _owner(seen)
        if pid is None:
            return age >= NEW_FILE_GRACE
        from obsidian_memory.core.fsutil import process_alive
        return host == _host() and not process_alive(pid)

    def release(self) -> None:
        if self.token is not None and _read(self.path) == self.token:   # never another's lock
            unlink_quietly(self.path)
        self.token = None

    def give_up(self) -> None:
        pass


def _take_over(path: str, seen: bytes) -> None:
    """Remove the stale lock `seen`, unless it changed meanwhile. A second file, itself made by
    exclusive create, keeps two waiters from both judging the same lock stale and one of them
    removing the lock the other has just made."""
    breaker = path + ".break"
    try:
        fd = os.open(breaker, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
    except FileExistsError:
        try:
            if time.time() - os.stat(breaker).st_mtime >= NEW_FILE_GRACE:
                unlink_quietly(breaker)   # its maker died between two statements
        except OSError:
            pass
        return
    try:
        if _read(path) == seen:
            unlink_quietly(path)
    finally:
        os.close(fd)
        unlink_quietly(breaker)


def _owner(seen: bytes) -> tuple[int | None, str]:
    parts = seen.decode("utf-8", "replace").split()
    if len(parts) < 3 or not parts[0].isdigit():
        return None, ""
    return int(parts[0]), parts[1]


def _host() -> str:
    name = os.uname().nodename if hasattr(os, "uname") else os.environ.get("COMPUTERNAME", "")
    return "".join(name.split()) or "-"


def _read(path: str) -> bytes | None:
    try:
        with open(path, "rb") as handle:
            return handle.read(200)
    except OSError:
        return None




_KINDS = {"flock": _Flock, "msvcrt": _Msvcrt, "portable": _PortableLock}
