"""Claude Code's auto memory of each repository in the vault (`auto_memory: true`): what the
SessionStart hook writes into a repository's .claude/settings.local.json, and what uninstall gives back."""
from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
import time

import pytest
from testkit import REPO

from obsidian_memory.core import settings as settings_module
from obsidian_memory.setup import auto_memory, install


@pytest.fixture
def repo(tmp_path):
    path = tmp_path / "work" / "webapp"
    (path / ".git" / "info").mkdir(parents=True)
    (path / ".git" / "config").write_text('[remote "origin"]\n\turl = git@github.com:acme/webapp.git\n',
                                          encoding="utf-8")
    (path / ".git" / "info" / "exclude").write_text("# git ls-files --others --exclude-from=.git/info/exclude\n",
                                                    encoding="utf-8")
    return path


@pytest.fixture
def configured(env, monkeypatch):
    env.apply(monkeypatch)
    return settings_module.load()


def local_settings(repo):
    return json.loads((repo / ".claude" / "settings.local.json").read_text(encoding="utf-8"))


def test_a_repositorys_first_session_points_its_auto_memory_into_the_vault_once(configured, repo, env):
    import re

    (repo / "src").mkdir()
    kept = env.config_dir / "projects" / re.sub(r"[^A-Za-z0-9]", "-", str(repo)) / "memory"   # the client's folder
    kept.mkdir(parents=True)
    (kept / "MEMORY.md").write_text("- what the client kept so far\n", encoding="utf-8")
    folder = auto_memory.ensure(configured, str(repo / "src"))
    assert folder == str(env.vault / "Meta" / "claude-memory" / "github.com-acme-webapp")
    assert local_settings(repo) == {"autoMemoryDirectory": folder}
    assert (env.vault / "Meta" / "claude-memory" / "github.com-acme-webapp" / "MEMORY.md").read_text() == \
        "- what the client kept so far\n"
    assert "/.claude/settings.local.json" in (repo / ".git" / "info" / "exclude").read_text(encoding="utf-8")
    assert auto_memory.ensure(configured, str(repo)) is None            # once
    assert auto_memory.ensure(configured, str(env.root)) is None        # outside a repository: nothing


def test_the_users_own_settings_stay_and_their_own_memory_folder_is_never_replaced(configured, repo, env):
    (repo / ".claude").mkdir()
    (repo / ".claude" / "settings.local.json").write_text('{"permissions": {"allow": ["Bash(ls)"]}}',
                                                          encoding="utf-8")
    folder = auto_memory.ensure(configured, str(repo))
    assert local_settings(repo) == {"permissions": {"allow": ["Bash(ls)"]}, "autoMemoryDirectory": folder}
    other = env.root / "other"
    (other / ".git").mkdir(parents=True)
    (other / ".claude").mkdir()
    (other / ".claude" / "settings.local.json").write_text('{"autoMemoryDirectory": "~/mine"}', encoding="utf-8")
    assert auto_memory.ensure(configured, str(other)) is None
    assert json.loads((other / ".claude" / "settings.local.json").read_text()) == {"autoMemoryDirectory": "~/mine"}


def test_a_settings_file_larger_than_a_hook_reads_whole_is_left_as_it_is(configured, repo):
    (repo / ".claude").mkdir()
    big = '{"permissions": {"allow": [' + ", ".join(['"Bash(ls)"'] * 120_000) + "]}}"
    assert len(big) > auto_memory.MAX_SETTINGS_BYTES
    (repo / ".claude" / "settings.local.json").write_text(big, encoding="utf-8")
    assert auto_memory.ensure(configured, str(repo)) is None
    assert (repo / ".claude" / "settings.local.json").read_text(encoding="utf-8") == big


def test_uninstall_gives_each_repository_its_settings_back_and_leaves_the_memory(configured, repo, env, tmp_path):
    made = tmp_path / "made"
    (made / ".git" / "info").mkdir(parents=True)
    exclude_before = (repo / ".git" / "info" / "exclude").read_bytes()
    (repo / ".claude").mkdir()
    (repo / ".claude" / "settings.local.json").write_text('{"model": "opus"}\n', encoding="utf-8")
    auto_memory.ensure(configured, str(repo))
    folder = auto_memory.ensure(configured, str(made))
    (tmp_path / "note").write_text("x")
    actions = install._undo_auto_memory(install.Layout(str(env.config_dir)))
    install.apply(actions)
    assert local_settings(repo) == {"model": "opus"}
    assert not (made / ".claude").exists()
    assert (repo / ".git" / "info" / "exclude").read_bytes() == exclude_before
    assert "settings.local.json" not in (made / ".git" / "info" / "exclude").read_text(encoding="utf-8")
    assert not (env.config_dir / "obsidian-memory" / auto_memory.RECORD).exists()
    assert (env.vault / "Meta" / "claude-memory").is_dir() and folder


def test_install_with_auto_memory_says_so_in_its_plan_and_config(env):
    from obsidian_memory.setup.install import Layout, config_text

    layout = Layout(str(env.config_dir))
    fresh = config_text(layout, str(env.vault), None, None, auto_memory=True).decode()
    assert "auto_memory: true" in fresh
    assert "auto_memory:" not in config_text(layout, str(env.vault), None, None).decode()
    mine = b"# my own words\nvault: /v\ncontext_budget: 4000\n"
    (env.config_dir / "obsidian-memory").mkdir(parents=True, exist_ok=True)
    (env.config_dir / "obsidian-memory" / "config.yaml").write_bytes(mine)
    assert config_text(layout, "/v", None, mine, auto_memory=True) == mine + b"auto_memory: true\n"   # comments kept


ADDER = '''
import os, sys, time
from obsidian_memory.core import settings
from obsidian_memory.setup import auto_memory
start, repos = sys.argv[1], sys.argv[2:]
configured = settings.load()
while not os.path.exists(start):
    time.sleep(0.001)
for repo in repos:
    assert auto_memory.ensure(configured, repo), repo
'''


def test_first_sessions_at_once_lose_no_entry_uninstall_needs(env, tmp_path):
    """Several processes point repositories' auto memory into the vault at the same moment (the
    first sessions of several repositories): the record holds every edit, and uninstall gives
    every repository its settings back."""
    processes, per_process = 6, 5
    repos = []
    for n in range(processes * per_process):
        path = tmp_path / "work" / f"repo{n}"
        (path / ".git" / "info").mkdir(parents=True)
        (path / ".git" / "config").write_text(f'[remote "origin"]\n\turl = git@example.org:acme/repo{n}.git\n',
                                              encoding="utf-8")
        repos.append(str(path))
    start = tmp_path / "start"
    environ = {**env.environ(), "PYTHONPATH": str(REPO)}
    adders = [subprocess.Popen([sys.executable, "-c", ADDER, str(start), *repos[i::processes]], env=environ,
                               stderr=subprocess.PIPE) for i in range(processes)]
    time.sleep(1.0)   # every process loaded and waiting
    start.touch()
    for adder in adders:
        assert adder.wait(timeout=120) == 0, adder.stderr.read().decode()
    recorded = auto_memory.records(str(env.config_dir / "obsidian-memory"))
    assert sorted(recorded) == sorted(os.path.join(repo, ".claude", "settings.local.json") for repo in repos)
    install.apply(install._undo_auto_memory(install.Layout(str(env.config_dir))))
    assert not any(os.path.exists(os.path.join(repo, ".claude")) for repo in repos)


def session_start_in(env, repo) -> None:
    """The SessionStart hook as Claude Code runs it, in `repo`, with the auto memory turned on."""
    config = env.config_dir / "obsidian-memory" / "config.yaml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(f"vault: {env.vault}\nauto_memory: true\n", encoding="utf-8")
    result = env.hook(["session-start"], {"hook_event_name": "SessionStart", "session_id": "s1", "source": "startup",
                                          "cwd": str(repo), "transcript_path": str(env.root / "none.jsonl")},
                      cwd=repo, timeout=60)
    assert result.returncode == 0, result.stderr
    env.follow_ups_done()


def test_a_settings_file_that_cannot_be_read_whole_as_json_is_never_replaced(env, repo):
    """Bytes that are not UTF-8 were read as U+FFFD and written back so; a FIFO was taken for no
    file and replaced by ours. Both are the user's: left as they are."""
    (repo / ".claude").mkdir()
    latin = b'{"env": {"GREETING": "caf\xe9"}}\n'
    (repo / ".claude" / "settings.local.json").write_bytes(latin)
    session_start_in(env, repo)
    assert (repo / ".claude" / "settings.local.json").read_bytes() == latin
    if hasattr(os, "mkfifo"):
        (repo / ".claude" / "settings.local.json").unlink()
        os.mkfifo(repo / ".claude" / "settings.local.json")
        session_start_in(env, repo)
        assert stat.S_ISFIFO(os.lstat(repo / ".claude" / "settings.local.json").st_mode)
    assert not (env.config_dir / "obsidian-memory" / auto_memory.RECORD).exists()


def test_a_settings_file_a_windows_editor_saved_with_a_bom_gets_the_memory_folder(env, repo):
    (repo / ".claude").mkdir()
    (repo / ".claude" / "settings.local.json").write_bytes(b'\xef\xbb\xbf{"model": "opus"}\r\n')
    session_start_in(env, repo)
    assert local_settings(repo) == {"model": "opus",
                                    "autoMemoryDirectory": str(env.vault / "Meta" / "claude-memory" / "github.com-acme-webapp")}
