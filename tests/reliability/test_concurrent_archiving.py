"""Eight hook processes archiving at once into one archive and one vault."""
from __future__ import annotations

from archive_fixtures import hook_payload, session_id, write_transcript
from reliability_kit import archive_counts, history_lines, session_notes, start_hook_archive, temp_files


def test_eight_hooks_at_once_leave_one_row_one_note_and_one_history_row_per_session(env):
    projects = env.config_dir / "projects" / "-work-demo"
    distinct = [session_id(100 + n) for n in range(5)]
    shared = session_id(200)
    for n, sid in enumerate(distinct + [shared]):
        write_transcript(projects / f"{sid}.jsonl", sid, [f"prompt {n} a", f"prompt {n} b"],
                         start=f"2026-03-0{n % 5 + 1}T09:{n:02d}:00.000Z")
    # five processes on distinct sessions, three on the same one, all started before any ends
    targets = distinct + [shared] * 3
    procs = [start_hook_archive(env, hook_payload("SessionEnd", projects / f"{sid}.jsonl", session_id=sid))
             for sid in targets]
    outcomes = [(proc.wait(timeout=120), proc.stdout.read(), proc.stderr.read()) for proc in procs]
    assert outcomes == [(0, b"", b"")] * len(targets)
    env.follow_ups_done()     # (what a hook could not do in its time under load, its follow-up does)

    counts = archive_counts(env.archive_db)
    assert counts["integrity"] == "ok"
    assert sorted(counts["sessions"]) == sorted((sid, 1) for sid in distinct + [shared])
    assert counts["prompts"] == {sid: 2 for sid in distinct + [shared]}
    notes = session_notes(env.vault)
    assert len(notes) == 6 and sorted(counts["notes"].values()) == notes
    assert len(history_lines(env.vault)) == 6
    assert temp_files(env.vault) == []
    log = env.log_file.read_text(encoding="utf-8") if env.log_file.exists() else ""
    assert "Traceback" not in log


def test_archive_import_and_hooks_racing_on_the_same_sessions_agree(env):
    projects = env.config_dir / "projects" / "-work-demo"
    sids = [session_id(300 + n) for n in range(4)]
    for n, sid in enumerate(sids):
        write_transcript(projects / f"{sid}.jsonl", sid, [f"task {n}"])
    import subprocess
    import sys
    from testkit import CLI
    importers = [subprocess.Popen([sys.executable, str(CLI), "import"], stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, env=env.environ(), cwd=str(env.root)) for _ in range(2)]
    hooks = [start_hook_archive(env, hook_payload("Stop", projects / f"{sid}.jsonl", session_id=sid)) for sid in sids]
    for proc in importers + hooks:
        assert proc.wait(timeout=120) == 0, proc.stderr.read()
    env.follow_ups_done()
    counts = archive_counts(env.archive_db)
    assert counts["integrity"] == "ok"
    assert sorted(counts["sessions"]) == sorted((sid, 1) for sid in sids)
    assert len(session_notes(env.vault)) == 4 and len(history_lines(env.vault)) == 4
