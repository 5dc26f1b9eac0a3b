"""The one file lock (obsidian_memory/core/locks.py), in every way it can be held here.

`flock` is what macOS and Linux use. `portable` (exclusive create + stale-lock recovery) is what a
platform without the kernel's locks uses: forced here, in-process by `kind=` and for whole programs
by running them with `fcntl` refusing to import (as on a platform that has none). The Windows
backend (`msvcrt`) cannot run on Linux; it shares everything but its two calls with `flock`.
"""
from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time

import pytest

from testkit import CLI, REPO, without_package
from obsidian_memory.core import locks

KINDS = ["flock", "portable"] if locks.default_kind() == "flock" else ["portable"]

# One process: `rounds` times take the lock, read the counter, write it back plus one. Without
# mutual exclusion the read-modify-write cycles of several processes lose updates.
COUNTER = """
import sys, time
sys.path.insert(0, {repo!r})
from obsidian_memory.core import locks
lock_path, counter, kind, rounds = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
for _ in range(rounds):
    with locks.FileLock(lock_path, timeout=60, kind=kind):
        with open(counter) as handle:
            value = int(handle.read())
        time.sleep(0.001)
        with open(counter, "w") as handle:
            handle.write(str(value + 1))
""".format(repo=str(REPO))

# Takes the lock, says so, and holds it until killed.
HOLDER = """
import sys, time
sys.path.insert(0, {repo!r})
from obsidian_memory.core import locks
lock = locks.FileLock(sys.argv[1], kind=sys.argv[2]).acquire()
print("held", flush=True)
time.sleep(600)
""".format(repo=str(REPO))


def hold(path, kind) -> subprocess.Popen:
    holder = subprocess.Popen([sys.executable, "-c", HOLDER, str(path), kind], stdout=subprocess.PIPE)
    assert holder.stdout.readline() == b"held\n"
    return holder


def kill(process: subprocess.Popen) -> None:
    process.send_signal(signal.SIGKILL)
    process.wait()
    process.stdout.close()


@pytest.mark.parametrize("kind", KINDS)
def test_one_holder_at_a_time_and_the_next_one_gets_it_on_release(tmp_path, kind):
    path = str(tmp_path / "locks" / "a.lock")
    first = locks.FileLock(path, kind=kind).acquire()
    second = locks.FileLock(path, kind=kind)
    with pytest.raises(locks.LockBusy, match="held by another process"):
        second.acquire()
    assert second.waited
    first.release()
    with second:
        with pytest.raises(locks.LockBusy):
            locks.FileLock(path, kind=kind).acquire()
    with locks.FileLock(path, kind=kind) as third:
        assert not third.waited


@pytest.mark.parametrize("kind", KINDS)
def test_processes_contending_for_the_lock_lose_no_update(tmp_path, kind):
    counter = tmp_path / "counter"
    counter.write_text("0")
    rounds, workers = 40, 4
    procs = [subprocess.Popen([sys.executable, "-c", COUNTER, str(tmp_path / "c.lock"), str(counter), kind,
                               str(rounds)], stderr=subprocess.PIPE) for _ in range(workers)]
    for proc in procs:
        assert proc.wait(timeout=120) == 0, proc.stderr.read().decode()
        proc.stderr.close()
    assert int(counter.read_text()) == rounds * workers


@pytest.mark.parametrize("kind", KINDS)
def test_a_waiter_gives_up_after_its_timeout_while_a_live_process_holds_it(tmp_path, kind):
    path = tmp_path / "busy.lock"
    holder = hold(path, kind)
    try:
        started = time.monotonic()
        with pytest.raises(locks.LockBusy):
            locks.FileLock(str(path), kind=kind, timeout=0.5).acquire()
        waited = time.monotonic() - started
    finally:
        kill(holder)
    assert 0.5 <= waited < 5
    with locks.FileLock(str(path), kind=kind, timeout=5):
        pass


@pytest.mark.parametrize("kind", KINDS)
def test_the_lock_of_a_killed_process_is_taken_at_once(tmp_path, kind):
    path = tmp_path / "killed.lock"
    kill(hold(path, kind))
    started = time.monotonic()
    with locks.FileLock(str(path), kind=kind, timeout=5):
        assert time.monotonic() - started < 1
        if kind == "portable":
            assert path.read_text().split()[0] == str(os.getpid())
    if kind == "portable":
        assert not path.exists() and not (tmp_path / "killed.lock.break").exists()


def test_a_portable_lock_of_another_host_is_stale_only_when_old(tmp_path):
    path = tmp_path / "remote.lock"
    path.write_text("4242 some-other-machine 1700000000.000\n")
    with pytest.raises(locks.LockBusy):   # its pid means nothing here: only age can free it
        locks.FileLock(str(path), kind="portable", timeout=0.1).acquire()
    old = time.time() - locks.STALE_SECONDS - 1
    os.utime(path, (old, old))
    with locks.FileLock(str(path), kind="portable", timeout=1):
        assert "some-other-machine" not in path.read_text()


def test_a_portable_lock_file_left_empty_by_a_dying_maker_is_taken_after_a_grace(tmp_path):
    path = tmp_path / "empty.lock"
    path.write_bytes(b"")
    with pytest.raises(locks.LockBusy):   # (its maker may be between create and write)
        locks.FileLock(str(path), kind="portable").acquire()
    old = time.time() - locks.NEW_FILE_GRACE - 1
    os.utime(path, (old, old))
    with locks.FileLock(str(path), kind="portable"):
        pass


def test_a_portable_lock_taken_over_meanwhile_is_not_removed_by_its_old_holder(tmp_path):
    path = tmp_path / "taken.lock"
    lock = locks.FileLock(str(path), kind="portable").acquire()
    path.write_text(f"{os.getppid()} {locks._host()} {time.time()}\n")   # another owner's now
    lock.release()
    assert path.exists()


# -- whole programs on a platform without fcntl --------------------------------------------------

def run_without_fcntl(env, *args) -> subprocess.Popen:
    code = without_package("fcntl", then=f"sys.argv[0] = {str(CLI)!r}\n" + "from obsidian_memory.cli import main\n"
                           "sys.exit(main(sys.argv[1:]))\n")
    return subprocess.Popen([sys.executable, "-c", code, *args], env=env.environ(), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, cwd=str(env.root))


def test_without_fcntl_the_lock_is_the_portable_one():
    code = without_package("fcntl", then="from obsidian_memory.core import locks\nprint(locks.default_kind())\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, timeout=60)
    assert done.stdout.decode().strip() == ("msvcrt" if os.name == "nt" else "portable"), done.stderr.decode()


def test_without_fcntl_concurrent_learns_all_land(env):
    """The memory notes' lock on a platform without fcntl (before: capture, which the notes
    took their lock from, imported fcntl at the top and `learn` failed outright)."""
    procs = [run_without_fcntl(env, "learn", f"learning number {i}") for i in range(5)]
    for proc in procs:
        out, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, err.decode()
    note = (env.vault / "Meta" / "claude-learnings.md").read_text(encoding="utf-8")
    assert sorted(re.findall(r"learning number (\d)", note)) == [str(i) for i in range(5)]
    assert not list((env.config_dir / "obsidian-memory" / "locks").glob("*.lock"))  # released = removed


def test_without_fcntl_the_index_update_lock_excludes_a_second_updater(env, monkeypatch):
    """Before, the index's update lock did nothing without fcntl. Now a reindex waits for the
    holder of the (portable) index lock, and a search answers from the index as it is."""
    (env.vault / "Note.md").write_text("zebra stripes\n", encoding="utf-8")
    first = run_without_fcntl(env, "reindex")
    assert first.communicate(timeout=120)[0].startswith(b"index")
    from obsidian_memory.core import settings as settings_module
    from obsidian_memory.search import store

    monkeypatch.delenv("OBSIDIAN_MEMORY_CACHE_DIR", raising=False)
    settings = settings_module.Settings(str(env.config_dir), vault=str(env.vault))
    lock_file = store.index_path(settings) + ".lock"
    holder = hold(lock_file, "portable")
    try:
        (env.vault / "Other.md").write_text("okapi\n", encoding="utf-8")
        waiting = run_without_fcntl(env, "reindex")
        time.sleep(1.5)
        assert waiting.poll() is None, "the second reindex did not wait for the lock"
    finally:
        kill(holder)
    out, err = waiting.communicate(timeout=120)
    assert waiting.returncode == 0 and b"1 added" in out, (out, err)
