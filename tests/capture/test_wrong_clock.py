"""A clock that was wrong once (a machine's battery, a VM restored from a snapshot, a dual boot)
leaves stamps and file times in the future. Those are stale, not fresh: the sweep still starts and
still archives a session whose end hook never fired, and `doctor` says what it saw. The real hooks
and CLI as subprocesses; the interval rule as a property over any clock error."""
from __future__ import annotations

import json
import os
import time

from archive_fixtures import session_id, write_transcript
from hypothesis import given, settings as hypothesis_settings, strategies as st

from obsidian_memory.cli.commands import sweep

DAY = 86400


def transcript(env, n: int):
    sid = session_id(n)
    return sid, write_transcript(env.config_dir / "projects" / "-work-demo" / f"{sid}.jsonl", sid,
                                 ["fix the tokenizer crash"], cwd=str(env.root))


def archived(env) -> list[str]:
    done = env.run("sessions", "--json")
    return [s["session_id"] for s in json.loads(done.stdout)] if done.returncode == 0 else []


def stamp_path(env):
    return env.config_dir / "obsidian-memory" / sweep.STAMP


def test_a_sweep_stamp_from_a_clock_400_days_ahead_does_not_stop_the_sweep(env):
    sid, path = transcript(env, 1)
    old = time.time() - 3600
    os.utime(path, (old, old))                 # its end hook never fired: quiet for an hour
    stamp = stamp_path(env)
    stamp.parent.mkdir(parents=True, exist_ok=True)
    stamp.write_text("0\n")
    ahead = time.time() + 400 * DAY
    os.utime(stamp, (ahead, ahead))            # one SessionStart under a clock 400 days ahead

    done = env.hook(["session-start"], {"hook_event_name": "SessionStart", "source": "startup",
                                        "session_id": "now-running", "cwd": str(env.root)})
    assert done.returncode == 0 and done.stderr == b""
    deadline = time.monotonic() + 60
    while sid not in archived(env) and time.monotonic() < deadline:
        time.sleep(0.3)
    assert sid in archived(env)                # the background sweep ran and archived it
    assert stamp.stat().st_mtime <= time.time() + 1     # stamped with the right time again


def test_a_transcript_modified_in_the_future_counts_as_quiet(env):
    sid, path = transcript(env, 2)
    ahead = time.time() + 400 * DAY
    os.utime(path, (ahead, ahead))
    done = env.run("sweep")                    # (the default quiet time: 300 s)
    assert done.returncode == 0, done.stderr
    assert sid in archived(env)


def test_a_transcript_written_this_moment_by_a_slightly_fast_clock_is_not_quiet(env):
    sid, path = transcript(env, 3)
    soon = time.time() + 5                     # a file system's or a sync client's skew
    os.utime(path, (soon, soon))
    assert env.run("sweep").returncode == 0
    assert sid not in archived(env)


def test_doctor_warns_of_stamps_and_transcripts_from_the_future(env):
    sid, path = transcript(env, 4)
    ahead = time.time() + 400 * DAY
    os.utime(path, (ahead, ahead))
    stamp = stamp_path(env)
    stamp.parent.mkdir(parents=True, exist_ok=True)
    stamp.write_text("0\n")
    os.utime(stamp, (ahead, ahead))
    checks = {c["name"]: c for c in json.loads(env.run("doctor", "--json").stdout)["checks"]}
    clock = checks["clock"]
    assert clock["status"] == "warn"
    assert "1 transcript" in clock["detail"] and "sweep stamp" in clock["detail"] and "in the future" in clock["detail"]


def test_doctor_says_nothing_is_from_the_future_when_nothing_is(env):
    transcript(env, 5)
    checks = {c["name"]: c for c in json.loads(env.run("doctor", "--json").stdout)["checks"]}
    assert checks["clock"]["status"] == "ok"


@hypothesis_settings(max_examples=150, deadline=None)
@given(real=st.floats(1_600_000_000, 2_100_000_000), error=st.floats(-3 * 365 * DAY, 3 * 365 * DAY),
       step=st.floats(1, 900))
def test_after_one_start_under_any_wrong_clock_a_sweep_starts_within_an_interval_once_it_is_right(real, error, step):
    """One SessionStart under a clock `error` seconds off, then starts every `step` seconds under the
    right clock: a sweep starts within the interval (plus a file system's skew) of the clock being
    right again, and never two within one interval."""
    import tempfile
    from unittest import mock

    from obsidian_memory.core import clock, spawn

    with tempfile.TemporaryDirectory() as home, mock.patch.object(spawn, "start") as start:
        settings = type("Settings", (), {"home": home, "sweep_stamp": os.path.join(home, sweep.STAMP),
                                         "pending_marks": os.path.join(home, "vault-pending")})()
        sweep.start_in_background(settings, "x", now=real + error)          # the clock that was wrong
        swept, now = [], real
        while now <= real + sweep.INTERVAL_SECONDS + clock.FUTURE_SLACK_SECONDS + 2 * step:
            if sweep.start_in_background(settings, "x", now=now):
                swept.append(now)
            now += step
        assert start.call_count == len(swept) + 1
    assert swept and swept[0] <= real + sweep.INTERVAL_SECONDS + clock.FUTURE_SLACK_SECONDS + step
    assert all(b - a >= sweep.INTERVAL_SECONDS for a, b in zip(swept, swept[1:]))
