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

A one-shot search (the CLI) checks in-line before it reads, as every search does: a walk beside
the reads (in a forked child, or a thread) saved too little of the whole search process to keep
(docs/decisions/001-the-freshness-walk-in-line.md).
"""
from __future__ import annotations

import threading

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Hashable

    from obsidian_memory.search.store.watch import VaultWatch


class Gate:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._started = 0       # checks started so far (each one's number)
        self._covered = 0       # the number of the latest check that completed
        self._watch: VaultWatch | None = None       # once `watch` found one
        self._quiet_basis: Hashable | None = None   # the basis of the last complete check the watch vouches for since

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

    def run(self, ticket: int, check: Callable[[], bool], wait: float, basis: Hashable | None = None) -> None:
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
            watch = self._watch if self._watch is not None and not self._watch.broken else None
            if watch is not None and not watch.changed() and basis is not None and basis == self._quiet_basis:
                return
            self._quiet_basis = None
            self._started += 1
            number = self._started
            if check():
                self._covered = number
                if watch is not None and not watch.broken:   # (read before the check: what it missed, the next hears)
                    self._quiet_basis = basis
        finally:
            self._lock.release()


_gates: dict[str, Gate] = {}
_gates_lock = threading.Lock()


def gate(index_path: str) -> Gate:
    """The gate of one index file in this process (one per vault)."""
    with _gates_lock:
        return _gates.setdefault(index_path, Gate())
