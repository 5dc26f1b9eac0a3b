"""The judged sets in benchmarks/golden: well formed, split once into halves, pointing at real notes,
and the anchor-context sets exactly what their generator makes of the vaults."""
from __future__ import annotations

import json
import subprocess
import sys
from collections import Counter

import pytest

from obsidian_memory.search import evaluation
from testkit import REPO, SHARED

GOLDEN = REPO / "benchmarks" / "golden"
DEV_VAULT = REPO / "benchmarks" / "vaults" / "dev-notes"
HANDBOOK_VAULT = REPO / "benchmarks" / "vaults" / "debian-handbook"
HELP_VAULT = SHARED / "eval" / "obsidian-help-en"
VAULT_OF = {"obsidian-help-en.json": HELP_VAULT, "obsidian-help-semantic.json": HELP_VAULT,
            "obsidian-help-asked.json": HELP_VAULT, "obsidian-help-anchors.json": HELP_VAULT,
            "obsidian-help-fanout.json": HELP_VAULT, "dev-notes.json": DEV_VAULT,
            "dev-notes-anchors.json": DEV_VAULT, "debian-handbook.json": HANDBOOK_VAULT,
            "debian-handbook-blind.json": HANDBOOK_VAULT, "debian-handbook-blind2.json": HANDBOOK_VAULT,
            "obsidian-help-blind.json": HELP_VAULT}
HELD_OUT_WHOLE = {"debian-handbook-blind2.json", "obsidian-help-blind.json"}   # all test: nothing of it is tuned on
ANCHORS = {"obsidian-help-anchors.json": (HELP_VAULT, "anchor-help", 120),
           "dev-notes-anchors.json": (DEV_VAULT, "anchor-dev", 100)}


def test_every_golden_file_is_listed_here():
    assert {p.name for p in GOLDEN.glob("*.json")} == set(VAULT_OF)


@pytest.mark.parametrize("name", sorted(VAULT_OF))
def test_every_entry_is_judged_split_and_unique(name):
    entries = evaluation.load_golden(str(GOLDEN / name))
    assert len({e["id"] for e in entries}) == len(entries)
    assert all(e["relevant_paths"] for e in entries), "an entry nobody judged"
    assert all(e.get("split") in evaluation.SPLITS for e in entries)
    if name in HELD_OUT_WHOLE:
        assert {e["split"] for e in entries} == {"test"}
    elif name != "obsidian-help-fanout.json":       # its entries take their source's half
        counts = Counter((e["category"], e["split"]) for e in entries)
        for category in {e["category"] for e in entries}:
            assert 0 <= counts[(category, "dev")] - counts[(category, "test")] <= 1, (name, category)


@pytest.mark.parametrize("name", sorted(VAULT_OF))
def test_judged_paths_are_notes_of_the_vault(name):
    vault = VAULT_OF[name]
    if not vault.is_dir():
        pytest.skip(f"{vault} is not available (../shared is absent)")
    for entry in evaluation.load_golden(str(GOLDEN / name)):
        for path in entry["relevant_paths"] + entry["partial_paths"] + entry.get("ignore_paths", []):
            assert (vault / path).is_file(), (entry["id"], path)


def test_the_second_help_set_and_the_dev_notes_set_are_as_large_and_varied_as_issue_14_asks():
    asked = evaluation.load_golden(str(GOLDEN / "obsidian-help-asked.json"))
    dev = evaluation.load_golden(str(GOLDEN / "dev-notes.json"))
    assert len(asked) >= 120 and len(dev) >= 80
    assert {"question", "keyword", "known-item", "conceptual", "code", "typo"} <= {e["category"] for e in asked}
    assert {"identifier", "error", "path", "question", "typo"} <= {e["category"] for e in dev}
    assert len(list(DEV_VAULT.rglob("*.md"))) >= 150


@pytest.mark.parametrize("name", sorted(ANCHORS))
def test_anchor_sets_are_what_the_generator_makes_of_the_vault(tmp_path, name):
    vault, prefix, most = ANCHORS[name]
    if not vault.is_dir():
        pytest.skip(f"{vault} is not available (../shared is absent)")
    out = tmp_path / name
    subprocess.run([sys.executable, str(REPO / "benchmarks" / "make_anchor_queries.py"), str(vault), str(out),
                    "--prefix", prefix, "--max", str(most)], check=True, capture_output=True)
    assert json.loads(out.read_text(encoding="utf-8")) == json.loads((GOLDEN / name).read_text(encoding="utf-8"))


def test_an_anchor_query_is_the_sentence_around_the_link_without_it(tmp_path):
    vault = tmp_path / "v"
    (vault / "sub").mkdir(parents=True)
    (vault / "Heron.md").write_text("A long-legged bird.", encoding="utf-8")
    (vault / "sub" / "Birds.md").write_text(
        "---\ntags: [x]\n---\n# Birds\nShort intro. Wading birds that stand still in shallow water\n"
        "for hours are [[Heron|herons]], patient hunters. Next sentence.\n\n"
        "- [[Heron]], [[Birds]], [[Nowhere]]\n```\ncode with [[Heron]] inside the code block here\n```\n",
        encoding="utf-8")
    out = tmp_path / "anchors.json"
    subprocess.run([sys.executable, str(REPO / "benchmarks" / "make_anchor_queries.py"), str(vault), str(out)],
                   check=True, capture_output=True)
    (entry,) = json.loads(out.read_text(encoding="utf-8"))
    assert entry["query"] == "Wading birds that stand still in shallow water for hours are, patient hunters"
    assert entry["relevant_paths"] == ["Heron.md"] and entry["ignore_paths"] == ["sub/Birds.md"]
    assert entry["category"] == "anchor" and entry["split"] == "dev"
