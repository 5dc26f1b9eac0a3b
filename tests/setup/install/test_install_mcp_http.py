"""`install.py --mcp-http`: the HTTP MCP server offered as a user service (a systemd user unit on
Linux), never enabled by the installer; the command it runs answers MCP clients with the token;
`--uninstall` stops the server, disables and removes the service and takes the token away."""
from __future__ import annotations

import json
import os
import shlex
import stat
import sys
from pathlib import Path

import pytest

from install_kit import User

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="writes a systemd user unit: Linux only")


def unit_command(unit: Path) -> tuple[list[str], dict]:
    """ExecStart's argument list and Environment's variables, read as systemd reads them."""
    fields = dict(line.split("=", 1) for line in unit.read_text(encoding="utf-8").splitlines()
                  if "=" in line and not line.startswith("#"))

    def unescape(word: str) -> str:
        return word.replace("%%", "%").replace("$$", "$")
    argv = [unescape(word) for word in shlex.split(fields["ExecStart"])]
    name, value = unescape(shlex.split(fields["Environment"])[0]).split("=", 1)
    return argv, {name: value}


def test_mcp_http_offers_a_user_service_whose_server_answers_and_uninstall_takes_it_all_away(user: User):
    from mcp_http_kit import HttpServer, free_port, listening, process_gone
    from testkit import MCP_INITIALIZE

    environ = user.environ(XDG_CONFIG_HOME=user.home / ".config")
    unit = user.home / ".config" / "systemd" / "user" / "obsidian-memory-mcp.service"
    wants = unit.parent / "default.target.wants" / unit.name
    token_file = Path(user.layout.home) / "mcp-http.token"

    installed = user.install("--vault", user.vault, "--create-vault", "--no-import", "--yes", "--mcp-http",
                             env=environ).stdout.decode()
    assert unit.is_file() and not wants.exists()              # offered, not enabled
    assert "systemctl --user daemon-reload && systemctl --user enable --now obsidian-memory-mcp.service" in installed
    assert stat.S_IMODE(token_file.stat().st_mode) == 0o600
    token = token_file.read_text(encoding="ascii").strip()
    assert installed.count(f'"Bearer {token}"') == 2           # Cursor and Claude Desktop, printed once
    state = json.loads(Path(user.layout.state_path).read_text(encoding="utf-8"))
    assert "mcp" in state["extras"] and state["service_file"] == str(unit)

    again = user.install("--vault", user.vault, "--no-import", "--yes", env=environ).stdout.decode()
    assert token not in again and "--show-config" in again and unit.is_file()   # remembered, token not shown again

    argv, variables = unit_command(unit)
    assert variables == {"CLAUDE_CONFIG_DIR": str(user.config_dir)}
    port = free_port()
    with open(user.layout.config_yaml, "a", encoding="utf-8") as config:
        config.write(f"mcp_http_port: {port}\n")
    server = HttpServer(argv, {**environ, **variables}, user.root, Path(user.layout.home)).start()
    assert server.port == port
    status, _, body = server.post(MCP_INITIALIZE[0], server.authorized())
    assert status == 200 and json.loads(body)["result"]["serverInfo"]["name"] == "obsidian-memory"
    assert server.post(MCP_INITIALIZE[0], {"Content-Type": "application/json"})[0] == 401

    wants.parent.mkdir()
    wants.symlink_to(unit)                                     # what `systemctl --user enable` does
    removed = user.install("--uninstall", "--yes", env=environ).stdout.decode()
    assert f"stop the running HTTP MCP server (pid {server.process.pid})" in removed
    assert server.process.wait(timeout=30) == 0 and process_gone(server.process.pid)
    assert listening(port) == [] and not server.state_file.exists()
    assert not os.path.lexists(wants) and not unit.exists() and not token_file.exists()
    left = sorted(path.relative_to(user.home).as_posix() for path in (user.home / ".config").rglob("*"))
    assert left == [".config/systemd", ".config/systemd/user", ".config/systemd/user/default.target.wants"]
    kept = next(line for line in removed.splitlines() if line.strip().startswith("kept:"))
    assert "mcp-http" not in kept


def test_the_service_is_not_restarted_in_a_loop_when_its_config_is_broken(user: User):
    environ = user.environ(XDG_CONFIG_HOME=user.home / ".config")
    user.install("--vault", user.vault, "--create-vault", "--no-import", "--yes", "--mcp-http", env=environ)
    unit = user.home / ".config" / "systemd" / "user" / "obsidian-memory-mcp.service"
    argv, variables = unit_command(unit)
    with open(user.layout.config_yaml, "a", encoding="utf-8") as config:
        config.write("mcp_http_port: [not a port\n")
    import subprocess

    broken = subprocess.run(argv, env={**environ, **variables}, capture_output=True, timeout=60)
    fields = dict(line.split("=", 1) for line in unit.read_text(encoding="utf-8").splitlines() if "=" in line)
    assert str(broken.returncode) in fields["RestartPreventExitStatus"].split()
    assert broken.returncode != 0 and len(broken.stderr.decode().splitlines()) == 1


def test_dry_run_with_mcp_http_shows_the_service_and_the_token_and_makes_neither(user: User):
    environ = user.environ(XDG_CONFIG_HOME=user.home / ".config")
    shown = user.install("--vault", user.vault, "--create-vault", "--dry-run", "--mcp-http", env=environ)
    text = shown.stdout.decode()
    assert "obsidian-memory-mcp.service (user service of the HTTP MCP server; not enabled)" in text
    assert "mcp-http.token (the HTTP MCP server's bearer token, readable by you only)" in text
    assert not (user.home / ".config").exists() and not (Path(user.layout.home) / "mcp-http.token").exists()



def test_the_folders_the_install_made_for_the_service_go_when_empty(user: User):
    environ = user.environ(XDG_CONFIG_HOME=user.home / ".config")
    user.install("--vault", user.vault, "--create-vault", "--no-import", "--yes", "--mcp-http", env=environ)
    assert (user.home / ".config" / "systemd" / "user" / "obsidian-memory-mcp.service").is_file()
    user.install("--uninstall", "--yes", env=environ)
    assert not (user.home / ".config").exists()


def test_uninstall_leaves_another_installations_service_file_alone(user: User, tmp_path):
    """A unit of the same name that runs another config dir's launcher is not ours to remove."""
    environ = user.environ(XDG_CONFIG_HOME=user.home / ".config")
    user.install_default()
    unit = user.home / ".config" / "systemd" / "user" / "obsidian-memory-mcp.service"
    unit.parent.mkdir(parents=True)
    other = '"/elsewhere/.claude/obsidian-memory/bin/obsidian_memory.py"'
    unit.write_text(f"[Service]\nExecStart=\"/usr/bin/python3\" {other} mcp --http\n", encoding="utf-8")
    user.install("--uninstall", "--yes", env=environ)
    assert other in unit.read_text(encoding="utf-8")
