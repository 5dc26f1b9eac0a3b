"""Prompt recall's session vectors (the semantic extra): one vector a session, the embedding of
its text (`text_of`), stored as the model made it (float16 bytes) with the model's id and the
session's `archived_at` at the time, so that a session archived again, or another model, is
embedded again. The archive holds the bytes; making and comparing vectors is the caller's
(context.recall.similarity): no model here."""
from __future__ import annotations

from collections.abc import Iterable

from obsidian_memory.archive.store import Store

# What of a session is embedded: its title, prompts, answers, then its commits and errors, the
# start of it (the model reads ~512 tokens; a session says what it is about first).
TEXT_CHARS = 1500


class RecallVectors(Store):
    def available(self) -> bool:
        """Whether this archive has the table (an archive of an older version opened read-only lacks it)."""
        return self._has_table("recall_vectors")

    def has_any(self, model: str | None = None) -> bool:
        """Whether some session has a vector (made by `model`, if given)."""
        if not self.available():
            return False
        where, args = ("WHERE model = ?", (model,)) if model else ("", ())
        return self.db.execute(f"SELECT 1 FROM recall_vectors {where} LIMIT 1", args).fetchone() is not None

    def count(self, model: str | None = None) -> int:
        """How many sessions have a vector (made by `model`, if given)."""
        if not self.available():
            return 0
        where, args = ("WHERE model = ?", (model,)) if model else ("", ())
        return int(self.db.execute(f"SELECT COUNT(*) FROM recall_vectors {where}", args).fetchone()[0])

    def missing(self, model: str, limit: int) -> list[str]:
        """Sessions with no vector of `model` made from what the archive holds of them now, newest first."""
        if not self.available():
            return []
        return [r[0] for r in self.db.execute(
            "SELECT s.session_id FROM sessions s LEFT JOIN recall_vectors v USING (session_id) "
            "WHERE v.session_id IS NULL OR v.model != ? OR v.archived_at != s.archived_at "
            "ORDER BY s.started_at DESC LIMIT ?", (model, int(limit)))]

    def text_of(self, session_id: str) -> tuple[str, str]:
        """(the session's text to embed, its archived_at): title, prompts, answers, commits
        and errors, the first TEXT_CHARS characters."""
        row = self.db.execute("SELECT title, archived_at FROM sessions WHERE session_id = ?", (session_id,)).fetchone()
        if row is None:
            return "", ""
        parts = [row[0] or ""]
        prompts = self.db.execute("SELECT text, answer FROM prompts WHERE session_id = ? ORDER BY position",
                                  (session_id,)).fetchall()
        parts += [text for text, _ in prompts] + [answer for _, answer in prompts if answer]
        parts += [t for (t,) in self.db.execute(
            "SELECT text FROM outcomes WHERE session_id = ? AND kind IN ('error', 'commit') ORDER BY kind, position",
            (session_id,))]
        return "\n".join(parts)[:TEXT_CHARS], row[1]

    def store(self, rows: Iterable[tuple[str, str, str, bytes]]) -> None:
        """(session_id, model, archived_at, vector bytes) rows, in one transaction."""
        with self._write():
            self.db.executemany(
                "INSERT INTO recall_vectors (session_id, model, archived_at, vector) VALUES (?, ?, ?, ?) "
                "ON CONFLICT(session_id) DO UPDATE SET model = excluded.model, archived_at = excluded.archived_at, "
                "vector = excluded.vector", list(rows))

    def vectors(self, session_ids: Iterable[str], model: str) -> dict[str, bytes]:
        """session id -> its vector's bytes, for those of `session_ids` that have one made by `model`."""
        ids = list(dict.fromkeys(session_ids))
        if not ids or not self.available():
            return {}
        marks = ", ".join("?" for _ in ids)
        return {sid: blob for sid, blob in self.db.execute(
            f"SELECT session_id, vector FROM recall_vectors WHERE model = ? AND session_id IN ({marks})",
            [model, *ids])}
