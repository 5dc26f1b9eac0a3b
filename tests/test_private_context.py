"""Private notes never reach the model through what the hooks inject or the session notes we
write: the SessionStart hook (state, learnings, recent sessions) and the list of files a
session touched, run as Claude Code runs them."""
from __future__ import annotations

import json

import pytest

from archive_fixtures import write_transcript
from context_fixtures import add_sessions, make_repo, session_id, write_note

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
               "---\nsession_id: x\ntags: [claude-session, private]\n---\n# topic2\n")
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
