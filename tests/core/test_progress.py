"""Progress bars: the long commands show one on a terminal (stderr a tty), never in a pipe."""
from __future__ import annotations

import fcntl
import os
import struct
import subprocess
import sys
import termios

from archive_fixtures import session_id, write_transcript
from testkit import CLI
from obsidian_memory.search.store.build import PROGRESS_THRESHOLD


def run_at_a_terminal(env, *args) -> str:
    """The command with stderr on a pseudo-terminal (stdout a pipe): what stderr showed."""
    leader, follower = os.openpty()
    # a terminal 100 columns wide (a fresh pty is 0 x 0, where a bar has no room to show)
    fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 100, 0, 0))
    try:
        process = subprocess.Popen([sys.executable, str(CLI), *args], stdin=subprocess.DEVNULL,
                                   stdout=subprocess.PIPE, stderr=follower, env=env.environ(), cwd=str(env.root))
        os.close(follower)
        shown = b""
        while True:
            try:
                chunk = os.read(leader, 65536)
            except OSError:          # EIO: the command closed the terminal's last writer
                break
            if not chunk:
                break
            shown += chunk
        assert process.wait(timeout=120) == 0, shown.decode(errors="replace")
        return shown.decode("utf-8", errors="replace")
    finally:
        os.close(leader)


def _notes(env, count: int) -> None:
    for n in range(count):
        (env.vault / f"note {n}.md").write_text(f"# Note {n}\nzebra {n}\n", encoding="utf-8")


def test_a_large_first_build_shows_a_progress_bar_on_a_terminal(env):
    _notes(env, PROGRESS_THRESHOLD + 10)
    shown = run_at_a_terminal(env, "reindex")
    assert "indexing notes" in shown and f"/{PROGRESS_THRESHOLD + 10} [" in shown
    assert shown.rstrip(" ").endswith("\r")   # and cleared at the end: the output after it starts clean


def test_no_progress_bar_in_a_pipe_or_for_a_small_update(env):
    _notes(env, PROGRESS_THRESHOLD + 10)
    piped = env.run("reindex")
    assert piped.returncode == 0 and b"indexing notes" not in piped.stderr
    _notes(env, 3)   # three notes changed: too few for a bar, even at a terminal
    assert "indexing notes" not in run_at_a_terminal(env, "reindex")


def test_import_counts_transcripts_on_a_terminal(env):
    for n in range(1, 4):
        write_transcript(env.config_dir / "projects" / "-work" / f"{session_id(n)}.jsonl", session_id(n),
                         [f"task {n}"], cwd=str(env.root))
    shown = run_at_a_terminal(env, "import")
    assert "import:" in shown and "/3 [" in shown and "transcript/s" in shown
