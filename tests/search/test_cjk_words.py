"""Chinese, Japanese and Korean words inside a run of text are found by the local index, as
Obsidian users write them: no spaces between words (core.cjk: a run is indexed as its bigrams)."""
from __future__ import annotations

import json

import pytest
from hypothesis import given, settings as hypothesis_settings, strategies as st

from obsidian_memory.core import cjk
from obsidian_memory.search import store
from obsidian_memory.search.base import Query
from obsidian_memory.search.engines import fulltext
from obsidian_memory.search.store import VaultIndex
from testkit import write_note as write


def paths(settings, text: str) -> list[str]:
    with VaultIndex.open_fresh(settings) as index:
        hits, _ = fulltext.search(index, Query(text))
    return [h.path for h in hits]


def test_a_word_inside_a_chinese_sentence_is_found_by_the_cli(env):
    (env.vault / "数据库迁移记录.md").write_text(
        "# 数据库迁移记录\n\n上周的迁移很顺利。下一次迁移在周五。\n", encoding="utf-8")
    (env.vault / "Other.md").write_text("# Other\n\nNothing in Chinese here.\n", encoding="utf-8")
    done = env.search("迁移", "--json", "--source", "index")
    assert done.returncode == 0, done.stderr.decode()
    results = json.loads(done.stdout)["results"]
    assert [r["path"] for r in results] == ["数据库迁移记录.md"]
    assert "迁移" in results[0]["excerpt"]


@pytest.mark.usefixtures("fts_delete")
def test_words_inside_japanese_and_korean_runs_are_found(vault, settings):
    write(vault, "ja.md", "検索ボックスで日本語を入力すると変換中に検索が走る。")
    write(vault, "ko.md", "데이터베이스마이그레이션이실패했습니다")
    write(vault, "en.md", "The search box in English.")
    assert paths(settings, "日本語") == ["ja.md"]
    assert paths(settings, "変換") == ["ja.md"]
    assert paths(settings, "検索が") == ["ja.md"]        # が stays が (a voiced kana, not か)
    assert paths(settings, "마이그레이션") == ["ko.md"]   # Hangul is not decomposed into jamo
    assert paths(settings, "search box") == ["en.md"]


@pytest.mark.usefixtures("fts_delete")
def test_a_cjk_note_changed_or_deleted_leaves_no_stale_words(vault, settings):
    write(vault, "note.md", "今天讨论数据库迁移的计划。")
    assert paths(settings, "迁移") == ["note.md"]
    write(vault, "note.md", "今天讨论前端重构的计划。", bump=5)
    assert paths(settings, "迁移") == []
    assert paths(settings, "重构") == ["note.md"]
    (vault / "note.md").unlink()
    assert paths(settings, "重构") == []
    assert store.update(settings).unchanged == 0


def test_a_cjk_word_next_to_latin_letters_is_found(vault, settings):
    write(vault, "mixed.md", "orders表的迁移在v2版本完成")
    assert paths(settings, "迁移") == ["mixed.md"]
    assert paths(settings, "orders") == ["mixed.md"]


_CJK_TEXT = st.text(st.sampled_from("数据库迁移失败了日本語を入力検索데이터베이스"), min_size=2, max_size=12)


@hypothesis_settings(max_examples=200, deadline=None)
@given(before=_CJK_TEXT, word=_CJK_TEXT, after=_CJK_TEXT)
def test_every_word_inside_a_run_is_matched_by_its_bigrams(before, word, after):
    run = cjk.bigrams(before + word + after)
    inside = cjk.bigrams(word)
    # each bigram of the word is one of the run's, in order and next to each other (a phrase)
    assert any(run[i:i + len(inside)] == inside for i in range(len(run) - len(inside) + 1))
    assert fulltext.words(before + word + after) == run


def test_text_without_cjk_is_left_alone():
    text = "billing-db-2 lagging, café, Ελληνικά"
    assert cjk.spaced(text) is text
    assert fulltext.words("Café billing") == ["cafe", "billing"]
