"""The archive's queries on SessionStart's path stay bounded at 100,000 sessions: the
sessions of a repository by folder or identity, and its last known identity, read a few index
entries, never every session of the repository; and they answer what a plain filter answers."""
from __future__ import annotations

import pytest
from archive_fixtures import session_id
from hypothesis import given, settings as hypothesis_settings, strategies as st

from obsidian_memory.archive import open_archive
from obsidian_memory.capture.session_records import Prompt, Session

ROOTS = ("/work/app", "/work/other")
IDS = ("github.com/me/app", "github.com/me/other", None)


@pytest.fixture(scope="module")
def db(tmp_path_factory):
    """60 sessions: this machine's and another's, of two folders, with or without an identity."""
    with open_archive(str(tmp_path_factory.mktemp("scale") / "archive.db")) as archive:
        for n in range(60):
            archive.sessions.upsert(Session(
                session_id=session_id(n), project="app", cwd=ROOTS[n % 2], repo_root=ROOTS[n % 2],
                started_at=f"2026-03-{1 + n % 28:02d}T{n % 24:02d}:00:00.000Z", prompts=[Prompt(f"p{n}")],
                repo_id=IDS[n % 3], machine=None if n % 4 else "desk-000001"))
        archive.db.execute("UPDATE sessions SET origin = 'vault' WHERE machine IS NOT NULL")
        yield archive


def reference(db, repo_root, repo_id, limit, exclude):
    rows = db.db.execute("SELECT session_id, repo_root, repo_id, origin, started_at FROM sessions").fetchall()
    anywhere = repo_root is None and repo_id is None
    kept = [r for r in rows if (anywhere or (repo_root is not None and r[1] == repo_root and r[3] == "transcript")
                                or (repo_id is not None and r[2] == repo_id)) and r[0] != exclude]
    return sorted(kept, key=lambda r: r[4], reverse=True)[:limit]


@hypothesis_settings(max_examples=150, deadline=None)
@given(st.sampled_from(ROOTS + (None,)), st.sampled_from(IDS), st.integers(1, 40),
       st.sampled_from([None, session_id(3), session_id(4)]))
def test_property_the_sessions_of_a_folder_or_an_identity_are_those_a_plain_filter_finds(db, root, repo_id, limit,
                                                                                        exclude):
    found = db.sessions.recent(repo_root=root, repo_id=repo_id, limit=limit, exclude_session_id=exclude)
    expected = reference(db, root, repo_id, limit, exclude)
    assert [r.started_at for r in found] == [r[4] for r in expected]
    assert {r.session_id for r in found} <= {r[0] for r in reference(db, root, repo_id, 100, exclude)}


def plan(db, sql: str, *params) -> str:
    return " ".join(str(row) for row in db.db.execute("EXPLAIN QUERY PLAN " + sql, params))


def test_the_sessions_of_a_folder_and_an_identity_are_read_by_their_own_indexes(db):
    statements = []
    db.db.set_trace_callback(statements.append)
    try:
        db.sessions.recent(repo_root=ROOTS[0], repo_id=IDS[0], limit=5)
    finally:
        db.db.set_trace_callback(None)
    (query,) = statements
    shown = plan(db, query)
    assert "MULTI-INDEX OR" not in shown     # (which sorts every session of the repository)
    assert "USING INDEX sessions_by_repo " in shown and "USING INDEX sessions_by_repo_id " in shown


def test_the_last_known_identity_of_a_repository_reads_one_index_entry(db):
    shown = plan(db, "SELECT repo_id FROM sessions WHERE repo_root = ? AND origin = 'transcript' "
                     "AND repo_id IS NOT NULL ORDER BY started_at DESC LIMIT 1", ROOTS[0])
    assert "sessions_with_repo_id" in shown and "TEMP B-TREE" not in shown
    own = [r for r in reference(db, ROOTS[0], None, 60, None) if r[2] is not None]
    assert db.machines.known_repo_id(ROOTS[0]) == own[0][2]
