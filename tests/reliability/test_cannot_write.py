"""`import` when nothing can be written: a file size limit (`ulimit -f`) ended in a bare
`OperationalError: disk I/O error` for every transcript, no summary, a traceback each in the log.
The cause is reported once, the run stops cleanly with its summary, and the next run goes on."""
from __future__ import annotations

import resource
import subprocess
import sys

import pytest
from archive_fixtures import session_id, write_transcript
from testkit import CLI

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="file size limits (ulimit -f) are POSIX")
LIMIT = 300_000   # bytes any file of the run may grow to: the archive outgrows it after a few sessions


def test_a_file_size_limit_stops_import_once_with_its_cause_and_the_next_run_goes_on(env):
    projects = env.config_dir / "projects" / "-work-demo"
    for n in range(60):
        write_transcript(projects / f"{session_id(n)}.jsonl", session_id(n), [f"prompt {n} " + "x" * 3000] * 5)

    def limited():
        resource.setrlimit(resource.RLIMIT_FSIZE, (LIMIT, LIMIT))

    result = subprocess.run([sys.executable, str(CLI), "import"], env=env.environ(), capture_output=True,
                            preexec_fn=limited, timeout=300, cwd=str(env.root))
    out, err = result.stdout.decode(), result.stderr.decode()
    assert result.returncode == 1 and err == "", err
    [line] = out.splitlines()
    assert "stopped: cannot write the archive: disk I/O error" in line and "ulimit -f" in line
    assert "transcript(s) left for the next run" in line
    log = env.log_file.read_text(encoding="utf-8")
    assert "Traceback" not in log and len(log.splitlines()) <= 2
    again = env.run("import")
    assert again.returncode == 0 and again.stdout.decode().startswith("archived ")
    assert len(list((env.vault / "Meta" / "claude-sessions").rglob("*.md"))) == 60
