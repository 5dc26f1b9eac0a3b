"""`state`, `learn`, `log` and `context` as a user runs them (subprocesses)."""
from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest

from testkit import CLI
from context_fixtures import add_sessions, make_repo, session_id

DATED = r"- \d{4}-\d{2}-\d{2} \d{2}:\d{2} — "


def out(result) -> str:
    assert result.returncode == 0, result.stderr.decode()
    return result.stdout.decode("utf-8")


def test_state_show_set_show_clear(env):
    assert "The working state is empty" in out(env.run("state"))
    assert "working state set (Meta/claude-state.md" in out(env.run("state", "set", "Refactoring", "the sweep"))
    assert out(env.run("state", "show")) == "Refactoring the sweep\n"
    assert out(env.run("state", "clear")).startswith("cleared the working state")
    assert (env.vault / "Meta" / "claude-state.md").read_text(encoding="utf-8") == ""


def test_state_set_dash_reads_stdin(env):
    out(env.run("state", "set", "-", input="line one\nline two ünïcode\n"))
    assert out(env.run("state")) == "line one\nline two ünïcode\n"


@pytest.mark.parametrize("args", [["state", "set"], ["state", "show", "extra"], ["learn", "x", "--tag", "a b"]])
def test_bad_arguments_are_one_line_errors(env, args):
    result = env.run(*args)
    assert result.returncode == 2
    assert result.stderr.decode().count("\n") == 1 and "Traceback" not in result.stderr.decode()


def test_learn_appends_a_dated_tagged_entry(env):
    printed = out(env.run("learn", "pytest -k wants quotes", "--tag", "testing", "--tag", "#py"))
    assert re.search(DATED + r"pytest -k wants quotes #testing #py\n$", printed)
    note = (env.vault / "Meta" / "claude-learnings.md").read_text(encoding="utf-8")
    assert re.fullmatch(r"# Claude learnings\n\n" + DATED + r"pytest -k wants quotes #testing #py\n", note)


def test_concurrent_learns_all_land(env):
    procs = [subprocess.Popen([sys.executable, str(CLI), "learn", f"learning number {i}"], env=env.environ(),
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE) for i in range(6)]
    assert [p.wait(timeout=60) for p in procs] == [0] * 6
    note = (env.vault / "Meta" / "claude-learnings.md").read_text(encoding="utf-8")
    assert sorted(re.findall(r"learning number (\d)", note)) == [str(i) for i in range(6)]


def test_log_appends_a_dated_line(env):
    out(env.run("log", "started", "the", "migration"))
    out(env.run("log", "done"))
    lines = (env.vault / "Meta" / "claude-log.md").read_text(encoding="utf-8").splitlines()
    assert lines[0] == "# Claude agent log"
    assert re.fullmatch(DATED + "started the migration", lines[2]) and re.fullmatch(DATED + "done", lines[3])


@pytest.mark.parametrize("args", [["state", "set", "x"], ["learn", "x"], ["log", "x"], ["state"]])
def test_a_missing_vault_is_a_one_line_error_with_exit_2(env, args):
    result = env.run(*args, env={"OBSIDIAN_VAULT": str(env.root / "gone")})
    assert result.returncode == 2
    assert result.stderr.decode().strip().endswith("config.yaml") and "no vault at" in result.stderr.decode()
    assert result.stderr.decode().count("\n") == 1


def test_context_prints_the_text_and_its_size(env, tmp_path):
    repo = make_repo(tmp_path / "repo")
    add_sessions(env.archive_db, str(repo), [3])
    out(env.run("state", "set", "Migrating the importer"))
    out(env.run("learn", "the archive is WAL"))
    printed = out(env.run("context", "--cwd", str(repo / "src")))
    text, size_line = printed.rsplit("-- ", 1)
    assert "Migrating the importer" in text and "the archive is WAL" in text and session_id(3) in text
    size = int(re.match(r"([\d,]+) characters of the 6,000-character budget", size_line).group(1).replace(",", ""))
    assert size == len(text)


def test_context_json_is_the_hook_form_and_leaves_out_the_session(env, tmp_path):
    repo = make_repo(tmp_path / "repo")
    add_sessions(env.archive_db, str(repo), [3, 4])
    data = json.loads(out(env.run("context", "--json", "--source", "compact", "--session-id", session_id(4),
                                  cwd=repo)))
    assert list(data) == ["hookSpecificOutput"] and data["hookSpecificOutput"]["hookEventName"] == "SessionStart"
    text = data["hookSpecificOutput"]["additionalContext"]
    assert "after compaction" in text and session_id(3) in text and session_id(4) not in text
    assert not (env.config_dir / "obsidian-memory" / "sweep.stamp").exists()  # `context` starts no sweep


def test_context_says_when_there_is_nothing_to_inject(env, tmp_path):
    printed = out(env.run("context", "--cwd", str(tmp_path)))
    assert printed.startswith("Nothing to inject for")
    assert out(env.run("context", "--json", "--cwd", str(tmp_path))) == ""


@pytest.mark.parametrize("command", [["context"], ["recall", "the kotlin daemon error again"]])
def test_a_cwd_that_is_no_folder_is_one_line_and_exit_2_for_context_and_recall_alike(env, tmp_path, command):
    done = env.run(*command, "--cwd", str(tmp_path / "nowhere"))
    assert done.returncode == 2 and done.stdout == b""
    (line,) = done.stderr.decode().splitlines()
    assert f"error: argument --cwd: {str(tmp_path / 'nowhere')!r}: no such folder" in line, line
