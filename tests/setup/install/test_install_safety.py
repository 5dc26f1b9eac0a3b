"""What the installer must never do to a user: replace a symlinked settings.json or
CLAUDE.md by a file, loosen settings.json's permissions, act on a vault argument it has not checked,
delete on a bare Enter, leave copies of the user's secrets behind on uninstall, or pre-approve a
search the agent can point at any folder."""
from __future__ import annotations

import json
import os
import pty
import select
import subprocess
import time
from pathlib import Path

import pytest

from install_kit import INSTALL_PY, TRANSCRIPT_ID, USER_CLAUDE_MD, USER_SETTINGS, User, our_handlers
from obsidian_memory.setup import install

pytestmark = pytest.mark.skipif(os.name == "nt", reason="POSIX links, modes and terminals")
SECRET = "sk-ant-api03-DOTFILES-SECRET-0000000000000000000000"


def at_a_terminal(user: User, args: list[str], answers: list[str], timeout: float = 240) -> tuple[int, str]:
    """install.py ARGS on a pseudo-terminal; each answer is typed after the next `[y/N]`/`[Y/n]` prompt."""
    leader, follower = pty.openpty()
    process = subprocess.Popen([user.python, str(INSTALL_PY), *args], stdin=follower, stdout=follower,
                               stderr=follower, env=user.environ(), cwd=str(user.root), close_fds=True)
    os.close(follower)
    output, answered, deadline = b"", 0, time.monotonic() + timeout
    while time.monotonic() < deadline:
        ready, _, _ = select.select([leader], [], [], 0.2)
        if ready:
            try:
                chunk = os.read(leader, 4096)
            except OSError:   # the terminal closed: the installer is done
                break
            if not chunk:
                break
            output += chunk
        asked = output.count(b"[y/N] ") + output.count(b"[Y/n] ")
        if answered < min(asked, len(answers)):
            os.write(leader, answers[answered].encode() + b"\n")
            answered += 1
    os.close(leader)
    return process.wait(timeout=60), output.decode("utf-8", "replace")


# -- symlinked settings.json and CLAUDE.md (dotfiles) --------------------------------------------

def test_symlinked_settings_and_claude_md_are_written_through_and_restored_and_stay_links(user, tmp_path):
    dotfiles = tmp_path / "dotfiles" / "claude"
    dotfiles.mkdir(parents=True)
    own = dict(USER_SETTINGS, env={"ANTHROPIC_API_KEY": SECRET})
    original = (json.dumps(own, indent=2) + "\n").encode()
    (dotfiles / "settings.json").write_bytes(original)
    (dotfiles / "CLAUDE.md").write_bytes(USER_CLAUDE_MD)
    os.chmod(dotfiles / "settings.json", 0o600)
    user.settings_json.symlink_to(dotfiles / "settings.json")
    user.claude_md.symlink_to(Path("..") / ".." / "dotfiles" / "claude" / "CLAUDE.md")   # a relative link

    user.install_default()
    assert user.settings_json.is_symlink() and user.claude_md.is_symlink()
    assert our_handlers(json.loads((dotfiles / "settings.json").read_text()), "SessionStart")
    assert install.BLOCK_BEGIN in (dotfiles / "CLAUDE.md").read_text(encoding="utf-8")
    assert (dotfiles / "settings.json").stat().st_mode & 0o777 == 0o600

    user.install("--uninstall", "--yes")
    assert user.settings_json.is_symlink() and user.claude_md.is_symlink()
    assert (dotfiles / "settings.json").read_bytes() == original
    assert (dotfiles / "CLAUDE.md").read_bytes() == USER_CLAUDE_MD
    assert (dotfiles / "settings.json").stat().st_mode & 0o777 == 0o600
    assert sorted(p.name for p in dotfiles.iterdir()) == ["CLAUDE.md", "settings.json"]


def test_a_settings_json_saved_with_a_bom_is_installed_into_and_given_back_byte_for_byte(user):
    """Windows editors start settings.json with a BOM: the installer refused it as not JSON."""
    original = b"\xef\xbb\xbf" + (json.dumps(USER_SETTINGS, indent=2) + "\r\n").encode("utf-8")
    user.settings_json.write_bytes(original)
    user.install_default()
    settings = user.settings()
    assert our_handlers(settings, "SessionStart") and settings["model"] == USER_SETTINGS["model"]
    user.install("--uninstall", "--yes")
    assert user.settings_json.read_bytes() == original


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="this system has no FIFOs")
def test_a_fifo_for_settings_json_stops_the_install_with_one_line(tmp_path):
    person = User(tmp_path)
    os.mkfifo(person.settings_json)     # no writer ever comes: a plain open() waits forever
    result = person.install("--vault", person.vault, "--create-vault", "--no-import", "--yes", check=False, timeout=60)
    assert result.returncode != 0
    message = result.stderr.decode().strip()
    assert message.splitlines() == [f"install.py: error: {person.settings_json} is not a regular file (a FIFO or a device): "
                                    "move it away and run the installer again"], message
    assert not (person.config_dir / "obsidian-memory").exists() and not person.vault.exists()


def test_a_private_settings_json_stays_private(user):
    user.settings_json.write_text(json.dumps({"env": {"TOKEN": SECRET}}) + "\n")
    os.chmod(user.settings_json, 0o600)
    user.install_default()
    assert user.settings_json.stat().st_mode & 0o777 == 0o600
    for backup in Path(user.layout.backups_dir).iterdir():
        assert backup.stat().st_mode & 0o777 == 0o600


# -- the vault argument, checked before anything is made -------------------------------------------

def test_a_vault_that_is_a_file_is_refused_before_anything_is_made(tmp_path):
    person = User(tmp_path)
    vault_file = tmp_path / "notes.md"
    vault_file.write_text("# not a folder\n")
    result = person.install("--vault", vault_file, "--no-import", "--yes", check=False)
    err = result.stderr.decode()
    assert result.returncode == 2 and len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert "is a file, not a folder" in err and "nothing was changed" in err
    assert list(person.config_dir.iterdir()) == []   # no venv, no config.yaml pointing at the file


def test_a_missing_vault_is_created_only_when_asked_for(tmp_path, built_venv):
    import shutil

    person = User(tmp_path)
    shutil.copytree(built_venv, person.layout.venv, symlinks=True)
    result = person.install("--vault", person.vault, "--no-import", "--yes", check=False)
    assert result.returncode == 2 and b"does not exist" in result.stderr and b"--create-vault" in result.stderr
    assert not person.vault.exists() and not person.settings_json.exists()
    person.install("--vault", person.vault, "--no-import", "--yes", "--create-vault")
    assert (person.vault / "Meta" / "claude-sessions").is_dir()


def test_at_a_terminal_a_missing_vault_is_created_after_a_question_that_defaults_to_no(tmp_path, built_venv):
    import shutil

    person = User(tmp_path)
    shutil.copytree(built_venv, person.layout.venv, symlinks=True)
    code, output = at_a_terminal(person, ["--vault", str(person.vault), "--no-import"], [""])
    assert code == 1 and f"The vault {person.vault} does not exist. Create it? [y/N]" in output, output
    assert not person.vault.exists() and not person.settings_json.exists()
    code, output = at_a_terminal(person, ["--vault", str(person.vault), "--no-import"], ["y", ""])
    assert code == 0, output
    assert person.vault.is_dir() and our_handlers(person.settings(), "SessionStart")


def test_a_folder_without_obsidian_settings_is_named_as_probably_not_a_vault(user):
    user.vault.mkdir()
    result = user.install("--vault", user.vault, "--no-import", "--yes")
    assert b"has no .obsidian/ folder, so it is probably not an Obsidian vault" in result.stdout
    (user.vault / ".obsidian").mkdir()
    assert b"probably not an Obsidian vault" not in user.install("--no-import", "--yes").stdout


# -- --purge asks, and Enter means no -----------------------------------------------------------

def test_the_purge_question_defaults_to_no(user):
    user.install_default()
    archive = user.config_dir / "session-archive.db"
    archive.write_bytes(b"")
    code, output = at_a_terminal(user, ["--uninstall", "--purge"], [""])
    assert code == 1 and "Sure? [y/N]" in output and "nothing was changed" in output, output
    assert archive.exists() and our_handlers(user.settings(), "SessionStart")


# -- uninstall removes what is ours and lists what it keeps (21.9) -------------------------------------

def test_uninstall_removes_caches_locks_stamp_and_backups_and_lists_what_it_keeps(user):
    own = {"env": {"ANTHROPIC_API_KEY": SECRET}, "model": "opus"}
    user.settings_json.write_text(json.dumps(own, indent=2) + "\n")
    user.install_default()
    (user.vault / "Note.md").write_text("zebra\n")
    environ = user.environ(OBSIDIAN_VAULT=user.vault)
    launcher = user.layout.launcher("obsidian_memory.py")
    for args in (["reindex"], ["learn", "zebras are striped"]):
        assert subprocess.run([user.python, launcher, *args], env=environ, capture_output=True).returncode == 0
    home = Path(user.layout.home)
    (home / "sweep.stamp").write_text("0\n")   # a sweep ran lately (so that none starts now, beside the uninstall)
    for event in ("SessionStart", "SessionEnd"):
        hook = our_handlers(user.settings(), event)[0]
        subprocess.run([hook["command"], *hook["args"]], input=json.dumps(
            {"hook_event_name": event, "session_id": TRANSCRIPT_ID, "cwd": str(user.root),
             "transcript_path": str(user.transcript())}).encode(), env=environ, capture_output=True)
    assert (user.config_dir / "session-archive.db").exists()
    assert {"cache", "locks", "sweep.stamp", "backups"} <= {p.name for p in home.iterdir()}
    assert SECRET in "".join(p.read_text() for p in (home / "backups").iterdir())
    (home / "obsidian-memory.log").write_text("a line\n")

    result = user.install("--uninstall", "--yes")
    out = result.stdout.decode()
    assert sorted(p.name for p in home.iterdir()) == ["config.yaml", "machine.json", "obsidian-memory.log"]
    kept = next(line for line in out.splitlines() if line.strip().startswith("kept:"))
    assert str(home / "config.yaml") in kept and str(home / "obsidian-memory.log") in kept
    assert str(home / "machine.json") in kept and "this machine's id" in kept
    assert "notes in your vault" in kept and "session archive" in kept
    leftovers = [p for p in user.config_dir.rglob("*") if p.is_file() and p != user.settings_json]
    assert not [p for p in leftovers if SECRET.encode() in p.read_bytes()], "a copy of the secret was kept"
    assert json.loads(user.settings_json.read_text()) == own


@pytest.mark.parametrize("purge", [[], ["--purge"]])
def test_uninstall_goes_through_with_a_config_yaml_that_cannot_be_used(user, purge):
    user.install_default()
    Path(user.layout.config_yaml).write_text("vault: [unclosed\n  - :\n")
    result = user.install("--uninstall", "--yes", *purge)
    assert b"obsidian-memory is uninstalled" in result.stdout
    assert not user.settings_json.exists() and not Path(user.layout.venv).exists()


# -- the pre-approved search reads the configured vault only --------------------------------------

def test_the_pre_approved_search_refuses_another_vault_inside_claude_code(user, tmp_path):
    user.install_default()
    (user.vault / "Mine.md").write_text("the zebra note\n")
    other = tmp_path / "private"
    other.mkdir()
    (other / "Secret.md").write_text("the zebra secret\n")
    rules = [r[len("Bash("):-len(" *)")] for r in user.settings()["permissions"]["allow"] if install.is_our_rule(r)]

    def run(command: str, **env):
        return subprocess.run(["sh", "-c", command], capture_output=True, env=user.environ(**env), timeout=120)

    assert len(rules) == 3
    for prefix in rules:   # search_vault.py, `obsidian_memory.py search` and `obsidian_memory.py read`
        reading = prefix.endswith(" read")
        mine, secret = ("Mine", "Secret") if reading else ("zebra", "zebra")
        refused = run(f'{prefix} {secret} --vault "{other}"', CLAUDECODE="1")
        err = refused.stderr.decode()
        assert refused.returncode == 2 and "--vault is refused inside Claude Code" in err, err
        assert str(user.vault) in err and len(err.strip().splitlines()) == 1
        assert b"Secret" not in refused.stdout
        allowed = run(f'{prefix} {mine} --vault "{user.vault}"', CLAUDECODE="1")   # (the local index)
        assert allowed.returncode == 0 and b"Mine.md" in allowed.stdout, allowed.stderr
        if not reading:
            assert run(f'{prefix} zebra --port 9999', CLAUDECODE="1").returncode == 2
    from obsidian_memory.search import store
    from obsidian_memory.core.settings import Settings
    assert not os.path.exists(store.index_path(Settings(str(user.config_dir), vault=str(other))))
    assert os.path.exists(store.index_path(Settings(str(user.config_dir), vault=str(user.vault))))
    # The user's own ways to another vault: outside Claude Code, or OBSIDIAN_VAULT in front (which the rule
    # does not pre-approve, so Claude Code asks first).
    outside = run(f'{rules[0]} zebra --vault "{other}" --source scan')
    assert outside.returncode == 0 and b"Secret.md" in outside.stdout
    in_front = run(f'OBSIDIAN_VAULT="{other}" {rules[0]} zebra --source scan', CLAUDECODE="1")
    assert in_front.returncode == 0 and b"Secret.md" in in_front.stdout
    assert not any("Bash(OBSIDIAN_VAULT" in r for r in user.settings()["permissions"]["allow"])


# -- a user's own skill and a CLAUDE.md with Windows line endings ---------------------------------------

OWN_SKILL = b"---\nname: vault-search\ndescription: my own search over my notes\n---\nRun `rg` over ~/notes.\n"


def test_a_users_own_vault_search_skill_is_backed_up_said_and_given_back(user):
    user.skill_md.parent.mkdir(parents=True)
    user.skill_md.write_bytes(OWN_SKILL)
    dry = user.install("--vault", user.vault, "--create-vault", "--no-import", "--dry-run").stdout.decode()
    assert "your own SKILL.md is backed up and given back by uninstall" in dry
    assert user.skill_md.read_bytes() == OWN_SKILL
    user.install_default()
    assert b"obsidian-memory/bin/" in user.skill_md.read_bytes()
    backups = list((user.config_dir / "obsidian-memory" / "backups").glob("SKILL.md.*"))
    assert [b.read_bytes() for b in backups] == [OWN_SKILL]
    user.install_default()   # a second install keeps the user's skill to give back
    user.install("--uninstall", "--yes")
    assert user.skill_md.read_bytes() == OWN_SKILL


def test_our_skill_alone_is_removed_by_uninstall(user):
    user.install_default()
    user.install("--uninstall", "--yes")
    assert not user.skill_md.exists()


def test_a_claude_md_with_crlf_line_endings_keeps_them(user):
    mine = b"# My rules\r\n\r\nAnswer tersely.\r\n"
    user.claude_md.write_bytes(mine)
    user.install_default()
    written = user.claude_md.read_bytes()
    assert written.startswith(mine) and b"obsidian-memory:begin" in written
    assert written.count(b"\n") == written.count(b"\r\n")    # no bare LF line
    user.install("--uninstall", "--yes")
    assert user.claude_md.read_bytes() == mine
    user.claude_md.write_bytes(mine)
    user.install_default()
    user.claude_md.write_bytes(user.claude_md.read_bytes() + b"My later line.\r\n")   # edited since: only ours goes
    user.install("--uninstall", "--yes")
    kept = user.claude_md.read_bytes()
    assert kept.startswith(mine) and kept.endswith(b"My later line.\r\n") and kept.count(b"\n") == kept.count(b"\r\n")
