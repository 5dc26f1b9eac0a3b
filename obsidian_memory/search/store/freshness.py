"""One freshness check for the requests that arrive together, in a long-running process.

A search brings the index up to date before it reads (`VaultIndex.open_fresh`): a walk of the
vault, one stat per note. A one-shot CLI process does that once. The HTTP MCP server answers many
clients from one process, and twenty requests arriving together would walk the vault twenty
times for the same answer. A `Gate` per index file lets a request skip its own check when a
check that *started after the request arrived* has completed: that check saw every change made
before the request, so the request loses nothing. Requests waiting behind a running check
that started before them run one more check together (at most two walks for a burst).

Arrival and starts are counted, not timed (clocks may tick coarsely): `ticket()` at arrival is
the number of checks started so far; a completed check numbered above it covers the request.

A process that lives long (the HTTP MCP server) also `watch`es the vault: then a request that
finds nothing changed since the last complete check, on the same index file and settings, skips
the walk altogether (`watch.VaultWatch` says why that is safe, and where there is no watch).

A one-shot search (the CLI) runs its check `Beside` its reads instead of before them
(`VaultIndex.open_checking`): in a child process where it can fork, so that the walk and the
query each have a core and neither waits for the interpreter's lock.
"""
from __future__ import annotations

import os
import sys
import threading
import time


class Gate:
    def __init__(self):
        self._lock = threading.Lock()
        self._started = 0       # checks started so far (each one's number)
        self._covered = 0       # the number of the latest check that completed
        self._watch = None          # a watch.VaultWatch once `watch` found one
        self._quiet_basis = None    # the basis of the last complete check the watch vouches for since

    def watch(self, vault: str) -> str | None:
        """From now on, skip checks while the watch hears of no change. None: watching; else
        why there is no watch (then every request checks, as before)."""
        from obsidian_memory.search.store.watch import VaultWatch   # (ctypes: only a process that watches)

        with self._lock:
            if self._watch is not None and not self._watch.broken:
                return None
            self._watch, why = VaultWatch.start(vault)
            return why

    def ticket(self) -> int:
        """Take at arrival, before anything is read."""
        return self._started

    def run(self, ticket: int, check, wait: float, basis=None) -> None:
        """`check()` unless a check that started after `ticket` completed, or the watch heard of
        no change since a complete check made on the same `basis` (the index file and the settings
        the check depends on). `check` returns whether it completed (False: it gave up, e.g.
        another process held the index). A check that runs longer than `wait` seconds is not
        waited for: the caller reads as is."""
        if not self._lock.acquire(timeout=wait):
            return
        try:
            if self._covered > ticket:
                return
            watched = self._watch is not None and not self._watch.broken
            if watched and not self._watch.changed() and basis is not None and basis == self._quiet_basis:
                return
            self._quiet_basis = None
            self._started += 1
            number = self._started
            if check():
                self._covered = number
                if watched and not self._watch.broken:   # (read before the check: what it missed, the next hears)
                    self._quiet_basis = basis
        finally:
            self._lock.release()


_gates: dict[str, Gate] = {}
_gates_lock = threading.Lock()


def gate(index_path: str) -> Gate:
    """The gate of one index file in this process (one per vault)."""
    with _gates_lock:
        return _gates.setdefault(index_path, Gate())


class Beside:
    """A walk of the vault beside the reads, started now (after the request arrived, so that it
    sees every change made before), with the fingerprint it must match for the reads made
    meanwhile to count (`expected`); `known`: the state of an earlier walk (`walk`), so that the
    folders need no listing while none changed.

    Where the process can fork (Linux) and has no other `threading` thread, the walk runs in a child
    process: a thread would take turns with the reads for the interpreter's lock at each of its
    stats and each row they fetch, and on two free cores that hand-over cost more CPU than the
    walk itself saved a search's time (at 20,000 notes ~20 ms, 1,200 context switches). The
    child answers with one byte when it found the vault as expected without listing a folder,
    else with its whole walk (`marshal`). Elsewhere a thread walks; when the child fails, or
    gives no answer within CHILD_WAIT (a search's semantic model embeds the query in a `_thread`
    of C code, which the fork does not wait for), the caller walks itself."""

    def __init__(self, settings, expected: str, known: str | None = None):
        from obsidian_memory.vault.privacy import Privacy

        self.expected = expected
        self._found = self._fingerprint = self._error = None
        self._args = (settings.vault, tuple(settings.index_ignore or ()), Privacy.of(settings), known)
        self._child = self._thread = None
        if _may_fork():
            self._child = _start_child(self._args, expected)
        if self._child is None:
            self._thread = threading.Thread(target=self._walk, daemon=True, name="vault walk")
            self._thread.start()

    def _walk(self) -> None:
        try:
            self._found = _walk(*self._args)
            self._fingerprint = self._found.fingerprint()
        except BaseException as exc:        # (raised in the caller's thread, by `walk`)
            self._error = exc

    def walk(self):
        """The walk (a `walk.Walk`) once it is done; None when it found the vault as expected
        and only checked the folders of the earlier walk's state (nothing new to keep)."""
        if self._child is not None:
            child, self._child = self._child, None
            answer = _child_answer(*child)
            if answer is _AS_EXPECTED:
                self._fingerprint = self.expected
            elif answer is not None:
                self._found, self._fingerprint = answer, answer.fingerprint()
            else:
                self._walk()
        if self._thread is not None:
            self._thread.join()
        if self._error is not None:
            raise self._error
        if self._found is not None and self._fingerprint == self.expected and not self._found.listed:
            return None
        return self._found

    def cancel(self) -> None:
        """The walk is not wanted after all: a child process walking is stopped and reaped (a
        thread is left to finish: it holds nothing)."""
        if self._child is not None:
            (pid, read_end), self._child = self._child, None
            os.close(read_end)
            _kill(pid)
            try:
                os.waitpid(pid, 0)
            except ChildProcessError:
                pass

    def unchanged(self) -> bool:
        """Whether the walk found the vault as the fingerprint `expected` says, once it is done."""
        self.walk()
        return self._fingerprint == self.expected


def _walk(vault: str, ignore: tuple, privacy, known: str | None):
    from obsidian_memory.search.store import build

    return build.walk_vault(vault, ignore, None, privacy, known=known)


_CAN_FORK = hasattr(os, "fork") and sys.platform.startswith("linux")


def _may_fork() -> bool:
    """Linux, and no other `threading` thread in the process (a fork copies only the caller's)."""
    return _CAN_FORK and threading.active_count() == 1


CHILD_WAIT = 10.0        # seconds a search waits for its walking child before walking itself
_AS_EXPECTED = b"="
_WALK = b"W"


def _start_child(args: tuple, expected: str) -> tuple[int, int] | None:
    """(pid, the pipe's end to read its answer from) of a child walking the vault, or None when
    none could be started."""
    try:
        read_end, write_end = os.pipe()
    except OSError:
        return None
    try:
        pid = os.fork()
    except OSError:
        os.close(read_end)
        os.close(write_end)
        return None
    if pid == 0:            # the child: walk, answer, and leave without running the parent's clean-up
        status = 1
        try:
            os.close(read_end)
            _answer(write_end, _walk(*args), expected)
            status = 0
        finally:
            os._exit(status)
    os.close(write_end)
    return pid, read_end


def _kill(pid: int) -> None:
    import signal

    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def _answer(write_end: int, found, expected: str) -> None:
    if not found.listed and found.fingerprint() == expected:
        data = _AS_EXPECTED
    else:
        import marshal

        data = _WALK + marshal.dumps((found.paths, found.stamps.tobytes(), found.skipped, found.folders,
                                      found.started_ns, found.trusted, found.listed, found.basis))
    view = memoryview(data)
    while view:
        view = view[os.write(write_end, view):]


def _child_answer(pid: int, read_end: int):
    """_AS_EXPECTED, the child's walk (a `walk.Walk`), or None when the child failed or did not
    answer within CHILD_WAIT seconds (then it is killed: a child forked beside a thread running
    C code, such as the semantic model's, could in principle inherit a lock that thread held)."""
    import select

    chunks, deadline = [], time.monotonic() + CHILD_WAIT
    poller = select.poll()
    poller.register(read_end, select.POLLIN)
    try:
        while (left := deadline - time.monotonic()) > 0 and poller.poll(left * 1000):
            if not (chunk := os.read(read_end, 1 << 20)):
                break
            chunks.append(chunk)
        else:
            chunks = []
            _kill(pid)
    except OSError:
        chunks = []
    finally:
        os.close(read_end)
        try:
            status = os.waitpid(pid, 0)[1]
        except ChildProcessError:       # (reaped by someone else: its status is unknown)
            status = -1
    data = b"".join(chunks)
    if status != 0 or not data:
        return None
    if data == _AS_EXPECTED:
        return _AS_EXPECTED
    import marshal
    from array import array

    from obsidian_memory.search.store.walk import Walk

    paths, stamps, skipped, folders, started_ns, trusted, listed, basis = marshal.loads(data[len(_WALK):])
    found = Walk(paths, array("q", stamps), skipped)
    found.folders, found.started_ns, found.trusted, found.listed, found.basis = folders, started_ns, trusted, listed, basis
    return found
