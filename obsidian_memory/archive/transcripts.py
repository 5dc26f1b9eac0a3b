"""The transcripts the archive has looked at: each file's (size, mtime) when last read and what
became of it, so that import and sweep parse only the files that changed."""
from __future__ import annotations

from obsidian_memory.archive.rows import utc_now
from obsidian_memory.archive.store import Store

# A transcript recorded as its session's source while the session now names another file was
# replaced by a shorter copy before records were merged: it is read again, so that the merge
# restores what the copy lost.
_KNOWN = ("SELECT t.path, t.size, t.mtime FROM transcripts t "
          "LEFT JOIN sessions s ON s.session_id = t.session_id "
          "WHERE NOT (t.status = 'archived' AND s.transcript_path IS NOT NULL "
          "AND s.transcript_path != t.path)")


class Transcripts(Store):
    def record(self, path: str, size: int, mtime: float, *, status: str, session_id: str | None = None) -> None:
        """Remember a transcript that was looked at but not archived (e.g. no prompt), so that
        import and sweep do not parse it again until it changes."""
        with self._write():
            self.record_in_transaction(path, session_id, size, mtime, status, utc_now())

    def record_in_transaction(self, path: str, session_id: str | None, size: int, mtime: float, status: str,
                              now: str) -> None:
        """(inside the caller's write transaction)"""
        self.db.execute(
            "INSERT INTO transcripts (path, session_id, size, mtime, status, seen_at) VALUES (?, ?, ?, ?, ?, ?) "
            "ON CONFLICT(path) DO UPDATE SET session_id = excluded.session_id, size = excluded.size, "
            "mtime = excluded.mtime, status = excluded.status, seen_at = excluded.seen_at",
            (path, session_id, int(size), float(mtime), status, now))

    def mark_merged_in_transaction(self, path: str | None, kept_path: str | None) -> None:
        """The transcript at `path` (unless it is `kept_path`) is merged into its session's record."""
        self.db.execute("UPDATE transcripts SET status = 'merged' WHERE path = ? AND path IS NOT ?", (path, kept_path))

    def fingerprint(self, transcript_path: str) -> tuple[int, float] | None:
        row = self.db.execute(_KNOWN + " AND t.path = ?", (transcript_path,)).fetchone()
        return (int(row[1]), float(row[2])) if row else None

    def fingerprints(self) -> dict[str, tuple[int, float]]:
        return {path: (int(size), float(mtime)) for path, size, mtime in self.db.execute(_KNOWN)}
