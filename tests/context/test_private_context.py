"""Private notes never reach the model through what the hooks inject or the session notes we
write: the SessionStart hook (state, learnings, recent sessions) and the list of files a
session touched, run as Claude Code runs them."""
from __future__ import annotations

import json
import os
import sqlite3

import pytest

from archive_fixtures import write_transcript
from context_fixtures import add_sessions, make_repo, session_id, write_note
from testkit import CLI

PAYLOAD = {"hook_event_name": "SessionStart", "source": "startup", "session_id": "f" * 8 + "-0000-4000-8000-" + "0" * 12}


@pytest.fixture
def repo(tmp_path):
    return make_repo(tmp_path / "repo")


def configure(env, text: str) -> None:
    folder = env.config_dir / "obsidian-memory"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "config.yaml").write_text(text, encoding="utf-8")


def context(env, repo) -> str:
    result = env.hook(["session-start"], {**PAYLOAD, "cwd": str(repo)})
    assert result.returncode == 0 and result.stderr == b"", result.stderr
    return json.loads(result.stdout)["hookSpecificOutput"]["additionalContext"] if result.stdout else ""


def test_a_private_state_note_is_left_out_of_the_context(env, repo):
    write_note(env, "Meta/claude-state.md", "---\nprivate: true\n---\nNegotiating the zanzibar offer.\n")
    write_note(env, "Meta/claude-learnings.md", "- 2026-01-01 10:00 — the build needs make\n")
    shown = context(env, repo)
    assert "the build needs make" in shown
    assert "zanzibar" not in shown and "Working state" not in shown


def test_state_show_refuses_a_private_state_note_in_one_line(env):
    write_note(env, "Meta/claude-state.md", "Negotiating the zanzibar offer. #private\n")
    shown = env.run("state", "show")
    assert shown.returncode == 2 and shown.stdout == b""
    assert "zanzibar" not in shown.stderr.decode() and "is a private note" in shown.stderr.decode()
    assert len(shown.stderr.decode().strip().splitlines()) == 1
    write_note(env, "Meta/claude-state.md", "Negotiating the zanzibar offer.\n")
    assert env.run("state", "show").stdout.decode() == "Negotiating the zanzibar offer.\n"


def test_a_learnings_note_in_a_private_folder_or_with_the_tag_is_left_out(env, repo):
    configure(env, "private: [Private]\nlearnings_note: Private/learnings.md\n")
    write_note(env, "Meta/claude-state.md", "Refactoring the parser.\n")
    write_note(env, "Private/learnings.md", "- 2026-01-01 10:00 — the quokka password rotates\n")
    shown = context(env, repo)
    assert "Refactoring the parser." in shown and "quokka" not in shown
    configure(env, "")
    write_note(env, "Meta/claude-learnings.md", "- 2026-01-01 10:00 — the quokka password rotates #private\n")
    shown = context(env, repo)
    assert "Refactoring the parser." in shown and "quokka" not in shown


def test_a_learnings_note_bigger_than_the_hook_reads_is_private_by_a_tag_outside_the_part_read(env, repo):
    write_note(env, "Meta/claude-state.md", "Refactoring the parser.\n")
    entries = "".join(f"- 2026-01-01 10:00 — the quokka password rotates, note {n}\n" for n in range(4000))
    write_note(env, "Meta/claude-learnings.md", "#private\n" + entries)      # the hook reads only the tail
    shown = context(env, repo)
    assert "Refactoring the parser." in shown and "quokka" not in shown


def test_a_session_whose_note_is_private_is_left_out_of_the_recent_sessions(env, repo):
    add_sessions(env.archive_db, str(repo), [1, 2, 3], title=lambda n: f"session about topic{n}")
    write_note(env, f"Meta/claude-sessions/2026-01/2026-01-01_{session_id(2)[:8]}.md",
               f"---\nsession_id: {session_id(2)}\ntags: [claude-session, private]\n---\n# topic2\n")
    # (the note's own session_id: one naming another session leaves session 2 without a note, and
    # the sweep the first start spawns writes it one, public, which the second start then shows)
    shown = context(env, repo)
    assert "topic1" in shown and "topic3" in shown
    assert "topic2" not in shown and session_id(2) not in shown
    configure(env, "private: ['Meta/claude-sessions/2026-01/*_" + session_id(3)[:8] + ".md']\n")
    shown = context(env, repo)
    assert "topic1" in shown and "topic3" not in shown and "topic2" not in shown


def test_a_private_vault_file_a_session_touched_is_not_named_in_its_note(env):
    configure(env, "private: [Clients/acme]\n")
    sid = "1234abcd-0000-4000-8000-000000000001"
    private_cwd, public_cwd = env.vault / "Clients" / "acme", env.vault / "Public"
    for n, cwd in enumerate((private_cwd, public_cwd, env.root / "elsewhere")):
        transcript = write_transcript(env.config_dir / "projects" / "-x" / f"{sid[:-1]}{n}.jsonl", f"{sid[:-1]}{n}",
                                      ["Edit the file"], cwd=str(cwd), start=f"2026-03-0{n + 4}T09:00:00.000Z")
        result = env.run("archive", "--transcript", transcript)
        assert result.returncode == 0, result.stderr
    notes = {path.name[:10]: path.read_text(encoding="utf-8")
             for path in (env.vault / "Meta" / "claude-sessions").rglob("*.md")}
    private_note, public_note, elsewhere = notes["2026-03-04"], notes["2026-03-05"], notes["2026-03-06"]
    # (the session's own folder is its working directory, not a vault note: its cwd stays, to resume it)
    assert "src/file0.py" not in private_note and "(a private note of the vault)" in private_note
    assert f"{public_cwd}/src/file0.py" in public_note
    assert f"{env.root}/elsewhere/src/file0.py" in elsewhere


def test_show_renders_a_session_from_the_archive_instead_of_reading_its_private_note(env):
    sid = "5678abcd-0000-4000-8000-000000000001"
    transcript = write_transcript(env.config_dir / "projects" / "-x" / f"{sid}.jsonl", sid, ["Plan the migration"])
    assert env.run("archive", "--transcript", transcript).returncode == 0
    note = next((env.vault / "Meta" / "claude-sessions").rglob("*_5678abcd.md"))
    note.write_text(note.read_text(encoding="utf-8").replace("---\n", "---\nprivate: true\n", 1)
                    + "\nMy zanzibar thoughts.\n", encoding="utf-8")
    shown = env.run("show", sid[:8])
    assert shown.returncode == 0, shown.stderr
    assert "Plan the migration" in shown.stdout.decode() and "zanzibar" not in shown.stdout.decode()
    note.write_text(note.read_text(encoding="utf-8").replace("private: true\n", ""), encoding="utf-8")
    assert "zanzibar" in env.run("show", sid[:8]).stdout.decode()


# -- the sessions' notes judged by the archive's record of the vault ----------------------
# Every archive run and sweep records, by each session note's stamp (size, mtime_ns, ctime_ns),
# whether its text makes it private; SessionStart takes that verdict for a note whose stamp is
# unchanged (a stat) and reads only the notes that changed since.

# The real launcher in a subprocess, with an audit hook that writes down every file the process opens.
OPENS_LOGGED = ("import os, runpy, sys\n"
                "log = open(os.environ['OPENED_LOG'], 'a', encoding='utf-8')\n"
                "def note(event, args):\n"
                "    if event == 'open' and isinstance(args[0], str) and args[0].endswith('.md'):\n"
                "        log.write(args[0] + '\\n'); log.flush()\n"
                "sys.addaudithook(note)\n"
                f"sys.argv[0] = {str(CLI)!r}\n"
                "runpy.run_path(sys.argv[0], run_name='__main__')\n")


def archived_sessions(env, repo, count: int) -> dict[str, str]:
    """`count` sessions of `repo` archived by the SessionEnd hook: {title: its note's path}."""
    from archive_fixtures import hook_payload, session_id as transcript_id

    notes = {}
    for n in range(1, count + 1):
        sid, title = transcript_id(n), f"topic{n} of the sessions"
        transcript = write_transcript(env.config_dir / "projects" / "-repo" / f"{sid}.jsonl", sid,
                                      [f"work on {title}; see the #publics plan"], cwd=str(repo),
                                      start=f"2026-03-0{n}T09:00:00.000Z", title=title)
        done = env.hook(["archive"], hook_payload("SessionEnd", transcript, session_id=sid, cwd=str(repo)))
        assert done.returncode == 0 and done.stdout == b"", done.stderr
        (note,) = (env.vault / "Meta" / "claude-sessions").rglob(f"*_{sid[:8]}.md")
        notes[title] = str(note)
    return notes


def quiet_sweep_stamp(env) -> None:
    """The sweep ran a moment ago: the SessionStart hook spawns none (nothing writes beside the test)."""
    from obsidian_memory.cli.commands import sweep

    stamp = env.config_dir / "obsidian-memory" / sweep.STAMP
    stamp.parent.mkdir(parents=True, exist_ok=True)
    stamp.touch()


def context_and_notes_read(env, repo) -> tuple[str, list[str]]:
    """The SessionStart hook's context, and the session notes its process opened."""
    log = env.root / "opened.log"
    log.write_text("", encoding="utf-8")
    result = env.run("hook", "session-start", input=json.dumps({**PAYLOAD, "cwd": str(repo)}),
                     env={"OPENED_LOG": log}, script=env.root / "opens_logged.py")
    assert result.returncode == 0 and result.stderr == b"", result.stderr
    shown = json.loads(result.stdout)["hookSpecificOutput"]["additionalContext"]
    return shown, [path for path in log.read_text(encoding="utf-8").splitlines() if "/claude-sessions/" in path]


@pytest.fixture
def logged_launcher(env):
    """opens_logged.py: the launcher scripts/obsidian_memory.py run under OPENS_LOGGED."""
    script = env.root / "opens_logged.py"
    script.write_text(OPENS_LOGGED, encoding="utf-8")
    return script


def edit(path: str, old: str, new: str) -> None:
    text = open(path, encoding="utf-8").read()
    assert old in text
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(text.replace(old, new, 1))


def test_session_start_reads_no_session_note_whose_privacy_the_archive_judged_at_its_stamp(env, repo,
                                                                                         logged_launcher):
    notes = archived_sessions(env, repo, 3)
    quiet_sweep_stamp(env)
    shown, read = context_and_notes_read(env, repo)
    assert all(title in shown for title in notes)
    assert read == []                                    # three stats, no read
    edit(notes["topic2 of the sessions"], "the #publics plan", "the new plan")
    shown, read = context_and_notes_read(env, repo)
    assert all(title in shown for title in notes)
    assert [os.path.realpath(p) for p in read] == [os.path.realpath(notes["topic2 of the sessions"])]


def test_a_session_note_made_private_after_its_verdict_was_recorded_is_left_out(env, repo, logged_launcher):
    notes = archived_sessions(env, repo, 3)
    quiet_sweep_stamp(env)
    assert "topic2" in context_and_notes_read(env, repo)[0]
    path = notes["topic2 of the sessions"]
    before = os.stat(path)
    edit(path, "the #publics plan", "the #private plan")        # the same size ...
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))  # ... and mtime: only ctime tells
    shown, read = context_and_notes_read(env, repo)
    assert "topic1" in shown and "topic3" in shown and "topic2" not in shown
    assert len(read) == 1


def test_a_session_note_recorded_as_private_and_made_public_again_comes_back(env, repo, logged_launcher):
    notes = archived_sessions(env, repo, 3)
    path = notes["topic2 of the sessions"]
    edit(path, "the #publics plan", "the #private plan")
    swept = env.run("sweep")                   # the record now says: private, at this stamp
    assert swept.returncode == 0, swept.stderr
    quiet_sweep_stamp(env)
    with sqlite3.connect(env.archive_db) as db:
        assert db.execute("SELECT private FROM vault_notes WHERE path LIKE ?", (f"%{os.path.basename(path)}",)
                          ).fetchone() == (1,)
    shown, read = context_and_notes_read(env, repo)
    assert "topic1" in shown and "topic3" in shown and "topic2" not in shown and read == []
    edit(path, "the #private plan", "the #publics plan")
    shown, read = context_and_notes_read(env, repo)
    assert "topic2" in shown and len(read) == 1
