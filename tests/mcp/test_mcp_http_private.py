"""The HTTP MCP server (`mcp --http`) is a long-running process that keeps its index warm and
watches the vault: a note that becomes private while it runs (by its property, or by a new
`private` rule in config.yaml while nothing in the vault changed) is never returned by the next
call, and comes back when it is public again."""
from __future__ import annotations

import json

import pytest

pytest.importorskip("mcp.client.streamable_http", reason="the optional [mcp] extra is not installed")

import anyio  # noqa: E402  (after the skip: anyio comes with the SDK)
from mcp_http_kit import HttpServer, env_with_notes  # noqa: E402
from testkit import Env  # noqa: E402

NOTES = {
    "Recipes/Pancakes.md": "# Pancakes\nWhisk flour and maple syrup into a batter. See [[Garden]].\n",
    "Recipes/Syrup.md": "# Syrup\nMaple syrup boiled down from sap, poured warm.\n",
    "Projects/Garden.md": "# Garden\nThe maple tree shades the bed; the quokkazest key is under the pot.\n",
}


@pytest.fixture
def world(tmp_path) -> Env:
    return env_with_notes(tmp_path, NOTES)


def calls(server: HttpServer) -> dict:
    """What an agent would ask: a search on the local index and on the scanner, the note by name,
    and the notes around and like a public note that links to it."""
    async def talk():
        with anyio.fail_after(120):
            async with server.client() as client:
                answers = {
                    "index": await client.call_tool("search", {"query": "maple", "source": "local", "limit": 50}),
                    "scan": await client.call_tool("search", {"query": "maple", "source": "scan", "limit": 50}),
                    "read": await client.call_tool("read", {"paths": ["Projects/Garden.md"]}),
                    "related": await client.call_tool("related", {"path": "Recipes/Pancakes.md", "depth": 2}),
                    "similar": await client.call_tool("similar", {"path": "Recipes/Syrup.md"}),
                }
        return {name: (result.is_error, json.dumps(result.structured_content) if result.structured_content
                       else result.content[0].text) for name, result in answers.items()}
    return anyio.run(talk)


def found(answers: dict, engine: str) -> set[str]:
    return {hit["path"] for hit in json.loads(answers[engine][1])["results"]}


def assert_hidden(answers: dict, private: set[str], asked: str) -> None:
    """No answer holds a private note's path or words; `asked`, the call that named the private
    note, is refused with that name and nothing of the note."""
    assert answers[asked][0] and "private note" in answers[asked][1], answers[asked]
    for name, (_, text) in answers.items():
        if name != asked:
            assert not any(path in text for path in private), (name, text)
        assert not any(NOTES[path].splitlines()[1] in text for path in private), (name, text)
    for engine in ("index", "scan"):
        assert found(answers, engine) == set(NOTES) - private


def test_a_note_that_becomes_private_while_the_server_runs_is_gone_from_the_next_call(world):
    garden = world.vault / "Projects" / "Garden.md"
    config = world.config_dir / "obsidian-memory" / "config.yaml"
    with HttpServer.of(world) as server:
        before = calls(server)
        assert found(before, "index") == set(NOTES) and "quokkazest" in before["read"][1]

        garden.write_text("---\nprivate: true\n---\n" + NOTES["Projects/Garden.md"], encoding="utf-8")
        after = calls(server)
        assert_hidden(after, {"Projects/Garden.md"}, asked="read")

        garden.write_text(NOTES["Projects/Garden.md"], encoding="utf-8")       # public again
        again = calls(server)
        assert found(again, "index") == set(NOTES) and "quokkazest" in again["read"][1]

        config.write_text("private: [Recipes/Syrup.md]\n", encoding="utf-8")  # a rule, nothing else changed
        ruled = calls(server)
        assert_hidden(ruled, {"Recipes/Syrup.md"}, asked="similar")
        assert not ruled["read"][0] and "quokkazest" in ruled["read"][1]
