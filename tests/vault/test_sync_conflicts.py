"""Sync conflict copies of our files are recognised by name."""
from __future__ import annotations

import datetime

import pytest
from hypothesis import given, strategies as st

from obsidian_memory.vault.notes.vault_sessions import is_note_name
from obsidian_memory.vault.sync_conflicts import copy_of, is_copy_of_ours, is_our_name

NOTE = "2026-03-04_0123abcd.md"


@pytest.mark.parametrize("name", [
    "2026-03-04_0123abcd.sync-conflict-20260304-101500-ABCDEF7.md",          # Syncthing
    "2026-03-04_0123abcd (Ann's conflicted copy 2026-03-04).md",             # Dropbox
    "2026-03-04_0123abcd (conflicted copy 2026-03-04 101500).md",            # Nextcloud
    "2026-03-04_0123abcd_conflict-20260304-101500.md",                       # ownCloud
    "2026-03-04_0123abcd (Conflict 2026-03-04 10-15).md",                    # Obsidian Sync, others
    "2026-03-04_0123abcd 2.md",                                              # iCloud
    "2026-03-04_0123abcd (1).md",                                            # Google Drive
])
def test_the_copies_of_a_session_note_name_their_original(name):
    assert copy_of(name, is_note_name) == NOTE


@pytest.mark.parametrize("name", [NOTE, "2026-03-04_0123abcd-2.md", "Meeting 2.md", "Project (1).md",
                                  "Notes on merge conflict resolution.md", "2026-03-04.md"])
def test_ordinary_names_and_copies_of_the_users_notes_are_not_ours(name):
    assert copy_of(name, is_note_name) is None


def test_copies_of_our_other_notes_and_any_file():
    history = "claude-session-history.md"
    assert copy_of("claude-session-history.sync-conflict-20260304-101500-ABCDEF7.md",
                   lambda n: n == history) == history
    assert copy_of("claude-session-history 2.md", lambda n: n == history) == history
    assert copy_of("Report (Bob's conflicted copy 2026-01-02).pdf") == "Report.pdf"
    assert copy_of("Report 2.pdf") is None   # numbered names count only for our own files


# -- every note name, every copy form (property) ----------------------------------------------------

NOTE_NAMES = st.builds(lambda day, sid: f"{day:%Y-%m-%d}_{sid}.md",
                       st.dates(datetime.date(2000, 1, 1), datetime.date(2099, 12, 31)), st.from_regex(r"[0-9a-f]{8}([0-9a-f-]{1,28})?", fullmatch=True))
COPY_FORMS = [
    lambda stem: f"{stem}.sync-conflict-20260304-101500-ABCDEF7.md",
    lambda stem: f"{stem} (Ann's conflicted copy 2026-03-04).md",
    lambda stem: f"{stem} (conflicted copy 2026-03-04 101500).md",
    lambda stem: f"{stem}_conflict-20260304-101500.md",
    lambda stem: f"{stem} (Conflict 2026-03-04 10-15).md",
    lambda stem: f"{stem} 2.md",
    lambda stem: f"{stem} (1).md",
]
USER_NAMES = st.text(st.characters(blacklist_categories=("Cs", "Cc"), blacklist_characters="/\\"), min_size=1,
                     max_size=40).map(lambda stem: stem.strip() + ".md").filter(
                         lambda name: len(name) > 3 and not is_our_name(name) and "conflict" not in name.lower())


@given(NOTE_NAMES, st.sampled_from(COPY_FORMS))
def test_property_every_copy_of_every_session_note_names_its_note_and_the_note_itself_is_no_copy(name, form):
    assert is_our_name(name) and copy_of(name, is_note_name) is None and not is_copy_of_ours(name)
    copy = form(name[:-3])
    assert copy_of(copy, is_note_name) == name
    assert is_copy_of_ours(copy)   # the search index leaves it out


@given(USER_NAMES, st.sampled_from(COPY_FORMS[5:]))
def test_property_a_numbered_name_of_the_users_is_never_taken_for_a_copy_of_ours(name, form):
    assert not is_copy_of_ours(name)
    assert not is_copy_of_ours(form(name[:-3]))


STEMS = st.one_of(st.sampled_from(["2026-03-04_0123abcd", "claude-session-history", "claude-state", "Claude-state",
                                   "2026-03-04", "Meeting", "1234-x", "claude"]), st.text(min_size=1, max_size=24))
SUFFIXES = st.sampled_from(["", ".sync-conflict-20260304-101500-ABCDEF7", " (Ann's conflicted copy 2026-03-04)",
                            "_conflict-20260304-101500", " (Conflict 2026-03-04 10-15)", " 2", " (1)", " copy"])


@given(STEMS, SUFFIXES, st.sampled_from([".md", ".MD", ".txt", ""]))
def test_property_the_quick_answer_the_index_walk_gets_is_the_full_one(stem, suffix, extension):
    """is_copy_of_ours answers from the first characters for a name that cannot be a copy of
    ours, and as copy_of does for the rest."""
    name = stem + suffix + extension
    assert is_copy_of_ours(name) == (copy_of(name, is_our_name) is not None)
