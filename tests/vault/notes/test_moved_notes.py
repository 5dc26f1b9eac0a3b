"""A session's note is found by its `session_id` property wherever the user moved it, updated in
place with the user's section, properties and tags kept; sessions whose ids share
their first 8 characters get a note each."""
from __future__ import annotations

import os
import sqlite3

import pytest
from archive_fixtures import hook_payload, session_id, write_transcript
from hypothesis import HealthCheck, given, settings as hypothesis_settings, strategies as st

from obsidian_memory.capture import archiving as capture
from obsidian_memory.core import settings as settings_module
from obsidian_memory.vault.notes import sessions as notes

SID = session_id(21)
USER_FRONTMATTER = "aliases: [the parser week]\nstatus: reviewed\nrating: 5\n"


@pytest.fixture
def user(env):
    env.projects = env.config_dir / "projects"
    env.transcript = write_transcript(env.projects / "-work-demo" / f"{SID}.jsonl", SID, ["first prompt"])
    assert env.run("import").returncode == 0
    [env.note] = (env.vault / "Meta" / "claude-sessions").rglob("*.md")
    return env


def session_notes(vault) -> dict[str, list[str]]:
    """session_id -> the notes in the whole vault that say they are its note."""
    found: dict[str, list[str]] = {}
    for path in vault.rglob("*.md"):
        sid = notes.note_session_id(path.read_text(encoding="utf-8"))
        if sid:
            found.setdefault(sid, []).append(str(path.relative_to(vault)))
    return found


def recorded_note(env, sid: str = SID) -> str:
    db = sqlite3.connect(env.archive_db)
    try:
        return db.execute("SELECT note_path FROM sessions WHERE session_id = ?", (sid,)).fetchone()[0]
    finally:
        db.close()


def move_and_edit(env, target: str):
    """What a user does: move the note, add properties and a tag, write under `## My notes`."""
    text = env.note.read_text(encoding="utf-8")
    text = text.replace("tags: [claude-session]\n", "tags: [claude-session, parsing]\n" + USER_FRONTMATTER, 1)
    text = text.rstrip("\n") + "\n\nMy own conclusion: the parser needs a rewrite.\n"
    moved = env.vault / target
    moved.parent.mkdir(parents=True, exist_ok=True)
    moved.write_text(text, encoding="utf-8")
    env.note.unlink()
    return moved


def test_a_moved_note_is_updated_where_it_is_with_the_users_additions_kept(user):
    moved = move_and_edit(user, "Projects/x.md")
    write_transcript(user.transcript, SID, ["first prompt", "second prompt"])
    result = user.hook(["archive"], hook_payload("SessionEnd", user.transcript, session_id=SID))
    assert result.returncode == 0 and result.stdout == b""
    assert user.follow_ups_done()          # the hook walks no vault: its detached sweep finds the note
    assert session_notes(user.vault) == {SID: ["Projects/x.md"]}   # no duplicate at the old path
    assert not os.listdir(user.config_dir / "obsidian-memory" / "vault-pending")   # done: no sweep due
    text = moved.read_text(encoding="utf-8")
    assert "second prompt" in text and "My own conclusion: the parser needs a rewrite." in text
    assert 'tags: ["claude-session", "parsing"]' in text and USER_FRONTMATTER in text
    assert recorded_note(user) == "Projects/x.md"
    history = (user.vault / "Meta" / "claude-session-history.md").read_text(encoding="utf-8")
    assert "[[x]]" in history
    again = user.hook(["archive"], hook_payload("SessionEnd", user.transcript, session_id=SID))
    assert again.returncode == 0 and moved.read_text(encoding="utf-8") == text   # idempotent


def test_import_finds_a_moved_note_and_never_recreates_it_at_the_old_path(user):
    move_and_edit(user, "Archive/2026/old session.md")
    write_transcript(user.transcript, SID, ["first prompt", "second prompt"])
    assert user.run("import").returncode == 0
    assert session_notes(user.vault) == {SID: ["Archive/2026/old session.md"]}


def test_the_local_index_finds_a_moved_note_without_walking_the_vault(user, monkeypatch):
    move_and_edit(user, "Deep/er/moved.md")
    assert user.run("reindex").returncode == 0
    user.apply(monkeypatch)
    monkeypatch.setattr(notes, "WALK_FILE_LIMIT", 0)   # only the index can find it now
    write_transcript(user.transcript, SID, ["first prompt", "second prompt"])
    result = capture.archive_transcript(str(user.transcript), settings_module.load())
    assert result.note_path == "Deep/er/moved.md"
    assert session_notes(user.vault) == {SID: ["Deep/er/moved.md"]}


def test_an_error_of_the_index_library_falls_back_to_the_walk(user, monkeypatch):
    """The index may use another SQLite library than the archive (sqlean): its errors are not
    sqlite3's, and a lookup that raises one must leave the note to the walk, not fail the run."""
    from obsidian_memory.core import sqlitedb
    from obsidian_memory.search.store import VaultIndex

    move_and_edit(user, "Deep/er/moved.md")
    assert user.run("reindex").returncode == 0
    user.apply(monkeypatch)
    library = sqlitedb.index_library()[0]

    def busy(*args, **kwargs):
        raise library.OperationalError("database is locked")

    monkeypatch.setattr(VaultIndex, "paths_with_property", busy)
    write_transcript(user.transcript, SID, ["first prompt", "second prompt"])
    result = capture.archive_transcript(str(user.transcript), settings_module.load())
    assert result.note_path == "Deep/er/moved.md"
    assert session_notes(user.vault) == {SID: ["Deep/er/moved.md"]}


def test_a_deleted_note_is_not_brought_back_until_its_session_changes(user):
    user.note.unlink()
    db = sqlite3.connect(user.archive_db)
    db.execute("UPDATE sessions SET revision = revision + 1")   # its note is behind the archive
    db.commit()
    db.close()
    assert user.run("import").returncode == 0 and session_notes(user.vault) == {}
    write_transcript(user.transcript, SID, ["first prompt", "second prompt"])
    assert user.run("import").returncode == 0
    assert session_notes(user.vault) == {SID: [str(user.note.relative_to(user.vault))]}


def test_sessions_whose_ids_share_their_first_8_characters_get_a_note_each(env):
    """21.9: the second session's note overwrote the first's."""
    first, second = "abcdef12-0000-4000-8000-000000000001", "abcdef12-1111-4000-8000-000000000002"
    projects = env.config_dir / "projects" / "-work-demo"
    for sid, prompt in ((first, "the first session"), (second, "the second session")):
        write_transcript(projects / f"{sid}.jsonl", sid, [prompt])
        assert env.run("import").returncode == 0
    found = session_notes(env.vault)
    assert found == {first: ["Meta/claude-sessions/2026-03/2026-03-04_abcdef12.md"],
                     second: ["Meta/claude-sessions/2026-03/2026-03-04_abcdef12-1111.md"]}
    for sid, prompt in ((first, "the first session"), (second, "the second session")):
        write_transcript(projects / f"{sid}.jsonl", sid, [prompt, "more"])
    assert env.run("import").returncode == 0
    assert session_notes(env.vault) == found
    text = (env.vault / found[first][0]).read_text(encoding="utf-8")
    assert "the first session" in text and "the second session" not in text


def test_a_file_of_the_users_at_the_notes_path_is_never_overwritten(env):
    mine = env.vault / "Meta" / "claude-sessions" / "2026-03" / f"2026-03-04_{SID[:8]}.md"
    mine.parent.mkdir(parents=True)
    mine.write_text("# my own note that happens to have this name\n", encoding="utf-8")
    write_transcript(env.config_dir / "projects" / "-work-demo" / f"{SID}.jsonl", SID, ["a prompt"])
    assert env.run("import").returncode == 0
    assert mine.read_text(encoding="utf-8") == "# my own note that happens to have this name\n"
    assert session_notes(env.vault) == {SID: [f"Meta/claude-sessions/2026-03/2026-03-04_{SID[:13]}.md"]}


_FOLDERS = st.sampled_from(["Projects", "Projects/deep/er", "Archive", "", "Meta/claude-sessions/2026-03", "Ünïcode ✓"])
_TAGS = st.lists(st.sampled_from(["parsing", "todo/later", "claude-session", "x y", "#odd"]), max_size=3)
_STEPS = st.lists(st.one_of(
    st.tuples(st.just("move"), st.integers(0, 2), _FOLDERS, st.text("abcxyz -", min_size=1, max_size=8)),
    st.tuples(st.just("edit"), st.integers(0, 2), _TAGS, st.text("abc :", max_size=6)),
    st.tuples(st.just("archive"), st.integers(0, 2)),
), min_size=1, max_size=8)


@hypothesis_settings(max_examples=20, deadline=None,
                     suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(steps=_STEPS)
def test_whatever_the_user_does_each_session_keeps_exactly_one_note_and_their_additions(env, monkeypatch, steps):
    """Property: moves, frontmatter edits and re-archives in any order leave exactly one note per
    session (three sessions, two of which share their first 8 characters), and every tag and
    user line added to a note is still in it."""
    import shutil

    env.apply(monkeypatch)
    for leftover in (env.archive_db, env.vault):
        if leftover.is_dir():
            shutil.rmtree(leftover)
            leftover.mkdir()
        elif leftover.exists():
            leftover.unlink()
    sids = ["abcdef12-0000-4000-8000-000000000001", "abcdef12-1111-4000-8000-000000000002", session_id(3)]
    prompts = {sid: ["p0"] for sid in sids}
    projects = env.config_dir / "projects" / "-work-demo"
    added: dict[str, list[str]] = {sid: [] for sid in sids}

    def archive(sid):
        write_transcript(projects / f"{sid}.jsonl", sid, prompts[sid])
        capture.archive_transcript(str(projects / f"{sid}.jsonl"), settings_module.load())

    def note_of(sid):
        [path] = session_notes(env.vault)[sid]
        return env.vault / path

    for sid in sids:
        archive(sid)
    for step in steps:
        sid = sids[step[1]]
        if step[0] == "archive":
            prompts[sid].append(f"p{len(prompts[sid])}")
            archive(sid)
        elif step[0] == "move":
            source = note_of(sid)
            target = env.vault / step[2] / f"{step[3].strip() or 'x'}.md"
            if target.exists():
                continue
            target.parent.mkdir(parents=True, exist_ok=True)
            source.rename(target)
        else:
            path = note_of(sid)
            text = path.read_text(encoding="utf-8")
            line = f"note line {len(added[sid])} {step[3]}"
            text = text.replace("---\n", f"---\nuser_{len(added[sid])}: {json_string(step[3])}\n", 1)
            text = _add_tags(text, step[2])
            path.write_text(text.rstrip("\n") + f"\n{line}\n", encoding="utf-8")
            added[sid] += [line, f"user_{len(added[sid])}:", *step[2]]
    found = session_notes(env.vault)
    assert sorted(found) == sorted(sids) and all(len(paths) == 1 for paths in found.values()), found
    for sid in sids:
        text = note_of(sid).read_text(encoding="utf-8")
        assert all(piece in text for piece in added[sid]), (sid, added[sid])
        assert f"- p{len(prompts[sid]) - 1}" in text or f"p{len(prompts[sid]) - 1}" in text


def json_string(text: str) -> str:
    import json
    return json.dumps(text)


def _add_tags(text: str, tags: list[str]) -> str:
    """The user adds tags to the note's tag list (as Obsidian's property editor writes it)."""
    import re

    import yaml
    line = re.search(r"^tags: .*$", text, re.M)
    current = yaml.safe_load(line.group(0))["tags"]
    merged = current + [t for t in tags if t not in current]
    return text[:line.start()] + "tags: [" + ", ".join(json_string(t) for t in merged) + "]" + text[line.end():]
