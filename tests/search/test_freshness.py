"""search/store/freshness: in a long-running process (the HTTP MCP server), requests that arrive
together share one freshness check of the index, and no request is ever answered by a check that
started before it arrived."""
from __future__ import annotations

import threading

from obsidian_memory.search import store
from obsidian_memory.search.store import VaultIndex, freshness

WAIT = 30.0


def test_a_check_that_started_after_the_request_arrived_covers_it():
    gate = freshness.Gate()
    checks = []
    first = gate.ticket()
    gate.run(first, lambda: checks.append("first") or True, WAIT)
    second = gate.ticket()                 # arrives after the first check completed: needs its own
    gate.run(second, lambda: checks.append("second") or True, WAIT)
    assert checks == ["first", "second"]
    late = gate.ticket()
    gate.run(late, lambda: checks.append("late") or True, WAIT)
    assert checks == ["first", "second", "late"]


def test_requests_waiting_behind_a_running_check_share_the_next_one():
    gate = freshness.Gate()
    running, release = threading.Event(), threading.Event()
    checks = []

    def slow_check():
        checks.append("slow")
        running.set()
        release.wait(WAIT)
        return True

    first = threading.Thread(target=gate.run, args=(gate.ticket(), slow_check, WAIT))
    first.start()
    running.wait(WAIT)
    # these arrive while the first check runs: it started before them, so it cannot answer them
    tickets = [gate.ticket() for _ in range(10)]
    waiting = [threading.Thread(target=gate.run, args=(ticket, lambda: checks.append("next") or True, WAIT))
               for ticket in tickets]
    for thread in waiting:
        thread.start()
    release.set()
    for thread in [first, *waiting]:
        thread.join(WAIT)
    assert checks == ["slow", "next"]       # ten requests, one more walk


def test_a_check_that_gave_up_covers_no_one():
    gate = freshness.Gate()
    checks = []
    ticket = gate.ticket()
    gate.run(ticket, lambda: checks.append("skipped") or False, WAIT)
    gate.run(ticket, lambda: checks.append("again") or True, WAIT)
    assert checks == ["skipped", "again"]


def test_a_check_running_longer_than_the_wait_is_not_waited_for():
    gate = freshness.Gate()
    running, release = threading.Event(), threading.Event()
    first = threading.Thread(target=gate.run, args=(gate.ticket(), lambda: running.set() or release.wait(WAIT), WAIT))
    first.start()
    running.wait(WAIT)
    checks = []
    gate.run(gate.ticket(), lambda: checks.append("mine") or True, 0.05)
    release.set()
    first.join(WAIT)
    assert checks == []


def test_the_index_sees_a_note_written_just_before_each_open_even_among_concurrent_opens(settings, vault):
    """The real index: threads open it fresh while notes appear; each sees every note written
    before its open began."""
    (vault / "start.md").write_text("# Start\nalpha\n", encoding="utf-8")
    VaultIndex.open_fresh(settings).close()
    errors = []

    def open_after_writing(number):
        (vault / f"n{number}.md").write_text(f"# N{number}\nword{number}\n", encoding="utf-8")
        with VaultIndex.open_fresh(settings) as index:
            if f"n{number}.md" not in index.paths():
                errors.append(number)

    threads = [threading.Thread(target=open_after_writing, args=(number,)) for number in range(12)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(WAIT)
    assert errors == []
    assert store.status(settings)["notes_indexed"] == 13
