"""Reciprocal rank fusion (k=60) with the leader's share, and the multi-query fan-out of the dispatcher."""
from __future__ import annotations

import pytest

from obsidian_memory.core import settings as settings_module
from obsidian_memory.search import search
from obsidian_memory.search.base import Hit
from obsidian_memory.search.fusion import CONFIDENT_BONUS, reciprocal_rank_fusion


def hits(*paths, excerpt="", engine="scan", scores=None):
    """A ranking; by default every note scores the same (no note leads)."""
    scores = scores or [1.0] * len(paths)
    return [Hit(path=p, basename=p[:-3], score=s, excerpt=f"{excerpt}{p}", engine=engine)
            for p, s in zip(paths, scores)]


def test_fused_score_is_the_sum_of_reciprocal_ranks():
    fused = reciprocal_rank_fusion([hits("a.md", "b.md", "c.md"), hits("c.md", "a.md")])
    got = {h.path: h.score for h in fused}
    assert got == pytest.approx({"a.md": 1 / 61 + 1 / 62, "c.md": 1 / 63 + 1 / 61, "b.md": 1 / 62})
    assert [h.path for h in fused] == ["a.md", "c.md", "b.md"]


def test_a_ranking_s_first_note_gets_a_share_for_how_clearly_it_leads():
    fused = reciprocal_rank_fusion([hits("a.md", "b.md", scores=[4.0, 3.0]), hits("c.md", scores=[2.0])],
                                   weights=[1.0, 0.5])
    got = {h.path: h.score for h in fused}
    assert got == pytest.approx({"a.md": 1 / 61 + CONFIDENT_BONUS * (4 - 3) / 4, "b.md": 1 / 62,
                                 "c.md": 0.5 * (1 / 61 + CONFIDENT_BONUS * 1.0)})     # alone: it leads fully


def test_a_phrasing_s_clear_first_beats_a_note_found_lower_by_every_phrasing():
    """Plain RRF put the note a phrasing found clearly first below notes two phrasings
    found third or fourth (the configuration folder at #35, Sync pricing out of the top 5)."""
    unsure = hits("x.md", "y.md", "both.md", "z.md", scores=[5.0, 4.9, 4.8, 4.7])
    clear = hits("answer.md", "w.md", "both.md", scores=[9.0, 3.0, 2.0])
    fused = reciprocal_rank_fusion([unsure, clear])
    assert fused[0].path == "answer.md"
    assert reciprocal_rank_fusion([unsure, clear], confident_bonus=0)[0].path == "both.md"   # plain RRF


def test_a_note_found_by_every_query_beats_one_found_first_by_a_single_query():
    fused = reciprocal_rank_fusion([hits("solo.md", "both.md"), hits("other.md", "both.md")])
    assert fused[0].path == "both.md"


def test_a_note_keeps_the_excerpt_of_its_best_ranking():
    first = hits("x.md", "a.md", excerpt="first:")
    second = hits("a.md", excerpt="second:")
    fused = reciprocal_rank_fusion([first, second])
    assert next(h for h in fused if h.path == "a.md").excerpt == "second:a.md"


def test_ties_keep_the_better_best_rank_then_the_path():
    fused = reciprocal_rank_fusion([hits("b.md", "a.md"), hits("a.md", "b.md"), hits("d.md"), hits("c.md")],
                                   confident_bonus=0)           # the RRF part: alone, c and d would lead
    assert [h.path for h in fused] == ["a.md", "b.md", "c.md", "d.md"]


def test_a_note_listed_twice_in_one_ranking_counts_once():
    fused = reciprocal_rank_fusion([hits("a.md", "a.md")], confident_bonus=0)
    assert [(h.path, h.score) for h in fused] == [("a.md", pytest.approx(1 / 61))]


def test_one_ranking_keeps_its_order():
    assert [h.path for h in reciprocal_rank_fusion([hits("c.md", "a.md", "b.md")])] == ["c.md", "a.md", "b.md"]


def test_fan_out_merges_queries_and_keeps_the_engine_name(env, monkeypatch):
    env.apply(monkeypatch)
    (env.vault / "Kubernetes ingress.md").write_text("nginx controller setup\n", encoding="utf-8")
    (env.vault / "Load balancer.md").write_text("traffic to the ingress\n", encoding="utf-8")
    (env.vault / "Other.md").write_text("nothing relevant\n", encoding="utf-8")
    settings = settings_module.load()
    single = search("ingress", settings, source="scan")
    fused = search(["ingress", "load balancer"], settings, source="scan", limit=1)
    assert single.engine == fused.engine == "scan"
    assert fused.query == "ingress | load balancer"
    assert [h.path for h in fused.hits] == ["Load balancer.md"]   # ranks for both phrasings
    assert fused.total_results == 2
    # second for "ingress", first and alone for "load balancer": it leads that ranking fully
    assert fused.hits[0].score == pytest.approx(1 / 62 + 1 / 61 + CONFIDENT_BONUS)


def test_fan_out_is_scoped_like_a_single_query(env, monkeypatch):
    env.apply(monkeypatch)
    for folder in ("Notes", "Meta/claude-sessions"):
        (env.vault / folder).mkdir(parents=True)
        (env.vault / folder / "ingress.md").write_text("ingress balancer\n", encoding="utf-8")
    response = search(["ingress", "balancer"], settings_module.load(), source="scan",
                      excludes=["Meta/claude-sessions"])
    assert [h.path for h in response.hits] == ["Notes/ingress.md"]


def test_named_rankings_say_where_each_note_was_placed():
    signals = {"explain": {"signals": {"bm25": 1.0}}}
    first = [Hit(path="a.md", basename="a", score=2.0, excerpt="", engine="index", extra=signals),
             Hit(path="b.md", basename="b", score=1.0, excerpt="", engine="index")]
    fused = reciprocal_rank_fusion([first, hits("b.md")], names=["q1", "q2"])
    explain = {h.path: h.extra["explain"]["fused"] for h in fused}
    assert explain["a.md"] == [{"ranking": "q1", "rank": 1, "share": round(1 / 61 + CONFIDENT_BONUS * 0.5, 4),
                                "signals": {"bm25": 1.0}}]
    assert [(p["ranking"], p["rank"]) for p in explain["b.md"]] == [("q1", 2), ("q2", 1)]
    assert reciprocal_rank_fusion([first])[0].extra == signals          # unnamed: the hit's own extra
