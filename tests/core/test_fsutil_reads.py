"""Every read of a file of ours or of the vault reads regular files only (a FIFO is never waited
on, a folder is no text), and a vault note is read only by a path that stays inside the vault. Run in a child process with a deadline, so that a read that waits fails the test
instead of hanging it."""
from __future__ import annotations

import os
import subprocess
import sys

import pytest

from testkit import REPO

READS = """
import sys
from obsidian_memory.core import fsutil
vault = sys.argv[1]
print(repr(fsutil.read_text(vault + "/pipe.md")), repr(fsutil.read_note(vault, "pipe.md")),
      repr(fsutil.read_text(vault + "/folder.md")), repr(fsutil.read_note(vault, "note.md")),
      repr(fsutil.read_note(vault, "../outside.md")), repr(fsutil.read_note(vault, "out.md")), sep="|")
"""

SETTINGS_READS = """
import sys, types
from obsidian_memory.vault import excluded, omnisearch_plugin
vault = sys.argv[1]
print(bool(excluded.ExcludedFiles.of(types.SimpleNamespace(vault=vault, excluded_files=True))),
      omnisearch_plugin.read_state(vault).port)
"""


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="this system has no FIFOs")
def test_a_fifo_a_folder_and_a_way_out_read_as_nothing(tmp_path):
    vault = tmp_path / "vault"
    vault.mkdir()
    os.mkfifo(vault / "pipe.md")                  # no writer ever comes: a plain open() waits forever
    (vault / "folder.md").mkdir()
    (vault / "note.md").write_bytes(b"caf\xc3\xa9 \xff\n")
    (tmp_path / "outside.md").write_text("secret", encoding="utf-8")
    (vault / "out.md").symlink_to(tmp_path / "outside.md")
    done = subprocess.run([sys.executable, "-c", READS, str(vault)], capture_output=True, text=True, cwd=str(REPO),
                          timeout=30)
    assert done.returncode == 0, done.stderr
    assert done.stdout.rstrip("\n").split("|") == ["None", "None", "None", repr("café \ufffd\n"), "None", "None"]


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="this system has no FIFOs")
def test_obsidians_settings_files_as_fifos_are_read_as_absent(tmp_path):
    """The vault's .obsidian/app.json (Excluded files) and Omnisearch's data.json are input too."""
    vault = tmp_path / "vault"
    plugin = vault / ".obsidian" / "plugins" / "omnisearch"
    plugin.mkdir(parents=True)
    os.mkfifo(vault / ".obsidian" / "app.json")
    os.mkfifo(plugin / "data.json")
    os.mkfifo(vault / ".obsidian" / "community-plugins.json")
    done = subprocess.run([sys.executable, "-c", SETTINGS_READS, str(vault)], capture_output=True, text=True,
                          cwd=str(REPO), timeout=30)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["False", "None"]
