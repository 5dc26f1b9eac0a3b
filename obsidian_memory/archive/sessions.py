"""The archived sessions: one row each in `sessions`, with their prompts (and answers), compaction
summaries and outcome rows. Sessions are never deleted. Everything needed to re-render a note
without the transcript is kept."""
from __future__ import annotations

import sqlite3

from collections.abc import Callable

from obsidian_memory.archive.history_state import HistoryState
from obsidian_memory.archive.recall_index import RecallIndex
from obsidian_memory.archive.redaction import Redaction
from obsidian_memory.archive.rows import (DETAIL_FIELDS, FROM_VAULT, OWN, SESSION_COLUMNS, RecentSession,
                                          SessionMatch, WhereItStopped, details_json, in_time_order, is_older_parse, loads,
                                          outcome_rows, read_outcomes, same_summary, session_values, utc_now)
from obsidian_memory.archive.scopes import MachineScope, machine_scope, project_scope
from obsidian_memory.archive.store import Store
from obsidian_memory.archive.transcripts import Transcripts
from obsidian_memory.archive.vault_notes import VaultNotesRecord

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from obsidian_memory.capture.session_records import Session

RECENT_COLUMNS = RecentSession.__slots__[:-1]       # (the last: the summary, from compact_summaries)
SNIPPET_CHARS = 160


# Sessions.grep's query: the fields of each session that om_matches, in this order within one
# session: title, prompts, answers, summaries, then the outcome (todos, the plan, commits, pull
# requests, commands, errors), each in order. `{scope}`: the caller's conditions on `s`.
_GREP = """
    SELECT s.session_id, s.title, s.project, s.started_at, s.note_path, s.machine, s.origin, m.field, m.text
    FROM sessions s JOIN (
        SELECT session_id, 0 AS rank, 0 AS position, 'title' AS field, title AS text
          FROM sessions WHERE om_matches(title)
        UNION ALL
        SELECT session_id, 1, position, 'prompt', text FROM prompts WHERE om_matches(text)
        UNION ALL
        SELECT session_id, 2, position, 'answer', answer FROM prompts WHERE om_matches(answer)
        UNION ALL
        SELECT session_id, 3, position, 'summary', text FROM compact_summaries WHERE om_matches(text)
        UNION ALL
        SELECT session_id, CASE kind WHEN 'todo' THEN 4 WHEN 'plan' THEN 5 WHEN 'commit' THEN 6
               WHEN 'pull_request' THEN 7 WHEN 'command' THEN 8 ELSE 9 END, position, kind, text
          FROM outcomes WHERE om_matches(text)
    ) m ON m.session_id = s.session_id
    WHERE 1 = 1 {scope}
    ORDER BY s.started_at DESC, s.session_id, m.rank, m.position
"""


class Sessions(Store):
    def __init__(self, db: sqlite3.Connection, *, readonly: bool, recall: RecallIndex, history: HistoryState,
                 transcripts: Transcripts, vault_notes: VaultNotesRecord, redaction: Redaction):
        super().__init__(db, readonly=readonly)
        self.recall, self.history, self.transcripts, self.vault_notes = recall, history, transcripts, vault_notes
        self.redaction = redaction

    # -- writing ------------------------------------------------------------------------
    def upsert(self, session: Session, *, note_path: str | None = None, redacted_under: str | None = None) -> tuple[str, str]:
        """Insert or update one session (idempotent); returns (session_merge's decision: the
        transcript taken, the archived record kept as it was, or both merged; why the record was
        kept or merged, "" when the transcript was simply taken). `redacted_under`: the redaction
        rules all of the session's text is redacted under now (None: unknown; redaction.py).

        A transcript that holds less than the archived record never shrinks it (session_merge):
        the record is kept, or both are merged. Summaries stored from PostCompact payloads that
        the transcript does not contain are kept. A `note_path` given here is taken as a note
        that shows this very revision.
        """
        from obsidian_memory.capture.session_merge import KEEP_ARCHIVED, TAKE_TRANSCRIPT, merge

        now = utc_now()
        with self._write():
            existing = self.db.execute(
                "SELECT transcript_path, transcript_size, note_path, origin FROM sessions WHERE session_id = ?",
                (session.session_id,)).fetchone()
            parsed_path, parsed_size, parsed_mtime = session.transcript_path, session.transcript_size, \
                session.transcript_mtime or 0.0
            learned = bool(existing) and existing[3] == FROM_VAULT
            if learned:   # what a note held gives way to the transcript, as it is
                self.db.execute("DELETE FROM compact_summaries WHERE session_id = ?", (session.session_id,))
            session.origin = OWN
            stored = self.get(session.session_id) if existing and not learned else None
            parsed = session
            session, decision, why = merge(stored, parsed)
            if session is not parsed:   # the record kept or merged: the machine and repository are found now
                session.machine, session.repo_id = parsed.machine or session.machine, parsed.repo_id or session.repo_id
            if existing and is_older_parse(existing, parsed_path, parsed_size):
                why = ""   # no news
            if decision == KEEP_ARCHIVED:
                if parsed_path and parsed_size is not None:
                    self.transcripts.record_in_transaction(parsed_path, session.session_id, parsed_size,
                                                           parsed_mtime, "kept-richer-record", now)
                return decision, why
            if decision != TAKE_TRANSCRIPT:   # both files are in the record now: neither is read again unchanged
                if parsed_path and parsed_path != session.transcript_path and parsed_size is not None:
                    self.transcripts.record_in_transaction(parsed_path, session.session_id, parsed_size,
                                                           parsed_mtime, "merged", now)
                self.transcripts.mark_merged_in_transaction(existing[0], session.transcript_path)
            if not existing:
                self.db.execute("INSERT INTO sessions (session_id, first_archived_at, archived_at) VALUES (?, ?, ?)",
                                (session.session_id, now, now))
            self._rewrite(session, stored, now, note_path, bool(existing and existing[2]))
            self.redaction.record_in_transaction(session.session_id, redacted_under)
            if session.transcript_path and session.transcript_size is not None:
                self.transcripts.record_in_transaction(session.transcript_path, session.session_id,
                                                       session.transcript_size, session.transcript_mtime or 0.0,
                                                       "archived", now)
        return decision, why

    def redact_again(self, session_id: str, redact: Callable[[Session], Session], rules: str) -> bool:
        """Store the session again as `redact` gives it (a copy with all of its text redacted), as
        redacted under `rules`; its note is due if its text changed (then True). One transaction."""
        self.db.execute("PRAGMA secure_delete = ON")   # the text replaced is overwritten in the file too
        with self._write():
            stored = self.get(session_id)
            if stored is None:
                return False
            redacted = redact(stored)
            changed = redacted.to_dict() != stored.to_dict()
            if changed:   # (its PostCompact summaries are in `redacted` too)
                self.db.execute("DELETE FROM compact_summaries WHERE session_id = ?", (session_id,))
                self._rewrite(redacted, stored, utc_now(), None, self.note_path(session_id) is not None)
            self.redaction.record_in_transaction(session_id, rules)
        return changed

    def _rewrite(self, session: Session, stored: Session | None, now: str, note_path: str | None, had_note: bool) -> None:
        """The session's row, prompts, summaries and outcome as `session` has them (`stored`: as
        they were), its recall terms, and its note due (inside the caller's write transaction)."""
        assignments = ", ".join(f"{c} = ?" for c in SESSION_COLUMNS[1:])
        self.db.execute(f"UPDATE sessions SET {assignments}, details = ?, archived_at = ?, "
                        "note_path = COALESCE(?, note_path) WHERE session_id = ?",
                        (*session_values(session)[1:], details_json(session), now, note_path, session.session_id))
        self._replace_prompts(session, stored)
        self._replace_summaries(session)
        self._replace_outcomes(session)
        self.recall.refresh_in_transaction(session.session_id)
        self.db.execute("UPDATE sessions SET revision = revision + 1, note_revision = CASE WHEN ? IS NULL THEN "
                        "note_revision ELSE revision + 1 END WHERE session_id = ?", (note_path, session.session_id))
        if note_path or had_note:
            self.history.changed_in_transaction()   # a row of the table (only sessions with a note have one)

    def _replace_prompts(self, session: Session, stored: Session | None) -> None:
        """The session's prompt rows. Those the `stored` record (None: none) holds as they are
        stay as they are: a growing session archived again writes its last few prompts, not
        every prompt again."""
        rows = [(p.text, p.timestamp, p.uuid, p.answer) for p in session.prompts]
        same = 0
        if stored is not None:
            kept = [(p.text, p.timestamp, p.uuid, p.answer) for p in stored.prompts]
            while same < min(len(kept), len(rows)) and kept[same] == rows[same]:
                same += 1
        self.db.execute("DELETE FROM prompts WHERE session_id = ? AND position >= ?", (session.session_id, same))
        self.db.executemany(
            "INSERT INTO prompts (session_id, position, text, timestamp, uuid, answer) VALUES (?, ?, ?, ?, ?, ?)",
            [(session.session_id, i, *rows[i]) for i in range(same, len(rows))])

    def _replace_summaries(self, session: Session) -> None:
        stored_extra = [
            row for row in self.db.execute(
                "SELECT text, timestamp, trigger, origin FROM compact_summaries "
                "WHERE session_id = ? AND origin != 'transcript' ORDER BY position", (session.session_id,))
            if not any(same_summary(row[0], s.text) for s in session.compact_summaries)
        ]
        merged = [(s.text, s.timestamp, s.trigger, s.origin or "transcript") for s in session.compact_summaries]
        self._write_summaries(session.session_id, in_time_order(merged + stored_extra))

    def _write_summaries(self, session_id: str, rows: list[tuple[Any, ...]]) -> None:
        self.db.execute("DELETE FROM compact_summaries WHERE session_id = ?", (session_id,))
        self.db.executemany(
            "INSERT INTO compact_summaries (session_id, position, text, timestamp, trigger, origin) "
            "VALUES (?, ?, ?, ?, ?, ?)", [(session_id, i, *row) for i, row in enumerate(rows)])

    def _replace_outcomes(self, session: Session) -> None:
        self.db.execute("DELETE FROM outcomes WHERE session_id = ?", (session.session_id,))
        self.db.executemany(
            "INSERT INTO outcomes (session_id, kind, position, text, detail) VALUES (?, ?, ?, ?, ?)",
            [(session.session_id, kind, position, text, detail) for kind, position, text, detail in outcome_rows(session)])

    def add_compact_summary(self, session_id: str, text: str, *, trigger: str | None = None,
                            timestamp: str | None = None, redacted_under: str | None = None) -> None:
        """Store a PostCompact `compact_summary` (unless the session already has that summary),
        redacted under the rules `redacted_under` (None: unknown)."""
        if not text or not text.strip():
            return
        now = utc_now()
        with self._write():
            self.db.execute(
                "INSERT OR IGNORE INTO sessions (session_id, first_archived_at, archived_at) VALUES (?, ?, ?)",
                (session_id, now, now))
            rows = self.db.execute(
                "SELECT text, timestamp, trigger, origin FROM compact_summaries WHERE session_id = ? "
                "ORDER BY position", (session_id,)).fetchall()
            if any(same_summary(row[0], text) for row in rows):
                return
            self._write_summaries(session_id, in_time_order(rows + [(text, timestamp or now, trigger, "post_compact")]))
            self.redaction.added_in_transaction(session_id, redacted_under)
            self.db.execute("UPDATE sessions SET archived_at = ?, revision = revision + 1 WHERE session_id = ?",
                            (now, session_id))
            self.recall.refresh_in_transaction(session_id)

    def record_note(self, session_id: str, note_path: str, revision: int, written: bytes | None = None) -> None:
        """The session's note was written at `note_path` from the session at `revision`;
        `written`: what was written (notes.sessions.Written, as bytes), kept when given."""
        with self._write():
            if self.note_path(session_id) != note_path:
                self.history.changed_in_transaction()
            self.db.execute("UPDATE sessions SET note_path = ?, note_revision = MAX(note_revision, ?), "
                            "note_written = COALESCE(?, note_written) WHERE session_id = ?",
                            (note_path, int(revision), written, session_id))

    def own_note_paths(self, session_ids: list[str]) -> dict[str, str]:
        """{session_id: the note path recorded} of those of `session_ids` that are this machine's own."""
        found: dict[str, str] = {}
        for start in range(0, len(session_ids), 500):
            chunk = session_ids[start:start + 500]
            found.update(self.db.execute(
                f"SELECT session_id, note_path FROM sessions WHERE origin = 'transcript' AND note_path IS NOT NULL "
                f"AND session_id IN ({', '.join('?' for _ in chunk)})", chunk).fetchall())
        return found

    def note_written(self, session_id: str) -> bytes | None:
        """What record_note kept of the session's note as last written, or None."""
        row = self.db.execute("SELECT note_written FROM sessions WHERE session_id = ?", (session_id,)).fetchone()
        return bytes(row[0]) if row and row[0] is not None else None

    def record_learned(self, learned: list[tuple[Any, ...]], paths: list[str], redacted_under: str | None = None) -> int:
        """In one transaction: record other machines' sessions, each `(session, note_path)` as its
        note holds it (the note is that session's truth here: it replaces what was learned
        before; this machine's own sessions are never replaced), redacted under `redacted_under`,
        and mark the notes at `paths` learned. Returns how many sessions were recorded."""
        now = utc_now()
        recorded = 0
        with self._write():
            for session, note_path in learned:
                if self._upsert_from_vault(session, note_path, now):
                    self.redaction.record_in_transaction(session.session_id, redacted_under)
                    recorded += 1
            self.vault_notes.mark_learned_in_transaction(paths)
        return recorded

    def _upsert_from_vault(self, session: Session, note_path: str, now: str) -> bool:
        session.origin = FROM_VAULT
        row = self.db.execute("SELECT origin FROM sessions WHERE session_id = ?", (session.session_id,)).fetchone()
        if row and row[0] != FROM_VAULT:
            return False
        columns = ", ".join(SESSION_COLUMNS)
        marks = ", ".join("?" for _ in SESSION_COLUMNS)
        self.db.execute(
            f"INSERT INTO sessions ({columns}, details, note_path, first_archived_at, archived_at) "
            f"VALUES ({marks}, ?, ?, ?, ?) ON CONFLICT(session_id) DO UPDATE SET "
            + ", ".join(f"{c} = excluded.{c}" for c in SESSION_COLUMNS[1:])
            + ", details = excluded.details, note_path = excluded.note_path, archived_at = excluded.archived_at",
            (*session_values(session), details_json(session), note_path, now, now))
        self._replace_prompts(session, None)
        self._write_summaries(session.session_id, [(c.text, c.timestamp, c.trigger, "note")
                                                   for c in session.compact_summaries])
        self._replace_outcomes(session)
        self.recall.refresh_in_transaction(session.session_id)
        # its note shows it as it is: never due to be written here
        self.db.execute("UPDATE sessions SET revision = revision + 1, note_revision = revision + 1 "
                        "WHERE session_id = ?", (session.session_id,))
        return True

    # -- reading one session ------------------------------------------------------------
    def get(self, session_id: str) -> Session | None:
        """The archived session as a model.Session, or None."""
        row = self.db.execute(
            f"SELECT {', '.join(SESSION_COLUMNS)}, details FROM sessions WHERE session_id = ?",
            (session_id,)).fetchone()
        if row is None:
            return None
        from obsidian_memory.capture.session_records import CompactSummary, Prompt, Session, Subagent

        data = dict(zip(SESSION_COLUMNS, row))
        data.pop("prompt_count")  # derived from the prompts
        details = loads(row[-1])
        session = Session(**data)
        for name in DETAIL_FIELDS:
            if name in details:
                setattr(session, name, details[name])
        session.subagents = [Subagent(**s) for s in details.get("subagents") or []]
        session.prompts = [Prompt(*row) for row in self.db.execute(
            "SELECT text, timestamp, uuid, answer FROM prompts WHERE session_id = ? ORDER BY position", (session_id,))]
        read_outcomes(session, self.db.execute(
            "SELECT kind, text, detail FROM outcomes WHERE session_id = ? ORDER BY kind, position", (session_id,)))
        session.compact_summaries = [CompactSummary(*r) for r in self.db.execute(
            "SELECT text, timestamp, trigger, origin FROM compact_summaries WHERE session_id = ? "
            "ORDER BY position", (session_id,))]
        return session

    def note_path(self, session_id: str) -> str | None:
        row = self.db.execute("SELECT note_path FROM sessions WHERE session_id = ?", (session_id,)).fetchone()
        return row[0] if row else None

    def revision(self, session_id: str) -> int:
        """How many times the session was changed: read before the session, to record with its note."""
        row = self.db.execute("SELECT revision FROM sessions WHERE session_id = ?", (session_id,)).fetchone()
        return int(row[0]) if row else 0

    def note_outdated(self, session_id: str) -> bool:
        row = self.db.execute("SELECT note_revision < revision FROM sessions WHERE session_id = ?",
                              (session_id,)).fetchone()
        return bool(row and row[0])

    def where_it_stopped(self, session_id: str, *, answer_chars: int = 2000) -> WhereItStopped:
        """The start of the session's last answer and its todo items that are not done."""
        row = self.db.execute("SELECT substr(last_assistant_message, 1, ?) FROM sessions WHERE session_id = ?",
                              (int(answer_chars), session_id)).fetchone()
        todos = []
        for text, detail in self.db.execute(
                "SELECT text, detail FROM outcomes WHERE session_id = ? AND kind = 'todo' ORDER BY position",
                (session_id,)):
            status = str(loads(detail).get("status") or "pending")
            if status != "completed":
                todos.append((text, status))
        return WhereItStopped(row[0] if row else None, todos)

    # -- finding sessions ---------------------------------------------------------------
    def find(self, prefix: str) -> list[str]:
        """Ids of the archived sessions whose id starts with `prefix` (sorted)."""
        escaped = prefix.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
        return [r[0] for r in self.db.execute(
            "SELECT session_id FROM sessions WHERE session_id LIKE ? ESCAPE '\\' ORDER BY session_id",
            (escaped + "%",))]

    def count(self) -> int:
        return int(self.db.execute("SELECT COUNT(*) FROM sessions").fetchone()[0])

    def own_ids(self, session_ids: list[str]) -> set[str]:
        """Those of `session_ids` that are this machine's own sessions."""
        return self._ids_among(session_ids, "origin = 'transcript' AND ")

    def held_ids(self, session_ids: list[str]) -> set[str]:
        """Those of `session_ids` that the archive holds (with a prompt or a start)."""
        return self._ids_among(session_ids, "(prompt_count > 0 OR started_at IS NOT NULL) AND ")

    def provenance_of(self, session_ids: list[str]) -> dict[str, tuple[str, dict[str, Any]]]:
        """{session id: (origin, {tool name: uses} of its main conversation)} of those of
        `session_ids` the archive holds (session_text decides from them what may be shown)."""
        found: dict[str, tuple[str, dict[str, Any]]] = {}
        for start in range(0, len(session_ids), 500):
            chunk = session_ids[start:start + 500]
            for session_id, origin, details in self.db.execute(
                    f"SELECT session_id, origin, details FROM sessions "
                    f"WHERE session_id IN ({', '.join('?' for _ in chunk)})", chunk):
                tools = loads(details).get("tools")
                found[session_id] = (origin, tools if isinstance(tools, dict) else {})
        return found

    def _ids_among(self, session_ids: list[str], condition: str) -> set[str]:
        found: set[str] = set()
        for start in range(0, len(session_ids), 500):
            chunk = session_ids[start:start + 500]
            found.update(r[0] for r in self.db.execute(
                f"SELECT session_id FROM sessions WHERE {condition}session_id IN ({', '.join('?' for _ in chunk)})",
                chunk))
        return found

    def recent(self, *, repo_root: str | None = None, repo_id: str | None = None,
               project: str | None = None, cwd: str | None = None, limit: int = 20,
               exclude_session_id: str | None = None, machines: MachineScope | None = None) -> list[RecentSession]:
        """Newest first (by start). `repo_root` (a folder here) matches this machine's own sessions
        of that repository, `repo_id` every machine's (gitinfo.repo_identity); given both, either
        matches. `cwd` means this machine's sessions started in that folder outside any
        repository; `project` is a name or glob (see scopes.project_scope); `machines` a MachineScope.
        Served by the (repo_root|repo_id|project|cwd, started_at) indexes: given both a folder and
        an identity, each picks its newest `limit` sessions by its own index and the newest of
        those are kept (one query with OR would sort every session of the repository)."""
        where: list[str] = []
        params: list[Any] = []
        places = []
        if repo_root is not None:
            places.append(("repo_root = ? AND origin = 'transcript'", [repo_root]))
        if repo_id is not None:
            places.append(("repo_id = ?", [repo_id]))
        if cwd is not None:
            where.append("cwd = ? AND repo_root IS NULL AND origin = 'transcript'")
            params.append(cwd)
        for condition, values in (project_scope(self.db, "sessions", project),
                                  machine_scope(self.db, "sessions", machines)):
            where += condition
            params += values
        if exclude_session_id:
            where.append("session_id != ?")
            params.append(exclude_session_id)
        columns = (f"SELECT {', '.join(RECENT_COLUMNS)}, (SELECT text FROM compact_summaries c "
                   "WHERE c.session_id = sessions.session_id ORDER BY position DESC LIMIT 1) FROM sessions ")
        if len(places) > 1:
            branches = " UNION ".join(
                "SELECT session_id FROM (SELECT session_id FROM sessions WHERE "
                + " AND ".join([place, *where]) + " ORDER BY started_at DESC LIMIT ?)" for place, _ in places)
            values = [v for place_values in ([*pv, *params, int(limit)] for _, pv in places) for v in place_values]
            rows = self.db.execute(columns + f"WHERE session_id IN ({branches}) ORDER BY started_at DESC LIMIT ?",
                                   (*values, int(limit))).fetchall()
        else:
            for place, place_values in places:
                where.insert(0, place)
                params[:0] = place_values
            clause = ("WHERE " + " AND ".join(where)) if where else ""
            rows = self.db.execute(columns + f"{clause} ORDER BY started_at DESC LIMIT ?",
                                   (*params, int(limit))).fetchall()
        return [RecentSession(*row) for row in rows]

    def needing_note(self) -> list[tuple[str, str | None]]:
        """(session id, recorded note path) of the sessions with something to show (a start or a
        prompt) whose note was never written or shows an older revision, oldest first."""
        return [(row[0], row[1]) for row in self.db.execute(
            "SELECT session_id, note_path FROM sessions WHERE (note_path IS NULL OR note_revision < revision) "
            "AND (started_at IS NOT NULL OR prompt_count > 0) AND origin = 'transcript' "
            "ORDER BY started_at, session_id")]

    def history_rows(self) -> list[dict[str, Any]]:
        """Every session that has a note, newest first: what the history table lists."""
        names = ("session_id", "started_at", "project", "title", "note_path")
        return [dict(zip(names, row)) for row in self.db.execute(
            "SELECT session_id, started_at, project, title, note_path FROM sessions "
            "WHERE note_path IS NOT NULL ORDER BY started_at DESC, session_id")]

    def grep(self, regex: Any, *, project: str | None = None, since_utc: str | None = None,
             limit: int | None = None, snippet: Callable[[str], str] | None = None, machines: MachineScope | None = None) -> list[SessionMatch]:
        """Sessions whose title, prompts, answers, compaction summaries or outcome (todos, plan,
        commits, pull requests, commands, errors) `regex.search()` matches, newest first, each with
        the first matching field and `snippet(text)` of it. The caller bounds the regex's cost
        (session_search)."""
        matches = getattr(regex, "matches", None) or (lambda text: regex.search(text) is not None)
        self.db.create_function("om_matches", 1, lambda text: text is not None and matches(text),
                                deterministic=True)
        where, params = project_scope(self.db, "s", project)
        machine_where, machine_params = machine_scope(self.db, "s", machines)
        where, params = where + machine_where, params + machine_params
        if since_utc:
            where.append("s.started_at >= ?")
            params.append(since_utc)
        scope = (" AND " + " AND ".join(where)) if where else ""
        query = _GREP.replace("{scope}", scope)
        results: list[SessionMatch] = []
        seen: set[str] = set()
        for session_id, title, proj, started_at, note_path, machine, origin, field, text in self.db.execute(query, params):
            if session_id in seen:
                continue
            seen.add(session_id)
            results.append(SessionMatch(session_id, title, proj, started_at, note_path, machine, origin, field,
                                        snippet(text) if snippet else text[:SNIPPET_CHARS]))
            if limit is not None and len(results) >= limit:
                break
        return results


def prompt_texts(sessions: Sessions, session_id: str) -> list[tuple[str, str | None]]:
    """(text, answer) of the session's archived prompts, in order (a grown session's re-archive
    keeps those that did not change as they are: capture.redact.redact_session)."""
    return sessions.db.execute("SELECT text, answer FROM prompts WHERE session_id = ? ORDER BY position",
                               (session_id,)).fetchall()
