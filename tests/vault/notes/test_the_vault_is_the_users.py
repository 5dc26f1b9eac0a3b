"""What the user wrote in a session note survives every re-render, through the real hook: text
outside the generated part (under a retyped heading too), lines saved while a hook runs, a note
of the user's that carries a session's id, an iCloud placeholder, and notes of earlier versions
(docs/vault-writes.md)."""
from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
import threading
import time

from archive_fixtures import hook_payload, session_id, write_transcript
from testkit import CLI, FIXTURES

from obsidian_memory.vault.notes import note_layout
from obsidian_memory.vault.notes import sessions as notes

SID = session_id(2801)


def archive(env, transcript, event="SessionEnd"):
    done = env.run("hook", "archive", input=json.dumps(hook_payload(event, transcript, session_id=SID)))
    assert done.returncode == 0 and done.stdout == b"", done.stderr
    env.follow_ups_done()   # (a note no longer where it was is the detached sweep's to find)
    return done


def session_notes(vault, sid=SID) -> list:
    return sorted(p for p in vault.rglob("*.md") if notes.note_session_id(p.read_text(encoding="utf-8")) == sid)


def log_text(env) -> str:
    return env.log_file.read_text(encoding="utf-8") if env.log_file.exists() else ""


def start(env, prompts):
    transcript = write_transcript(env.config_dir / "projects" / "-work-demo" / f"{SID}.jsonl", SID, prompts)
    archive(env, transcript)
    [note] = session_notes(env.vault)
    return transcript, note


def test_text_under_a_retyped_heading_and_anywhere_outside_the_generated_part_survives(env):
    transcript, note = start(env, ["first prompt"])
    text = note.read_text(encoding="utf-8")
    assert text.count(note_layout.BEGIN) == 1 and text.count(note_layout.END) == 1
    heading = "## My notes"
    for retyped in ("## My Notes", "## My notes:"):
        text = note.read_text(encoding="utf-8").replace(f"{heading}\n", f"{retyped}\n", 1)
        heading = retyped
        text = text.replace(f"{retyped}\n", f"{retyped}\n\nUnder {retyped!r}: the parser needs a rewrite.\n", 1)
        text = text.replace(note_layout.BEGIN, f"A line of mine above the generated part ({retyped}).\n\n"
                            + note_layout.BEGIN, 1)
        note.write_text(text, encoding="utf-8")
        write_transcript(transcript, SID, ["first prompt", f"one more prompt after {retyped}"])
        archive(env, transcript)
        after = note.read_text(encoding="utf-8")
        assert f"Under {retyped!r}: the parser needs a rewrite." in after
        assert f"A line of mine above the generated part ({retyped})." in after
        assert f"one more prompt after {retyped}" in after        # the generated part is up to date
        assert "\n## My notes\n" not in after                     # no fresh section beside the retyped one
    assert session_notes(env.vault) == [note]


def test_a_line_written_inside_the_generated_part_is_moved_below_it_not_dropped(env):
    transcript, note = start(env, ["first prompt"])
    text = note.read_text(encoding="utf-8").replace("## Prompts\n", "## Prompts\n\nMy remark among the prompts.\n", 1)
    note.write_text(text, encoding="utf-8")
    write_transcript(transcript, SID, ["first prompt", "second prompt"])
    archive(env, transcript)
    parts = note_layout.split(note.read_text(encoding="utf-8"))
    assert "My remark among the prompts." not in parts.region and "My remark among the prompts." in parts.after
    assert "second prompt" in parts.region
    assert "moved below it" in log_text(env)


def test_a_note_of_an_earlier_version_migrates_without_losing_a_byte_of_the_users(env):
    transcript, note = start(env, ["first prompt"])
    old = note.read_text(encoding="utf-8")   # the same note as an earlier version wrote it: no markers
    old = old.replace(note_layout.BEGIN + "\n", "").replace(note_layout.END + "\n", "")
    users = "## My Notes:\n\nKept from before the markers, byte for byte.  \n\n- [ ] a task of mine\n"
    old = old[:old.index("## My notes")] + users
    note.write_text(old, encoding="utf-8")
    db = sqlite3.connect(env.archive_db)   # ... and the archive as an earlier version left it
    with db:
        db.execute("UPDATE sessions SET note_written = NULL")
    db.close()
    write_transcript(transcript, SID, ["first prompt", "after the upgrade"])
    archive(env, transcript)
    new = note.read_text(encoding="utf-8")
    assert note_layout.is_marked(new) and new.endswith(users)
    assert new.count("## Prompts") == 1


def test_a_users_own_note_carrying_a_sessions_id_is_never_overwritten(env):
    transcript, note = start(env, ["first prompt"])
    follow_up = env.vault / "Follow-up.md"
    mine = f'---\nsession_id: "{SID}"\n---\n# Follow-up\n\nMy own paragraph about what to do next.\n'
    follow_up.write_text(mine, encoding="utf-8")
    note.unlink()
    write_transcript(transcript, SID, ["first prompt", "resumed"])
    archive(env, transcript)
    assert follow_up.read_text(encoding="utf-8") == mine
    ours = [p for p in session_notes(env.vault) if p != follow_up]
    assert len(ours) == 1 and "resumed" in ours[0].read_text(encoding="utf-8")
    assert "Follow-up.md carries session" in log_text(env) and "not a note obsidian-memory wrote" in log_text(env)


def test_an_icloud_placeholder_counts_as_the_note_being_there(env):
    transcript, note = start(env, ["first prompt"])
    text = note.read_text(encoding="utf-8").rstrip("\n") + "\n\nWritten on my phone.\n"
    placeholder = note.with_name(f".{note.name}.icloud")
    placeholder.write_bytes(b"bplist00 evicted by iCloud")
    note.unlink()
    write_transcript(transcript, SID, ["first prompt", "while evicted"])
    archive(env, transcript)
    assert sorted(p.name for p in note.parent.iterdir()) == [placeholder.name]   # nothing written beside it
    assert "evicted by iCloud" in log_text(env)
    note.write_text(text, encoding="utf-8")      # downloaded again
    placeholder.unlink()
    write_transcript(transcript, SID, ["first prompt", "while evicted", "downloaded again"])
    archive(env, transcript)
    after = note.read_text(encoding="utf-8")
    assert "Written on my phone." in after and "while evicted" in after
    assert session_notes(env.vault) == [note]


def test_lines_appended_while_precompact_runs_re_archive_the_growing_session_all_survive(env):
    prompts = ["prompt 0"]
    transcript, note = start(env, prompts)
    written: list[str] = []
    stop = threading.Event()

    def editor():   # appends a line every 20 ms, as an editor or a sync client saving the note
        n = 0
        while not stop.is_set() and n < 150:
            with open(note, "a", encoding="utf-8") as handle:
                handle.write(f"\nline {n} typed while the hook ran\n")
            written.append(f"line {n} typed while the hook ran")
            n += 1
            time.sleep(0.02)

    thread = threading.Thread(target=editor)
    thread.start()
    round_ = 0
    try:
        while round_ < 8 or (thread.is_alive() and round_ < 80):   # until the editor's 150 lines are in
            round_ += 1
            prompts.append(f"prompt {round_}")
            write_transcript(transcript, SID, prompts)
            proc = subprocess.Popen([sys.executable, str(CLI), "hook", "archive"], stdin=subprocess.PIPE,
                                    stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env.environ(),
                                    cwd=str(env.root))
            out, err = proc.communicate(json.dumps(hook_payload("PreCompact", transcript, session_id=SID)).encode(),
                                        timeout=120)
            assert proc.returncode == 0 and out == b"", err
    finally:
        stop.set()
        thread.join()
    archive(env, transcript)
    final = note.read_text(encoding="utf-8")
    lost = [line for line in written if line not in final]
    assert lost == [] and len(written) == 150
    assert f"prompt {round_}" in note_layout.split(final).region
    assert session_notes(env.vault) == [note]


def test_a_copy_with_the_same_session_id_never_takes_over_the_note_this_machine_recorded(env):
    transcript, note = start(env, ["first prompt"])
    copy = env.vault / note.name          # the same name at a shorter path: a copy the user or a sync client made
    copy.write_text(note.read_text(encoding="utf-8") + "\nA line only the copy has.\n", encoding="utf-8")
    write_transcript(transcript, SID, ["first prompt", "second prompt"])
    archive(env, transcript)
    assert "second prompt" in note.read_text(encoding="utf-8")
    assert "second prompt" not in copy.read_text(encoding="utf-8")      # the copy is left as it is
    doctor = env.run("doctor").stdout.decode("utf-8")
    line = next(line for line in doctor.splitlines() if "second note" in line or "a copy" in line)
    recorded = str(note.relative_to(env.vault))
    assert f"{copy.name} (a copy of session {SID}, whose note is {recorded})" in line
    assert f"{recorded} (" not in line


def test_doctor_names_a_users_own_note_carrying_the_id_as_theirs(env):
    transcript, note = start(env, ["first prompt"])
    (env.vault / "Follow-up.md").write_text(f'---\nsession_id: "{SID}"\n---\nMine.\n', encoding="utf-8")
    doctor = env.run("doctor").stdout.decode("utf-8")
    assert f"Follow-up.md (your own note (left as it is: obsidian-memory never rewrites it) carrying the id of " \
           f"session {SID}" in doctor


def test_a_deleted_note_is_never_named_and_the_session_says_it_has_none(env, tmp_path):
    from context_fixtures import make_repo

    repo = make_repo(tmp_path / "repo")
    transcript = write_transcript(env.config_dir / "projects" / "-repo" / f"{SID}.jsonl", SID, ["first prompt"],
                                  cwd=str(repo))
    archive(env, transcript)
    [note] = session_notes(env.vault)
    relative = str(note.relative_to(env.vault))
    payload = json.loads((FIXTURES / "hooks" / "session_start_v2.1.332_startup.json").read_text(encoding="utf-8"))

    def context():
        done = env.hook(["session-start"], {**payload, "cwd": str(repo)})
        assert done.returncode == 0, done.stderr
        return json.loads(done.stdout)["hookSpecificOutput"]["additionalContext"]

    listed = env.run("sessions").stdout.decode("utf-8")
    assert relative in listed and f"note {relative}" in context()
    placeholder = note.with_name(f".{note.name}.icloud")     # evicted: still there
    placeholder.write_bytes(b"evicted")
    note.unlink()
    assert relative in env.run("sessions").stdout.decode("utf-8") and f"note {relative}" in context()
    placeholder.unlink()                                     # deleted
    listed = env.run("sessions").stdout.decode("utf-8")
    assert relative not in listed and "(no note in the vault)" in listed
    shown = context()
    assert relative not in shown and "no note in the vault" in shown and SID in shown
    as_json = json.loads(env.run("sessions", "--json").stdout)
    assert [row["note_path"] for row in as_json] == [None]
