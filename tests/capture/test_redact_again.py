"""Text the archive stored under other redaction rules (`redact: false`, or before a pattern was
added) is redacted again whole: when its session is archived again (the grown session's fast
path keeps only prompts stored under the present rules), and by the sweep for the sessions never
archived again. The real CLI and hooks as subprocesses, a real SQLite archive, the vault note."""
from __future__ import annotations

import shutil
import sqlite3

import pytest
from archive_fixtures import hook_payload, session_id, write_transcript
from testkit import REPO

from obsidian_memory.capture import archiving as capture
from obsidian_memory.core import settings as settings_module

SECRET = "ghp_" + "Z9y8X7w6V5u4T3s2R1q0P9o8N7m6L5k4J3i2"
NEW_KIND = "acme_" + "Q1w2E3r4T5y6U7i8O9p0A1s2"     # a format no pattern of main knows
SUMMARY_SECRET = "xoxb-" + "1234567890-abcdefghijkl"


@pytest.fixture
def user(env):
    env.projects = env.config_dir / "projects"
    env.config = env.config_dir / "obsidian-memory" / "config.yaml"
    env.config.parent.mkdir(parents=True, exist_ok=True)
    return env


def stored_text(env) -> str:
    """Every text the archive holds that a note, recall or the context can show."""
    db = sqlite3.connect(env.archive_db)
    try:
        queries = ["SELECT title || ' ' || COALESCE(last_assistant_message, '') || details FROM sessions",
                   "SELECT text || ' ' || COALESCE(answer, '') FROM prompts", "SELECT text FROM compact_summaries",
                   "SELECT text || COALESCE(detail, '') FROM outcomes",
                   "SELECT title || asked || outcome || said FROM recall_docs"]
        return "\n".join(str(row[0]) for query in queries for row in db.execute(query))
    finally:
        db.close()


def revisions(env) -> dict[str, int]:
    db = sqlite3.connect(env.archive_db)
    try:
        return dict(db.execute("SELECT session_id, revision FROM sessions"))
    finally:
        db.close()


def note_text(env) -> str:
    notes = list((env.vault / "Meta" / "claude-sessions").rglob("*.md"))
    assert len(notes) == 1, notes
    return notes[0].read_text(encoding="utf-8")


def archive_hook(env, path, sid, event="SessionEnd", script=None, **changes):
    payload = hook_payload(event, path, session_id=sid, **changes)
    result = env.hook(["archive"], payload, **({"script": script} if script else {}))
    assert result.returncode == 0, result.stderr.decode()
    env.follow_ups_done()


def test_redaction_turned_on_redacts_a_grown_sessions_old_prompts_and_summaries(user):
    sid = session_id(71)
    path = user.projects / "-work-demo" / f"{sid}.jsonl"
    first = [f"deploy with {SECRET}", "then run the tests"]
    # (prompt_recall off: no background `embed` holds the archive open, with its old pages in the
    # WAL, while the file's bytes are read below)
    user.config.write_text("redact: false\nprompt_recall: off\n", encoding="utf-8")
    write_transcript(path, sid, first)
    archive_hook(user, path, sid)
    archive_hook(user, path, sid, "PostCompact", compact_summary=f"<summary>bot token {SUMMARY_SECRET}</summary>")
    assert SECRET in stored_text(user) and SECRET in note_text(user)     # stored as it was, as asked

    user.config.write_text("redact: true\nprompt_recall: off\n", encoding="utf-8")
    write_transcript(path, sid, first + ["and now the docs"])
    archive_hook(user, path, sid, "PreCompact")

    stored, note = stored_text(user), note_text(user)
    raw = b"".join(p.read_bytes() for p in user.config_dir.glob("session-archive.db*"))
    for secret in (SECRET, SUMMARY_SECRET):
        assert secret not in stored and secret not in note and secret.encode() not in raw
    assert "deploy with [REDACTED:github_token]" in stored and "[REDACTED:github_token]" in note
    assert "[REDACTED:slack_token]" in stored and "and now the docs" in note


def test_the_sweep_redacts_again_the_sessions_never_archived_again(user):
    """Redaction turned on, nothing archived since: the sweep (what SessionStart starts) redacts
    the archive again; a session whose text did not change is not changed (nor its note)."""
    leaky, plain = session_id(72), session_id(73)
    user.config.write_text("redact: false\n", encoding="utf-8")
    for sid, prompts in ((leaky, [f"the key is {SECRET}"]), (plain, ["nothing secret here"])):
        path = write_transcript(user.projects / "-work-demo" / f"{sid}.jsonl", sid, prompts)
        archive_hook(user, path, sid)
    before = revisions(user)
    user.config.write_text("redact: true\n", encoding="utf-8")
    assert "2 of its sessions were stored under other redaction rules" in user.run("doctor").stdout.decode()

    swept = user.run("sweep")
    assert swept.returncode == 0, swept.stderr.decode()
    assert "redacted 1 archived session(s) again" in swept.stdout.decode()
    assert SECRET not in stored_text(user) and "the key is [REDACTED:github_token]" in stored_text(user)
    notes = [p.read_text(encoding="utf-8") for p in (user.vault / "Meta" / "claude-sessions").rglob("*.md")]
    assert len(notes) == 2 and not any(SECRET in text for text in notes)
    assert any("the key is [REDACTED:github_token]" in text for text in notes)
    after = revisions(user)
    assert after[plain] == before[plain] and after[leaky] > before[leaky]
    again = user.run("sweep")
    assert "redacted" not in again.stdout.decode()                           # done once
    assert "other redaction rules" not in user.run("doctor").stdout.decode()


def test_an_upgrade_with_a_new_pattern_redacts_what_the_old_rules_let_through(user, tmp_path):
    """The same session archived by this version, then by an upgrade whose rules know one more
    format: the prompt archived before the upgrade loses its secret too."""
    upgraded = tmp_path / "upgraded"
    for part in ("obsidian_memory", "scripts", "templates"):
        shutil.copytree(REPO / part, upgraded / part, ignore=shutil.ignore_patterns("__pycache__"))
    rules = upgraded / "obsidian_memory" / "capture" / "redact.py"
    text = rules.read_text(encoding="utf-8")
    rules.write_text(text.replace('_TOKENS = [\n', '_TOKENS = [\n    ("acme_key", "acme_", r"acme_[A-Za-z0-9]{20,}"),\n', 1),
                     encoding="utf-8")
    sid = session_id(74)
    path = user.projects / "-work-demo" / f"{sid}.jsonl"
    first = [f"the vendor key is {NEW_KIND}", "wire it in"]
    write_transcript(path, sid, first)
    archive_hook(user, path, sid)
    assert NEW_KIND in stored_text(user)      # (main's rules do not know the format)

    write_transcript(path, sid, first + ["one more step"])
    archive_hook(user, path, sid, "PreCompact", script=upgraded / "scripts" / "obsidian_memory.py")
    assert NEW_KIND not in stored_text(user) and NEW_KIND not in note_text(user)
    assert "the vendor key is [REDACTED:acme_key]" in stored_text(user)


def test_the_sweep_redacts_a_bounded_number_of_sessions_a_run(user, monkeypatch):
    user.apply(monkeypatch)
    user.config.write_text("redact: false\n", encoding="utf-8")
    sids = [session_id(80 + n) for n in range(5)]
    for sid in sids:
        write_transcript(user.projects / "-work-demo" / f"{sid}.jsonl", sid, [f"key {SECRET} number {sid}"])
    capture.import_transcripts(settings_module.load(), progress=False)
    monkeypatch.setattr(capture, "REDACT_AGAIN_BATCH", 1)
    monkeypatch.setattr(capture, "REDACT_AGAIN_PER_RUN", 2)
    user.config.write_text("redact: true\n", encoding="utf-8")
    runs = [capture.sweep(settings_module.load(), quiet_seconds=0) for _ in range(3)]
    assert [(run.redacted_again, run.redaction_left) for run in runs] == [(2, True), (2, True), (1, False)]
    assert "more archived sessions to redact again at the next sweep" in runs[0].line()
    assert SECRET not in stored_text(user)


def test_a_summary_added_while_redaction_was_off_is_redacted_once_it_is_on_again(user):
    """PostCompact's summary stored under `redact: false` for a session archived with redaction on
    (its transcript gone: the summary alone is kept): the session's rules are unknown from then on,
    and the sweep redacts it again once redaction is back on."""
    sid = session_id(76)
    path = write_transcript(user.projects / "-work-demo" / f"{sid}.jsonl", sid, ["tidy the build"])
    archive_hook(user, path, sid)
    path.unlink()
    user.config.write_text("redact: false\n", encoding="utf-8")
    archive_hook(user, None, sid, "PostCompact", compact_summary=f"<summary>bot token {SUMMARY_SECRET}</summary>",
                 transcript_path="")
    assert SUMMARY_SECRET in stored_text(user)

    user.config.write_text("redact: true\n", encoding="utf-8")
    assert "redacted 1 archived session(s) again" in user.run("sweep").stdout.decode()
    assert SUMMARY_SECRET not in stored_text(user) and SUMMARY_SECRET not in note_text(user)
    assert "[REDACTED:slack_token]" in stored_text(user)
