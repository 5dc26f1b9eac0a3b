"""A resumed session that is compacted (`/compact` typed on `claude --resume`, recorded in the real
client 2.1.332): one prompt and one compaction in the archive and in the note, whatever order the
hooks and the transcript arrive in.

What the client does: the `/compact` prompt is first only a queue entry (PreCompact archives the
transcript then, so the prompt has no entry uuid yet) and becomes a user entry after the
compaction; the compaction is both the transcript's "This session is being continued…" entry and
PostCompact's `compact_summary`."""
from __future__ import annotations

import sqlite3

import pytest
from testkit import FIXTURES

RECORDED = FIXTURES / "transcripts" / "compact_resumed-2.1.332.jsonl"
SESSION = "e3abed6b-7eac-4831-9e15-dc8e9a05e2ee"
BEFORE_COMPACTION = 17     # the lines PreCompact saw: up to the queued `/compact`, no summary yet
SUMMARY = ("<analysis>The user fixed the zebrafish cache.</analysis>\n<summary>1. Primary Request and Intent: "
           "fix the zebrafish cache warmup in src/cache.py (ZEBRA-SUMMARY-7781).</summary>")
PROMPTS = ["Fix the zebrafish cache warmup in src/cache.py", "/compact keep the zebrafish details"]


def _payload(env, event: str, transcript, **extra) -> dict:
    return {"session_id": SESSION, "transcript_path": str(transcript), "cwd": str(env.root),
            "hook_event_name": event, **extra}


def _archive(env, event: str, transcript, **extra) -> None:
    done = env.hook(["archive"], _payload(env, event, transcript, **extra))
    assert done.returncode == 0 and done.stdout == b"", done.stderr


def _record(env) -> tuple[list[str], int]:
    with sqlite3.connect(env.archive_db) as db:
        prompts = [r[0] for r in db.execute("SELECT text FROM prompts WHERE session_id = ? ORDER BY position",
                                            (SESSION,))]
        summaries = db.execute("SELECT COUNT(*) FROM compact_summaries WHERE session_id = ?", (SESSION,)).fetchone()[0]
    return prompts, summaries


@pytest.mark.parametrize("order", [
    ("post_compact", "session_end"), ("session_end", "post_compact"), ("post_compact", "import"),
    ("import", "post_compact", "session_end"),
])
def test_one_prompt_and_one_compaction_whatever_the_order(env, order):
    transcript = env.config_dir / "projects" / "-home-dev-work-e2e-repo" / f"{SESSION}.jsonl"
    transcript.parent.mkdir(parents=True)
    lines = RECORDED.read_bytes().splitlines(keepends=True)
    transcript.write_bytes(b"".join(lines[:BEFORE_COMPACTION]))
    _archive(env, "PreCompact", transcript, trigger="manual", custom_instructions="keep the zebrafish details")
    transcript.write_bytes(b"".join(lines))   # the compaction happened; the queued prompt is a user entry now
    for step in order:
        if step == "post_compact":
            _archive(env, "PostCompact", transcript, trigger="manual", compact_summary=SUMMARY)
        elif step == "session_end":
            _archive(env, "SessionEnd", transcript, reason="other")
        else:
            assert env.run("import").returncode == 0

    prompts, summaries = _record(env)
    assert prompts == PROMPTS, prompts
    assert summaries == 1
    (note,) = list(env.vault.rglob(f"*_{SESSION[:8]}.md"))
    text = note.read_text(encoding="utf-8")
    assert text.count("keep the zebrafish details") == 1, text
    assert text.count("ZEBRA-SUMMARY-7781") == 1, text
    log = env.config_dir / "obsidian-memory" / "obsidian-memory.log"
    assert "lacks" not in (log.read_text(encoding="utf-8") if log.exists() else "")
