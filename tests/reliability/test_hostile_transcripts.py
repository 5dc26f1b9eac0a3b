"""Transcripts no parser should choke on, archived through the real hook: archived or skipped with
a logged reason, exit 0, nothing on stdout, memory bounded (the file is streamed)."""
from __future__ import annotations

import json
import random
import sqlite3
import sys

import pytest
from archive_fixtures import hook_payload, session_id, write_transcript
from reliability_kit import measured_run
from testkit import CLI

MB = 1024 * 1024
RSS_BOUND = 100 * MB   # generous: about 47 MB measured with streaming, 174 MB when a 50 MB line is parsed whole


def _line(sid, kind, n, **extra) -> bytes:
    entry = {"type": kind, "uuid": f"{sid}-{kind}-{n}", "sessionId": sid, "cwd": "/work/demo",
             "timestamp": f"2026-03-04T09:{n // 60 % 60:02d}:{n % 60:02d}.000Z", **extra}
    return json.dumps(entry).encode("utf-8") + b"\n"


def _prompt(sid, n, text) -> bytes:
    return _line(sid, "user", n, message={"role": "user", "content": text})


def _answer(sid, n, text="done") -> bytes:
    return _line(sid, "assistant", n, message={"id": f"msg{n}", "role": "assistant", "model": "claude-test",
                                               "content": [{"type": "text", "text": text}]})


def _tool_result(sid, n, size) -> bytes:
    blob = ("0123456789abcdef" * (size // 16 + 1))[:size]
    return _line(sid, "user", n, message={"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": f"tu{n}", "content": blob}]}, toolUseResult={"stdout": blob[:1000]})


def _run_hook(env, sid, data: bytes):
    path = env.config_dir / "projects" / "-work-demo" / f"{sid}.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    payload = json.dumps(hook_payload("SessionEnd", path, session_id=sid)).encode("utf-8")
    # `--detached`: the process that archives here, as the one a hook hands a long transcript to does
    # (a hook given more than DETACH_BYTES unread returns at once and leaves the reading to it)
    status, out, err, peak, seconds = measured_run([sys.executable, str(CLI), "hook", "archive", "--detached"],
                                                   stdin=payload, environ=env.environ(), cwd=env.root)
    assert (status, out, err) == (0, b"", b"")
    return path, peak


def _archived_prompts(env, sid) -> list[str] | None:
    db = sqlite3.connect(env.archive_db)
    try:
        if db.execute("SELECT 1 FROM sessions WHERE session_id = ?", (sid,)).fetchone() is None:
            return None
        return [r[0] for r in db.execute("SELECT text FROM prompts WHERE session_id = ? ORDER BY position", (sid,))]
    finally:
        db.close()


def _log(env) -> str:
    return env.log_file.read_text(encoding="utf-8") if env.log_file.exists() else ""


def test_a_transcript_cut_mid_line_is_archived_up_to_the_cut(env):
    sid = session_id(1)
    data = _prompt(sid, 1, "first") + _answer(sid, 2) + _prompt(sid, 3, "second")
    _run_hook(env, sid, data + _prompt(sid, 4, "never finished")[:40])
    assert _archived_prompts(env, sid) == ["first", "second"]


def test_invalid_utf8_is_read_with_replacement_characters(env):
    sid = session_id(2)
    bad = _prompt(sid, 1, "caf@@ ok").replace(b"@@", b"\xc3\x28\xff")
    _run_hook(env, sid, bad + _prompt(sid, 2, "plain"))
    assert _archived_prompts(env, sid) == ["caf\ufffd(\ufffd ok", "plain"]


def test_binary_garbage_between_lines_is_skipped(env):
    sid = session_id(3)
    garbage = bytes(random.Random(3).randrange(256) for _ in range(20000))
    _run_hook(env, sid, _prompt(sid, 1, "before") + garbage + b"\n\x00\x00\n" + _prompt(sid, 2, "after"))
    assert _archived_prompts(env, sid) == ["before", "after"]


def test_a_file_of_binary_garbage_only_is_skipped_with_a_logged_reason(env):
    sid = session_id(4)
    path, _ = _run_hook(env, sid, bytes(random.Random(4).randrange(256) for _ in range(50000)))
    assert _archived_prompts(env, sid) is None
    assert f"skipped {path}: no prompt" in _log(env)


def test_no_user_prompt_at_all_is_skipped_with_a_logged_reason(env):
    sid = session_id(5)
    path, _ = _run_hook(env, sid, _line(sid, "system", 1, subtype="informational", content="hi")
                        + _line(sid, "file-history-snapshot", 2))
    assert _archived_prompts(env, sid) is None
    assert f"skipped {path}: no prompt" in _log(env)


def test_json_nested_100k_deep_is_a_bad_line_not_a_crash(env):
    sid = session_id(6)
    deep = b'{"type":"user","message":{"role":"user","content":' + b"[" * 100_000 + b"]" * 100_000 + b"}}\n"
    deep_object = b'{"a":' * 100_000 + b"1" + b"}" * 100_000 + b"\n"
    _run_hook(env, sid, _prompt(sid, 1, "shallow") + deep + deep_object + _prompt(sid, 2, "still here"))
    assert _archived_prompts(env, sid) == ["shallow", "still here"]
    assert "Traceback" not in _log(env)


def test_a_50_mb_tool_result_is_streamed_past_in_bounded_memory(env):
    sid = session_id(7)
    data = _prompt(sid, 1, "run the big query") + _tool_result(sid, 2, 50 * MB) + _answer(sid, 3, "it printed a lot") \
        + _prompt(sid, 4, "thanks")
    path, peak = _run_hook(env, sid, data)
    assert path.stat().st_size > 50 * MB
    assert _archived_prompts(env, sid) == ["run the big query", "thanks"]
    assert peak < RSS_BOUND, f"peak RSS {peak / MB:.0f} MB for a {path.stat().st_size / MB:.0f} MB transcript"
    assert "over 8 MiB skipped unread" in _log(env)


def test_a_5_mb_prompt_is_kept_whole(env):
    sid = session_id(8)
    pasted = "pasted log line\n" * (5 * MB // 16)
    _run_hook(env, sid, _prompt(sid, 1, pasted) + _answer(sid, 2))
    assert _archived_prompts(env, sid) == [pasted.strip()]


def test_100000_lines_are_archived_in_bounded_memory(env):
    sid = session_id(9)
    parts = []
    for n in range(100_000):
        if n % 100 == 0:
            parts.append(_prompt(sid, n, f"prompt number {n}"))
        elif n % 100 == 1:
            parts.append(_answer(sid, n, f"answer {n}"))
        else:
            parts.append(_line(sid, "progress", n, data={"type": "bash_progress", "output": "." * 80}))
    path, peak = _run_hook(env, sid, b"".join(parts))
    assert _archived_prompts(env, sid) == [f"prompt number {n}" for n in range(0, 100_000, 100)]
    assert peak < RSS_BOUND, f"peak RSS {peak / MB:.0f} MB for {path.stat().st_size / MB:.0f} MB in 100,000 lines"


@pytest.mark.parametrize("data", [b"", b"\n\n\n", b"   \n"])
def test_an_empty_transcript_leaves_no_row_and_the_hook_stays_quiet(env, data):
    sid = session_id(10)
    _run_hook(env, sid, data)
    assert not env.archive_db.exists() or _archived_prompts(env, sid) is None


def test_a_transcript_written_by_the_normal_writer_still_archives(env):
    sid = session_id(11)
    path = write_transcript(env.config_dir / "projects" / "-work-demo" / f"{sid}.jsonl", sid, ["one", "two"])
    _run_hook(env, sid, path.read_bytes())
    assert _archived_prompts(env, sid) == ["one", "two"]
