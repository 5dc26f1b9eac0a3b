#!/usr/bin/env python3
"""The plugin's hook launcher: `run_hook.py session-start`, `run_hook.py user-prompt` or `run_hook.py archive`.

Claude Code runs it (from hooks/hooks.json) with whatever `python3` is on PATH, so it needs nothing
but the standard library and the plugin's own copy of the package (core.json_light, core.spawn),
and fails open: whatever happens it prints nothing of its own and exits 0.

The dependencies live in a virtual environment in ${CLAUDE_PLUGIN_DATA}/venv. While that is
missing or stale (a plugin update), the first hook starts a detached bootstrap (venv + pip
install of the plugin) and returns at once; the hooks work from the next session on, and so does
the vault-search skill, whose commands name `${CLAUDE_PLUGIN_DATA}/venv/bin/python` (Claude Code
fills the placeholders in). Once ready:
- session-start, user-prompt: replaced by `<venv>/python -I -m obsidian_memory hook <event>` (exec:
  their stdout is the context Claude Code reads), but for a prompt that hook would leave alone (a
  later prompt of the session, by default): answered here, in one interpreter start (`answered_here`);
- archive: SessionEnd is handed to a detached process (plugin hook timeouts do not raise
  Claude Code's 1.5 s SessionEnd budget); PreCompact/PostCompact run inline.
When install.py has wired obsidian-memory into settings.json, the plugin stands aside (no
double archiving, no double context).

The vault: the plugin's `vault` option (plugin.json `userConfig`, asked when the plugin is enabled,
or `claude plugin install ... --config vault=PATH`), which Claude Code hands to hooks as
CLAUDE_PLUGIN_OPTION_VAULT. It becomes OBSIDIAN_VAULT for the hooks, and for the session's Bash
commands (the vault-search skill) through the CLAUDE_ENV_FILE that SessionStart hooks may append to.
Unset: OBSIDIAN_VAULT, config.yaml, ~/Vault as everywhere else.
"""
import os
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PYTHON_NEEDED = (3, 10)  # pyproject.toml's requires-python
STALE_LOCK_SECONDS = 15 * 60
RETRY_AFTER_FAILURE_SECONDS = 60 * 60


def main(argv):
    if argv[:1] == ["--bootstrap"]:
        return bootstrap()
    event = argv[0] if argv else ""
    data = plugin_data()
    if not data or installed_by_install_sh():
        return 0
    use_vault_option(event)
    python = venv_python(data)
    ready = is_ready(data)
    if not ready:
        start_bootstrap(data)
        if not is_usable(data):
            return 0  # this session goes without us; the next one has the hooks
    if event == "user-prompt" and ready and answered_here(data):
        return 0
    if event in ("session-start", "user-prompt"):
        os.execv(python, [python, "-I", "-m", "obsidian_memory", "hook", event])
    if event == "archive":
        payload = sys.stdin.buffer.read()
        command = [python, "-I", "-m", "obsidian_memory", "hook", "archive"]
        if _event_name(payload) == "SessionEnd":
            detach(command, data, stdin_bytes=payload)
        else:
            import subprocess
            subprocess.run(command, input=payload, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                           timeout=25)
    return 0


# -- where things are ----------------------------------------------------------------------------

def plugin_data():
    data = os.environ.get("CLAUDE_PLUGIN_DATA")
    return os.path.abspath(data) if data else None


def config_dir():
    value = os.environ.get("CLAUDE_CONFIG_DIR")
    return os.path.abspath(os.path.expanduser(value)) if value else os.path.join(os.path.expanduser("~"), ".claude")


def installed_by_install_sh():
    return os.path.isfile(os.path.join(config_dir(), "obsidian-memory", "install-state.json"))


def venv_python(data):
    if os.name == "nt":
        return os.path.join(data, "venv", "Scripts", "python.exe")
    return os.path.join(data, "venv", "bin", "python")


def stamp_path(data):
    return os.path.join(data, "venv", ".obsidian-memory-plugin")


def plugin_identity():
    """This copy of the plugin: its folder (new on every update) and its version."""
    try:
        with open(os.path.join(ROOT, ".claude-plugin", "plugin.json"), encoding="utf-8") as handle:
            version = json_loads(handle.read()).get("version", "")
    except (OSError, ValueError, ImportError):
        version = ""
    return f"{ROOT}\n{version}\n"


def is_ready(data):
    try:
        with open(stamp_path(data), encoding="utf-8") as handle:
            return handle.read() == plugin_identity() and os.path.isfile(venv_python(data))
    except OSError:
        return False


def is_usable(data):
    """An earlier bootstrap finished (during an update the previous version still serves)."""
    return os.path.isfile(stamp_path(data)) and os.path.isfile(venv_python(data))


def use_vault_option(event):
    vault = os.environ.get("CLAUDE_PLUGIN_OPTION_VAULT", "").strip()
    if not vault:
        return
    vault = os.path.abspath(os.path.expanduser(vault))
    os.environ["OBSIDIAN_VAULT"] = vault
    env_file = os.environ.get("CLAUDE_ENV_FILE")
    if event == "session-start" and env_file:
        try:
            with open(env_file, "a", encoding="utf-8") as handle:
                handle.write("export OBSIDIAN_VAULT='" + vault.replace("'", "'\\''") + "'\n")
        except OSError as exc:
            _say(plugin_data(), f"cannot pass the vault option on: {exc}")


def _event_name(payload):
    try:
        return json_loads(payload.decode("utf-8", "replace")).get("hook_event_name")
    except (ValueError, AttributeError, ImportError):
        return None


def own_package():
    """Put this plugin's own copy of the package on sys.path; whether it is the one imported."""
    if ROOT not in sys.path:
        sys.path.insert(0, ROOT)
    import obsidian_memory

    return os.path.dirname(os.path.dirname(os.path.abspath(obsidian_memory.__file__))) == ROOT


def json_loads(text):
    """json.loads, from this plugin's own copy of the package (obsidian_memory.core.json_light): on
    every hook's path, without the json package's imports. (The modules only the archive hook and
    the bootstrap use are imported where they are used, for the same reason.)"""
    own_package()
    from obsidian_memory.core import json_light

    return json_light.loads(text)


# -- a prompt answered here --------------------------------------------------------------------

def answered_here(data):
    """Whether this process answered the prompt on stdin as the venv's hook would: a prompt that
    hook leaves alone, printing nothing and writing nothing (cli.commands.hook.leaves_alone: a
    later prompt of the session, by default), costs one interpreter start, not two. Otherwise
    stdin is handed on whole, for the exec. Anything uncertain is the venv's: another system
    than POSIX, a Python older than the package needs, a config.yaml beyond the flat reader (the
    venv's PyYAML reads it), a package that is not this plugin's own copy, any error."""
    if os.name != "posix" or sys.version_info < PYTHON_NEEDED:
        return False
    try:
        spare = _unlinked_file(data)
    except OSError:
        return False  # stdin stays unread, for the exec
    with spare:
        payload = sys.stdin.buffer.read()
        try:
            sys.modules["yaml"] = None  # a config.yaml beyond the flat reader: a ConfigError here, the venv's to read
            if own_package():
                from obsidian_memory.cli.commands import hook

                if hook.leaves_alone(payload):
                    return True
        except Exception:
            pass
        try:
            spare.write(payload)
            spare.flush()
            spare.seek(0)
            os.dup2(spare.fileno(), 0)
        except OSError as exc:
            _say(data, f"user-prompt: the prompt could not be handed on: {exc}")
    return False


def _unlinked_file(data):
    """A file only this process holds, in the plugin's data folder (a pipe could not hold a long
    prompt with nobody reading it yet)."""
    path = os.path.join(data, f"prompt-{os.getpid()}")
    fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        os.unlink(path)
    except OSError:
        os.close(fd)
        raise
    return os.fdopen(fd, "w+b")


# -- detached work -------------------------------------------------------------------------------

def detach(command, data, stdin_bytes=None):
    """Start `command` in the background (obsidian_memory.core.spawn, standard library only, from this
    plugin's own copy of the package), its errors to plugin.log, and do not wait."""
    own_package()
    from obsidian_memory.core import spawn

    os.makedirs(data, exist_ok=True)
    spawn.start(command, stdin_bytes=stdin_bytes, log_path=os.path.join(data, "plugin.log"))


def start_bootstrap(data):
    lock = os.path.join(data, "bootstrap.lock")
    try:
        if time.time() - os.path.getmtime(os.path.join(data, "bootstrap.failed")) < RETRY_AFTER_FAILURE_SECONDS:
            return  # failed recently (see plugin.log): do not retry on every session
    except OSError:
        pass
    try:
        if time.time() - os.path.getmtime(lock) < STALE_LOCK_SECONDS:
            return  # one is running
        _remove(lock)
    except OSError:
        pass
    detach([sys.executable, os.path.abspath(__file__), "--bootstrap"], data)


def bootstrap():
    """venv + `pip install <plugin root>`; run detached, logs to plugin.log."""
    data = plugin_data()
    if not data:
        return 0
    lock = os.path.join(data, "bootstrap.lock")
    try:
        os.makedirs(data, exist_ok=True)
        fd = os.open(lock, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
    except OSError:
        return 0  # another bootstrap holds the lock
    try:
        import subprocess
        import tempfile

        os.write(fd, str(os.getpid()).encode())
        os.close(fd)
        if sys.version_info < PYTHON_NEEDED:
            raise RuntimeError(f"obsidian-memory needs Python {'.'.join(map(str, PYTHON_NEEDED))}+, "
                               f"{sys.executable} is {sys.version.split()[0]}")
        python = venv_python(data)
        if not os.path.isfile(python):
            subprocess.run([sys.executable, "-m", "venv", os.path.join(data, "venv")], check=True)
        with tempfile.TemporaryDirectory(dir=data, prefix="build-") as build:
            source = build_copy(build)
            subprocess.run([python, "-m", "pip", "install", "--quiet", "--disable-pip-version-check", source],
                           check=True, cwd=data)
        with open(stamp_path(data), "w", encoding="utf-8") as handle:
            handle.write(plugin_identity())
        _say(data, "bootstrap done")
        _remove(os.path.join(data, "bootstrap.failed"))
    except Exception as exc:  # the log says why; a session an hour later tries again
        _say(data, f"bootstrap failed: {type(exc).__name__}: {exc}")
        open(os.path.join(data, "bootstrap.failed"), "w").close()
    finally:
        _remove(lock)
    return 0


# What building the package reads. pip builds in the source tree (setuptools' build/ and *.egg-info):
# a private copy keeps two builds at once from mixing their files, and the plugin folder clean.
BUILD_INPUTS = ("pyproject.toml", "README.md", "obsidian_memory", "templates")


def build_copy(parent):
    import shutil

    source = os.path.join(parent, "obsidian-memory")
    os.makedirs(source)
    for name in BUILD_INPUTS:
        path = os.path.join(ROOT, name)
        if os.path.isdir(path):
            shutil.copytree(path, os.path.join(source, name), ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy2(path, os.path.join(source, name))
    return source


def _remove(path):
    try:
        os.unlink(path)
    except OSError:
        pass


def _say(data, message):
    try:
        with open(os.path.join(data, "plugin.log"), "a", encoding="utf-8") as handle:
            handle.write(f"{time.strftime('%Y-%m-%dT%H:%M:%S')} run_hook: {message}\n")
    except OSError:
        pass


if __name__ == "__main__":
    real_stdout = sys.stdout
    try:
        sys.stdout = open(os.devnull, "w")  # nothing of ours may reach Claude Code
        main(sys.argv[1:])
    except BaseException:
        pass
    finally:
        sys.stdout = real_stdout
    sys.exit(0)
