"""The Claude Code plugin: manifests, hooks.json, the fail-open launcher's bootstrap, and the
skill's commands once Claude Code has filled in the plugin placeholders."""
from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
import sysconfig
import time
from pathlib import Path

import pytest
import yaml

from archive_fixtures import write_transcript
from testkit import REPO
from obsidian_memory import __version__
from obsidian_memory.setup import install

sys.path.insert(0, str(Path(__file__).resolve().parent / "context" / "recall"))
from recall_kit import KOTLIN, REVISIT, build, injected, new_session, prompt_payload, spec, start_payload  # noqa: E402

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


def launch(event: str, env: dict, payload: dict | None = None, root: Path = REPO,
           python3: str = sys.executable) -> subprocess.CompletedProcess:
    """Run a hooks.json handler the way Claude Code does: exec form, placeholders filled in as plain
    strings, `python3` looked up on PATH (the folder of `python3` first), the JSON on stdin."""
    hooks = json.loads(HOOKS_JSON.read_text(encoding="utf-8"))
    handler = next(h for _e, _m, h in handlers(hooks) if h["args"][-1] == event)
    full_env = {k: v for k, v in os.environ.items() if not k.startswith(("CLAUDE", "OBSIDIAN", "PYTHON"))}
    full_env.update(env, CLAUDE_PLUGIN_ROOT=str(root))
    full_env["PATH"] = os.path.dirname(python3) + os.pathsep + full_env.get("PATH", "")
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


def plugin_copy(root: Path) -> Path:
    """The plugin's files in `root`, as Claude Code's plugin cache holds them."""
    for name in PLUGIN_FILES:
        source = REPO / name
        if source.is_dir():
            shutil.copytree(source, root / name, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            root.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, root / name)
    return root


def test_first_session_bootstraps_detached_and_the_next_one_runs_the_hooks_and_the_skill(tmp_path):
    home = tmp_path / "home"
    config = home / ".claude"
    root = plugin_copy(config / "plugins" / "cache" / "obsidian-memory" / "obsidian-memory" / __version__)
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
    (vault / "Meta").mkdir(exist_ok=True)
    (vault / "Meta" / "claude-state.md").write_text("Halfway through the okapi importer.\n", encoding="utf-8")
    second = launch("session-start", {**env, "CLAUDE_ENV_FILE": str(env_file)}, root=root)
    assert (second.returncode, second.stderr) == (0, b""), second.stderr
    started = json.loads(second.stdout)["hookSpecificOutput"]
    assert started["hookEventName"] == "SessionStart"
    assert "Halfway through the okapi importer." in started["additionalContext"]   # the vault option's state
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


# -- a prompt the launcher answers itself ---------------------------------------------------------

def test_the_launcher_needs_the_python_the_package_needs():
    import tomllib

    spec = importlib.util.spec_from_file_location("run_hook", LAUNCHER)
    run_hook = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(run_hook)
    needed = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]["requires-python"]
    assert needed == ">=" + ".".join(map(str, run_hook.PYTHON_NEEDED))


class Plugin:
    """A machine whose archive holds the sessions a first prompt revisits (recall_kit), and the
    plugin of `root` on it, its venv ready as its bootstrap leaves it (the package of this checkout,
    with PyYAML), but for one thing: the venv's `python` notes each run in a file before it runs
    the hook, so that a test sees whether the launcher handed over (exec) or answered itself."""

    def __init__(self, base: Path, root: Path = REPO):
        self.machine = build(base / "machine", specs=[spec(key) for key in (*KOTLIN, "pay-celery-oom")])
        self.root, self.data, self.runs = root, base / "plugin data", base / "venv runs"
        venv = self.data / "venv"
        subprocess.run([os.path.realpath(sys.executable), "-m", "venv", "--without-pip", str(venv)], check=True)
        (site,) = venv.glob("lib/python*/site-packages")
        (site / "obsidian_memory.pth").write_text(f"{REPO}\n{sysconfig.get_paths()['purelib']}\n", encoding="utf-8")
        python, real = venv / "bin" / "python", venv / "bin" / f"python{sys.version_info[0]}.{sys.version_info[1]}"
        python.unlink()
        python.write_text(f'#!/bin/sh\necho "$*" >> "{self.runs}"\nexec "{real}" "$@"\n', encoding="utf-8")
        python.chmod(0o755)
        version = json.loads(PLUGIN_JSON.read_text(encoding="utf-8"))["version"]
        (venv / ".obsidian-memory-plugin").write_text(f"{root}\n{version}\n", encoding="utf-8")

    @property
    def env(self) -> dict:
        env = {k: v for k, v in self.machine.env.items() if k.startswith(("HOME", "CLAUDE", "OMNISEARCH", "TZ"))}
        return dict(env, CLAUDE_PLUGIN_DATA=str(self.data), CLAUDE_PLUGIN_OPTION_VAULT=str(self.machine.vault))

    def prompt(self, prompt: str, session: str, python3: str = sys.executable, **env) -> str | None:
        """What the prompt hook injected, through the launcher (after checking the hook's contract)."""
        result = launch("user-prompt", {**self.env, **env}, prompt_payload(self.machine, "trailmap-android", prompt,
                                                                            session), root=self.root, python3=python3)
        return injected(result)

    def execs(self) -> int:
        return len(self.runs.read_text().splitlines()) if self.runs.exists() else 0

    def state(self, session: str) -> Path:
        return self.machine.config_dir / "obsidian-memory" / "cache" / "prompt-recall" / f"{session}.json"

    def set_mode(self, mode: str | None, more: str = "") -> None:
        config = self.machine.config_dir / "obsidian-memory" / "config.yaml"
        config.parent.mkdir(parents=True, exist_ok=True)
        config.write_text((f"prompt_recall: {mode}\n" if mode else "") + more, encoding="utf-8")


@pytest.fixture(scope="module")
def plugin(tmp_path_factory):
    return Plugin(tmp_path_factory.mktemp("plugin-prompts"))


@pytest.fixture
def mode(plugin):
    yield plugin.set_mode
    (plugin.machine.config_dir / "obsidian-memory" / "config.yaml").unlink(missing_ok=True)


def test_a_later_prompt_is_answered_by_the_launcher_alone_and_leaves_the_state_as_it_was(plugin):
    session = new_session()
    first = plugin.prompt(REVISIT, session)
    assert first and all(plugin.machine.session_id(key) in first for key in KOTLIN)
    assert plugin.execs() == 1   # the first prompt: the venv's hook, which recalled
    before, written = plugin.state(session).read_bytes(), plugin.state(session).stat().st_mtime_ns
    assert json.loads(before)["prompts"] == 1
    time.sleep(0.01)
    for _ in range(2):
        assert plugin.prompt(REVISIT, session) is None
    assert plugin.execs() == 1   # later prompts: answered without the venv's Python
    assert plugin.state(session).read_bytes() == before and plugin.state(session).stat().st_mtime_ns == written
    assert plugin.prompt(REVISIT, new_session()) and plugin.execs() == 2   # another session's first prompt


def test_a_first_prompt_longer_than_a_pipe_holds_is_handed_on_whole(plugin):
    long = REVISIT + "\n" * 300_000 + "thanks"   # ~600 KB of JSON on stdin (the hook reads the prompt's start)
    runs = plugin.execs()
    recalled = plugin.prompt(long, new_session())
    assert recalled and plugin.machine.session_id(KOTLIN[0]) in recalled and plugin.execs() == runs + 1
    assert not list(plugin.data.glob("prompt-*"))   # the launcher's copy of it is gone


def test_a_resumed_sessions_first_prompt_is_counted_by_the_venvs_hook(plugin):
    """Not looked at, but counted: that writes the state, so it is not the launcher's to answer."""
    session = new_session()
    started = launch("session-start", plugin.env, start_payload(plugin.machine, "trailmap-android", session, "resume"),
                     root=plugin.root)
    assert started.returncode == 0
    runs = plugin.execs()
    assert plugin.prompt(REVISIT, session) is None and plugin.execs() == runs + 1
    assert json.loads(plugin.state(session).read_text(encoding="utf-8"))["prompts"] == 1
    assert plugin.prompt(REVISIT, session) is None and plugin.execs() == runs + 1


@pytest.mark.parametrize("config", ["every", "nested"])
def test_every_prompt_or_a_config_beyond_the_flat_reader_goes_to_the_venvs_hook(plugin, mode, config):
    """With `every` each prompt is looked at; a config.yaml the flat reader does not take is the
    venv's PyYAML's to read (the launcher's python3 may have another, or none)."""
    session = new_session()
    mode("first")
    assert plugin.prompt(REVISIT, session)
    runs = plugin.execs()
    mode("every") if config == "every" else mode("first", "nested:\n  key: 1\n")
    assert plugin.prompt(REVISIT, new_session()) and plugin.execs() == runs + 1
    assert plugin.prompt("the kotlin daemon error again", session) is None
    assert plugin.execs() == runs + 2


def test_memory_off_goes_to_the_venvs_hook_which_records_it(plugin):
    session = new_session()
    assert plugin.prompt(REVISIT, session)
    runs = plugin.execs()
    assert plugin.prompt(REVISIT, session, OBSIDIAN_MEMORY="off") is None and plugin.execs() == runs + 1
    assert session in (plugin.machine.config_dir / "obsidian-memory" / "sessions-off").read_text(encoding="utf-8")


def older_python() -> str | None:
    """A Python 3 older than the package needs: on PATH, or one pyenv installed."""
    pyenv = Path(os.environ.get("PYENV_ROOT") or Path.home() / ".pyenv") / "versions"
    for minor in range(9, 5, -1):
        for found in [shutil.which(f"python3.{minor}"), *sorted(map(str, pyenv.glob(f"3.{minor}.*/bin/python3.{minor}")))]:
            if found and subprocess.run([found, "-c", "pass"], capture_output=True).returncode == 0:
                return found
    return None


def test_a_python3_older_than_the_package_needs_hands_every_prompt_over(plugin, tmp_path):
    old = older_python()
    if old is None:
        pytest.skip("no Python older than 3.10 here (python3.9 ... python3.6 on PATH or in pyenv): the launcher's "
                    "check of the version is not run")
    python3 = tmp_path / "bin" / "python3"
    python3.parent.mkdir()
    python3.symlink_to(old)
    session = new_session()
    assert plugin.prompt(REVISIT, session, python3=str(python3))
    runs = plugin.execs()
    assert plugin.prompt(REVISIT, session, python3=str(python3)) is None and plugin.execs() == runs + 1


def test_a_broken_copy_of_the_package_in_the_plugin_hands_every_prompt_over(tmp_path):
    root = plugin_copy(tmp_path / "plugin")
    hook_module = root / "obsidian_memory" / "cli" / "commands" / "hook.py"
    hook_module.write_text("raise RuntimeError('broken')\n" + hook_module.read_text(encoding="utf-8"), encoding="utf-8")
    broken = Plugin(tmp_path, root)
    session = new_session()
    assert broken.prompt(REVISIT, session) and broken.execs() == 1
    assert broken.prompt(REVISIT, session) is None and broken.execs() == 2


def test_a_later_prompt_answered_by_the_launcher_leaves_the_log_as_the_venvs_hook_does(plugin, mode):
    """A setting's problem is logged once, by whichever process meets it first: the launcher keeps
    the same record of what was logged."""
    mode("first", "colour: blue\n")   # an unknown setting: a warning, in the log once
    session = new_session()
    assert plugin.prompt(REVISIT, session)
    ours = plugin.machine.config_dir / "obsidian-memory"
    log, logged = (ours / "obsidian-memory.log").read_bytes(), (ours / "logged-once").read_bytes()
    assert b"unknown setting `colour`" in log and b"colour" in logged
    runs = plugin.execs()
    assert plugin.prompt(REVISIT, session) is None and plugin.execs() == runs
    assert (ours / "obsidian-memory.log").read_bytes() == log and (ours / "logged-once").read_bytes() == logged
