"""Names we give files in the vault are valid on every system the vault syncs to (Windows, macOS,
Linux, Android) and in Obsidian (no `* " \\ / < > : | ?`, no name ending in a dot or a space), and
wikilinks can point at them; a session's project, folder and title never reach a note's path."""
from __future__ import annotations

import re

from hypothesis import HealthCheck, given, settings as hypothesis_settings, strategies as st

from archive_fixtures import write_transcript
from obsidian_memory.core import fsutil
from obsidian_memory.capture.session_records import Session
from obsidian_memory.vault.notes import sessions as notes
from obsidian_memory.core.settings import Settings

RESERVED = {"CON", "PRN", "AUX", "NUL", *(f"COM{i}" for i in range(1, 10)), *(f"LPT{i}" for i in range(1, 10))}
# any text, surrogates (undecodable bytes of a file name, as os.fsdecode gives them) included
ANY_TEXT = st.text(st.characters(codec=None, categories=None), max_size=300)
HOSTILE = st.text(st.sampled_from(list('*"\\/<>:|?#^[]. \x00\x1f\x7fCONaux1é🙂\udcff')), max_size=40)


def valid_everywhere(name: str) -> bool:
    return (bool(name) and not any(c in '*"\\/<>:|?#^[]' or ord(c) < 32 or ord(c) == 127
                                   or 0xD800 <= ord(c) <= 0xDFFF for c in name)
            and not name.startswith(".") and not name.endswith((".", " "))
            and name.split(".")[0].rstrip(" ").upper() not in RESERVED
            and len(name.encode("utf-8")) <= 255)


@given(st.one_of(ANY_TEXT, HOSTILE))
def test_any_text_becomes_a_name_valid_everywhere_and_stays_put_once_valid(text):
    name = fsutil.safe_file_name(text)
    assert valid_everywhere(name), repr(name)
    assert fsutil.safe_file_name(name) == name


@given(ANY_TEXT)
def test_a_name_already_valid_everywhere_is_not_changed(text):
    if valid_everywhere(text):
        assert fsutil.safe_file_name(text) == text


@hypothesis_settings(suppress_health_check=[HealthCheck.too_slow])
@given(session_id=st.one_of(ANY_TEXT.filter(bool), HOSTILE.filter(bool)), project=ANY_TEXT, cwd=ANY_TEXT,
       title=ANY_TEXT)
def test_a_session_note_path_holds_only_the_date_and_the_ids_valid_part(session_id, project, cwd, title):
    settings = Settings("/tmp/claude", vault="/tmp/vault")
    session = Session(session_id=session_id, project=project, cwd=cwd, title=title,
                      started_at="2026-03-04T09:00:00.000Z")
    path = notes.note_relative_path(session, settings)
    folder, month, name = path.rsplit("/", 2)
    assert folder == settings.sessions_folder and re.fullmatch(r"\d{4}-\d{2}", month)
    assert re.fullmatch(r"\d{4}-\d{2}-\d{2}_.+\.md", name) and valid_everywhere(name)
    assert name[len("2026-03-04_"):-len(".md")] == fsutil.safe_file_name(session_id[:8])


def test_an_archived_session_with_hostile_ids_and_folders_gets_a_portable_note_name(env):
    """A transcript from a project folder whose name Windows refuses, with a session id to match."""
    sid = 'a:b*c?d"<>|x-0000-4000-8000-000000000001'
    transcript = write_transcript(env.config_dir / "projects" / "-work-we-ird" / "odd.jsonl", sid,
                                  ["fix the parser"], cwd='/work/we:ird*proj?"x"')
    result = env.run("archive", "--transcript", transcript)
    assert result.returncode == 0, result.stderr.decode()
    (note,) = (env.vault / "Meta" / "claude-sessions").rglob("*.md")
    assert valid_everywhere(note.name) and note.name.endswith("_a-b-c-d-.md")
    assert "we:ird" not in str(note.relative_to(env.vault)) and "fix the parser" in note.read_text(encoding="utf-8")
