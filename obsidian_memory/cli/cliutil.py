"""What every command line of ours does with errors, in one place.

`guarded(prog, action)` runs a command: a UserError is one line on stderr and its exit code
(2 by convention), Ctrl-C is "interrupted" and 130, a closed pipe (`| head`) is quiet and 0,
and a bug is one line for the person plus the traceback in the log file, exit 1.
`OneLineParser` is argparse whose usage errors are such a UserError (one line, exit 2).
"""
from __future__ import annotations

import argparse
import os
import sys

from obsidian_memory.core.errors import UserError
from obsidian_memory.core.textclean import one_line


class OneLineParser(argparse.ArgumentParser):
    """argparse, but a usage error is one line (and exit 2), like every other error of ours."""

    def error(self, message):
        raise UserError(f"{message} (see {self.prog} --help)")

    def _get_formatter(self):
        # argparse makes a formatter for every add_argument (to check its metavar), and one made
        # without a width imports shutil (and bz2, lzma...) to ask the terminal: ~1.5 ms of
        # every search's start. The same width, asked as shutil would.
        return self.formatter_class(prog=self.prog, width=terminal_columns() - 2)


def terminal_columns() -> int:
    """`shutil.get_terminal_size().columns`, without importing shutil: $COLUMNS, else the
    terminal's (standard output), else 80."""
    try:
        columns = int(os.environ.get("COLUMNS", ""))
    except ValueError:
        columns = 0
    if columns > 0:
        return columns
    try:
        return os.get_terminal_size(sys.__stdout__.fileno()).columns or 80
    except (AttributeError, ValueError, OSError):
        return 80


def bounded_number(low, high, kind=int):
    """An argparse `type` for a number from `low` to `high`: anything else (a word, 20 digits,
    nan, inf) is one usage line instead of an OverflowError deep down."""
    def parse(text: str):
        try:
            value = kind(text)
        except (ValueError, OverflowError):
            value = None
        if value is None or not low <= value <= high:   # (nan fails both comparisons)
            what = "a whole number" if kind is int else "a number"
            raise argparse.ArgumentTypeError(f"{text!r} is not {what} from {low:,} to {high:,}")
        return value
    parse.__name__ = "number"
    return parse


def existing_folder(text: str) -> str:
    """An argparse `type` for a folder that must exist (a session's --cwd): its absolute path."""
    path = os.path.abspath(os.path.expanduser(text))
    if not os.path.isdir(path):
        raise argparse.ArgumentTypeError(f"{text!r}: no such folder")
    return path


def guarded(prog: str, action) -> int:
    """Run `action()` and turn what it raises into one line on stderr and an exit status."""
    try:
        code = int(action() or 0)
        sys.stdout.flush()      # a closed pipe shows here, not in the exit-time flush outside of us
        return code
    except UserError as exc:
        sys.stderr.write(f"{prog}: error: {one_line(str(exc))}\n")
        return exc.code
    except KeyboardInterrupt:
        sys.stderr.write(f"{prog}: interrupted\n")
        return 130
    except BrokenPipeError:
        _silence_stdout()
        return 0
    except Exception as exc:  # a bug: one line for the person, the traceback for the log
        log_unexpected(prog, exc)
        sys.stderr.write(f"{prog}: error: {type(exc).__name__}: {one_line(str(exc))} (details in the log)\n")
        return 1


def refuse_another_vault_for_the_agent(vault: str | None, port: int | None) -> None:
    """Inside Claude Code (it sets CLAUDECODE=1 in the agent's shell) the vault search is pre-approved,
    so it reads the configured vault only: a `--vault` or `--port` that points elsewhere would let
    the agent read any folder's Markdown (and build a cache for it) without asking. The user keeps
    other vaults at hand: outside Claude Code, or with OBSIDIAN_VAULT=PATH in front of the command,
    which the pre-approval does not cover (Claude Code asks first)."""
    import os

    if os.environ.get("CLAUDECODE") != "1" or (vault is None and port is None):
        return
    from obsidian_memory.core import settings as settings_module

    configured = settings_module.load()
    if vault is not None and os.path.realpath(os.path.expanduser(vault)) != os.path.realpath(configured.vault):
        raise UserError(f"--vault is refused inside Claude Code, where this search is pre-approved and reads only "
                        f"the configured vault ({configured.vault}); to search another vault, run it outside "
                        f"Claude Code, or with OBSIDIAN_VAULT=PATH in front (Claude Code asks first)")
    if port is not None and port != configured.omnisearch_port:
        raise UserError(f"--port is refused inside Claude Code, where this search is pre-approved and asks only "
                        f"the configured Omnisearch (port {configured.omnisearch_port}); run it outside Claude Code, "
                        f"or with OMNISEARCH_PORT=N in front (Claude Code asks first)")


def refuse_outside_paths_for_the_agent(values, vault: str) -> None:
    """Inside Claude Code (CLAUDECODE=1), where the search and read commands are pre-approved, an
    argument that names an existing file or folder outside the vault is refused, and never said
    back: a shell glob such as `/some/folder/*` expands to the names of what that folder holds,
    and echoing them ("search: ...") would list any folder without a permission prompt. Absolute
    paths, `~` and `..` are looked at; a relative name is the project's, which the agent sees."""
    import os

    if os.environ.get("CLAUDECODE") != "1":
        return
    root = os.path.realpath(vault)
    for position, value in enumerate(values, 1):
        if isinstance(value, str) and _outside_path(value, root):
            raise UserError(f"argument {position} names a file or folder outside the vault: refused inside Claude "
                            "Code, where this command is pre-approved (a shell glob such as /some/folder/* expands "
                            "to such names); give search words, or vault-relative note paths")


def _outside_path(value: str, root: str) -> bool:
    import os

    text = value.split("=", 1)[1] if value.startswith("--") and "=" in value else value
    candidate = os.path.expanduser(text)
    if not (os.path.isabs(candidate) or text.startswith("~") or text.split("/", 1)[0] == ".."):
        return False
    try:
        if not os.path.lexists(candidate):
            return False
        real = os.path.realpath(candidate)
    except (OSError, ValueError):
        return False
    return real != root and not real.startswith(root.rstrip(os.sep) + os.sep)


def log_unexpected(prog: str, exc: BaseException) -> None:
    try:
        from obsidian_memory.core import logs, settings

        logs.log(settings.log_path(), f"{prog}: unexpected error", exc)
    except Exception:
        pass


def _silence_stdout() -> None:
    """The reader is gone: flushing what is left at exit would raise again (and print a warning)."""
    import os

    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError, AttributeError):
        pass
