"""The error handling both command lines share (`obsidian_memory.cli.cliutil`), through the real scripts."""
from __future__ import annotations

import os
import subprocess
import sys

from testkit import CLI, SEARCH_CLI


def run_into_closed_pipe(env, script, *args) -> subprocess.CompletedProcess:
    """Run with stdout a pipe nobody reads any more (`| head` that has exited)."""
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        return subprocess.run([sys.executable, str(script), *args], stdout=write_end, stderr=subprocess.PIPE,
                              env=env.environ(), timeout=120, cwd=str(env.root))
    finally:
        os.close(write_end)


def test_a_closed_stdout_is_quiet_and_exit_0_for_both_scripts(env):
    (env.vault / "Deploy.md").write_text("deploy the thing\n" * 50, encoding="utf-8")
    for script, args in ((SEARCH_CLI, ("deploy", "--source", "scan")), (CLI, ("search", "deploy", "--source", "scan")),
                         (CLI, ("status",)), (CLI, ("reindex",))):
        result = run_into_closed_pipe(env, script, *args)
        assert result.returncode == 0 and result.stderr == b"", (args, result.stderr)


def test_a_user_error_is_one_line_with_the_command_name_for_both_scripts(env):
    missing = str(env.root / "nowhere")
    for script, args, prog in ((SEARCH_CLI, ("x", "--vault", missing), "search_vault.py"),
                               (CLI, ("reindex", "--vault", missing), "obsidian_memory.py reindex")):
        result = subprocess.run([sys.executable, str(script), *args], capture_output=True, env=env.environ(),
                                timeout=120, cwd=str(env.root))
        err = result.stderr.decode()
        assert result.returncode == 2 and err.startswith(f"{prog}: error: vault not found")
        assert len(err.strip().splitlines()) == 1 and "Traceback" not in err
