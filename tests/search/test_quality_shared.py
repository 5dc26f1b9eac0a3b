"""Ranking quality on the real Obsidian Help vault with the judged set in benchmarks/golden.

Measured when written (index): nDCG@5 0.916, nDCG@10 0.926, MRR 0.928, Hit@1 0.878 over 74
English queries; the scanner: nDCG@5 0.642. The thresholds sit a little below, so that a
change that costs real quality fails while noise does not.
"""
from __future__ import annotations

import pytest

from obsidian_memory.search import evaluation
from obsidian_memory.core import settings as settings_module
from obsidian_memory.search import search
from testkit import REPO, shared_path

GOLDEN = REPO / "benchmarks" / "golden" / "obsidian-help-en.json"


@pytest.fixture(scope="module")
def help_settings(tmp_path_factory):
    vault = shared_path("eval", "obsidian-help-en")
    config = tmp_path_factory.mktemp("quality")
    with pytest.MonkeyPatch.context() as patch:
        patch.delenv("OBSIDIAN_MEMORY_CACHE_DIR", raising=False)
        yield settings_module.Settings(str(config), vault=str(vault))


def _measure(settings, source: str) -> dict:
    results = []
    for item in evaluation.load_golden(str(GOLDEN)):
        response = search(item["query"], settings, source=source, limit=10)
        ranked = [h.path for h in response.hits]
        results.append({"category": item["category"],
                        "metrics": evaluation.query_metrics(ranked, item["relevant_paths"], item["partial_paths"])})
    return evaluation.summarise(results)


@pytest.fixture(scope="module")
def index_figures(help_settings):
    return _measure(help_settings, "index")


def test_golden_set_is_large_and_points_at_existing_notes(help_settings):
    import os

    golden = evaluation.load_golden(str(GOLDEN))
    assert len(golden) >= 40
    assert {"keyword", "conceptual", "title", "typo", "syntax"} <= {g["category"] for g in golden}
    for item in golden:
        for path in item["relevant_paths"] + item["partial_paths"]:
            assert os.path.isfile(os.path.join(help_settings.vault, path)), path


def test_index_reaches_the_target_ndcg_on_english_queries(index_figures):
    overall = index_figures["overall"]
    assert overall["ndcg@5"] >= 0.88, overall       # issue target 0.78; measured 0.916
    assert overall["mrr"] >= 0.88 and overall["recall@10"] >= 0.95, overall


def test_every_category_holds_up(index_figures):
    floors = {"title": 0.95, "keyword": 0.88, "syntax": 0.88, "typo": 0.9, "conceptual": 0.75}
    for name, floor in floors.items():
        assert index_figures["categories"][name]["ndcg@5"] >= floor, (name, index_figures["categories"][name])


def test_index_ranks_far_better_than_the_scanner(help_settings, index_figures):
    scan = _measure(help_settings, "scan")["overall"]
    assert index_figures["overall"]["ndcg@5"] >= scan["ndcg@5"] + 0.15, (index_figures["overall"], scan)
