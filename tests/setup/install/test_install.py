"""The installer as a user runs it (`python3 install.py`), in a temporary HOME holding their own
settings.json and CLAUDE.md: what it adds, what a re-install and an uninstall do, the dry run and the
refusals, and the merge rules (in-process, at the end). One real install (venv + pip) is made per test
session (conftest.py); each test gets a copy of that venv in its own CLAUDE_CONFIG_DIR, which the
installer recognises as current (its source digest matches) and reuses without pip.
"""
from __future__ import annotations

import json
import os
import shlex
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from install_kit import (INSTALL_SH, SKILL_RULE, TRANSCRIPT_ID, USER_CLAUDE_MD, USER_SETTINGS,
                         USER_SETTINGS_BYTES, User, our_handlers, run_hook_as_written, skill_allowed_tools,
                         snapshot)
from testkit import REPO, mcp_exchange
from obsidian_memory.setup import install


# -- what the first install does ------------------------------------------------------------------

def test_install_merges_our_hooks_and_rules_and_keeps_every_other_key_and_hook(user):
    user.give_own_files()
    user.install_default()
    settings = user.settings()
    assert list(settings)[: len(USER_SETTINGS)] == list(USER_SETTINGS)
    for key in ("$schema", "model", "env", "statusLine"):
        assert settings[key] == USER_SETTINGS[key]
    assert settings["hooks"]["PreToolUse"] == USER_SETTINGS["hooks"]["PreToolUse"]
    assert settings["hooks"]["SessionStart"][0] == USER_SETTINGS["hooks"]["SessionStart"][0]
    python = install.slashes(user.python)   # the Python the installer ran with, not the venv's
    launcher = install.slashes(user.layout.launcher("obsidian_memory.py"))
    expected = {"SessionStart": ("session-start", 10), "UserPromptSubmit": ("user-prompt", 5),
                "SessionEnd": ("archive", 30), "PreCompact": ("archive", 30), "PostCompact": ("archive", 30)}
    for event, (argument, timeout) in expected.items():
        (handler,) = our_handlers(settings, event)
        assert handler == {"type": "command", "command": user.python,
                           "args": ["-S", user.layout.launcher("obsidian_memory.py"), "hook", argument], "timeout": timeout}
    assert settings["hooks"]["SessionStart"][1]["matcher"] == "startup|resume|clear|compact|fork"
    assert settings["permissions"]["deny"] == ["Read(./.env)"]
    assert settings["permissions"]["allow"] == [
        "Bash(git status *)",
        f"Bash({python} -S {install.slashes(user.layout.launcher('search_vault.py'))} *)",
        f"Bash({python} -S {launcher} search *)",
        f"Bash({python} -S {launcher} read *)",
        SKILL_RULE,
    ]
    text = user.claude_md.read_bytes()
    assert text.startswith(USER_CLAUDE_MD)
    assert text.count(install.BLOCK_BEGIN.encode()) == 1 and text.count(install.BLOCK_END.encode()) == 1
    assert user.settings_json.read_text(encoding="utf-8").endswith("}\n")
    assert "grüß dich — 你好" in user.settings_json.read_text(encoding="utf-8")  # not \u-escaped


def test_install_creates_config_vault_folders_launchers_and_skill(user):
    user.install_default()
    from obsidian_memory.core import settings as settings_module
    config = settings_module.read_config_file(user.layout.config_yaml)
    assert config["vault"] == str(user.vault)
    assert set(config) >= {"context_budget", "excluded_projects", "redact"}
    assert "omnisearch_port" not in config   # found in the vault's Omnisearch settings, unless the user sets it
    assert (user.vault / "Meta" / "claude-sessions").is_dir()
    assert sorted(p.name for p in user.vault.rglob("*")) == ["Meta", "claude-sessions"]
    for name in install.LAUNCHERS:
        copied = Path(user.layout.launcher(name))
        assert copied.read_bytes() == (REPO / "scripts" / name).read_bytes()
        assert os.access(copied, os.X_OK) == (name in install.EXECUTABLE_LAUNCHERS)
    skill = user.skill_md.read_text(encoding="utf-8")
    assert "{{" not in skill
    assert skill_allowed_tools(skill) == install.permission_rules(user.layout)
    search_prefix = install.agent_prefixes(user.layout)[0]
    assert search_prefix + " " in skill  # and the body tells Claude that very command


def test_the_launchers_run_as_plain_commands_through_a_python3_without_the_package(user, tmp_path):
    """`bin/` on PATH: `obsidian_memory.py sessions` runs with whatever `python3` env finds (here the
    bare base interpreter, which has no obsidian_memory) and hands over to our venv."""
    user.install_default()
    bare = tmp_path / "bare-bin"
    bare.mkdir()
    (bare / "python3").symlink_to(os.path.realpath(sys.executable))
    probe = subprocess.run([str(bare / "python3"), "-I", "-c", "import obsidian_memory"], capture_output=True)
    assert probe.returncode != 0, "the base interpreter must not have the package for this test to mean anything"
    environ = {**user.environ(), "PATH": f"{bare}:/usr/bin:/bin"}
    listed = subprocess.run([user.layout.launcher("obsidian_memory.py"), "sessions"], capture_output=True,
                            env=environ, cwd=str(user.root), timeout=60)
    assert listed.returncode == 0, listed.stderr.decode()
    (user.vault / "Zebra.md").write_text("stripes\n", encoding="utf-8")
    found = subprocess.run([user.layout.launcher("search_vault.py"), "stripes", "--source", "scan"],
                           capture_output=True, env=environ, cwd=str(user.root), timeout=60)
    assert found.returncode == 0 and "Zebra.md" in found.stdout.decode(), found.stderr.decode()

def test_second_install_is_byte_identical_and_writes_no_second_backup(user):
    user.give_own_files()
    user.install_default()
    venv = Path(user.layout.venv).relative_to(user.root).as_posix()  # reinstalled if the checkout changed
    before = snapshot(user.root, skip=(venv,))
    result = user.install_default()
    assert snapshot(user.root, skip=(venv,)) == before
    assert b"nothing changed" in result.stdout
    assert len(list(Path(user.layout.backups_dir).iterdir())) == 2  # settings.json and CLAUDE.md, once


def test_reinstall_keeps_the_users_edited_config(user):
    user.install_default()
    config = Path(user.layout.config_yaml)
    config.write_text(config.read_text(encoding="utf-8").replace("context_budget: 6000", "context_budget: 3000")
                      + "# my note\n", encoding="utf-8")
    edited = config.read_bytes()
    user.install("--no-import", "--yes")
    assert config.read_bytes() == edited


def test_reinstall_replaces_an_older_entry_of_ours_instead_of_adding_a_copy(user):
    user.give_own_files()
    user.install_default()
    settings = user.settings()
    settings["hooks"]["SessionEnd"][0]["hooks"][0]["command"] = "python3 /old/place/obsidian-memory/bin/obsidian_memory.py hook archive"
    settings["permissions"]["allow"].append("Bash(python3 /old/place/obsidian-memory/bin/search_vault.py *)")
    user.settings_json.write_text(json.dumps(settings, indent=2), encoding="utf-8")
    user.install("--no-import", "--yes")
    settings = user.settings()
    for event in install.HOOKS:
        assert len(our_handlers(settings, event)) == 1
    assert our_handlers(settings, "SessionEnd")[0]["command"] == user.python
    ours = [r for r in settings["permissions"]["allow"] if install.is_our_rule(r)]
    assert ours == install.permission_rules(user.layout)


# -- dry run and refusals -----------------------------------------------------------------------

def test_dry_run_changes_nothing_under_home_not_even_a_venv(tmp_path):
    person = User(tmp_path)
    person.give_own_files()
    before = snapshot(tmp_path)
    result = person.install("--vault", person.vault, "--dry-run")
    assert snapshot(tmp_path) == before
    out = result.stdout.decode()
    assert "hooks and permission rules" in out and "create the virtual environment" in out
    assert "+              \"session-start\"" in out  # the diff of settings.json: our SessionStart hook


def test_dry_run_of_an_installed_setup_changes_nothing(user):
    user.give_own_files()
    user.install_default()
    before = snapshot(user.root)
    for args in (["--dry-run"], ["--uninstall", "--dry-run"], ["--uninstall", "--purge", "--dry-run"]):
        result = user.install(*args)
        assert snapshot(user.root) == before, args
    assert b"restored as it was before the install" in result.stdout


def test_the_dry_run_says_why_the_venv_would_be_reinstalled_and_never_blames_an_unchanged_checkout(user):
    user.install_default()
    assert b"reinstall" not in user.install("--dry-run").stdout
    other_extras = user.install("--dry-run", "--semantic").stdout.decode()
    assert "- reinstall obsidian-memory[semantic] from" in other_extras, other_extras
    assert "([semantic] instead of no extra: the options chose other extras)" in other_extras
    assert "checkout changed" not in other_extras


def test_invalid_settings_json_stops_the_install_with_one_line_and_the_file_untouched(tmp_path):
    person = User(tmp_path)
    broken = b'{\n  "model": "opus",\n}\n'
    person.settings_json.write_bytes(broken)
    result = person.install("--vault", person.vault, "--create-vault", "--no-import", "--yes", check=False)
    assert result.returncode != 0
    message = result.stderr.decode().strip()
    assert len(message.splitlines()) == 1, message
    assert "settings.json is not valid JSON" in message and "nothing was changed" in message
    assert person.settings_json.read_bytes() == broken
    assert not (person.config_dir / "obsidian-memory").exists()  # not even the venv was made
    assert not person.vault.exists()


def test_purge_without_yes_and_without_a_terminal_refuses(user):
    user.install_default()
    result = user.install("--uninstall", "--purge", check=False)
    assert result.returncode != 0 and b"--yes" in result.stderr
    assert user.settings_json.exists() and our_handlers(user.settings(), "SessionStart")


# -- uninstall ---------------------------------------------------------------------------------

def test_uninstall_restores_settings_and_claude_md_byte_for_byte(user):
    user.give_own_files()
    user.install_default()
    user.install("--uninstall", "--yes")
    assert user.settings_json.read_bytes() == USER_SETTINGS_BYTES
    assert user.claude_md.read_bytes() == USER_CLAUDE_MD
    assert not (user.config_dir / "skills").exists()
    assert not Path(user.layout.venv).exists() and not Path(user.layout.bin_dir).exists()
    assert not user.vault.exists()  # we made it (empty): it goes too
    assert Path(user.layout.config_yaml).exists()  # kept for a later re-install


def test_uninstall_says_how_to_remove_the_mcp_server_the_readme_had_the_user_add(user):
    user.install_default()
    assert b"claude mcp remove" not in user.install("--uninstall", "--yes").stdout   # none added: not a word of it
    user.install_default()
    # what `claude mcp add --scope user obsidian-memory -- <venv python> <bin>/obsidian_memory.py mcp` leaves in
    # the client's own file (seen in 2.1.332; the e2e uninstall scenario runs the command for real)
    entry = {"type": "stdio", "command": user.layout.python,
             "args": [user.layout.launcher("obsidian_memory.py"), "mcp"], "env": {}}
    (user.config_dir / ".claude.json").write_text(json.dumps({"numStartups": 3, "mcpServers": {"obsidian-memory": entry},
                                                              "projects": {"/work/app": {"mcpServers": {"notes": entry}}}}),
                                                  encoding="utf-8")
    said = user.install("--uninstall", "--yes").stdout.decode()
    assert "`claude mcp remove --scope user obsidian-memory` removes it" in said, said
    assert "`cd /work/app && claude mcp remove --scope local notes` removes it" in said, said
    assert json.loads((user.config_dir / ".claude.json").read_text(encoding="utf-8"))["mcpServers"]   # not ours to edit


def test_missing_settings_json_and_claude_md_are_created_and_removed_again(user):
    user.install_default()
    assert our_handlers(user.settings(), "SessionStart") and user.claude_md.exists()
    user.install("--uninstall", "--yes")
    assert not user.settings_json.exists() and not user.claude_md.exists()


def test_uninstall_keeps_what_the_user_changed_after_the_install(user):
    user.give_own_files()
    user.install_default()
    settings = user.settings()
    settings["theme"] = "dark"
    settings["permissions"]["allow"].append("Bash(npm test *)")
    user.settings_json.write_text(json.dumps(settings, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    user.claude_md.write_bytes(user.claude_md.read_bytes() + b"\nA line added later.\n")
    user.install("--uninstall", "--yes")
    settings = user.settings()
    assert settings["theme"] == "dark"
    assert settings["permissions"]["allow"] == ["Bash(git status *)", "Bash(npm test *)"]  # our skill rule went
    assert settings["hooks"] == USER_SETTINGS["hooks"]
    assert "obsidian-memory" not in user.settings_json.read_text(encoding="utf-8")
    text = user.claude_md.read_bytes()
    assert text.startswith(USER_CLAUDE_MD) and b"A line added later." in text
    assert install.BLOCK_BEGIN.encode() not in text


def test_a_skill_rule_the_user_already_had_is_neither_doubled_nor_taken_away(user):
    own = dict(USER_SETTINGS, permissions={"allow": [SKILL_RULE, "Bash(git status *)"]})
    user.settings_json.write_text(json.dumps(own, indent=2) + "\n", encoding="utf-8")
    user.install_default()
    assert user.settings()["permissions"]["allow"].count(SKILL_RULE) == 1
    user.install("--no-import", "--yes")  # a re-install does not take it for ours either
    settings = user.settings()
    settings["theme"] = "dark"  # edited since: uninstall strips ours instead of restoring the copy
    user.settings_json.write_text(json.dumps(settings, indent=2) + "\n", encoding="utf-8")
    user.install("--uninstall", "--yes")
    assert user.settings()["permissions"]["allow"] == [SKILL_RULE, "Bash(git status *)"]


def test_purge_deletes_the_archive_and_config_but_never_vault_notes(user):
    user.install_default()
    note = user.vault / "Meta" / "claude-sessions" / "2026-12-02 a session.md"
    note.write_text("# a session\n", encoding="utf-8")
    archive = user.config_dir / "session-archive.db"
    sqlite3.connect(archive).execute("CREATE TABLE t (x)").connection.close()
    user.install("--uninstall", "--purge", "--yes")
    assert not archive.exists()
    assert not (user.config_dir / "obsidian-memory").exists()
    assert note.read_text(encoding="utf-8") == "# a session\n"


def test_plain_uninstall_keeps_the_archive(user):
    user.install_default()
    archive = user.config_dir / "session-archive.db"
    sqlite3.connect(archive).execute("CREATE TABLE t (x)").connection.close()
    user.install("--uninstall", "--yes")
    assert archive.exists()


# -- the commands written work as Claude Code runs them ----------------------------------------------

def test_hook_commands_taken_from_settings_json_run_without_a_shell_and_exit_zero(user):
    user.install_default()
    transcript = user.transcript()
    base = {"session_id": TRANSCRIPT_ID, "transcript_path": str(transcript), "cwd": str(user.root)}
    settings = user.settings()
    environ = user.environ(PATH="/nonexistent")   # exec form: no shell, nothing looked up on PATH
    (user.vault / "Meta" / "claude-state.md").write_text("Halfway through the okapi importer.\n", encoding="utf-8")
    start = run_hook_as_written(our_handlers(settings, "SessionStart")[0],
                                {**base, "hook_event_name": "SessionStart", "source": "startup"}, environ, user.root)
    assert (start.returncode, start.stderr) == (0, b""), start.stderr
    started = json.loads(start.stdout)["hookSpecificOutput"]
    assert started["hookEventName"] == "SessionStart"
    assert "Halfway through the okapi importer." in started["additionalContext"]
    end = run_hook_as_written(our_handlers(settings, "SessionEnd")[0],
                              {**base, "hook_event_name": "SessionEnd", "reason": "other"}, environ, user.root)
    assert (end.returncode, end.stdout, end.stderr) == (0, b"", b"")
    assert list((user.vault / "Meta" / "claude-sessions").rglob(f"*_{TRANSCRIPT_ID[:8]}.md"))


# -- the merge rules, in-process ------------------------------------------------------------------

# (An already empty "hooks" or "permissions.allow" cannot be told from one we emptied: the exact
# file comes back through the recorded pristine copy, see the byte-for-byte uninstall tests.)
@pytest.mark.parametrize("original", [
    {},
    {"hooks": {"PreToolUse": []}, "permissions": {"deny": []}},
    USER_SETTINGS,
    {"hooks": {"SessionEnd": [{"hooks": [{"type": "command", "command": "mine"}]}]}, "x": [1, {"y": None}]},
])
def test_stripping_our_entries_gives_back_the_original_settings(original, tmp_path):
    layout = install.Layout(str(tmp_path))
    merged = install.merge_settings(original, layout)
    assert merged != original and SKILL_RULE in merged["permissions"]["allow"]
    assert install.merge_settings(merged, layout) == merged
    added = install.shared_rules_added(original)
    assert added == [SKILL_RULE]
    assert install.strip_settings(merged, added) == original
    assert install.shared_rules_added(merged, added) == added  # still ours on a re-install


def test_stripping_keeps_a_skill_rule_that_was_the_users():
    original = {"permissions": {"allow": [SKILL_RULE]}}
    merged = install.merge_settings(original, install.Layout("/x"))
    assert merged["permissions"]["allow"].count(SKILL_RULE) == 1
    assert install.shared_rules_added(original) == []
    assert install.strip_settings(merged, []) == original


def test_a_user_handler_added_to_our_group_survives_the_strip(tmp_path):
    layout = install.Layout(str(tmp_path))
    merged = install.merge_settings({}, layout)
    merged["hooks"]["SessionEnd"][0]["hooks"].append({"type": "command", "command": "mine"})
    stripped = install.strip_settings(merged)
    assert stripped["hooks"] == {"SessionEnd": [{"hooks": [{"type": "command", "command": "mine"}]}]}


def test_settings_keep_their_own_indentation():
    four = b'{\n    "model": "opus"\n}\n'
    assert install.dump_settings({"model": "opus"}, four) == four
    assert install.dump_settings({"model": "opus"}, None) == b'{\n  "model": "opus"\n}\n'


@pytest.mark.parametrize("text", [None, "", "no newline at end", "two\n\n", "text\n"])
def test_claude_md_block_is_replaced_in_place_and_removed_cleanly(text):
    once = install.put_block(text, "<!-- obsidian-memory:begin -->\nA\n<!-- obsidian-memory:end -->\n")
    twice = install.put_block(once, "<!-- obsidian-memory:begin -->\nB\n<!-- obsidian-memory:end -->\n")
    assert twice.count("obsidian-memory:begin") == 1 and "\nB\n" in twice and "\nA\n" not in twice
    if text:
        assert twice.startswith(text)
        assert install.remove_block(twice) == text or install.remove_block(twice) == text + "\n"


@pytest.mark.parametrize("original", [
    b'{"hooks": {}, "permissions": {"allow": []}}',
    b'{\n    "model": "sonnet",\n    "env": {"A": "\\u00fc"}\n}\n',
    b'\n\n{"x": 1}\n\n\n',
], ids=["empty-containers-no-newline", "four-spaces-escaped-unicode", "odd-whitespace"])
def test_uninstall_gives_back_any_settings_file_exactly(user, original):
    user.settings_json.write_bytes(original)
    user.install_default()
    assert our_handlers(user.settings(), "SessionEnd")
    user.install("--uninstall", "--yes")
    assert user.settings_json.read_bytes() == original


def test_dry_run_on_a_bare_python_without_jinja2_still_changes_nothing(tmp_path):
    bare = tmp_path / "bare-python"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(bare)], check=True)
    person = User(tmp_path / "user")
    person.give_own_files()
    before = snapshot(person.root)
    env = person.environ()
    env["OBSIDIAN_MEMORY_PYTHON"] = str(bare / "bin" / "python")
    result = subprocess.run(["bash", str(INSTALL_SH), "--dry-run"], capture_output=True, env=env,
                            stdin=subprocess.DEVNULL, timeout=120)  # the wrapper runs install.py with that Python
    assert result.returncode == 0, result.stderr
    assert snapshot(person.root) == before
    assert b"rendered by the venv's jinja2 at install time" in result.stdout


BUILD_INPUTS = ("install.py", "install.sh", "pyproject.toml", "README.md", "obsidian_memory", "templates", "scripts",
                "skills")


def test_two_installs_at_once_from_one_checkout_both_work_and_leave_it_untouched(tmp_path):
    """pip builds in the source folder (build/, *.egg-info): install.sh builds from a private copy,
    so two installs at once do not mix their files, and the checkout stays as it was."""
    checkout = tmp_path / "checkout"
    for name in BUILD_INPUTS:
        source = REPO / name
        if source.is_dir():
            shutil.copytree(source, checkout / name, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            checkout.mkdir(exist_ok=True)
            shutil.copy2(source, checkout / name)
    before = snapshot(checkout)
    people = [User(tmp_path / name) for name in ("ann", "bob")]
    for person in people:
        (person.root / "tmp").mkdir()
    running = [subprocess.Popen(["bash", str(checkout / "install.sh"), "--vault", str(p.vault), "--create-vault",
                                 "--no-import", "--yes"],
                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                env={**p.environ(), "TMPDIR": str(p.root / "tmp")}, cwd=str(p.root))
               for p in people]
    outputs = [process.communicate(timeout=600)[0].decode(errors="replace") for process in running]
    for person, process, output in zip(people, running, outputs):
        assert process.returncode == 0, output
        assert our_handlers(person.settings(), "SessionStart"), output
        assert not list((person.root / "tmp").iterdir()), "the private build copy was left behind"
    assert snapshot(checkout) == before


def test_mcp_option_installs_the_sdk_and_the_printed_server_command_answers(user):
    """`--mcp` installs the extra into our venv, is remembered for later installs, and the command
    the summary prints starts a server that answers an MCP client."""
    result = user.install_default("--mcp")
    lines = [line for line in result.stdout.decode().splitlines() if "MCP server" in line]
    assert len(lines) == 1, result.stdout.decode()
    command = lines[0].split(": ", 1)[1]
    assert command == install.mcp_command(user.layout)
    state = json.loads(Path(user.layout.state_path).read_text(encoding="utf-8"))
    assert "mcp" in state["extras"]
    answers = mcp_exchange(shlex.split(command), [{"jsonrpc": "2.0", "id": 2, "method": "tools/list"}],
                           env=user.environ(), cwd=str(user.root), timeout=120)
    tools = {tool["name"] for tool in answers[2]["result"]["tools"]}
    assert {"search", "read", "related", "similar", "search_sessions", "status"} <= tools

