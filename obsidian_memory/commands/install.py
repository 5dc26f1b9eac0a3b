"""`obsidian_memory.py install`: the Python half of install.sh (which makes the venv first).

    install [--vault PATH] [--no-import] [--dry-run] [--yes] [--semantic] [--mcp] [--source CHECKOUT]
    install --uninstall [--purge] [--dry-run] [--yes]
"""
from __future__ import annotations

import os
import subprocess
import sys

from obsidian_memory import install, settings
from obsidian_memory.errors import UserError


def add_arguments(parser) -> None:
    parser.add_argument("--vault", help="the Obsidian vault (default: config.yaml, $OBSIDIAN_VAULT, ~/Vault)")
    parser.add_argument("--no-import", action="store_true", help="do not backfill existing transcripts")
    parser.add_argument("--dry-run", action="store_true", help="print what would change and change nothing")
    parser.add_argument("--uninstall", action="store_true", help="remove exactly what the installer added")
    parser.add_argument("--purge", action="store_true",
                        help="with --uninstall: also delete the session archive, config and logs "
                             "(vault notes always stay)")
    parser.add_argument("--yes", "-y", action="store_true", help="do not ask for confirmation")
    parser.add_argument("--semantic", action="store_true", help="the [semantic] extra was installed")
    parser.add_argument("--mcp", action="store_true", help="the [mcp] extra was installed")
    parser.add_argument("--source", help="the checkout holding scripts/ and skills/ (install.sh passes it)")
    parser.add_argument("--preflight", action="store_true",
                        help="only check that the install can proceed (install.sh runs this first)")


def run(args) -> int:
    if args.purge and not args.uninstall:
        raise UserError("--purge only goes with --uninstall")
    options = install.Options(settings.claude_config_dir(), source=args.source, vault=args.vault,
                              semantic=args.semantic, mcp=args.mcp, purge=args.purge)
    if args.uninstall:
        return _uninstall(options, args)
    return _install(options, args)


def _interactive(args) -> bool:
    return not args.yes and sys.stdin.isatty() and sys.stdout.isatty()


def _confirm(question: str) -> bool:
    try:
        answer = input(f"{question} [Y/n] ").strip().lower()
    except EOFError:
        return False
    return answer in ("", "y", "yes")


def _install(options, args) -> int:
    actions, facts = install.plan_install(options)
    if args.preflight:  # install.sh asks here, before it makes the venv, and then passes --yes
        return _confirm_plan(actions, facts["layout"]) if _interactive(args) else 0
    if args.dry_run:
        print("dry run: nothing will be changed. An install would:")
        install.print_plan(actions, empty="change nothing in Claude Code's files (all up to date)")
        return 0
    if actions and _interactive(args) and _confirm_plan(actions, facts["layout"]) != 0:
        return 1
    install.apply(actions)
    _print_summary(actions, facts)
    layout = facts["layout"]
    if not args.no_import:
        _run_installed(layout, ["import"])
    print()
    return _run_installed(layout, ["doctor"])


def _confirm_plan(actions, layout) -> int:
    if not actions:
        return 0
    print("The install will:")
    install.print_plan(actions, diffs=False)
    if not os.path.exists(layout.python):
        print(f"- create the virtual environment {layout.venv} and install obsidian-memory into it")
    if _confirm("Proceed?"):
        return 0
    print("nothing was changed")
    return 1


def _print_summary(actions, facts) -> None:
    layout = facts["layout"]
    print("obsidian-memory is installed" if actions else "obsidian-memory was already installed: nothing changed")
    for action in actions:
        print(f"  {action.describe()}")
        if getattr(action, "backup_to", None) and getattr(action, "before", None) is not None:
            print(f"    (previous version saved as {action.backup_to})")
    print(f"  vault: {facts['vault']}")
    print(f"  hook command: {facts['hooks']['SessionStart']}")
    print(f"  settings: {layout.config_yaml}")
    if "mcp" in facts.get("extras", ()):
        print(f"  MCP server (for any MCP client): {facts['mcp_command']}")
    print("Start a new Claude Code session to use it; undo everything with ./install.sh --uninstall")


def _run_installed(layout, argv: list[str]) -> int:
    python = layout.python if os.path.exists(layout.python) else sys.executable
    sys.stdout.flush()
    try:
        return subprocess.call([python, "-I", "-m", "obsidian_memory", *argv])
    except OSError as exc:
        raise UserError(f"cannot run {python}: {exc.strerror}", code=1)


def _uninstall(options, args) -> int:
    if args.purge and not args.yes and not args.dry_run:
        if not _interactive(args):
            raise UserError("--purge deletes the session archive for good: add --yes to confirm")
        if not _confirm("--purge deletes the session archive, config and logs for good (vault notes stay). Sure?"):
            print("nothing was changed")
            return 1
    actions = install.plan_uninstall(options)
    if args.dry_run:
        print("dry run: nothing will be changed. An uninstall would:")
        install.print_plan(actions, empty="change nothing (obsidian-memory is not installed)")
        return 0
    install.apply(actions)
    print("obsidian-memory is uninstalled" if actions else "obsidian-memory was not installed: nothing changed")
    for action in actions:
        print(f"  {action.describe()}")
    if not options.purge:
        print("  kept: the session archive, config.yaml and the notes in your vault "
              "(./install.sh --uninstall --purge deletes the archive and config; vault notes always stay)")
    return 0
