"""The prompt-recall judged sets in benchmarks/recall_set: each listed by the benchmark, well formed,
split once per kind (or held out whole), and every revisit pointing at a session of the corpus."""
from __future__ import annotations

import sys
from collections import Counter

import pytest

from testkit import REPO

SET = REPO / "benchmarks" / "recall_set"
sys.path[:0] = [str(REPO / "benchmarks"), str(SET)]

import prompt_recall  # noqa: E402
import recall_corpus  # noqa: E402

HELD_OUT_WHOLE = {"fresh", "fresh2", "fresh3", "fresh4", "fresh5", "fresh6"}        # all test: nothing of them is tuned on
KEYS = {spec.key for spec in recall_corpus.SESSIONS}
FOLDERS = {spec.repo for spec in recall_corpus.SESSIONS}


def test_every_set_file_is_one_the_benchmark_measures():
    assert {p.name for p in SET.glob("*prompts.json")} == set(prompt_recall.SETS.values())


@pytest.mark.parametrize("name", sorted(prompt_recall.SETS))
def test_every_prompt_is_judged_split_and_unique(name):
    prompts = prompt_recall.load_prompts(name)
    assert len({p["id"] for p in prompts}) == len(prompts)
    for p in prompts:
        assert p["prompt"].strip() and p["repo"] in FOLDERS, p["id"]
        if p["kind"] == "revisit":
            assert p["relevant"] and set(p["relevant"]) <= KEYS, p["id"]
        else:
            assert p["relevant"] == [], p["id"]
    counts = Counter((p["kind"], p["split"]) for p in prompts)
    if name in HELD_OUT_WHOLE:
        assert {p["split"] for p in prompts} == {"test"}
    else:
        for kind in {p["kind"] for p in prompts}:
            assert 0 <= counts[(kind, "dev")] - counts[(kind, "test")] <= 1, (name, kind)

