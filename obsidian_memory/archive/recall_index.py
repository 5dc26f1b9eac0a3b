"""Prompt recall's index in the archive: each session's terms in four fields (recall_terms.document)
under FTS5, kept in step with the session's rows."""
from __future__ import annotations

import json
from collections.abc import Iterable

from obsidian_memory.archive.rows import RecallDocument
from obsidian_memory.archive.store import Store


# counters: the recall_terms.VERSION the index's documents were made with
TERMS_VERSION_COUNTER = "recall_terms_version"


def _files_touched(details: str | None) -> list[str]:
    """The names of the files a session edited or wrote (from its details), for its recall
    document: `PdfReport.java`, `gunicorn.conf.py` say what the work was about."""
    try:
        paths = json.loads(details or "{}").get("files_touched") or []
    except (ValueError, AttributeError):
        return []
    return [p.replace("\\", "/").rsplit("/", 1)[-1] for p in paths[:50] if isinstance(p, str)]


class RecallIndex(Store):
    def available(self) -> bool:
        """Whether this archive has the recall index (not when SQLite lacks FTS5)."""
        return self._has_table("recall_docs")

    def refresh_in_transaction(self, session_id: str) -> None:
        """The session's recall document, from what the archive holds of it (so that upserts,
        PostCompact summaries and the backfill make the very same document); inside the caller's
        write transaction."""
        if not self.available():
            return
        from obsidian_memory.archive.recall_terms import FIELDS, document

        fields = document(self._texts(session_id))
        self.db.execute(
            f"INSERT INTO recall_docs (session_id, {', '.join(FIELDS)}) VALUES (?, ?, ?, ?, ?) "
            f"ON CONFLICT(session_id) DO UPDATE SET {', '.join(f'{f} = excluded.{f}' for f in FIELDS)}",
            (session_id, *(fields[f] for f in FIELDS)))

    def _texts(self, session_id: str) -> dict[str, list[str]]:
        texts: dict[str, list[str]] = {"title": [], "asked": [], "outcome": [], "said": []}
        row = self.db.execute("SELECT title, details FROM sessions WHERE session_id = ?", (session_id,)).fetchone()
        texts["title"] = [row[0]] if row and row[0] else []
        files = _files_touched(row[1]) if row else []
        for text, answer in self.db.execute(
                "SELECT text, answer FROM prompts WHERE session_id = ? ORDER BY position", (session_id,)):
            texts["asked"].append(text)
            if answer:
                texts["said"].append(answer)
        texts["said"] += [r[0] for r in self.db.execute(
            "SELECT text FROM compact_summaries WHERE session_id = ? ORDER BY position DESC", (session_id,))]
        for kind, text in self.db.execute(
                "SELECT kind, text FROM outcomes WHERE session_id = ? ORDER BY CASE kind WHEN 'error' THEN 0 "
                "WHEN 'commit' THEN 1 WHEN 'pull_request' THEN 2 WHEN 'todo' THEN 3 WHEN 'plan' THEN 4 ELSE 5 END, "
                "position", (session_id,)):
            texts["said" if kind == "command" else "outcome"].append(text)
        texts["said"] += files
        return texts

    def sessions_missing(self, limit: int) -> list[str]:
        """Sessions the recall index lacks (archived before it existed), newest first."""
        if not self.available():
            return []
        return [r[0] for r in self.db.execute(
            "SELECT session_id FROM sessions WHERE session_id NOT IN (SELECT session_id FROM recall_docs) "
            "ORDER BY started_at DESC LIMIT ?", (int(limit),))]

    def renew_if_outdated(self) -> bool:
        """Empty the index when its documents were made by another version of the term rules
        (recall_terms.VERSION) than this one, so that the backfill (sessions_missing) makes them
        again, newest first; whether it did. Any size of index costs the same: the delete trigger
        (one FTS delete per row) is set aside while the table is emptied at once."""
        from obsidian_memory.archive.recall_terms import VERSION

        if not self.available():
            return False
        row = self.db.execute("SELECT value FROM counters WHERE name = ?", (TERMS_VERSION_COUNTER,)).fetchone()
        if row is not None and int(row[0]) == VERSION:
            return False
        with self._write():
            (trigger,) = self.db.execute(
                "SELECT sql FROM sqlite_master WHERE type = 'trigger' AND name = 'recall_docs_delete'").fetchone()
            self.db.execute("DROP TRIGGER recall_docs_delete")
            self.db.execute("DELETE FROM recall_docs")
            self.db.execute("INSERT INTO recall_fts (recall_fts) VALUES ('delete-all')")
            self.db.execute(trigger)
            self.db.execute("INSERT INTO counters (name, value) VALUES (?, ?) ON CONFLICT(name) DO UPDATE SET "
                            "value = excluded.value", (TERMS_VERSION_COUNTER, VERSION))
        return True

    def index(self, session_ids: Iterable[str]) -> None:
        with self._write():
            for session_id in session_ids:
                self.refresh_in_transaction(session_id)

    def size(self) -> int:
        """How many sessions the recall index holds."""
        if not self.available():
            return 0
        return int(self.db.execute("SELECT COUNT(*) FROM recall_docs").fetchone()[0])

    def document_counts(self, terms: Iterable[str]) -> dict[str, int]:
        """term -> how many sessions hold it (in any field)."""
        terms = list(dict.fromkeys(terms))
        if not terms or not self.available():
            return {}
        marks = ", ".join("?" for _ in terms)
        return {term: int(doc) for term, doc in self.db.execute(
            f"SELECT term, doc FROM recall_vocab WHERE term IN ({marks})", terms)}

    def postings(self, terms: Iterable[str]) -> dict[str, list[int]]:
        """term -> ids of the recall documents holding it (in any field)."""
        if not self.available():
            return {}
        return {term: [r[0] for r in self.db.execute("SELECT rowid FROM recall_fts WHERE recall_fts MATCH ?",
                                                      (f'"{term}"',))]
                for term in dict.fromkeys(terms)}

    def documents(self, doc_ids: Iterable[int]) -> list[RecallDocument]:
        """The recall documents with what a reader needs of their session."""
        doc_ids = list(doc_ids)
        if not doc_ids:
            return []
        marks = ", ".join("?" for _ in doc_ids)
        return [RecallDocument(*row) for row in self.db.execute(
            f"SELECT d.doc_id, d.session_id, d.title, d.asked, d.outcome, d.said, s.title, s.project, s.cwd, "
            f"s.repo_root, s.started_at, s.note_path, s.machine, s.repo_id, s.origin FROM recall_docs d "
            f"JOIN sessions s USING (session_id) WHERE d.doc_id IN ({marks})", doc_ids)]

    def evidence(self, session_id: str) -> list[tuple[str, str]]:
        """(kind, text) of the lines that can say why a session matched: its errors, commits,
        pull requests, tasks, then its prompts."""
        rows = [(k, t) for k, t in self.db.execute(
            "SELECT kind, text FROM outcomes WHERE session_id = ? AND kind IN ('error', 'commit', 'pull_request', "
            "'todo') ORDER BY CASE kind WHEN 'error' THEN 0 WHEN 'commit' THEN 1 WHEN 'pull_request' THEN 2 ELSE 3 END, "
            "position LIMIT 200", (session_id,))]
        rows += [("prompt", t) for (t,) in self.db.execute(
            "SELECT text FROM prompts WHERE session_id = ? ORDER BY position LIMIT 50", (session_id,))]
        return rows
