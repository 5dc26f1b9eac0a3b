"""How the command-line launchers (obsidian_memory.py, search_vault.py) find the obsidian-memory
package, whichever Python runs them. Standard library only; any Python 3.

A launcher lives in a checkout's `scripts/` or in an install's `$CLAUDE_CONFIG_DIR/obsidian-memory/bin/`
(the installer copies it there with this file). It runs as `python launcher.py ...`, as a plain
command (`#!/usr/bin/env python3`; on Windows through the py launcher's file association), and from
the hook commands in settings.json, which name the Python the installer ran with (the one the venv
was made from): so that with the venv or the package gone, a hook still starts, says why in the log
and exits 0, and `doctor` still says what is broken.

Where the package comes from, in order:
1. a checkout: the package folder beside `scripts/`;
2. an install: its venv. Run by the venv's own Python: as is. Run by a Python of the venv's version
   (the one it was made from): the venv's site-packages go first on sys.path, in this same process
   (a hook pays for one interpreter start, not two). Run by another version: the venv's Python
   takes over;
3. whatever this Python has installed.
When none works: `hook ...` reads its input, logs why and exits 0 (Claude Code must never see a
failing hook); `doctor` says what is broken and how to repair it; anything else prints one line
and exits 1.
"""
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MAX_LOG_BYTES = 1_000_000


def run(entry: str, script: str) -> int:
    """Run `<entry>.main()` (e.g. "obsidian_memory.cli") for the launcher `script`."""
    argv = sys.argv[1:]
    problem = find_package(script)
    if problem is None:
        try:
            main = __import__(entry, fromlist=["main"]).main
        except Exception as exc:  # a damaged package: the same answers as a missing one
            problem = f"the obsidian_memory package cannot be imported ({type(exc).__name__}: {exc})"
        else:
            return main()
    if entry == "obsidian_memory.cli" and argv[:1] == ["hook"]:
        return fail_open(argv, problem)
    if entry == "obsidian_memory.cli" and argv[:1] == ["doctor"]:
        return diagnose(problem)
    sys.stderr.write(f"{os.path.basename(script)}: error: obsidian-memory cannot start: {problem}; "
                     f"{remedy()} (details: obsidian_memory.py doctor)\n")
    return 1


# -- finding the package ------------------------------------------------------------------------

def find_package(script: str):
    """None once `import obsidian_memory` works, else why it cannot."""
    if os.path.isfile(os.path.join(ROOT, "obsidian_memory", "__init__.py")):
        sys.path.insert(0, ROOT)   # a checkout
        return None
    if is_install():
        return use_venv(os.path.join(ROOT, "venv"), script)
    return _importable("this Python has no obsidian_memory package")


def is_install() -> bool:
    return os.path.isdir(os.path.join(ROOT, "venv")) or os.path.isfile(os.path.join(ROOT, "install-state.json"))


def use_venv(venv: str, script: str):
    python = venv_python(venv)
    if _same_path(sys.prefix, venv):
        return _importable(f"the obsidian_memory package is missing from the virtual environment {venv}")
    if venv_version(venv) == tuple(sys.version_info[:2]):
        site_dir = site_packages(venv)
        if os.path.isdir(site_dir):
            _put_first(site_dir)
            return _importable(f"the obsidian_memory package is missing from {site_dir}")
    if os.path.isfile(python):
        return hand_over(python, script)
    if not os.path.isdir(venv):
        return f"the virtual environment {venv} is missing"
    return f"{python} is missing (a damaged virtual environment)"


def _importable(problem: str):
    try:
        import obsidian_memory  # noqa: F401
    except ImportError:
        return problem
    return None


def _put_first(site_dir: str) -> None:
    """The venv's site-packages (and its .pth files) before this Python's own, as in the venv."""
    import site

    before = list(sys.path)
    site.addsitedir(site_dir)
    sys.path[:] = [p for p in sys.path if p not in before] + before


def hand_over(python: str, script: str):
    """Let the venv's Python run the launcher. Returns why it could not start, if it could not."""
    command = [python, os.path.abspath(script), *sys.argv[1:]]
    try:
        if os.name != "nt":
            os.execv(python, command)
        import subprocess   # Windows: execv would return to the console before the work is done
        sys.exit(subprocess.call(command))
    except OSError as exc:
        return f"{python} does not start ({exc.strerror or exc}): the Python it was made from may be gone"


def venv_python(venv: str) -> str:
    if os.name == "nt":
        return os.path.join(venv, "Scripts", "python.exe")
    return os.path.join(venv, "bin", "python")


def venv_version(venv: str):
    """(major, minor) of the Python the venv was made with, from its pyvenv.cfg."""
    try:
        with open(os.path.join(venv, "pyvenv.cfg"), encoding="utf-8", errors="replace") as handle:
            for line in handle:
                key, _, value = line.partition("=")
                if key.strip() in ("version", "version_info"):
                    parts = value.strip().split(".")
                    return int(parts[0]), int(parts[1])
    except (OSError, ValueError, IndexError):
        pass
    return None


def site_packages(venv: str) -> str:
    if os.name == "nt":
        return os.path.join(venv, "Lib", "site-packages")
    free_threaded = "t" if "t" in getattr(sys, "abiflags", "") else ""
    return os.path.join(venv, "lib", f"python{sys.version_info[0]}.{sys.version_info[1]}{free_threaded}",
                        "site-packages")


def _same_path(a: str, b: str) -> bool:
    return os.path.normcase(os.path.realpath(a)) == os.path.normcase(os.path.realpath(b))


# -- when it cannot start ----------------------------------------------------------------------

def home() -> str:
    """Our folder: the install's, or (from a checkout) $CLAUDE_CONFIG_DIR/obsidian-memory."""
    if is_install():
        return ROOT
    config = os.environ.get("CLAUDE_CONFIG_DIR") or os.path.join(os.path.expanduser("~"), ".claude")
    return os.path.join(os.path.abspath(os.path.expanduser(config)), "obsidian-memory")


def remedy() -> str:
    """How to repair it: install.py again, from the checkout the install came from when known."""
    command = "py -3 install.py" if os.name == "nt" else "python3 install.py"
    try:
        import json
        with open(os.path.join(home(), "install-state.json"), encoding="utf-8") as handle:
            source = json.load(handle).get("source")
    except (OSError, ValueError, AttributeError):
        source = None
    if isinstance(source, str) and source:
        return f"repair it with `{command}` in {source}"
    return f"repair it with `{command}` in your obsidian-memory checkout"


def fail_open(argv, problem: str) -> int:
    """A hook that cannot run: read the input (the client wrote it), log why, exit 0."""
    try:
        sys.stdin.buffer.read()
    except Exception:
        pass
    event = argv[1] if len(argv) > 1 else "?"
    log(f"hook {event}: obsidian-memory cannot start: {problem}; {remedy()}")
    return 0


def log(message: str) -> None:
    try:
        import time
        path = os.path.join(home(), "obsidian-memory.log")
        os.makedirs(os.path.dirname(path), exist_ok=True)
        try:
            if os.path.getsize(path) > MAX_LOG_BYTES:
                os.replace(path, path + ".1")
        except OSError:
            pass
        with open(path, "a", encoding="utf-8", errors="replace") as handle:
            handle.write(f"{time.strftime('%Y-%m-%dT%H:%M:%S%z')} pid={os.getpid()} {message}\n")
    except Exception:
        pass


def diagnose(problem: str) -> int:
    """`doctor` without the package: what is broken, one line each, and how to repair it."""
    lines = [("ok" if sys.version_info >= (3, 10) else "fail", "python",
              f"Python {'.'.join(map(str, sys.version_info[:3]))} at {sys.executable}")]
    venv = os.path.join(ROOT, "venv")
    if is_install():
        python = venv_python(venv)
        lines.append(("ok", "venv", f"{python}") if os.path.isfile(python) else
                     ("fail", "venv", f"{python} is missing" if os.path.isdir(venv) else f"{venv} is missing"))
    lines.append(("fail", "package", problem))
    width = max(len(name) for _status, name, _detail in lines)
    for status, name, detail in lines:
        print(f"{status:<4}  {name.ljust(width)}  {detail}")
    print(f"obsidian-memory cannot start: {remedy()}")
    return 1
