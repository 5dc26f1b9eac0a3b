"""Prompt recall with the semantic extra: the prompt's meaning against the sessions' meanings.

Each session's vector is made off the prompt hook's path (`embed_sessions`: the sweep, and
`embed --sessions` that the end hooks start in the background) and kept with the archive
(archive.recall_vectors). The hook only embeds the prompt, in a thread while the words are
weighed (`Similarity.start`), and compares it with the vectors of the sessions the words found
(decide.fuse): a few hundred at most, in plain Python (semantic.cosines), so that the hook
imports no numpy. Without the extra, or before any session has a vector, nothing here runs and
the words decide alone.
"""
from __future__ import annotations

import time

EMBED_BATCH = 8          # sessions embedded per transaction


class Similarity:
    """The prompt's vector, under way, and its cosine with the stored vectors of given sessions."""

    def __init__(self, archive, model: str, vector, deadline: float):
        self.archive, self.model, self.vector, self.deadline = archive, model, vector, deadline

    @classmethod
    def start(cls, archive, prompt: str, deadline: float) -> "Similarity | None":
        """The prompt's vector under way (the model loading and the prompt embedding in a thread),
        when the extra is installed and some session has a vector made by its model; else None.
        The vector is waited for until `deadline` (time.monotonic()) at most."""
        if not archive.recall_vectors.has_any():   # (no extra: one look-up, nothing imported)
            return None
        from obsidian_memory.search import semantic

        if not semantic.start_loading():         # not installed, or not the layout we bind
            return None
        model = semantic.model_id()
        if not archive.recall_vectors.has_any(model):
            return None
        return cls(archive, model, semantic.query_vector_soon(prompt), deadline)

    def __call__(self, session_ids: list[str]) -> dict[str, float]:
        """session id -> cosine with the prompt, for those of `session_ids` that have a vector
        ({} when the prompt's vector is not ready by the deadline, or failed)."""
        from obsidian_memory.search import semantic

        try:
            query = self.vector.result(timeout=max(0.0, self.deadline - time.monotonic()))
        except Exception:   # not in time, or the model failed to load: the words decide alone
            return {}
        if query is None:
            return {}
        stored = self.archive.recall_vectors.vectors(session_ids, self.model)
        ids = list(stored)
        return dict(zip(ids, semantic.cosines([stored[i] for i in ids], query)))


def embed_sessions(archive, *, deadline: float | None = None, batch: int = EMBED_BATCH) -> int:
    """Embed the sessions that lack a vector of the extra's model (or whose vector was made before
    they were archived again), newest first, in batches (each its own transaction), until
    `deadline` (time.monotonic(); None: all). Returns how many were embedded. Raises
    semantic.Unavailable when the model does not load here."""
    from obsidian_memory.search import semantic

    ok, why = semantic.available()
    if not ok:
        raise semantic.Unavailable(why)
    model = semantic.model_id()
    done: set[str] = set()
    while deadline is None or time.monotonic() < deadline:
        todo = archive.recall_vectors.missing(model, batch)
        if not todo or done.intersection(todo):   # (a vector that does not stay stored: stop, not loop)
            break
        texts = [archive.recall_vectors.text_of(session_id) for session_id in todo]
        blobs = semantic.stored(semantic.embed_passages([text for text, _ in texts]))
        archive.recall_vectors.store((session_id, model, archived_at, blob)
                                     for session_id, (_, archived_at), blob in zip(todo, texts, blobs))
        done.update(todo)
    return len(done)
