"""Claude Code's own auto memory kept in the vault (`install.py --auto-memory`), in the real client
(2.1.332 and 2.1.197), offline: the first session of a repository points its auto memory into
`<vault>/Meta/claude-memory/<repository>/`; from the next session on the client tells the model that
folder is its memory, lets it write there without a prompt, and loads MEMORY.md from the vault
itself (we inject none of it); uninstall gives the repository's settings back."""
from __future__ import annotations

import json
import subprocess

import pytest

from mock_messages_api import tool_use
from world import World

pytestmark = pytest.mark.e2e

MARK = "ZEBRA-MEM-9"


@pytest.fixture(scope="session")
def memory_world(claude_binary, tmp_path_factory):
    version, binary = claude_binary
    machine = World(tmp_path_factory.mktemp(f"auto-memory-{version}-"), binary, version)
    done = machine.install_sh("--vault", str(machine.user.vault), "--no-import", "--yes", "--auto-memory")
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert "auto_memory: true" in (machine.our_home / "config.yaml").read_text(encoding="utf-8")
    machine.installed = True
    yield machine
    machine.close()


def test_the_clients_auto_memory_lives_in_the_vault_and_is_not_injected_twice(memory_world):
    world = memory_world
    first = world.session("Hello.", ["Hello."])
    assert first.result.ok, first.describe()
    local = world.user.repo / ".claude" / "settings.local.json"
    assert local.exists(), world.evidence("the first session did not point the auto memory into the vault")
    folder = json.loads(local.read_text(encoding="utf-8"))["autoMemoryDirectory"]
    assert folder.startswith(str(world.user.vault / "Meta" / "claude-memory") + "/"), folder
    status = subprocess.run(["git", "status", "--porcelain"], cwd=str(world.user.repo), capture_output=True, text=True)
    assert ".claude" not in status.stdout, status.stdout   # kept out of git, as the client keeps its own

    memory = f"{folder}/MEMORY.md"
    write = tool_use("Write", {"file_path": memory, "content": f"- The zebra cache warms at 06:00 ({MARK})\n"})
    second = world.session("Remember that the zebra cache warms at 06:00.", [write, "Saved to memory."])
    assert second.result.ok, second.describe()
    assert folder in second.main_requests()[0].text(), "the client does not name the vault folder as its memory"
    assert not second.result.permission_denials, second.result.permission_denials
    with open(memory, encoding="utf-8") as handle:
        assert MARK in handle.read()

    third = world.session("When does the zebra cache warm?", ["At 06:00."])
    assert third.result.ok, third.describe()
    assert MARK in third.main_requests()[0].text(), "the client did not load its memory from the vault"
    assert not [text for text in third.hook_additional_context() if MARK in text], "we injected the memory too"

    done = world.uninstall()
    assert done.returncode == 0, done.stdout + done.stderr
    assert not local.exists() and not (world.user.repo / ".claude").exists()
    exclude = world.user.repo / ".git" / "info" / "exclude"
    assert "settings.local.json" not in (exclude.read_text(encoding="utf-8") if exclude.exists() else "")
    with open(memory, encoding="utf-8") as handle:   # the memory itself stays: it is the user's
        assert MARK in handle.read()
