"""`obsidian_memory.py <command> ...`: argument parsing and output only.

Each command lives in `obsidian_memory/cli/commands/<module>.py` and is imported only when it is
run, so that `hook session-start` pays for nothing else. A command module provides either
`main(argv) -> int` (it parses its own arguments; used by the hooks to avoid argparse) or
`add_arguments(parser)` + `run(args) -> int`.
"""
from __future__ import annotations

import sys

PROG = "obsidian_memory.py"

# command -> (module under obsidian_memory.cli.commands, one-line description)
COMMANDS = {
    "hook": ("hook", "run as a Claude Code hook: `hook archive`, `hook session-start` or `hook user-prompt` "
                     "(reads the hook JSON on stdin)"),
    "archive": ("archive", "archive one transcript file into the archive and the vault"),
    "import": ("import_", "backfill every transcript under $CLAUDE_CONFIG_DIR/projects"),
    "sessions": ("sessions", "list recent archived sessions"),
    "show": ("show", "print an archived session's note"),
    "search": ("search", "ranked vault search, or regex search over archived sessions with --sessions"),
    "context": ("context", "print what the SessionStart hook would inject"),
    "recall": ("recall", "show what the prompt hook would inject for a prompt, with scores and the decision"),
    "injected": ("injected", "show what SessionStart and prompt recall injected into a session, and why"),
    "state": ("state", "show, set or clear the working-state note"),
    "learn": ("learn", "append a dated learning to the learnings note"),
    "log": ("log", "append a dated line to the agent log note"),
    "reindex": ("reindex", "bring the local search index up to date (--force rebuilds it)"),
    "status": ("status", "index and engine status"),
    "eval": ("eval", "measure search quality on a golden query set"),
    "related": ("related", "notes linked to or from a note, breadth-first"),
    "similar": ("similar", "notes most like a given note"),
    "read": ("read", "read notes from the vault"),
    "embed": ("embed", "compute semantic embeddings for the index (optional extra)"),
    "mcp": ("mcp", "run the stdio MCP server (optional extra)"),
    "doctor": ("doctor", "check the installation and explain what is wrong"),
    "install": ("install", "wire Claude Code to obsidian-memory (used by install.sh)"),
    "sweep": ("sweep", "archive transcripts whose end hooks never fired"),
}


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] in ("-h", "--help", "help"):
        _print_usage(sys.stdout)
        return 0
    if argv[0] in ("-V", "--version"):
        from obsidian_memory import __version__
        print(f"obsidian-memory {__version__}")
        return 0
    name, rest = argv[0], argv[1:]
    if name not in COMMANDS:
        sys.stderr.write(f"{PROG}: error: unknown command {name!r} (see {PROG} --help)\n")
        return 2
    module_name, description = COMMANDS[name]
    if name not in ("hook", "doctor"):  # a hook logs setting problems instead, doctor lists them
        from obsidian_memory.core import settings
        settings.warn_on(sys.stderr)
    module = _import_command(module_name)
    if hasattr(module, "main"):
        return module.main(rest)
    return run_argparse_command(module, f"{PROG} {name}", description, rest)


def run_argparse_command(module, prog: str, description: str, argv: list[str]) -> int:
    from obsidian_memory.cli.cliutil import OneLineParser, guarded

    parser = OneLineParser(prog=prog, description=description)
    module.add_arguments(parser)
    return guarded(prog, lambda: module.run(parser.parse_args(argv)))


def _import_command(module_name: str):
    # (not importlib.import_module: importlib imports warnings, on the path of every hook)
    return __import__(f"obsidian_memory.cli.commands.{module_name}", fromlist=["__name__"])


def _print_usage(stream) -> None:
    width = max(len(n) for n in COMMANDS)
    stream.write(f"usage: {PROG} <command> [options]\n\ncommands:\n")
    for name, (_, description) in COMMANDS.items():
        stream.write(f"  {name.ljust(width)}  {description}\n")
    stream.write(f"\nRun `{PROG} <command> --help` for a command's options.\n")


if __name__ == "__main__":
    sys.exit(main())
