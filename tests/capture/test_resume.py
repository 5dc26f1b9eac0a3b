"""Reading a growing transcript from where the last read stopped (capture.resume): whatever the
points at which the file was read while it grew, the session is the one a whole read gives; a
rewritten, shortened or replaced file is read whole."""
from __future__ import annotations

import dataclasses
import json
import os
import shutil

import pytest
from hypothesis import HealthCheck, given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st
from testkit import FIXTURES

from obsidian_memory.capture import resume, transcript

TRANSCRIPTS = FIXTURES / "transcripts"
GROWING = ["outcomes.jsonl", "queued_prompts.jsonl", "compaction.jsonl", "newer_entry_types.jsonl",
           "system_generated.jsonl", "broken.jsonl", "claude-code-2.1.332/66135f19-817e-40c5-8de1-0814e4cbd6c0.jsonl"]


@pytest.fixture(autouse=True)
def every_size_resumes(monkeypatch):
    monkeypatch.setattr(resume, "RESUME_MIN_BYTES", 0)
    monkeypatch.setattr(resume, "RESUME_CHECK_BYTES", 512)


def fields(session) -> dict:
    data = dataclasses.asdict(session)
    for name in ("transcript_path", "transcript_mtime", "subagents"):
        data.pop(name)
    return data


def grow(path, data: bytes, cuts) -> list:
    """Write `data` in pieces ending at `cuts`, parsing (resumed) after each; the last parse's session."""
    sessions = []
    for cut in [*sorted(cuts), len(data)]:
        with open(path, "ab") as handle:
            handle.write(data[os.path.getsize(path):cut])
        sessions.append(transcript.parse(str(path), resume_in=str(path.parent / "home")))
    return sessions


@hypothesis_settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(name=st.sampled_from(GROWING), fractions=st.lists(st.floats(0, 1), max_size=6))
def test_a_transcript_read_as_it_grows_gives_the_session_a_whole_read_gives(tmp_path_factory, name, fractions):
    folder = tmp_path_factory.mktemp("grow")
    data = (TRANSCRIPTS / name).read_bytes()
    path = folder / "session.jsonl"
    path.write_bytes(b"")
    cuts = [int(f * len(data)) for f in fractions]
    last = grow(path, data, cuts)[-1]
    assert fields(last) == fields(transcript.parse(str(path)))


def test_each_read_at_a_cut_gives_what_a_whole_read_of_that_much_gives(tmp_path):
    data = (TRANSCRIPTS / "outcomes.jsonl").read_bytes()
    path, copy = tmp_path / "session.jsonl", tmp_path / "whole" / "session.jsonl"
    copy.parent.mkdir()
    path.write_bytes(b"")
    cuts = list(range(0, len(data), 997))
    for cut, session in zip([*cuts, len(data)], grow(path, data, cuts)):
        copy.write_bytes(data[:cut])
        assert fields(session) == fields(transcript.parse(str(copy)))


def test_only_what_was_appended_is_read(tmp_path):
    """Damage in the middle of what was read already (outside the checked start and end) is not
    seen by the next read: it starts where the last one stopped."""
    lines = [json.dumps({"type": "user", "uuid": f"u{i}", "sessionId": "s", "timestamp": "2026-03-04T09:00:00Z",
                         "message": {"role": "user", "content": f"prompt {i} " + "x" * 200}}) + "\n" for i in range(200)]
    path = tmp_path / "s.jsonl"
    path.write_text("".join(lines[:100]), encoding="utf-8")
    home = str(tmp_path / "home")
    assert len(transcript.parse(str(path), resume_in=home).prompts) == 100
    data = bytearray(path.read_bytes())
    middle = len(data) // 2
    data[middle:middle + 10] = b"##########"
    path.write_bytes(bytes(data) + "".join(lines[100:]).encode())
    resumed = transcript.parse(str(path), resume_in=home)
    assert len(resumed.prompts) == 200 and resumed.bad_lines == 0
    whole = transcript.parse(str(path))
    assert whole.bad_lines == 1   # a whole read would have seen it


@pytest.mark.parametrize("change", ["rewritten start", "shortened", "rewritten before the offset"])
def test_a_rewritten_or_shortened_transcript_is_read_whole(tmp_path, change):
    data = (TRANSCRIPTS / "outcomes.jsonl").read_bytes()
    path = tmp_path / "session.jsonl"
    path.write_bytes(data[:len(data) * 2 // 3].rsplit(b"\n", 1)[0] + b"\n")
    home = str(tmp_path / "home")
    transcript.parse(str(path), resume_in=home)
    offset = os.path.getsize(path)
    if change == "rewritten start":
        other = (TRANSCRIPTS / "queued_prompts.jsonl").read_bytes()
        path.write_bytes(other + data)
    elif change == "shortened":
        path.write_bytes(data[:offset // 2].rsplit(b"\n", 1)[0] + b"\n")
    else:
        lines = data.splitlines(keepends=True)
        path.write_bytes(b"".join(lines[:-8]) + b"".join(reversed(lines[-8:])))
    assert fields(transcript.parse(str(path), resume_in=home)) == fields(transcript.parse(str(path)))


def test_a_damaged_or_foreign_state_means_a_whole_read(tmp_path):
    data = (TRANSCRIPTS / "outcomes.jsonl").read_bytes()
    path = tmp_path / "session.jsonl"
    path.write_bytes(data[:len(data) // 2].rsplit(b"\n", 1)[0] + b"\n")
    home = str(tmp_path / "home")
    transcript.parse(str(path), resume_in=home)
    state = resume.state_path(home, str(path))
    header, _, body = open(state, "rb").read().partition(b"\n")
    for damaged in (header + b"\n" + body[:len(body) // 2], b"not a header\n", b""):
        with open(state, "wb") as handle:
            handle.write(damaged)
        path.write_bytes(data)
        assert fields(transcript.parse(str(path), resume_in=home)) == fields(transcript.parse(str(path)))
        path.write_bytes(data[:len(data) // 2].rsplit(b"\n", 1)[0] + b"\n")


def test_a_small_transcript_keeps_no_state_and_a_gone_one_loses_it(tmp_path, monkeypatch):
    home = str(tmp_path / "home")
    small, big = tmp_path / "small.jsonl", tmp_path / "big.jsonl"
    shutil.copy(TRANSCRIPTS / "compaction.jsonl", small)
    shutil.copy(TRANSCRIPTS / "outcomes.jsonl", big)
    monkeypatch.setattr(resume, "RESUME_MIN_BYTES", 10_000)
    transcript.parse(str(small), resume_in=home)
    transcript.parse(str(big), resume_in=home)
    assert not os.path.exists(resume.state_path(home, str(small))) and os.path.exists(resume.state_path(home, str(big)))
    big.unlink()
    assert resume.forget_missing(home) == 1 and os.listdir(os.path.join(home, resume.FOLDER)) == []
