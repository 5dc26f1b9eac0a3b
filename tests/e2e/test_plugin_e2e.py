"""obsidian-memory as a Claude Code plugin in the real client (2.1.332 and 2.1.197), offline.

A person with no install.py adds the checkout as a marketplace (`claude plugin marketplace add DIR`,
a local folder, which the client copies into its plugin cache) and installs the plugin, giving the
vault as the plugin's user configuration (`--config vault=DIR`; asked when enabled in a terminal). Their first
session starts the detached bootstrap (a venv in ${CLAUDE_PLUGIN_DATA}); the next one is archived by
the plugin's hooks; a third gets that session in its context, and the model calls the plugin's
vault-search skill and then the search command exactly as the skill, placeholders filled in by the
client, shows it.
"""
from __future__ import annotations

import json
import re
import shutil
import subprocess
import time
from pathlib import Path

import pytest

from mock_messages_api import tool_use
from world import REPO, World

pytestmark = pytest.mark.e2e

# What a clone of the repository holds for the plugin (no venv, no build leftovers of the checkout).
PLUGIN_FILES = ("pyproject.toml", "README.md", "obsidian_memory", "templates", "scripts", "skills", "hooks",
                ".claude-plugin")
PLUGIN = "obsidian-memory@obsidian-memory"
SKILL = "obsidian-memory:vault-search"
PROMPT = "Fix the okapi cache warmup in src/cache.py"
BOOTSTRAP_SECONDS = 300
# The ranked-search command of the skill, as it reached the model, with the query the skill shows.
SEARCH = re.compile(r'(\S+/venv/bin/python \S+/scripts/search_vault\.py) "keyword keyword"')


class PluginWorld(World):
    """A person's machine (own settings and CLAUDE.md, as in World) with the plugin instead of install.sh."""

    def __init__(self, root: Path, binary: Path, version: str):
        super().__init__(root, binary, version)
        self.marketplace = self.user.root / "obsidian-memory"
        for name in PLUGIN_FILES:
            source = REPO / name
            if source.is_dir():
                shutil.copytree(source, self.marketplace / name, ignore=shutil.ignore_patterns("__pycache__"))
            else:
                self.marketplace.mkdir(exist_ok=True)
                shutil.copy2(source, self.marketplace / name)
        # The vault comes from the plugin's user configuration (plugin.json `userConfig`), not a file.

    def claude(self, *args: str, timeout: float = 120) -> subprocess.CompletedProcess:
        return subprocess.run([str(self.user.binary), *args], capture_output=True, text=True, timeout=timeout,
                              env=self.environ(), cwd=str(self.user.repo), stdin=subprocess.DEVNULL)

    def plugin_data(self) -> list[Path]:
        return sorted((self.user.config_dir / "plugins" / "data").glob("*"))

    def bootstrapped(self) -> bool:
        return any((data / "venv" / ".obsidian-memory-plugin").exists() and not (data / "bootstrap.lock").exists()
                   for data in self.plugin_data())

    def plugin_log(self) -> str:
        logs = [data / "plugin.log" for data in self.plugin_data() if (data / "plugin.log").exists()]
        return "\n".join(log.read_text(encoding="utf-8", errors="replace")[-3000:] for log in logs) or "(no plugin.log)"


@pytest.fixture(scope="session")
def plugin_world(claude_binary, tmp_path_factory):
    version, binary = claude_binary
    machine = PluginWorld(tmp_path_factory.mktemp(f"plugin-{version}-"), binary, version)
    yield machine
    machine.close()


@pytest.fixture(scope="session")
def plugin_installed(plugin_world):
    world = plugin_world
    for command in (("plugin", "marketplace", "add", str(world.marketplace)),
                    ("plugin", "install", PLUGIN, "--config", f"vault={world.user.vault}")):
        done = world.claude(*command)
        assert done.returncode == 0, f"claude {' '.join(command)}: {done.stdout}\n{done.stderr}"
    settings = world.user.settings()
    assert settings.get("enabledPlugins", {}).get(PLUGIN) is True, settings
    assert settings["pluginConfigs"][PLUGIN]["options"]["vault"] == str(world.user.vault), settings
    assert not (world.our_home / "config.yaml").exists()
    return world


@pytest.fixture(scope="session")
def bootstrapped(plugin_installed):
    """The first session with the plugin: it starts the bootstrap and must not wait for it."""
    world = plugin_installed
    run = world.session("Hello.", ["Hello."])
    assert run.result.ok, run.describe()
    deadline = time.monotonic() + BOOTSTRAP_SECONDS
    while not world.bootstrapped() and time.monotonic() < deadline:
        time.sleep(1)
    assert world.bootstrapped(), f"the plugin's bootstrap did not finish:\n{world.plugin_log()}"
    return world, run


@pytest.fixture(scope="session")
def archived_session(bootstrapped):
    world, _ = bootstrapped
    run = world.session(PROMPT, ["The okapi cache now warms up before the first request."])
    assert run.result.ok, run.describe()
    notes = world.wait_for_note(run.session_id, seconds=60)
    assert len(notes) == 1, world.evidence(f"the plugin did not archive {run.session_id}", world.plugin_log())
    return world, run, notes[0]


def test_the_first_plugin_session_runs_without_our_help_and_leaves_the_plugin_folder_clean(bootstrapped):
    world, run = bootstrapped
    assert not world.notes_of(run.session_id), "the session before the bootstrap cannot have been archived"
    assert not (world.our_home / "install-state.json").exists()
    # Both clients fill a skill's ${CLAUDE_PLUGIN_ROOT} with the local marketplace folder itself (seen here),
    # and keep a copy in their cache: the bootstrap's build must write into neither.
    for root in (world.marketplace, *(world.user.config_dir / "plugins" / "cache").glob("*/*/*")):
        assert not list(root.glob("build")) and not list(root.glob("*.egg-info")), f"the build wrote into {root}"
        assert "${CLAUDE_PLUGIN" in (root / "skills" / "vault-search" / "SKILL.md").read_text(encoding="utf-8")


def test_after_the_bootstrap_the_plugins_hooks_archive_a_session_with_its_prompt(archived_session):
    _world, run, note = archived_session
    text = note.read_text(encoding="utf-8")
    assert PROMPT in text and f"claude --resume {run.session_id}" in text


def test_the_plugins_command_line_run_by_hand_knows_the_plugins_vault(archived_session):
    """`sweep` and `doctor` run by hand with the command line the docs name (the plugin's venv), in a
    shell that knows nothing of the vault (no OBSIDIAN_VAULT, no config.yaml): the vault is the
    plugin's option, as for its hooks."""
    world, _run, _note = archived_session
    [data] = world.plugin_data()
    cli = data / "venv" / "bin" / "obsidian-memory"
    documented = (REPO / "docs" / "setup.md").read_text(encoding="utf-8")
    assert f"plugins/data/{data.name}/venv/bin/obsidian-memory" in documented, data.name
    missed = "1f0e5d4c-0000-4000-8000-00000000beef"   # a session whose hooks never fired: the sweep's work
    folder = world.user.config_dir / "projects" / "-tmp-missed"
    folder.mkdir(parents=True, exist_ok=True)
    lines = [{"type": "user", "uuid": "m1", "parentUuid": None, "sessionId": missed, "cwd": str(world.user.repo),
              "timestamp": "2026-03-04T09:00:00.000Z", "message": {"role": "user", "content": "Tune the okapi pool"}},
             {"type": "assistant", "uuid": "m2", "parentUuid": "m1", "sessionId": missed, "cwd": str(world.user.repo),
              "timestamp": "2026-03-04T09:01:00.000Z", "message": {"id": "x", "role": "assistant", "model": "m",
                                                                  "content": [{"type": "text", "text": "Tuned."}]}}]
    (folder / f"{missed}.jsonl").write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    environ = {k: v for k, v in world.environ().items() if not k.startswith("OBSIDIAN")}
    assert not (world.our_home / "config.yaml").exists()

    def by_hand(*args):
        return subprocess.run([str(cli), *args], capture_output=True, text=True, env=environ,
                              cwd=str(world.user.home), timeout=300, stdin=subprocess.DEVNULL)

    swept = by_hand("sweep", "--quiet-seconds", "0")
    assert swept.returncode == 0 and "failed 0" in swept.stdout, swept.stdout + swept.stderr
    assert "without a note" not in swept.stdout + world.log_text()[-2000:]
    assert len(world.notes_of(missed)) == 1, world.evidence(swept.stdout, world.plugin_log())
    doctor = by_hand("doctor")
    assert doctor.returncode == 0, doctor.stdout + doctor.stderr
    assert str(world.user.vault) in doctor.stdout


def test_the_plugin_skill_command_as_the_client_fills_it_in_runs_and_finds_the_archived_session(archived_session):
    world, archived, note = archived_session
    found = {}

    def search_as_the_skill_shows(request):
        match = SEARCH.search(request.text())
        if not match:  # (this runs in the server's thread: the test below says what is missing)
            return "The skill shows no search command."
        found["command"] = f'{match.group(1)} "okapi"'
        return tool_use("Bash", {"command": found["command"], "description": "Search the vault"})

    skill_call = tool_use("Skill", {"skill": SKILL})
    # 2.1.197 does not take a skill's allowed-tools as approval (../shared/e2e/README.md), and a plugin
    # cannot add permissions.allow rules: there the search command is allowed for the session.
    allowed = "Skill" if world.version != "2.1.197" else "Skill Bash"
    run = world.session("Search my notes for the okapi cache fix", [skill_call, search_as_the_skill_shows, "Found it."],
                        "--allowedTools", allowed)
    assert run.result.ok, run.describe()

    assert SKILL in run.main_requests()[0].text(), "the plugin's skill is not listed to the model"
    assert archived.session_id in "\n".join(run.hook_additional_context()), "the plugin's context lacks the session"
    command = found.get("command", "")
    assert command, f"the skill's search command did not reach the model:\n{run.all_text()[-3000:]}"
    assert "${" not in command and Path(command.split()[0]).is_file(), command
    assert not [d for d in run.result.permission_denials if d.get("tool_name") in ("Skill", "Bash")], \
        run.result.permission_denials
    results = {r["tool_use_id"]: r for request in run.main_requests() for r in request.tool_results()}
    output = [r for r in results.values() if "search:" in r["content"]]
    assert output and not output[0]["is_error"], world.evidence(f"{command}\n{list(results.values())}")
    assert note.stem in output[0]["content"], world.evidence(f"{command}\n--- tool result:\n{output[0]['content']}")
