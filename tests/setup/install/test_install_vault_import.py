"""The installer offers the sessions another machine left in the vault: with --yes (or
no terminal) it records them in the new archive at once; --no-import leaves them to the sweep."""
from __future__ import annotations

import json
import subprocess

from obsidian_memory.core import settings as settings_module
from obsidian_memory.capture.session_records import Prompt, Session
from obsidian_memory.vault.notes import sessions as notes


def other_machines_note(user) -> str:
    user.vault.mkdir(exist_ok=True)
    (user.vault / ".obsidian").mkdir(exist_ok=True)
    session = Session(session_id="0123abcd-1111-2222-3333-444455556666", title="done on the desktop",
                      project="proj", machine="desk-cdcdcd", repo_id="github.com/o/proj",
                      started_at="2026-03-04T09:00:00.000Z", prompts=[Prompt("refactor the parser", answer="Done.")])
    return notes.write_note(session, settings_module.Settings(str(user.root / "elsewhere"), vault=str(user.vault))).path


def sessions_of(user) -> list[dict]:
    done = subprocess.run([user.layout.python, "-m", "obsidian_memory", "sessions", "--json"], capture_output=True,
                          env=user.environ(), cwd=str(user.root), check=True)
    return json.loads(done.stdout)


def test_the_installer_records_another_machines_sessions_from_the_vault(user):
    other_machines_note(user)
    result = user.install("--vault", user.vault, "--yes")
    out = result.stdout.decode()
    assert "desk-cdcdcd: 1 session note(s)" in out and "learned 1 of 1 session(s) from the vault" in out
    [row] = sessions_of(user)
    assert (row["title"], row["machine"], row["this_machine"]) == ("done on the desktop", "desk-cdcdcd", False)


def test_no_import_leaves_them_to_the_sweep(user):
    other_machines_note(user)
    out = user.install("--vault", user.vault, "--no-import", "--yes").stdout.decode()
    assert "from the vault" not in out and sessions_of(user) == []
