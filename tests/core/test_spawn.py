"""Starting ourselves in the background (obsidian_memory/core/spawn.py), as the hooks, `reindex --embed`
and the plugin's launcher do: detached, at a lower priority, holding none of the caller's pipes,
and running our own package whatever folder it starts from. (Windows' branch, Popen with
DETACHED_PROCESS | CREATE_NEW_PROCESS_GROUP, cannot run here.)"""
from __future__ import annotations

import json
import os
import select
import subprocess
import sys
import time

import pytest

from testkit import REPO
from obsidian_memory.core import spawn
from obsidian_memory.cli.commands import sweep

pytestmark = pytest.mark.skipif(os.name == "nt", reason="the POSIX branch")

# What a detached child sees of itself: session, priority, stdio, and the caller's pipe.
PROBE = """
import json, os, sys, time
result, pipe_fd = sys.argv[1], int(sys.argv[2])
def same_file(fd, path):
    a, b = os.fstat(fd), os.stat(path)
    return (a.st_dev, a.st_ino) == (b.st_dev, b.st_ino)
try:
    os.fstat(pipe_fd)
    holds_pipe = True
except OSError:
    holds_pipe = False
sys.stderr.write("to the log\\n")
sys.stderr.flush()
facts = {"pid": os.getpid(), "sid": os.getsid(0), "nice": os.getpriority(os.PRIO_PROCESS, 0),
         "stdin": sys.stdin.buffer.read().decode(), "stdout_null": same_file(1, os.devnull),
         "holds_pipe": holds_pipe}
with open(result + ".tmp", "w") as handle:
    json.dump(facts, handle)
os.replace(result + ".tmp", result)
time.sleep(float(sys.argv[3]))
"""


def wait_for(path, seconds=30.0):
    deadline = time.monotonic() + seconds
    while not path.exists():
        assert time.monotonic() < deadline, f"{path} never appeared"
        time.sleep(0.05)
    return json.loads(path.read_text())


@pytest.mark.parametrize("stdin", [None, b'{"hook_event_name": "SessionEnd"}'])
def test_the_child_is_detached_niced_and_holds_none_of_the_callers_pipes(tmp_path, stdin):
    read_end, write_end = os.pipe()
    os.set_inheritable(write_end, True)   # as a hook's stdout pipe is: a child that kept it would hold Claude Code
    result, log = tmp_path / "facts.json", tmp_path / "logs" / "child.log"
    started = time.monotonic()
    pid = spawn.start([sys.executable, "-c", PROBE, str(result), str(write_end), "3"], stdin_bytes=stdin,
                      log_path=str(log))
    assert time.monotonic() - started < 2, "start waited for the child"
    os.close(write_end)
    ready, _, _ = select.select([read_end], [], [], 10)
    assert ready and os.read(read_end, 1) == b"", "the child holds the caller's pipe open"
    os.close(read_end)
    facts = wait_for(result)
    assert facts["pid"] == pid and facts["sid"] == pid            # its own session
    assert facts["nice"] >= min(19, os.getpriority(os.PRIO_PROCESS, 0) + spawn.NICENESS)
    assert facts["stdin"] == (stdin or b"").decode() and facts["stdout_null"] and not facts["holds_pipe"]
    assert log.read_text() == "to the log\n"
    os.kill(pid, 9)
    os.waitpid(pid, 0)


def test_our_command_runs_this_package_from_a_folder_that_shadows_it(tmp_path):
    """A user's repository may hold `obsidian_memory.py` or a module named like the standard
    library's: the command runs our package by path, with a Python that has not got it installed."""
    (tmp_path / "obsidian_memory.py").write_text("raise SystemExit('the repository module ran')\n")
    (tmp_path / "json.py").write_text("raise SystemExit('the repository json ran')\n")
    bare = os.path.realpath(sys.executable)   # the base interpreter, without our package
    done = subprocess.run(spawn.command("--version", python=bare), capture_output=True, cwd=str(tmp_path),
                          env={k: v for k, v in os.environ.items() if k != "PYTHONPATH"}, timeout=60)
    assert done.returncode == 0 and done.stdout.decode().strip().startswith("obsidian-memory "), done.stderr
    assert spawn.command("sweep")[:2] == [sys.executable, str(REPO / "obsidian_memory" / "__main__.py")]


def test_the_sweep_is_started_at_most_once_per_interval(env, monkeypatch):
    env.apply(monkeypatch)   # the sweep it really starts runs in this isolated user
    from obsidian_memory.core import settings as settings_module

    settings = settings_module.load()
    now = 1_900_000_000.0
    assert sweep.start_in_background(settings, "abc", now=now) is True
    assert sweep.start_in_background(settings, "abc", now=now + sweep.INTERVAL_SECONDS - 1) is False
    assert sweep.start_in_background(settings, "abc", now=now + sweep.INTERVAL_SECONDS + 1) is True


def test_a_hook_killed_before_its_vault_work_was_done_has_the_next_session_start_a_sweep(env, monkeypatch):
    """The hook's pending mark (left by a kill) newer than the last sweep's start starts one
    within the interval, once."""
    env.apply(monkeypatch)
    from obsidian_memory.core import settings as settings_module

    settings = settings_module.load()
    started = []
    monkeypatch.setattr(spawn, "start", lambda argv, **options: started.append(argv) or 1)
    now = time.time()
    assert sweep.start_in_background(settings, "abc", now=now) is True
    assert sweep.start_in_background(settings, "abc", now=now + 1) is False
    os.makedirs(settings.pending_marks)
    mark = os.path.join(settings.pending_marks, "00000001-bbbb-4ccc-8ddd-000000000001")
    open(mark, "wb").close()
    os.utime(mark, (now + 2, now + 2))
    assert sweep.start_in_background(settings, "abc", now=now + 3) is True
    assert sweep.start_in_background(settings, "abc", now=now + 4) is False
    assert len(started) == 2


@pytest.mark.parametrize("payload", [{}, {"hook_event_name": "Stop", "session_id": "x"}])
def test_the_session_start_hook_starts_no_sweep_for_an_empty_or_foreign_payload(env, payload):
    assert env.hook(["session-start"], payload).returncode == 0
    assert not (env.config_dir / "obsidian-memory" / sweep.STAMP).exists()
    assert env.hook(["session-start"], {"hook_event_name": "SessionStart", "session_id": "x",
                                        "cwd": str(env.root)}).returncode == 0
    assert (env.config_dir / "obsidian-memory" / sweep.STAMP).exists()


@pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="a zombie is told by /proc (Linux)")
def test_a_killed_process_not_reaped_yet_is_not_alive():
    """A detached process's reaper may be slow: its temp files and locks are a dead writer's."""
    import signal

    from obsidian_memory.core import fsutil

    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        assert fsutil.process_alive(child.pid)
        os.kill(child.pid, signal.SIGKILL)
        deadline = time.monotonic() + 10
        while fsutil.process_alive(child.pid) and time.monotonic() < deadline:
            time.sleep(0.01)
        assert not fsutil.process_alive(child.pid)
        assert os.path.exists(f"/proc/{child.pid}")     # a zombie still: not reaped yet
    finally:
        child.wait()
