"""Subagent transcripts are sidechains of a session, not sessions: neither the old layout
(`projects/<slug>/agent-*.jsonl`, beside the sessions) nor the newer one
(`projects/<slug>/<session>/subagents/agent-*.jsonl`) is imported or swept as a session."""
from __future__ import annotations

import json

from archive_fixtures import session_id, write_transcript
from reliability_kit import archive_counts, cli, session_notes


def _sidechain(path, parent_sid, agent_id):
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = [{"type": "user", "uuid": f"{agent_id}-u", "sessionId": parent_sid, "agentId": agent_id,
              "isSidechain": True, "cwd": "/work/demo", "timestamp": "2026-03-04T09:00:30.000Z",
              "message": {"role": "user", "content": "Warmup: look for the config loader"}},
             {"type": "assistant", "uuid": f"{agent_id}-a", "sessionId": parent_sid, "agentId": agent_id,
              "isSidechain": True, "timestamp": "2026-03-04T09:00:40.000Z",
              "message": {"id": "m", "role": "assistant", "model": "claude-test",
                          "content": [{"type": "text", "text": "found it"}]}}]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")


def test_import_and_sweep_archive_the_session_and_none_of_its_subagents(env):
    folder = env.config_dir / "projects" / "-work-demo"
    sid = session_id(1)
    write_transcript(folder / f"{sid}.jsonl", sid, ["find the config loader"])
    _sidechain(folder / "agent-a1b2c3d4.jsonl", sid, "a1b2c3d4")                 # old layout
    _sidechain(folder / sid / "subagents" / "agent-e5f6a7b8.jsonl", sid, "e5f6a7b8")   # newer layout
    for args in (["import"], ["sweep", "--quiet-seconds", "0"]):
        result = cli(env, *args)
        assert result.returncode == 0, result.stderr
    assert result.stdout.startswith(b"archived 0 / unchanged 1 / failed 0")
    counts = archive_counts(env.archive_db)
    assert counts["sessions"] == [(sid, 1)]
    assert len(session_notes(env.vault)) == 1
    dry = cli(env, "import", "--dry-run")
    assert b"agent-" not in dry.stdout
