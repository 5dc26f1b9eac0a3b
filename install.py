#!/usr/bin/env python3
"""obsidian-memory installer: one command wires Claude Code to your Obsidian vault, and
`python3 install.py --uninstall` takes exactly that away again. Needs nothing but Python 3.10 or
newer (macOS, Linux: `python3 install.py`; Windows: `py -3 install.py`); run by an older Python, it
looks for a newer one on PATH (python3.14 ... python3.10), says which one it chose, or says how to
get one. `python3 install.py --help` lists the options (install.sh takes the same ones).

This file checks the options (the vault first), makes the virtual environment in
$CLAUDE_CONFIG_DIR/obsidian-memory/venv and installs the package into it; everything that touches
Claude Code's files is planned, done and undone by obsidian_memory/setup/install.py (run from this
checkout for the checks, the dry run and the uninstall, and from the venv for the install itself).
It must parse and run on any Python from 3.6, far enough to find a newer one.
"""
import os
import subprocess
import sys

REPO = os.path.dirname(os.path.abspath(__file__))
MINIMUM = (3, 10)
NEWER = ("python3.14", "python3.13", "python3.12", "python3.11", "python3.10")
REEXEC_MARK = "OBSIDIAN_MEMORY_INSTALL_REEXEC"
BUILD_INPUTS = ("pyproject.toml", "README.md", "obsidian_memory", "templates")


def main(argv):
    if sys.version_info < MINIMUM:
        return use_a_newer_python(argv)
    sys.dont_write_bytecode = True   # the checkout stays as it was
    sys.path.insert(0, REPO)
    from obsidian_memory.cli.cliutil import guarded

    return guarded("install.py", lambda: install(argv))


# -- a Python that is new enough ------------------------------------------------------------------

def use_a_newer_python(argv):
    here = "Python {} ({})".format(".".join(map(str, sys.version_info[:3])), sys.executable)
    found = None if os.environ.get(REEXEC_MARK) else find_newer_python()
    if found is None:
        sys.stderr.write("install.py: obsidian-memory needs Python {}.{} or newer; this is {}, and no newer one "
                         "was found on PATH ({}).\n{}\n".format(MINIMUM[0], MINIMUM[1], here, ", ".join(NEWER),
                                                                 how_to_get_python()))
        return 1
    print("install.py: {} is too old; using {}".format(here, " ".join(found)))
    sys.stdout.flush()
    command = found + [os.path.abspath(__file__)] + list(argv)
    environ = dict(os.environ)
    environ[REEXEC_MARK] = "1"
    if os.name != "nt":
        os.execve(command[0], command, environ)
    return subprocess.call(command, env=environ)


def find_newer_python():
    """The command of the first Python >= 3.10: $OBSIDIAN_MEMORY_PYTHON, python3.14 ... python3.10 on
    PATH, and on Windows the py launcher's newest 3.x."""
    import shutil

    candidates = []
    if os.environ.get("OBSIDIAN_MEMORY_PYTHON"):
        candidates.append([os.environ["OBSIDIAN_MEMORY_PYTHON"]])
    candidates += [[shutil.which(name)] for name in NEWER if shutil.which(name)]
    if os.name == "nt" and shutil.which("py"):
        candidates += [[shutil.which("py"), "-" + name[len("python"):]] for name in NEWER]
    check = "import sys; sys.exit(0 if sys.version_info >= ({}, {}) else 1)".format(*MINIMUM)
    for command in candidates:
        try:
            if subprocess.call(command + ["-c", check], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL) == 0:
                return command
        except OSError:
            continue
    return None


def how_to_get_python():
    if sys.platform == "darwin":
        return ("macOS: install Python 3.12 from https://www.python.org/downloads/macos/ (or `brew install "
                "python@3.12`), then run `python3.12 install.py`.")
    if os.name == "nt":
        return ("Windows: install Python 3.12 from https://www.python.org/downloads/windows/ (or `winget install "
                "Python.Python.3.12`), then run `py -3.12 install.py`.")
    family = linux_family()
    ways = {
        "debian": "Debian/Ubuntu: `sudo apt install python3.11 python3.11-venv` (older Ubuntu releases: from the "
                  "deadsnakes PPA)",
        "fedora": "Fedora/RHEL: `sudo dnf install python3.12`",
        "arch": "Arch: `sudo pacman -S python`",
        "suse": "openSUSE: `sudo zypper install python312`",
    }
    chosen = [ways[family]] if family in ways else list(ways.values())
    return "; ".join(chosen) + "; or `uv python install 3.12`. Then run `python3.12 install.py` (or python3.11)."


def linux_family():
    try:
        with open("/etc/os-release", encoding="utf-8") as handle:
            text = handle.read().lower()
    except OSError:
        return None
    for family, words in (("debian", ("debian", "ubuntu")), ("fedora", ("fedora", "rhel", "centos")),
                          ("arch", ("arch",)), ("suse", ("suse",))):
        if any("id={}".format(word) in text or "id_like={}".format(word) in text or
               "id_like=\"{}".format(word) in text for word in words):
            return family
    return None


# -- the install ---------------------------------------------------------------------------------

def install(argv):
    from obsidian_memory.cli.cliutil import OneLineParser
    from obsidian_memory.cli.commands import install as command

    parser = OneLineParser(prog="install.py", allow_abbrev=False, description=__doc__.split("\n\n")[0])
    command.add_arguments(parser)
    args = parser.parse_args(argv)
    args.mcp = args.mcp or args.mcp_http   # the HTTP server is the MCP server: it needs the [mcp] extra
    print(f"install.py: Python {'.'.join(map(str, sys.version_info[:3]))} at {sys.executable}")
    args.source = REPO
    args.python = args.python or python_for_hooks()
    venv = Venv(args)
    if args.uninstall:
        return command.run(args)   # from the checkout: nothing runs from the venv it removes
    if args.dry_run:
        return command.run(args) or venv.describe_plan()
    args.preflight = True          # refuse early and ask, before anything is made
    code = command.run(args)
    if code:
        return code
    venv.make()
    forward = list(argv) + ["--yes", "--source", REPO, "--python", args.python, "--hook-form", args.hook_form]
    if args.create_vault:
        forward.append("--create-vault")
    sys.stdout.flush()
    return subprocess.call([venv.python, "-I", "-m", "obsidian_memory", "install", *forward])


def python_for_hooks() -> str:
    """This Python, or, when it runs in a virtual environment (an activated one), the Python that
    environment is made from: the hooks must not depend on a venv the user may delete."""
    if sys.prefix != getattr(sys, "base_prefix", sys.prefix):
        return os.path.abspath(getattr(sys, "_base_executable", None) or sys.executable)
    return sys.executable


class Venv:
    """$CLAUDE_CONFIG_DIR/obsidian-memory/venv, made with this Python, holding this checkout's package."""

    def __init__(self, args):
        from obsidian_memory.setup import install
        from obsidian_memory.core import settings

        self.layout = install.Layout(settings.claude_config_dir())
        self.path, self.python = self.layout.venv, self.layout.python
        self.stamp = os.path.join(self.path, ".obsidian-memory-source")
        names = [name for name in ("semantic", "mcp") if getattr(args, name)]
        self.extras = f"[{','.join(names)}]" if names else ""

    def works(self) -> bool:
        if not os.path.isfile(self.python) or self.version() != tuple(sys.version_info[:2]):
            return False
        return subprocess.call([self.python, "-I", "-c", "import obsidian_memory"], stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL) == 0

    def version(self):
        sys.path.insert(0, os.path.join(REPO, "scripts"))
        try:
            import _launcher
        finally:
            sys.path.remove(os.path.join(REPO, "scripts"))
        return _launcher.venv_version(self.path)

    def current(self) -> bool:
        return self.works() and not self.outdated()

    def outdated(self) -> str:
        """Why the venv does not hold what an install would put there ("" when it does): the
        stamp says what it was installed from (the sources' digest) and with which extras."""
        from obsidian_memory.core import fsutil

        stamp = (fsutil.read_text(self.stamp) or "").split("\n")
        if len(stamp) < 2 or not stamp[0]:
            return "it holds no record of what was installed"
        if stamp[0] != source_digest(REPO):
            return "the checkout changed"
        if stamp[1] != self.extras:
            return (f"{self.extras or 'no extra'} instead of {stamp[1] or 'no extra'}: the options chose other "
                    "extras")
        return ""

    def describe_plan(self) -> int:
        if not self.works():
            print(f"- create the virtual environment {self.path} (with {sys.executable}, Python "
                  f"{'.'.join(map(str, sys.version_info[:3]))})")
            print(f"- install obsidian-memory{self.extras} from {REPO} into it")
        elif not self.current():
            print(f"- reinstall obsidian-memory{self.extras} from {REPO} into {self.path} ({self.outdated()})")
        return 0

    def make(self) -> None:
        import shutil

        from obsidian_memory.core.errors import UserError

        if self.current():
            return   # nothing changed since the last install: no pip (fast, and works offline)
        if os.path.exists(self.path) and not self.works():
            print(f"install.py: the virtual environment {self.path} is broken or made with another Python: "
                  "re-creating it")
            shutil.rmtree(self.path)
        if not os.path.isfile(self.python):
            print(f"install.py: creating the virtual environment {self.path}")
            os.makedirs(self.layout.home, exist_ok=True)
            if subprocess.call([sys.executable, "-m", "venv", self.path]) != 0:
                raise UserError(f"could not create a virtual environment with {sys.executable} -m venv (Debian/"
                                f"Ubuntu: sudo apt install python{sys.version_info[0]}.{sys.version_info[1]}-venv)",
                                code=1)
        print(f"install.py: installing obsidian-memory{self.extras} into it")
        sys.stdout.flush()
        if os.path.exists(self.stamp):
            os.unlink(self.stamp)
        # pip builds in the source folder (setuptools' build/ and *.egg-info): two installs at once
        # from one checkout would mix their files, and a stale build/lib could ship a module the
        # checkout no longer has. So it builds from a private copy of what the build reads, which
        # is also exactly what the stamp's digest describes.
        import tempfile

        with tempfile.TemporaryDirectory(prefix="obsidian-memory-build.") as build:
            copy = os.path.join(build, "obsidian-memory")
            os.makedirs(copy)
            for name in BUILD_INPUTS:
                source = os.path.join(REPO, name)
                if os.path.isdir(source):
                    shutil.copytree(source, os.path.join(copy, name),
                                    ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
                else:
                    shutil.copy2(source, os.path.join(copy, name))
            digest = source_digest(copy)
            code = subprocess.call([self.python, "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
                                    copy + self.extras], cwd=self.layout.home)
        if code != 0:
            raise UserError("pip could not install obsidian-memory (see above); nothing in Claude Code was changed",
                            code=1)
        with open(self.stamp, "w", encoding="utf-8") as handle:
            handle.write(f"{digest}\n{self.extras}\n")


def source_digest(root: str) -> str:
    """A digest of the sources an install builds: when it and the extras match the venv's stamp,
    pip is skipped."""
    import hashlib

    digest = hashlib.sha256()
    for top in ("pyproject.toml", "obsidian_memory", "templates"):
        path = os.path.join(root, top)
        files = [path] if os.path.isfile(path) else sorted(
            os.path.join(folder, name) for folder, _dirs, names in os.walk(path)
            for name in names if "__pycache__" not in folder and not name.endswith(".pyc"))
        for name in files:
            digest.update(os.path.relpath(name, root).replace(os.sep, "/").encode() + b"\0")
            with open(name, "rb") as handle:
                digest.update(handle.read() + b"\0")
    return digest.hexdigest()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
