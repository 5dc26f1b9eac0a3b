"""Settings as a user meets them: a config.yaml with a bad line or a bad value, odd environment
variables, driven through the real hooks and commands (subprocesses)."""
from __future__ import annotations

import json
import os
import sqlite3
import time

import pytest

from archive_fixtures import hook_payload, write_transcript
from context_fixtures import make_repo, write_note
from testkit import FIXTURES

SID = "0000abcd-bbbb-4ccc-8ddd-000000000001"
AWS_KEY = "AKIAIOSFODNN7EXAMPLE"
BROKEN = "vault: {vault}\nredact: [true\ncontext_budget: 3000\n"     # line 2: an unclosed list
STARTUP = json.loads((FIXTURES / "hooks" / "session_start_v2.1.332_startup.json").read_text(encoding="utf-8"))


def configure(env, text: str) -> None:
    path = env.config_dir / "obsidian-memory" / "config.yaml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text.format(vault=env.vault), encoding="utf-8")


# the vault comes from config.yaml only, as after install.sh (an empty variable counts as unset)
FROM_CONFIG = {"OBSIDIAN_VAULT": ""}


def transcript(env, prompt: str = "fix the importer"):
    return write_transcript(env.config_dir / "projects" / "-work-demo" / f"{SID}.jsonl", SID, [prompt])


def archive_hook(env, path, event="SessionEnd", **environ):
    return env.hook(["archive"], hook_payload(event, path, session_id=SID, cwd="/work/demo"),
                    env={**FROM_CONFIG, **environ})


def files_under(folder) -> list[str]:
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*")) if folder.exists() else []


def log_lines(env) -> list[str]:
    return env.log_file.read_text(encoding="utf-8").splitlines() if env.log_file.exists() else []


def problems_of(result) -> dict:
    checks = json.loads(result.stdout)["checks"]
    return {c["status"]: [x["detail"] for x in checks if x["name"] == "config" and x["status"] == c["status"]]
            for c in checks if c["name"] == "config"}


# -- 21.4: a config.yaml that cannot be parsed stops the writers -------------------------------------

def test_a_broken_config_makes_the_end_hooks_write_nothing_anywhere_and_log_it_once(env):
    configure(env, BROKEN)
    path = transcript(env)
    for event in ("SessionEnd", "PreCompact", "SessionEnd"):
        result = archive_hook(env, path, event)
        assert (result.returncode, result.stdout, result.stderr) == (0, b"", b"")
    assert files_under(env.vault) == [] and files_under(env.home / "Vault") == []  # neither vault
    assert not env.archive_db.exists()
    logged = log_lines(env)
    assert len(logged) == 1, logged  # once per problem, not once per hook run
    assert "config.yaml line 2 is not valid YAML" in logged[0] and "redact: [true" in logged[0]


def test_a_broken_config_makes_session_start_say_memory_is_off_and_load_nothing(env, tmp_path):
    configure(env, BROKEN)
    write_note(env, "Meta/claude-state.md", "state from the configured vault\n")
    (env.home / "Vault" / "Meta").mkdir(parents=True)
    (env.home / "Vault" / "Meta" / "claude-state.md").write_text("state from the default vault\n", encoding="utf-8")
    result = env.hook(["session-start"], {**STARTUP, "cwd": str(make_repo(tmp_path / "repo"))}, env=FROM_CONFIG)
    assert result.returncode == 0 and result.stderr == b""
    context = json.loads(result.stdout)["hookSpecificOutput"]["additionalContext"]
    assert context.count("\n") == 1 and "memory) is off: config.yaml line 2 is not valid YAML" in context
    assert "state from" not in context and "doctor" in context
    assert not (env.config_dir / "obsidian-memory" / "sweep.stamp").exists()  # no sweep into a guessed vault


@pytest.mark.parametrize("command", [["sessions"], ["state", "set", "x"], ["learn", "x"], ["import"],
                                     ["search", "importer"], ["context"]])
def test_a_broken_config_stops_a_command_with_one_line_and_exit_2(env, command):
    configure(env, BROKEN)
    transcript(env)
    result = env.run(*command, env=FROM_CONFIG)
    assert result.returncode == 2 and result.stdout == b""
    assert result.stderr.count(b"\n") == 1 and b"Traceback" not in result.stderr
    assert b"config.yaml line 2 is not valid YAML" in result.stderr and b"fix that line" in result.stderr
    assert files_under(env.vault) == [] and files_under(env.home / "Vault") == []


def test_search_vault_stops_too(env):
    configure(env, BROKEN)
    result = env.search("anything", env=FROM_CONFIG)
    assert result.returncode == 2 and result.stderr.count(b"\n") == 1 and b"line 2" in result.stderr


def test_doctor_fails_with_the_line_and_what_to_do(env):
    configure(env, BROKEN)
    result = env.run("doctor", env=FROM_CONFIG)
    assert result.returncode == 1
    line = next(x for x in result.stdout.decode().splitlines() if x.startswith("fail  config"))
    assert "line 2 is not valid YAML" in line and "'redact: [true'" in line and "fix that line" in line


@pytest.mark.parametrize("text, says", [
    ("vault: [unclosed\n", "line 1 is not valid YAML"),
    ("- just\n- a list\n", "does not hold `key: value` lines"),
    ("vault: \"C:\\Users\\me\"\n", "line 1 is not valid YAML"),         # an escape YAML refuses
    ("vault: {vault}\nredact: a\x01b\n", "line 2 is not valid YAML"),   # a control character
    ("vault: {vault}\ntitle: éé\nredact: \x1b\n", "line 3 is not valid YAML"),   # ... after letters of 2 bytes
])
def test_every_kind_of_unparseable_file_stops_the_writers(env, text, says):
    configure(env, text)
    result = archive_hook(env, transcript(env))
    assert result.returncode == 0 and not env.archive_db.exists() and files_under(env.vault) == []
    assert says in "\n".join(log_lines(env))


def test_an_undecodable_or_unreadable_config_stops_the_writers(env):
    configure(env, "")
    (env.config_dir / "obsidian-memory" / "config.yaml").write_bytes(b"vault: /caf\xe9\n")
    result = env.run("sessions", env=FROM_CONFIG)
    assert result.returncode == 2 and b"line 1 is not UTF-8 text" in result.stderr
    (env.config_dir / "obsidian-memory" / "config.yaml").unlink()
    (env.config_dir / "obsidian-memory" / "config.yaml").symlink_to(env.root / "dotfiles" / "gone.yaml")
    result = env.run("sessions", env=FROM_CONFIG)
    assert result.returncode == 2 and b"gone.yaml, which does not exist" in result.stderr


def test_the_problem_is_logged_again_after_it_was_fixed_and_came_back(env):
    configure(env, BROKEN)
    path = transcript(env)
    archive_hook(env, path)
    configure(env, "vault: {vault}\n")
    assert archive_hook(env, path).returncode == 0 and env.archive_db.exists()
    configure(env, BROKEN)
    archive_hook(env, path)
    archive_hook(env, path)
    hooks_lines = [line for line in log_lines(env) if " hook: " in line]   # (not a background embed the hook started)
    assert sum("line 2 is not valid YAML" in line for line in hooks_lines) == 2


def test_once_fixed_the_sweep_archives_the_session_the_hooks_missed(env):
    configure(env, BROKEN)
    path = transcript(env)
    archive_hook(env, path)
    assert not env.archive_db.exists()
    configure(env, "vault: {vault}\n")
    old = time.time() - 3600
    os.utime(path, (old, old))  # the sweep takes transcripts that have been quiet for a while
    result = env.run("sweep", env=FROM_CONFIG)
    assert result.returncode == 0, result.stderr
    assert [p for p in files_under(env.vault) if p.endswith(".md") and "claude-sessions/" in p]


# -- 21.5: every value validated; a bad one is a doctor failure and the safe default ----------------

def test_redact_ture_keeps_redaction_on_and_doctor_fails(env):
    configure(env, "vault: {vault}\nredact: ture\n")
    result = archive_hook(env, transcript(env, f"deploy with {AWS_KEY} please"))
    assert result.returncode == 0
    with sqlite3.connect(env.archive_db) as db:
        stored = " ".join(str(row) for row in db.execute("SELECT * FROM prompts").fetchall())
    notes = " ".join(p.read_text(encoding="utf-8") for p in env.vault.rglob("*.md"))
    assert "deploy with" in stored and AWS_KEY not in stored and AWS_KEY not in notes
    doctor = env.run("doctor", "--json", env=FROM_CONFIG)
    failed = problems_of(doctor)["fail"]
    assert any("`redact` is 'ture', not true or false; ignored, so redact is true" in d for d in failed), failed
    assert json.loads(doctor.stdout)["ok"] is False


@pytest.mark.parametrize("value", ["-5", "abc", "1000000000", "true", "12.5", "'6000 chars'"])
def test_a_bad_context_budget_gives_the_default_budget_and_a_doctor_failure(env, tmp_path, value):
    configure(env, "vault: {vault}\ncontext_budget: " + value + "\n")
    write_note(env, "Meta/claude-state.md", "".join(f"state line {i}: " + "words " * 20 + "\n" for i in range(400)))
    result = env.hook(["session-start"], {**STARTUP, "cwd": str(make_repo(tmp_path / "repo"))}, env=FROM_CONFIG)
    assert result.returncode == 0 and result.stderr == b""
    context = json.loads(result.stdout)["hookSpecificOutput"]["additionalContext"]
    assert 5000 < len(context) <= 6000  # the default budget, used
    failed = problems_of(env.run("doctor", "--json", env=FROM_CONFIG))["fail"]
    assert any("`context_budget` is" in d and "ignored, so context_budget is 6000" in d for d in failed), failed


def test_a_command_warns_about_a_value_it_ignored(env):
    configure(env, "vault: {vault}\nomnisearch_port: 99999\n")
    result = env.run("sessions", env=FROM_CONFIG)
    assert result.returncode == 0
    assert b"warning: " in result.stderr and b"`omnisearch_port` is 99999, not a whole number from 1 to 65535" \
        in result.stderr and result.stderr.count(b"\n") == 1


def test_a_bad_value_of_a_place_stops_the_writers(env):
    configure(env, "vault: Vault\n")  # relative: a different folder for every session's cwd
    result = archive_hook(env, transcript(env))
    assert result.returncode == 0 and not env.archive_db.exists()
    assert files_under(env.root) == files_under(env.root)  # (nothing created next to the test's cwd either)
    assert not (env.root / "Vault").exists()
    assert "`vault` is 'Vault', not an absolute path (~ allowed); obsidian-memory writes nothing" in log_lines(env)[0]


def test_an_unknown_key_is_a_doctor_warning_that_names_the_close_key(env):
    configure(env, "vault: {vault}\nredcat: false\ncontext_budgt: 3000\n")
    warned = problems_of(env.run("doctor", "--json", env=FROM_CONFIG))["warn"]
    assert any("unknown setting `redcat` (did you mean `redact`?)" in d for d in warned), warned
    assert any("unknown setting `context_budgt` (did you mean `context_budget`?)" in d for d in warned), warned


@pytest.mark.parametrize("variable, value, says", [
    ("OMNISEARCH_PORT", "abc", "$OMNISEARCH_PORT: `omnisearch_port` is 'abc', not a whole number from 1 to 65535"),
    ("OMNISEARCH_PORT", "0", "ignored, so omnisearch_port is 51361"),
])
def test_environment_variables_are_validated_like_the_file(env, variable, value, says):
    configure(env, "vault: {vault}\n")
    failed = problems_of(env.run("doctor", "--json", env={**FROM_CONFIG, variable: value}))["fail"]
    assert any(says in d for d in failed), failed


@pytest.mark.parametrize("variable, value", [("OBSIDIAN_VAULT", "my-vault"), ("CLAUDE_CONFIG_DIR", "rel/claude")])
def test_a_relative_path_in_the_environment_stops_the_writers(env, variable, value):
    configure(env, "vault: {vault}\n")
    path = transcript(env)
    assert archive_hook(env, path, **{variable: value}).returncode == 0
    assert not env.archive_db.exists() and not (env.root / value).exists()
    result = env.run("sessions", env={**FROM_CONFIG, variable: value})
    assert result.returncode == 2 and f"${variable}".encode() in result.stderr and b"absolute path" in result.stderr


def test_an_invalid_flag_is_a_one_line_error(env):
    result = env.search("anything", "--port", "70000")
    assert result.returncode == 2 and result.stderr.count(b"\n") == 1
    assert b"--port" in result.stderr and b"70000" in result.stderr and b"not a whole number from 1 to 65" \
        in result.stderr
