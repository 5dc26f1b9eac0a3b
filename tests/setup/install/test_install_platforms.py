"""The installer and what it writes on whatever machine it meets: nothing but Python on PATH (no
bash), a default python3 that is too old, a HOME with spaces, quotes and non-ASCII letters, a
Claude Code older than the exec form, and a venv or package that is gone afterwards (the hooks
still exit 0 and say why in the log; `doctor` still says what is broken). Run on Linux here; the
Windows branches (Scripts\\python.exe, the py launcher, no execv) are designed for, not run."""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from install_kit import (SYSTEM_PYTHON, TRANSCRIPT_ID, User, only_python_on_path, our_handlers,
                         run_hook_as_written, skill_allowed_tools)
from testkit import REPO
from obsidian_memory.setup import install

pytestmark = pytest.mark.skipif(os.name == "nt", reason="POSIX paths and permissions")

# Makes the interpreter started as `python3` report Python 3.9 (as macOS's /usr/bin/python3 does);
# the same interpreter started under any other name stays what it is.
OLD_PYTHON3 = """import os, sys
if os.path.basename(sys.executable) == "python3":
    sys.version_info = (3, 9, 6, "final", 0)
"""


def start_payload(user: User) -> dict:
    return {"session_id": TRANSCRIPT_ID, "hook_event_name": "SessionStart", "source": "startup",
            "cwd": str(user.root), "transcript_path": str(user.transcript())}


def end_payload(user: User) -> dict:
    return {"session_id": TRANSCRIPT_ID, "hook_event_name": "SessionEnd", "reason": "other",
            "cwd": str(user.root), "transcript_path": str(user.transcript())}


# -- nothing but Python --------------------------------------------------------------------------

def test_install_py_runs_with_nothing_but_python_on_path(user, tmp_path):
    """(The session's first install, in conftest.py, ran pip the same way: no bash, no sh, no cp.)"""
    path = only_python_on_path(tmp_path / "only-python")
    assert shutil.which("bash", path=path) is None and shutil.which("sh", path=path) is None
    result = user.install("--vault", user.vault, "--create-vault", "--no-import", "--yes",
                          python=f"{path}/python3", env=user.environ(PATH=path))
    assert b"all required checks pass" in result.stdout, result.stdout.decode()
    for event in install.HOOKS:
        (handler,) = our_handlers(user.settings(), event)
        assert handler["command"] == f"{path}/python3"
    done = run_hook_as_written(our_handlers(user.settings(), "SessionEnd")[0], end_payload(user),
                               user.environ(PATH=path), user.root)
    assert (done.returncode, done.stdout, done.stderr) == (0, b"", b"")
    assert list(user.vault.rglob(f"*_{TRANSCRIPT_ID[:8]}.md"))


def test_a_too_old_python3_finds_a_newer_one_on_path_and_says_which(user, tmp_path):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "python3").symlink_to(SYSTEM_PYTHON)
    (bin_dir / "python3.11").symlink_to(SYSTEM_PYTHON)
    (tmp_path / "fake-old").mkdir()
    (tmp_path / "fake-old" / "sitecustomize.py").write_text(OLD_PYTHON3)
    environ = user.environ(PATH=f"{bin_dir}:/usr/bin:/bin", PYTHONPATH=tmp_path / "fake-old")
    result = user.install("--vault", user.vault, "--create-vault", "--no-import", "--yes",
                          python=str(bin_dir / "python3"), env=environ)
    out = result.stdout.decode()
    assert f"Python 3.9.6 ({bin_dir}/python3) is too old; using {bin_dir}/python3.11" in out, out
    assert our_handlers(user.settings(), "SessionStart")[0]["command"] == f"{bin_dir}/python3.11"


def test_without_a_new_enough_python_it_says_how_to_get_one_and_changes_nothing(tmp_path):
    person = User(tmp_path)
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "python3").symlink_to(SYSTEM_PYTHON)
    (tmp_path / "fake-old").mkdir()
    (tmp_path / "fake-old" / "sitecustomize.py").write_text(OLD_PYTHON3)
    result = person.install("--vault", person.vault, "--create-vault", "--yes", check=False,
                            python=str(bin_dir / "python3"),
                            env=person.environ(PATH=str(bin_dir), PYTHONPATH=tmp_path / "fake-old"))
    err = result.stderr.decode()
    assert result.returncode == 1 and result.stdout == b""
    assert "needs Python 3.10 or newer; this is Python 3.9.6" in err and "python3.13" in err
    assert re.search(r"(apt|dnf|brew|zypper) install|pacman -S", err) and "run `python3.12 install.py`" in err, err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bin", "fake-old", "home"]
    assert list(person.config_dir.iterdir()) == []


def test_run_from_an_activated_venv_the_hooks_use_the_python_it_is_made_from(user, tmp_path):
    """A user who runs the installer inside some project's venv may delete that venv later."""
    other = tmp_path / "someones-venv"
    subprocess.run([SYSTEM_PYTHON, "-m", "venv", "--without-pip", str(other)], check=True)
    user.install("--vault", user.vault, "--create-vault", "--no-import", "--yes", python=str(other / "bin" / "python"))
    (handler,) = our_handlers(user.settings(), "SessionStart")
    assert handler["command"] == SYSTEM_PYTHON and str(other) not in json.dumps(user.settings())


# -- a HOME with spaces, quotes and non-ASCII letters ---------------------------------------------

def test_a_home_with_spaces_quotes_and_non_ascii_letters_gets_working_hooks_and_search(tmp_path, built_venv):
    home = tmp_path / "Jo O'Neil \"ü\" 日本 #2"
    person = User(tmp_path, home=home)
    person.vault = tmp_path / "Mes notes: l'été ✓"
    shutil.copytree(built_venv, person.layout.venv, symlinks=True)
    person.install_default()
    settings = person.settings()

    for event, payload in (("SessionStart", start_payload(person)), ("SessionEnd", end_payload(person))):
        (handler,) = our_handlers(settings, event)
        done = run_hook_as_written(handler, payload, person.environ(), person.root)
        assert done.returncode == 0 and done.stderr == b"", done.stderr
    (note,) = person.vault.rglob(f"*_{TRANSCRIPT_ID[:8]}.md")
    assert "ünïcode" in note.read_text(encoding="utf-8")

    # The search commands, as the model types them into its shell, match the rules and find the note.
    skill = person.skill_md.read_text(encoding="utf-8")
    rules = [r for r in settings["permissions"]["allow"] if install.is_our_rule(r)]
    assert skill_allowed_tools(skill) == rules
    claude_md = person.claude_md.read_text(encoding="utf-8")
    for rule in rules:
        prefix = rule[len("Bash("):-len(" *)")]
        assert prefix + " " in skill and prefix + " " in claude_md
    search = rules[0][len("Bash("):-len(" *)")]
    found = subprocess.run(["sh", "-c", f'{search} "parser ünïcode" --source scan'], capture_output=True,
                           env=person.environ(), cwd=str(person.root), timeout=120)
    assert found.returncode == 0 and note.name.encode() in found.stdout, found.stderr.decode()


# -- Claude Code before the exec form --------------------------------------------------------------

def fake_claude(folder: Path, version: str) -> str:
    folder.mkdir(parents=True, exist_ok=True)
    script = folder / "claude"
    script.write_text(f"#!/bin/sh\necho '{version} (Claude Code)'\n")
    script.chmod(0o755)
    return f"{folder}:{os.environ.get('PATH', '')}"


def test_an_older_claude_on_path_gets_shell_command_lines_that_run(user, tmp_path):
    path = fake_claude(tmp_path / "old-claude", "2.1.100")
    user.install("--vault", user.vault, "--create-vault", "--no-import", "--yes", env=user.environ(PATH=path))
    settings = user.settings()
    for event in install.HOOKS:
        (handler,) = our_handlers(settings, event)
        assert "args" not in handler and handler["command"].startswith(f'"{user.python}" ')
    done = run_hook_as_written(our_handlers(settings, "SessionEnd")[0], end_payload(user), user.environ(), user.root)
    assert (done.returncode, done.stdout, done.stderr) == (0, b"", b"")

    path = fake_claude(tmp_path / "new-claude", "2.1.332")   # updated since: a re-install moves to the exec form
    user.install("--no-import", "--yes", env=user.environ(PATH=path))
    assert [h.get("args", [None])[-1] for e in install.HOOKS for h in our_handlers(user.settings(), e)] == [
        "session-start", "user-prompt", "archive", "archive", "archive"]


# -- the venv or the package gone afterwards (21.7) ------------------------------------------------

def break_install(user: User, what: str) -> None:
    venv = Path(user.layout.venv)
    if what == "venv removed":
        shutil.rmtree(venv)
    else:
        (package,) = venv.glob("lib/python*/site-packages/obsidian_memory")
        shutil.rmtree(package)


@pytest.mark.parametrize("what", ["venv removed", "package removed"])
def test_hooks_still_exit_0_and_log_why_and_doctor_says_what_is_broken(user, what):
    user.install_default()
    break_install(user, what)
    for event, payload in (("SessionStart", start_payload(user)), ("SessionEnd", end_payload(user)),
                           ("PreCompact", {**end_payload(user), "hook_event_name": "PreCompact"})):
        done = run_hook_as_written(our_handlers(user.settings(), event)[0], payload, user.environ(), user.root)
        assert (done.returncode, done.stdout, done.stderr) == (0, b"", b""), (event, done.stderr)
    log = user.log.read_text(encoding="utf-8")
    assert log.count("obsidian-memory cannot start") == 3
    assert f"repair it with `python3 install.py` in {REPO}" in log
    assert ("virtual environment" if what == "venv removed" else "package is missing") in log

    doctor = subprocess.run([user.python, user.layout.launcher("obsidian_memory.py"), "doctor"], capture_output=True,
                            env=user.environ(), timeout=60)
    text = doctor.stdout.decode()
    assert doctor.returncode == 1 and "fail  package" in text and f"install.py` in {REPO}" in text, text
    assert ("fail  venv" in text) == (what == "venv removed")

    search_rule = [r for r in user.settings()["permissions"]["allow"] if install.is_our_rule(r)][0]
    search = subprocess.run(["sh", "-c", search_rule[len("Bash("):-len(" *)")] + " x"], capture_output=True,
                            env=user.environ(), timeout=60)
    err = search.stderr.decode()
    assert search.returncode == 1 and len(err.splitlines()) == 1 and "cannot start" in err, err


def test_a_hook_run_by_a_python_of_another_version_hands_over_to_the_venv(user, tmp_path):
    """The launcher Python became another version (an upgrade): the venv's own Python takes over."""
    user.install_default()
    pyvenv = Path(user.layout.venv) / "pyvenv.cfg"
    pyvenv.write_text(pyvenv.read_text().replace(f"{sys.version_info[0]}.{sys.version_info[1]}", "3.99"))
    done = run_hook_as_written(our_handlers(user.settings(), "SessionEnd")[0], end_payload(user), user.environ(),
                               user.root)
    assert (done.returncode, done.stdout, done.stderr) == (0, b"", b"")
    assert list(user.vault.rglob(f"*_{TRANSCRIPT_ID[:8]}.md"))
