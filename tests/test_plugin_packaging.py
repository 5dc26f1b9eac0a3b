"""The Claude Code plugin: manifests, hooks.json, the fail-open launcher's bootstrap, and the
skill's commands once Claude Code has filled in the plugin placeholders."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import yaml

from archive_fixtures import write_transcript
from testkit import REPO
from obsidian_memory import __version__
from obsidian_memory.setup import install

PLUGIN_JSON = REPO / ".claude-plugin" / "plugin.json"
MARKETPLACE_JSON = REPO / ".claude-plugin" / "marketplace.json"
HOOKS_JSON = REPO / "hooks" / "hooks.json"
LAUNCHER = REPO / "hooks" / "run_hook.py"
PLUGIN_FILES = ("pyproject.toml", "README.md", "obsidian_memory", "templates", "scripts", "skills", "hooks",
                ".claude-plugin")


def handlers(hooks_json: dict):
    for event, groups in hooks_json["hooks"].items():
        for group in groups:
            for handler in group["hooks"]:
                yield event, group.get("matcher"), handler


def test_pyproject_ships_every_package_of_the_tree():
    """pip installs only the packages pyproject.toml lists: a folder left out is missing from every install."""
    import tomllib

    listed = set(tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]["packages"])
    tree = {".".join(p.parent.relative_to(REPO).parts) for p in (REPO / "obsidian_memory").rglob("__init__.py")}
    assert tree - listed == set(), f"pyproject.toml's packages lack {sorted(tree - listed)}"


def test_manifests_parse_and_name_the_same_plugin_and_version():
    plugin = json.loads(PLUGIN_JSON.read_text(encoding="utf-8"))
    marketplace = json.loads(MARKETPLACE_JSON.read_text(encoding="utf-8"))
    (entry,) = marketplace["plugins"]
    assert plugin["name"] == entry["name"] == "obsidian-memory"
    assert entry["source"] == "./"
    assert plugin["version"] == entry["version"] == __version__
    assert marketplace["owner"]["name"]


def test_hooks_json_registers_the_installers_events_matchers_and_timeouts():
    hooks = json.loads(HOOKS_JSON.read_text(encoding="utf-8"))
    registered = {event: (matcher, handler["timeout"]) for event, matcher, handler in handlers(hooks)}
    assert registered == {event: (matcher, timeout) for event, (matcher, _arg, timeout) in install.HOOKS.items()}


def test_hooks_json_runs_the_launcher_in_exec_form_with_files_that_exist():
    """No shell between Claude Code and the launcher (exec form, 2.1.139+): a plugin root with spaces
    or backslashes needs no quoting, and nothing depends on sh or Git Bash."""
    hooks = json.loads(HOOKS_JSON.read_text(encoding="utf-8"))
    for _event, _matcher, handler in handlers(hooks):
        assert handler["command"] == "python3"
        script, event = handler["args"]
        assert script == "${CLAUDE_PLUGIN_ROOT}/hooks/run_hook.py" and LAUNCHER.is_file()
        assert event in ("session-start", "user-prompt", "archive")


def test_the_plugin_asks_for_the_vault_through_its_user_configuration():
    option = json.loads(PLUGIN_JSON.read_text(encoding="utf-8"))["userConfig"]["vault"]
    assert option["type"] == "directory" and option["title"] and option["description"]
    assert option.get("required") is False   # (a required option left unset turns every plugin hook off)


def launch(event: str, env: dict, payload: dict | None = None, root: Path = REPO) -> subprocess.CompletedProcess:
    """Run a hooks.json handler the way Claude Code does: exec form, placeholders filled in as plain
    strings, `python3` looked up on PATH, the JSON on stdin."""
    hooks = json.loads(HOOKS_JSON.read_text(encoding="utf-8"))
    handler = next(h for _e, _m, h in handlers(hooks) if h["args"][-1] == event)
    full_env = {k: v for k, v in os.environ.items() if not k.startswith(("CLAUDE", "OBSIDIAN", "PYTHON"))}
    full_env.update(env, CLAUDE_PLUGIN_ROOT=str(root))
    full_env["PATH"] = os.path.dirname(sys.executable) + os.pathsep + full_env.get("PATH", "")
    command = shutil.which(handler["command"], path=full_env["PATH"])
    args = [arg.replace("${CLAUDE_PLUGIN_ROOT}", str(root)) for arg in handler["args"]]
    data = json.dumps(payload or {"session_id": "s1", "hook_event_name": "SessionStart", "source": "startup"})
    return subprocess.run([command, *args], input=data.encode(), capture_output=True, env=full_env, timeout=60)


def test_launcher_exits_zero_and_prints_nothing_without_plugin_data(tmp_path):
    result = launch("session-start", {"HOME": str(tmp_path)})
    assert (result.returncode, result.stdout, result.stderr) == (0, b"", b"")


def test_launcher_exits_zero_and_prints_nothing_when_plugin_data_is_unusable(tmp_path):
    blocker = tmp_path / "a file, not a folder"
    blocker.write_text("x")
    for event in ("session-start", "archive"):
        result = launch(event, {"HOME": str(tmp_path), "CLAUDE_PLUGIN_DATA": str(blocker / "data")})
        assert (result.returncode, result.stdout, result.stderr) == (0, b"", b"")


def test_plugin_stands_aside_when_install_sh_has_wired_obsidian_memory(tmp_path):
    config = tmp_path / ".claude"
    (config / "obsidian-memory").mkdir(parents=True)
    (config / "obsidian-memory" / "install-state.json").write_text("{}")
    data = tmp_path / "data"
    result = launch("session-start", {"HOME": str(tmp_path), "CLAUDE_CONFIG_DIR": str(config),
                                      "CLAUDE_PLUGIN_DATA": str(data)})
    assert (result.returncode, result.stdout) == (0, b"")
    assert not data.exists()  # no bootstrap started


def wait_for(predicate, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.5)
    return predicate()


def plugin_command(text: str, root: Path, data: Path) -> str:
    """A command of the plugin's SKILL.md as Claude Code hands it over: placeholders filled in."""
    return text.replace("${CLAUDE_PLUGIN_ROOT}", str(root)).replace("${CLAUDE_PLUGIN_DATA}", str(data))


def test_first_session_bootstraps_detached_and_the_next_one_runs_the_hooks_and_the_skill(tmp_path):
    home = tmp_path / "home"
    config = home / ".claude"
    root = config / "plugins" / "cache" / "obsidian-memory" / "obsidian-memory" / __version__
    for name in PLUGIN_FILES:
        source = REPO / name
        if source.is_dir():
            shutil.copytree(source, root / name, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            root.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, root / name)
    data = config / "plugins" / "data" / "obsidian-memory-obsidian-memory"
    vault = tmp_path / "my vault 'ü'"
    vault.mkdir()
    # The vault as the plugin's user configuration gives it (no OBSIDIAN_VAULT, no config.yaml).
    env = {"HOME": str(home), "CLAUDE_PLUGIN_DATA": str(data), "CLAUDE_PLUGIN_OPTION_VAULT": str(vault),
           "OMNISEARCH_PORT": "9"}

    first = launch("session-start", env, root=root)
    assert (first.returncode, first.stdout) == (0, b"")
    stamp = data / "venv" / ".obsidian-memory-plugin"
    assert wait_for(lambda: stamp.exists() and not (data / "bootstrap.lock").exists(), 240), \
        (data / "plugin.log").read_text(errors="replace") if (data / "plugin.log").exists() else "no log"

    assert not list(root.glob("build")) and not list(root.glob("*.egg-info")), "the build wrote into the plugin"
    skill = (root / "skills" / "vault-search" / "SKILL.md").read_text(encoding="utf-8")
    assert skill == (REPO / "skills" / "vault-search" / "SKILL.md").read_text(encoding="utf-8")  # nothing rendered
    (vault / "Zebrafish.md").write_text("The zebrafish cache warms up first.\n", encoding="utf-8")
    rules = [plugin_command(rule, root, data) for rule in yaml.safe_load(skill.split("---\n")[1])["allowed-tools"]]
    prefix = rules[0][len("Bash("):-len(" *)")]
    assert f"{prefix} " in plugin_command(skill, root, data)  # the body teaches the pre-approved command

    env_file = tmp_path / "session-env" / "sessionstart-hook-0.sh"   # what Claude Code gives SessionStart hooks
    env_file.parent.mkdir()
    second = launch("session-start", {**env, "CLAUDE_ENV_FILE": str(env_file)}, root=root)
    assert second.returncode == 0
    if second.stdout.strip():
        assert json.loads(second.stdout)["hookSpecificOutput"]["hookEventName"] == "SessionStart"
    # The session's Bash commands source that file: the skill's search finds the configured vault.
    search = subprocess.run(["sh", "-c", f'. "{env_file}"; {prefix} "zebrafish"'], capture_output=True, text=True,
                            timeout=120, env={k: v for k, v in {**os.environ, "HOME": str(home)}.items()
                                              if not k.startswith(("OBSIDIAN", "CLAUDE"))})
    assert search.returncode == 0 and "Zebrafish.md" in search.stdout, search.stdout + search.stderr

    sid = "22222222-0000-4000-8000-000000000001"
    transcript = write_transcript(config / "projects" / "-work" / f"{sid}.jsonl", sid, ["tune the okapi cache"])
    end = launch("archive", env, {"session_id": sid, "hook_event_name": "SessionEnd", "reason": "other",
                                  "transcript_path": str(transcript), "cwd": str(tmp_path)}, root=root)
    assert (end.returncode, end.stdout) == (0, b"")
    assert wait_for(lambda: list(vault.rglob(f"*_{sid[:8]}.md")), 60), "SessionEnd did not archive into the vault option"
