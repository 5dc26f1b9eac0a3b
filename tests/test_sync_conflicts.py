"""Sync conflict copies of our files are recognised by name (issue 16)."""
from __future__ import annotations

import pytest

from obsidian_memory.notes.vault_sessions import is_note_name
from obsidian_memory.sync_conflicts import copy_of

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
