"""`obsidian_memory.py install`: the part of install.py that edits Claude Code's files (install.py
makes the venv first, and runs the preflight and the dry run of this very code from the checkout).

    install [--vault PATH] [--create-vault] [--no-import] [--dry-run] [--yes] [--semantic] [--mcp]
            [--mcp-http] [--hook-form auto|exec|shell] [--python PATH] [--source CHECKOUT]
    install --uninstall [--purge] [--dry-run] [--yes]
"""
from __future__ import annotations

import os
import subprocess
import sys

from obsidian_memory.setup import install
from obsidian_memory.core import settings
from obsidian_memory.core.errors import UserError


def add_arguments(parser) -> None:
    parser.add_argument("--vault", help="your Obsidian vault (default: config.yaml, then $OBSIDIAN_VAULT, then ~/Vault)")
    parser.add_argument("--create-vault", action="store_true",
                        help="create the vault folder if it does not exist (otherwise the installer asks, "
                             "or with --yes refuses)")
    parser.add_argument("--no-import", action="store_true", help="do not backfill the transcripts Claude Code has")
    parser.add_argument("--dry-run", action="store_true", help="print what would change and change nothing")
    parser.add_argument("--uninstall", action="store_true", help="remove exactly what the installer added")
    parser.add_argument("--purge", action="store_true",
                        help="with --uninstall: also delete the session archive, config and logs "
                             "(the notes in your vault always stay)")
    parser.add_argument("--yes", "-y", action="store_true", help="never ask (also the behaviour without a terminal)")
    parser.add_argument("--semantic", action="store_true", help="also install the optional semantic-search extra")
    parser.add_argument("--mcp", action="store_true",
                        help="also install the MCP server's extra (pydantic, uvicorn), for `obsidian_memory.py mcp` (any MCP client)")
    parser.add_argument("--mcp-http", action="store_true",
                        help="also write a user service (systemd on Linux, launchd on macOS) for the HTTP MCP "
                             "server, and its token; the service is not enabled: the summary says how (implies --mcp)")
    parser.add_argument("--auto-memory", action="store_true",
                        help="keep Claude Code's own auto memory of each repository in the vault "
                             "(Meta/claude-memory/<repository>/, through its .claude/settings.local.json)")
    parser.add_argument("--hook-form", choices=("auto", "exec", "shell"), default="auto",
                        help="how settings.json runs the hooks: exec (no shell; Claude Code 2.1.139 or newer), "
                             "shell (older clients), or auto: exec unless an older `claude` is on PATH")
    parser.add_argument("--python", help="the Python the hooks run the launchers with (install.py passes its own)")
    parser.add_argument("--source", help="the checkout holding scripts/ and skills/ (install.py passes it)")
    parser.add_argument("--preflight", action="store_true",
                        help="only check that the install can proceed, and ask (install.py runs this first)")


def run(args) -> int:
    if args.purge and not args.uninstall:
        raise UserError("--purge only goes with --uninstall")
    if args.uninstall:
        return _uninstall(_options(args), args)
    if args.hook_form == "auto":
        args.hook_form = install.hook_form(install.claude_version())
    return _install(_options(args), args)


def _options(args) -> install.Options:
    return install.Options(settings.claude_config_dir(), source=args.source, vault=args.vault,
                           semantic=args.semantic, mcp=args.mcp, purge=args.purge,
                           python=args.python, hook_form=args.hook_form, mcp_http=args.mcp_http,
                           auto_memory=args.auto_memory)


def _interactive(args) -> bool:
    return not args.yes and sys.stdin.isatty() and sys.stdout.isatty()


def _confirm(question: str, default: bool) -> bool:
    """Ask; Enter gives `default` (a question whose Yes destroys something defaults to No)."""
    try:
        answer = input(f"{question} {'[Y/n]' if default else '[y/N]'} ").strip().lower()
    except EOFError:
        return False
    return default if not answer else answer in ("y", "yes")


# -- install -------------------------------------------------------------------------------------

def _install(options, args) -> int:
    code = _check_vault(options, args)
    if code is not None:
        return code
    actions, facts = install.plan_install(options)
    if args.preflight:  # install.py asks here, before it makes the venv, and then passes --yes
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
        _offer_vault_import(options, facts, args)
    print()
    return _run_installed(layout, ["doctor"])


def _offer_vault_import(options, facts, args) -> None:
    """One vault, many machines: when the vault already holds session notes written
    elsewhere (another machine, or this one before its archive was lost), offer to record them
    in this machine's archive now (`import --from-vault`; the background sweep would learn them
    at the next session start anyway). Yes is the default: nothing is written into the vault."""
    from obsidian_memory.core import machine
    from obsidian_memory.vault.notes import vault_sessions

    try:
        found = settings.load(vault=facts["vault"], config_dir=options.config_dir)
        here = machine.current(found)
        elsewhere = {m: n for m, n in vault_sessions.machines_in_folder(
            found.vault_path(found.sessions_folder)).items() if m is None or m != here}
    except (settings.ConfigError, OSError):
        return
    count = sum(elsewhere.values())
    if not count:
        return
    names = ", ".join(sorted(m or "machines not recorded" for m in elsewhere))
    question = (f"The vault holds {count} session note(s) from elsewhere ({names}). Add them to this machine's "
                "session archive now, so that its SessionStart context and session search cover them?")
    if _interactive(args) and not _confirm(question, default=True):
        print("skipped: the background sweep learns them at the next session start "
              "(or run `obsidian_memory.py import --from-vault`)")
        return
    _run_installed(facts["layout"], ["import", "--from-vault", "--vault", facts["vault"]])


def _check_vault(options, args) -> int | None:
    """Before anything is planned or made: the vault must be a folder; a missing one is created
    only when the user says so (asked, or --create-vault). None: go on; else the exit code."""
    vault = install.planned_vault(options)
    if os.path.exists(vault) and not os.path.isdir(vault):
        raise UserError(f"the vault {vault} is a file, not a folder: pass --vault with your vault's folder "
                        "— nothing was changed", code=2)
    if not os.path.isdir(vault):
        if args.create_vault or args.dry_run:
            return None
        if not _interactive(args):
            raise UserError(f"the vault {vault} does not exist: pass --vault with your vault's folder, or add "
                            "--create-vault to let the installer create it — nothing was changed", code=2)
        if not _confirm(f"The vault {vault} does not exist. Create it?", default=False):
            print("nothing was changed (pass --vault with your vault's folder)")
            return 1
        args.create_vault = True
        return None
    if not os.path.isdir(os.path.join(vault, ".obsidian")):
        print(f"note: {vault} has no .obsidian/ folder, so it is probably not an Obsidian vault yet "
              "(open it in Obsidian as a vault, or pass --vault with your vault's folder)")
    return None


def _confirm_plan(actions, layout) -> int:
    if not actions:
        return 0
    print("The install will:")
    install.print_plan(actions, diffs=False)
    if not os.path.exists(layout.python):
        print(f"- create the virtual environment {layout.venv} and install obsidian-memory into it")
    if _confirm("Proceed?", default=True):
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
    print(f"  hook command: {install.describe_handler(facts['hooks']['SessionStart'])}")
    print(f"  settings: {layout.config_yaml}")
    if "mcp" in facts.get("extras", ()):
        print(f"  MCP server (for any MCP client): {facts['mcp_command']}")
    if facts.get("mcp_http"):
        _print_http_service(layout, facts.get("service_file"), any(isinstance(a, install.MakeToken) for a in actions))
    print("Start a new Claude Code session to use it; undo everything with `python3 install.py --uninstall`")


def _print_http_service(layout, service_file: str | None, new_token: bool) -> None:
    """How to start the HTTP MCP server (the service is offered, not enabled), and, once, with
    the token just made, what to paste into the clients."""
    from obsidian_memory.mcp import endpoint as mcp_endpoint

    if service_file:
        print(f"  HTTP MCP server: the user service {service_file} is written but not enabled; to start it now "
              f"and at every login:\n    {install.enable_hint(service_file)}")
    else:
        command = " ".join(install.quote_if_needed(part) for part in install.service_command(layout))
        print(f"  HTTP MCP server: no user service on this system; start it (at logon, e.g. from the Task "
              f"Scheduler) with:\n    {command}")
    if not new_token:
        print("  `obsidian_memory.py mcp --http --show-config` prints what to paste into Claude Code, Cursor and "
              "Claude Desktop")
        return
    try:
        port = settings.load(config_dir=layout.config_dir).mcp_http_port
    except UserError:
        port = settings.DEFAULT_MCP_HTTP_PORT
    token, _ = mcp_endpoint.ensure_token(layout.home)
    text = mcp_endpoint.client_configuration(port, token, mcp_endpoint.token_path(layout.home))
    print("".join(f"  {line}\n" if line else "\n" for line in text.splitlines()), end="")


def _run_installed(layout, argv: list[str]) -> int:
    python = layout.python if os.path.exists(layout.python) else sys.executable
    sys.stdout.flush()
    try:
        return subprocess.call([python, "-I", "-m", "obsidian_memory", *argv])
    except OSError as exc:
        raise UserError(f"cannot run {python}: {exc.strerror}", code=1)


# -- uninstall -----------------------------------------------------------------------------------

def _uninstall(options, args) -> int:
    if args.purge and not args.yes and not args.dry_run:
        if not _interactive(args):
            raise UserError("--purge deletes the session archive for good: add --yes to confirm")
        if not _confirm("--purge deletes the session archive, config and logs for good (vault notes stay). Sure?",
                        default=False):
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
    for command in install.mcp_entries_left(install.Layout(options.config_dir)):
        print(f"  Claude Code still lists the MCP server you added for obsidian-memory: `{command}` removes it")
    if not options.purge:
        kept = install.kept_after_uninstall(install.Layout(options.config_dir)) + ["the notes in your vault"]
        print("  kept: " + "; ".join(kept))
        print("  (`python3 install.py --uninstall --purge` deletes all of these but the notes in your vault, "
              "which always stay)")
    return 0
