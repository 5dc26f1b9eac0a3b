"""The embedding store: what gets a vector, content-hash reuse, model changes, resuming an
interrupted run, deleted notes. Vectors come from the real model (counted by a thin wrapper);
the tests skip where the `semantic` extra cannot load."""
from __future__ import annotations

import os
import sqlite3

import pytest

from obsidian_memory.vault import markdown
from obsidian_memory.search.engines import hybrid
from obsidian_memory.search import semantic
from obsidian_memory.search.store import vectors
from testkit import skip_without_semantic, write_note as write


class CountingModel:
    """The real model, counting the texts it is asked to embed; `model` renames it (a new model)."""

    def __init__(self, model: str | None = None, fail_on_call: int | None = None):
        self.model = model
        self.texts: list[str] = []
        self.calls = 0
        self.fail_on_call = fail_on_call

    def model_id(self) -> str:
        return self.model or semantic.model_id()

    def embed_passages(self, texts):
        self.calls += 1
        if self.fail_on_call is not None and self.calls >= self.fail_on_call:
            raise KeyboardInterrupt("killed")
        self.texts.extend(texts)
        return semantic.embed_passages(texts)


def stored_paths(settings) -> set[str]:
    conn = sqlite3.connect(vectors.store_path(settings))
    try:
        return {p for (p,) in conn.execute("SELECT path FROM notes")}
    finally:
        conn.close()


def count(settings, table: str) -> int:
    conn = sqlite3.connect(vectors.store_path(settings))
    try:
        return conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0]
    finally:
        conn.close()


def long_note(sections: int, words_per_section: int = 120) -> str:
    parts = ["---\ntags: [claude-session]\n---\n# Session\n"]
    for n in range(sections):
        parts.append(f"## Part {n}\n\n" + " ".join(f"word{n}x{i}" for i in range(words_per_section)) + "\n")
    return "\n".join(parts)


# -- chunking (no model needed) ---------------------------------------------------------------------

def test_short_note_gets_one_head_vector_with_title_aliases_description_and_headings():
    text = "---\naliases: [Selective sync]\ndescription: Choose which files to sync.\n---\n## Excluded folders\nPick folders.\n"
    chunks = markdown.chunks_of(text, "Sync settings")
    assert len(chunks) == 1
    head = chunks[0].text
    for part in ("Sync settings", "Selective sync", "Choose which files to sync.", "Excluded folders", "Pick folders."):
        assert part in head


def test_every_section_of_a_long_note_is_in_some_chunk_with_its_heading():
    text = long_note(sections=30, words_per_section=60)
    chunks = markdown.chunks_of(text, "Session")
    assert len(chunks) > 2
    for n in range(30):
        holders = [c for c in chunks[1:] if f"word{n}x0 " in c.text and f"word{n}x59" in c.text]
        assert holders, f"section {n} is in no chunk"
        assert all(f"Part {n}" in c.text for c in holders)
    assert all(len(c.text) <= markdown.CHUNK_CHARS + 200 for c in chunks[1:])


def test_a_section_longer_than_a_chunk_is_cut_and_every_piece_keeps_its_heading():
    chunks = markdown.chunks_of(long_note(sections=3, words_per_section=400), "Session")
    for n in range(3):
        for i in range(400):
            holders = [c for c in chunks[1:] if f"word{n}x{i}" in c.text.split()]
            assert holders and all(f"Part {n}" in c.text for c in holders), (n, i)


def test_fenced_text_is_embedded_because_session_notes_keep_prompts_in_fences():
    text = "# Session\n\n## Prompts\n\n**1.**\n\n```text\nplease migrate the billing database to postgres\n```\n"
    chunks = markdown.chunks_of(text + ("filler line\n" * 200), "Session")
    assert any("migrate the billing database" in c.text for c in chunks)


def test_wikilinks_embed_as_their_label():
    chunks = markdown.chunks_of("See [[Plans and storage limits#Create a vault|create a remote vault]].", "Note")
    assert "See create a remote vault." in chunks[0].text
    assert "Plans and storage limits" not in chunks[0].text


# -- the store (real model) -------------------------------------------------------------------------

def test_unchanged_notes_are_not_embedded_again(settings, vault):
    skip_without_semantic()
    write(vault, "a.md", "# Alpha\nApples grow on trees.")
    write(vault, "b.md", "# Beta\nBananas are yellow.")
    first = CountingModel()
    stats = vectors.embed_vault(settings, embedder=first, progress=False)
    assert stats.embedded == 2 and len(first.texts) == 2
    again = CountingModel()
    stats = vectors.embed_vault(settings, embedder=again, progress=False)
    assert again.calls == 0 and stats.unchanged == 2 and stats.embedded == 0


def test_touched_or_moved_note_reuses_its_vectors_and_an_edit_embeds_only_the_changed_text(settings, vault):
    skip_without_semantic()
    write(vault, "long.md", long_note(sections=8))
    write(vault, "short.md", "Short note about pears.")
    vectors.embed_vault(settings, embedder=CountingModel(), progress=False)

    (vault / "archive").mkdir()
    os.rename(vault / "short.md", vault / "archive" / "short.md")     # same name: same texts
    write(vault, "long.md", long_note(sections=8), bump=5)          # same text, new mtime
    model = CountingModel()
    stats = vectors.embed_vault(settings, embedder=model, progress=False)
    assert model.texts == [] and stats.reused == 2
    assert stored_paths(settings) == {"long.md", "archive/short.md"}

    edited = long_note(sections=8).replace("word7x5 ", "CHANGED ")
    write(vault, "long.md", edited, bump=10)
    model = CountingModel()
    vectors.embed_vault(settings, embedder=model, progress=False)
    assert len(model.texts) == 1 and "CHANGED" in model.texts[0]


def test_a_model_change_re_embeds_everything_and_drops_the_old_vectors(settings, vault):
    skip_without_semantic()
    write(vault, "a.md", "Apples.")
    write(vault, "b.md", "Bananas.")
    vectors.embed_vault(settings, embedder=CountingModel(), progress=False)
    newer = CountingModel(model="another-model/1")
    stats = vectors.embed_vault(settings, embedder=newer, progress=False)
    assert stats.embedded == 2 and len(newer.texts) == 2
    conn = sqlite3.connect(vectors.store_path(settings))
    try:
        assert {m for (m,) in conn.execute("SELECT DISTINCT model FROM embeddings")} == {"another-model/1"}
    finally:
        conn.close()


def test_an_interrupted_run_keeps_finished_batches_and_the_next_run_does_the_rest(settings, vault):
    skip_without_semantic()
    for n in range(6):
        write(vault, f"n{n}.md", f"Note number {n} about topic {n}.", bump=n)
    killed = CountingModel(fail_on_call=3)
    with pytest.raises(KeyboardInterrupt):
        vectors.embed_vault(settings, embedder=killed, progress=False, batch_notes=2)
    assert len(stored_paths(settings)) == 4          # two batches committed, the third lost
    resumed = CountingModel()
    stats = vectors.embed_vault(settings, embedder=resumed, progress=False, batch_notes=2)
    assert stats.embedded == 2 and stats.unchanged == 4 and len(resumed.texts) == 2
    assert len(stored_paths(settings)) == 6


def test_limit_embeds_the_most_recently_changed_notes_first(settings, vault):
    skip_without_semantic()
    for n in range(4):
        write(vault, f"n{n}.md", f"Note {n}.", bump=n * 10)
    stats = vectors.embed_vault(settings, embedder=CountingModel(), progress=False, limit=2)
    assert stored_paths(settings) == {"n3.md", "n2.md"} and stats.remaining == 2


def test_deleted_notes_lose_their_vectors(settings, vault):
    skip_without_semantic()
    write(vault, "keep.md", "Kept note.")
    write(vault, "gone.md", "A note about something else entirely.")
    vectors.embed_vault(settings, embedder=CountingModel(), progress=False)
    assert count(settings, "embeddings") == 2
    os.unlink(vault / "gone.md")
    stats = vectors.embed_vault(settings, embedder=CountingModel(), progress=False)
    assert stats.removed == 1
    assert stored_paths(settings) == {"keep.md"}
    assert count(settings, "embeddings") == 1 and count(settings, "chunks") == 1


def test_note_scores_rank_within_the_allowed_set_and_point_at_the_best_section(settings, vault):
    skip_without_semantic()
    write(vault, "fruit.md", "Apples, pears and cherries are fruit.")
    write(vault, "cars.md", "Engines, wheels and brakes of a car.")
    sections = "\n".join(f"## Topic {n}\n" + f"Filler sentence number {n} about nothing much. " * 12 for n in range(6))
    write(vault, "long.md", "# Long\n" + sections + "\n## Volcanoes\nLava, magma and eruptions of volcanoes.\n")
    vectors.embed_vault(settings, embedder=CountingModel(), progress=False)
    matrix = vectors.load_matrix(settings, semantic.model_id())
    scores = hybrid.score_notes(matrix, semantic.embed_query("which fruit grows on trees"))
    ranked = [scores.paths[i] for i in scores.ranking(scores.head, None, 3)]
    assert ranked[0] == "fruit.md"
    assert [scores.paths[i] for i in scores.ranking(scores.head, {"cars.md"}, 3)] == ["cars.md"]

    scores = hybrid.score_notes(matrix, semantic.embed_query("magma eruption"))
    best = scores.ranking(scores.section, None, 1)[0]
    assert scores.paths[best] == "long.md"
    with open(vault / "long.md", encoding="utf-8") as handle:
        chunk = markdown.chunks_of(handle.read(), "long")[int(scores.section_seq[best])]
    assert "Volcanoes" in chunk.text


def test_a_damaged_store_is_rebuilt_not_fatal(settings, vault):
    skip_without_semantic()
    write(vault, "a.md", "Apples.")
    path = vectors.store_path(settings)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as handle:
        handle.write(b"not a database at all" * 100)
    stats = vectors.embed_vault(settings, embedder=CountingModel(), progress=False)
    assert stats.embedded == 1 and stored_paths(settings) == {"a.md"}


def test_a_store_chunked_the_earlier_way_re_embeds_only_the_session_notes(settings, vault, monkeypatch):
    skip_without_semantic()
    from obsidian_memory.capture.session_records import Prompt, Session
    from obsidian_memory.vault.notes import sessions as notes

    session = Session(session_id="0fb7526d-aaaa-4bbb-8ccc-000000000001", title="pgbouncer errors", project="orders",
                      cwd="/w/orders", started_at="2026-05-01T10:00:00.000Z", ended_at="2026-05-01T10:20:00.000Z",
                      prompts=[Prompt("prepared statement S_1 already exists", "2026-05-01T10:00:00.000Z",
                                      answer="Upgraded pgbouncer to 1.22.")])
    write(vault, "Meta/claude-sessions/2026-05-01_0fb7526d.md", notes.render_note(session))
    write(vault, "plain.md", "# Pears\nPears are sweet.")
    with monkeypatch.context() as earlier:        # the chunking before: every note by its whole text
        earlier.setattr(vectors, "note_chunks", lambda path, text: markdown.chunks_of(text, path.rsplit("/", 1)[-1][:-3]))
        vectors.embed_vault(settings, embedder=CountingModel(), progress=False)
    conn = sqlite3.connect(vectors.store_path(settings))
    with conn:
        conn.execute("UPDATE meta SET value = '1' WHERE key = 'chunking'")
    conn.close()
    model = CountingModel()
    stats = vectors.embed_vault(settings, embedder=model, progress=False)
    assert stats.unchanged == 0 and stats.reused == 1 and stats.embedded == 1     # each note read again, once
    assert len(model.texts) == 1 and "prepared statement S_1" in model.texts[0] and "--resume" not in model.texts[0]
    again = CountingModel()
    assert vectors.embed_vault(settings, embedder=again, progress=False).unchanged == 2 and again.calls == 0
