"""Canvas text is searchable: the text cards of a `.canvas` file (JSON Canvas) and the names of
the files its file cards show are found by every local engine, and the hit is the canvas itself,
which `read` then reads as the text it shows. The real CLIs as subprocesses."""
from __future__ import annotations

import json

import pytest
from testkit import write_note

CANVAS = {
    "nodes": [
        {"id": "b", "type": "text", "text": "Then the **zeppelin** launch checklist", "x": 0, "y": 400,
         "width": 250, "height": 60},
        {"id": "a", "type": "text", "text": "# Quarterly roadmap\nMigrate the billing service", "x": 0, "y": 0,
         "width": 250, "height": 60},
        {"id": "c", "type": "file", "file": "Projects/Hangar inventory.md", "x": 300, "y": 0, "width": 250, "height": 60},
        {"id": "d", "type": "group", "label": "Skunkworks", "x": -50, "y": -50, "width": 700, "height": 600},
        {"id": "e", "type": "link", "url": "https://example.com/runway", "x": 300, "y": 400, "width": 250, "height": 60},
    ],
    "edges": [{"id": "x", "fromNode": "a", "toNode": "b", "label": "blocks the dirigible"}],
}


@pytest.fixture
def vault(env):
    (env.vault / "Boards").mkdir()
    (env.vault / "Boards" / "Roadmap.canvas").write_text(json.dumps(CANVAS, indent="\t"), encoding="utf-8")
    (env.vault / "Boards" / "Broken.canvas").write_text("{not json", encoding="utf-8")
    write_note(env.vault, "Projects/Hangar inventory.md", "# Hangar inventory\n\nropes and ballast\n")
    write_note(env.vault, "Notes/other.md", "nothing about airships here\n")
    return env


def hits(env, query: str, *args) -> list[dict]:
    done = env.search(query, "--json", "-n", "20", *args)
    assert done.returncode == 0, done.stderr.decode()
    return json.loads(done.stdout)["results"]


@pytest.mark.parametrize("args", [["--source", "index"], ["--source", "scan"]])
@pytest.mark.parametrize("query", ["zeppelin", "billing service", "dirigible", "Skunkworks"])
def test_a_text_card_group_or_arrow_label_is_found_and_the_canvas_is_the_hit(vault, args, query):
    found = hits(vault, query, *args)
    assert [hit["path"] for hit in found] == ["Boards/Roadmap.canvas"]
    assert found[0]["basename"] == "Roadmap"


def test_a_file_cards_file_name_is_found_in_the_canvas(vault):
    paths = {hit["path"] for hit in hits(vault, "Hangar", "--source", "index")}
    assert "Boards/Roadmap.canvas" in paths and "Projects/Hangar inventory.md" in paths


def test_the_canvas_is_found_by_its_title(vault):
    assert [hit["path"] for hit in hits(vault, "Roadmap", "--source", "index", "--mode", "title")][:1] == \
        ["Boards/Roadmap.canvas"]


def test_read_gives_the_text_the_canvas_shows_and_raw_its_json(vault):
    done = vault.run("read", "Boards/Roadmap.canvas", "--json")
    assert done.returncode == 0, done.stderr.decode()
    [note] = json.loads(done.stdout)["notes"]
    body = note["body"]
    assert body.index("Quarterly roadmap") < body.index("zeppelin")          # reading order, top to bottom
    assert "[[Projects/Hangar inventory.md]]" in body and '"nodes"' not in body
    raw = vault.run("read", "Boards/Roadmap.canvas", "--raw", "--json")
    assert raw.returncode == 0 and '\\"nodes\\"' in raw.stdout.decode()


def test_the_note_a_file_card_shows_has_the_canvas_among_its_backlinks(vault):
    done = vault.run("related", "Projects/Hangar inventory", "--json", "--direction", "backlinks")
    assert done.returncode == 0, done.stderr.decode()
    assert "Boards/Roadmap.canvas" in done.stdout.decode()


def test_a_canvas_that_is_not_json_is_indexed_empty_and_fails_nothing(vault):
    assert hits(vault, "not json", "--source", "index") == []
    assert hits(vault, "Broken", "--source", "index", "--mode", "title")[0]["path"] == "Boards/Broken.canvas"
