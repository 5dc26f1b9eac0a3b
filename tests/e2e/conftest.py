"""Fixtures for the end-to-end scenarios in the real Claude Code client.

`world` is one person's machine per pinned Claude Code version, made once per test session: the
client installed with npm into the cache folder (skipped, with the reason, when that cannot be had),
a temporary HOME with the user's own settings, our `./install.sh --vault ... --no-import --yes`, and
the scripted model server. The scenarios run in order on it, as a person would use it.
"""
from __future__ import annotations

import statistics

import pytest

import claude_code
from mock_messages_api import tool_use
from world import FIRST_PROMPT, FIRST_TITLE, World

WORLDS: list[World] = []


@pytest.fixture(scope="session", params=claude_code.VERSIONS, ids=lambda version: f"cc-{version}")
def claude_binary(request):
    version = request.param
    try:
        return version, claude_code.install(version)
    except claude_code.Unavailable as exc:
        pytest.skip(f"the end-to-end tests need the real Claude Code client {version}, installed with npm "
                    f"into {claude_code.cache_root()}, and it cannot be had here: {exc} "
                    "(`-m \"not e2e\"` leaves these tests out)")


@pytest.fixture(scope="session")
def world(claude_binary, tmp_path_factory):
    version, binary = claude_binary
    machine = World(tmp_path_factory.mktemp(f"cc-{version}-"), binary, version)
    WORLDS.append(machine)
    yield machine
    machine.close()


@pytest.fixture
def installed(world) -> World:
    return world.ensure_installed()


@pytest.fixture(scope="session")
def first_session(world):
    """Session 1, run once per world: a named session with Bash, Write and Edit calls."""
    world.ensure_installed()
    cache = world.user.repo / "src" / "cache.py"
    steps = [
        tool_use("Bash", {"command": "ls", "description": "List the repository"}),
        tool_use("Write", {"file_path": str(cache), "content": "def warm_zebrafish_cache():\n    return 'cold'\n"}),
        tool_use("Edit", {"file_path": str(cache), "old_string": "'cold'", "new_string": "'warm'"}),
        "The zebrafish cache now warms up before the first request.",
    ]
    run = world.session(FIRST_PROMPT, steps, "-n", FIRST_TITLE, "--allowedTools", "Bash Write Edit Read")
    assert run.result.ok, run.describe()
    return run


def pytest_terminal_summary(terminalreporter):
    if not WORLDS:
        return
    write = terminalreporter.write_line
    terminalreporter.section("obsidian-memory hooks as the real Claude Code client ran them")
    for machine in WORLDS:
        installs = ", ".join(f"{s:.1f} s" for s in machine.install_seconds) or "not run"
        write(f"Claude Code {machine.version}: install.sh {installs}; {machine.runs} claude -p runs")
        by_event: dict[str, list] = {}
        for timing in machine.hook_timings:
            by_event.setdefault(f"{timing['event']}:{timing['matcher']}".rstrip(":"), []).append(timing)
        for event, timings in sorted(by_event.items()):
            known = [t["ms"] for t in timings if t["ms"] is not None]
            failed = sum(1 for t in timings if t["status"] != 0)
            figures = (f"median {statistics.median(known):.0f} ms, max {max(known)} ms" if known
                       else "duration not logged by this client")
            write(f"  {event:<22} runs {len(timings):>2}  {figures}" + (f"  NON-ZERO EXIT x{failed}" if failed else ""))
