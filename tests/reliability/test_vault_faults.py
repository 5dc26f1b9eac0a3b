"""The vault missing, read-only, or with a folder where a note goes: the archive row is kept, the
error is logged, nothing else in the vault is touched; once the vault is fine, the notes come."""
from __future__ import annotations

import os

from archive_fixtures import hook_payload, session_id, write_transcript
from reliability_kit import (archive_counts, cli, history_lines, hook_archive, session_notes, tree_snapshot,
                             without_root_powers)


def _session(env, n: int):
    sid = session_id(n)
    path = write_transcript(env.config_dir / "projects" / "-work-demo" / f"{sid}.jsonl", sid, [f"prompt {n}"])
    return sid, hook_payload("SessionEnd", path, session_id=sid)


def _users_vault(vault):
    (vault / "Projects").mkdir(parents=True, exist_ok=True)
    (vault / "Projects" / "plan.md").write_text("# Plan\n", encoding="utf-8")
    (vault / "Meta").mkdir(exist_ok=True)
    (vault / "Meta" / "claude-session-history.md").write_text("# mine\n", encoding="utf-8")


def _quiet(result):
    assert (result.returncode, result.stdout, result.stderr) == (0, b"", b"")


def _log(env) -> str:
    return env.log_file.read_text(encoding="utf-8")


def test_a_missing_vault_keeps_the_row_creates_nothing_and_the_notes_come_when_it_appears(env):
    env.vault.rmdir()
    sid, payload = _session(env, 1)
    _quiet(hook_archive(env, payload))
    assert archive_counts(env.archive_db)["notes"] == {sid: None}
    assert not env.vault.exists()
    assert "does not exist" in _log(env)

    env.vault.mkdir()
    swept = cli(env, "sweep", "--quiet-seconds", "0", "--wait", "60")   # (after a sweep the hook started, if any)
    assert swept.returncode == 0 and swept.stdout.startswith(b"archived 0 / unchanged 1")
    notes = session_notes(env.vault)
    assert archive_counts(env.archive_db)["notes"] == {sid: notes[0]} and len(notes) == 1
    assert len(history_lines(env.vault)) == 1
    again = cli(env, "import")   # written once: nothing to do the next time
    assert again.returncode == 0 and session_notes(env.vault) == notes


def test_a_note_the_user_deleted_is_not_brought_back(env):
    sid, payload = _session(env, 2)
    _quiet(hook_archive(env, payload))
    [note] = session_notes(env.vault)
    (env.vault / note).unlink()
    assert cli(env, "import").returncode == 0
    assert session_notes(env.vault) == []


def test_a_read_only_vault_keeps_the_row_touches_nothing_and_is_caught_up_later(env):
    _users_vault(env.vault)
    sid, payload = _session(env, 3)
    os.chmod(env.vault, 0o555)
    for folder in (env.vault / "Projects", env.vault / "Meta"):
        os.chmod(folder, 0o555)
    before = tree_snapshot(env.vault)
    try:
        _quiet(hook_archive(env, payload, preexec_fn=without_root_powers()))
        assert archive_counts(env.archive_db)["notes"] == {sid: None}
        assert tree_snapshot(env.vault) == before
        assert "note not written: PermissionError" in _log(env)
    finally:
        for folder in (env.vault, env.vault / "Projects", env.vault / "Meta"):
            os.chmod(folder, 0o755)
    imported = cli(env, "import", preexec_fn=without_root_powers())
    assert imported.returncode == 0, imported.stderr
    assert len(session_notes(env.vault)) == 1 and len(history_lines(env.vault)) == 1
    assert (env.vault / "Meta" / "claude-session-history.md").read_text(encoding="utf-8").startswith("# mine\n")


def test_a_folder_where_the_note_goes_keeps_the_row_and_touches_nothing_else(env):
    _users_vault(env.vault)
    sid, payload = _session(env, 4)
    blocker = env.vault / "Meta" / "claude-sessions" / "2026-03" / f"2026-03-04_{sid[:8]}.md"
    blocker.mkdir(parents=True)
    (blocker / "inside.md").write_text("user file", encoding="utf-8")
    before = tree_snapshot(env.vault)
    _quiet(hook_archive(env, payload))
    assert archive_counts(env.archive_db)["notes"] == {sid: None}
    assert tree_snapshot(env.vault) == before
    assert "is a folder" in _log(env)
    assert cli(env, "sweep", "--quiet-seconds", "0").returncode == 0   # still in the way: still untouched
    assert tree_snapshot(env.vault) == before


def test_the_mode_obeying_runner_really_cannot_write_a_read_only_folder(env, tmp_path):
    # the check the read-only test stands on: without it, root would write anyway
    target = env.vault / "x.md"
    script = tmp_path / "probe.py"
    script.write_text(f"try:\n    open({str(target)!r}, 'w')\nexcept OSError as exc:\n    print(type(exc).__name__)\n",
                      encoding="utf-8")
    os.chmod(env.vault, 0o555)
    try:
        probe = cli(env, preexec_fn=without_root_powers(), script=script)
    finally:
        os.chmod(env.vault, 0o755)
    assert probe.stdout == b"PermissionError\n" and not target.exists()


def test_a_history_table_that_could_not_be_written_comes_on_the_next_run_with_nothing_new(env):
    blocker = env.vault / "Meta" / "claude-session-history.md"
    blocker.mkdir(parents=True)   # in the way of the history table, not of the notes
    sid, payload = _session(env, 5)
    _quiet(hook_archive(env, payload))
    assert len(session_notes(env.vault)) == 1 and blocker.is_dir()
    blocker.rmdir()
    imported = cli(env, "import")   # the transcript is unchanged: only the table is behind
    assert imported.returncode == 0 and imported.stdout.startswith(b"archived 0 / unchanged 1")
    assert len(history_lines(env.vault)) == 1


def test_a_note_left_behind_while_the_vault_was_away_is_brought_up_to_date(env):
    sid, payload = _session(env, 6)
    _quiet(hook_archive(env, payload))
    [note] = session_notes(env.vault)
    (env.vault / note).write_text((env.vault / note).read_text(encoding="utf-8") + "my own words\n",
                                  encoding="utf-8")
    away = env.vault.with_name("vault-unmounted")
    env.vault.rename(away)
    write_transcript(env.config_dir / "projects" / "-work-demo" / f"{sid}.jsonl", sid,
                     ["prompt 6", "a prompt typed later"])
    _quiet(hook_archive(env, payload))   # the archive has the new prompt, the vault is not there
    away.rename(env.vault)
    assert "a prompt typed later" not in (env.vault / note).read_text(encoding="utf-8")

    swept = cli(env, "sweep", "--quiet-seconds", "0", "--wait", "60")   # (after a sweep the hook started, if any)
    assert swept.returncode == 0 and swept.stdout.startswith(b"archived 0 / unchanged 1")
    text = (env.vault / note).read_text(encoding="utf-8")
    assert "a prompt typed later" in text and text.count("my own words") == 1
    assert session_notes(env.vault) == [note]
