"""The archive's recall index (migration 5): every archived session's terms by field, kept in step
when a session is archived again or gets a PostCompact summary, and filled for the sessions of an
archive from before it by the next import or sweep."""
from __future__ import annotations

import json
import sqlite3

import pytest

from archive_fixtures import hook_payload
from recall_kit import build, corpus, hook, set_mode, spec, transcripts
from obsidian_memory import archive as archive_module
from obsidian_memory.archive import schema as archive_schema


def words(machine, prompt: str) -> dict[str, int]:
    """word -> sessions holding it, as `recall --json` reports."""
    done = machine.run("recall", "--json", prompt)
    assert done.returncode == 0, done.stderr
    return {w["word"]: min(w["terms"].values()) for w in json.loads(done.stdout)["words"]}


def fts_integrity(machine) -> None:
    with sqlite3.connect(machine.config_dir / "session-archive.db") as db:
        db.execute("INSERT INTO recall_fts (recall_fts, rank) VALUES ('integrity-check', 1)")


def count(machine, table: str) -> int:
    with sqlite3.connect(machine.config_dir / "session-archive.db") as db:
        return db.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0]


def test_import_indexes_every_session_and_every_field(tmp_path):
    machine = build(tmp_path, specs=corpus.SESSIONS[:12])
    assert count(machine, "recall_docs") == count(machine, "sessions") == 12
    found = words(machine, "Celery OOMKilled WorkerLostError Recycle idempotency charged weasyprint")
    assert found["celery"] and found["oomkilled"]         # title, prompt
    assert found["workerlosterror"]                       # the error met
    assert found["recycle"]                               # the commit
    assert found["weasyprint"] and found["charged"]       # the answer, another session's prompt
    fts_integrity(machine)


def test_a_session_archived_again_is_indexed_anew_not_twice(tmp_path):
    session = spec("pay-jpy-rounding")
    machine = build(tmp_path, specs=[session])
    assert words(machine, "quokka sightings")["quokka"] == 0
    grown = transcripts.Spec(session.key, session.repo, session.start, session.title, [
        *session.turns, transcripts.turn("now the quokka sightings report", answer="The quokka report is done.")])
    path = transcripts.write_transcript(grown, machine.cwd(grown.repo), machine.config_dir / "projects")
    result = hook(machine, "archive", hook_payload("SessionEnd", path, session_id=grown.session_id,
                                                   cwd=machine.cwd(grown.repo)))
    assert result.returncode == 0, result.stderr
    assert words(machine, "quokka yen")["quokka"] == 1 and words(machine, "quokka yen")["yen"] == 1
    assert count(machine, "recall_docs") == 1
    fts_integrity(machine)


def test_a_post_compact_summary_is_indexed(tmp_path):
    session = spec("dp-s3-slowdown")
    machine = build(tmp_path, specs=[session])
    payload = hook_payload("PostCompact", None, session_id=session.session_id, cwd=machine.cwd(session.repo),
                           compact_summary="The user also asked about the narwhal partition layout.")
    payload.pop("transcript_path", None)
    assert hook(machine, "archive", payload).returncode == 0
    assert words(machine, "narwhal layout")["narwhal"] == 1
    fts_integrity(machine)


def v4_archive(path) -> None:
    """An archive as obsidian-memory left it before the recall index: schema 4, one session."""
    db = sqlite3.connect(path, isolation_level=None)
    for migration in archive_schema.MIGRATIONS[:4]:   # numbered, as before names
        migration.apply(db)
    db.execute("PRAGMA user_version = 4")
    db.execute("INSERT INTO sessions (session_id, title, project, started_at, first_archived_at, archived_at) "
               "VALUES ('old-session-1', 'Pelican feeder jammed', 'farm', '2025-05-01T10:00:00Z', "
               "'2025-05-01T11:00:00Z', '2025-05-01T11:00:00Z')")
    db.execute("INSERT INTO prompts (session_id, position, text, answer) VALUES ('old-session-1', 0, "
               "'the pelican feeder jammed again', 'Cleared the auger.')")
    db.execute("INSERT INTO outcomes (session_id, kind, position, text) VALUES ('old-session-1', 'error', 0, "
               "'exit 3: AugerStall: torque limit exceeded')")
    db.close()


@pytest.mark.parametrize("command", [["import"], ["sweep", "--quiet-seconds", "0"]])
def test_sessions_archived_before_the_index_are_indexed_by_the_next_import_or_sweep(tmp_path, command):
    machine = build(tmp_path, specs=[])
    database = machine.config_dir / "session-archive.db"
    database.unlink(missing_ok=True)
    v4_archive(database)
    done = machine.run(*command)
    assert done.returncode == 0, done.stderr
    with sqlite3.connect(database) as db:
        assert db.execute("PRAGMA user_version").fetchone()[0] == archive_module.SCHEMA_VERSION
    found = words(machine, "pelican auger augerstall torque")
    assert found["pelican"] == found["augerstall"] == found["torque"] == 1
    assert machine.run("recall", "--json", "AugerStall torque limit exceeded on the pelican feeder").stdout \
        .decode().count("old-session-1") >= 1


def test_doctor_says_when_recall_looks_and_how_much_of_the_archive_it_knows(tmp_path):
    machine = build(tmp_path, specs=corpus.SESSIONS[:3])

    def check():
        data = json.loads(machine.run("doctor", "--json").stdout)
        return next(c for c in data["checks"] if c["name"] == "prompt recall")
    assert check() == {"name": "prompt recall", "status": "ok",
                       "detail": "on for the first prompt of a session; 3 of 3 archived sessions indexed"}
    with sqlite3.connect(machine.config_dir / "session-archive.db") as db:
        db.execute("DELETE FROM recall_docs WHERE doc_id = (SELECT MIN(doc_id) FROM recall_docs)")
    assert check()["detail"].endswith("2 of 3 archived sessions indexed (the background sweep and `import` "
                                      "index the rest)")
    set_mode(machine, "off")
    assert check() == {"name": "prompt recall", "status": "info", "detail": "off (prompt_recall: off in config.yaml)"}


@pytest.mark.parametrize("command", [["import"], ["sweep", "--quiet-seconds", "0"]])
def test_an_index_made_by_older_term_rules_is_made_again_by_the_next_import_or_sweep(tmp_path, command):
    from obsidian_memory.archive import recall_index, recall_terms

    machine = build(tmp_path, specs=[spec("ord-cn-fk-migration"), spec("pay-double-charge")])
    database = machine.config_dir / "session-archive.db"

    def holding(term: str) -> int:
        with sqlite3.connect(database) as db:
            row = db.execute("SELECT doc FROM recall_vocab WHERE term = ?", (term,)).fetchone()
        return row[0] if row else 0

    with sqlite3.connect(database) as db:   # as the rules before bigrams left it: a CJK clause is one term
        db.execute("UPDATE recall_docs SET title = '订单表迁移失败', asked = '生产环境执行订单表迁移脚本的时候报错了', "
                   "outcome = '', said = '' WHERE session_id = ?", (machine.session_id("ord-cn-fk-migration"),))
        db.execute("INSERT OR REPLACE INTO counters (name, value) VALUES (?, ?)",
                   (recall_index.TERMS_VERSION_COUNTER, recall_terms.VERSION - 1))
    assert holding("迁移") == holding("外键") == 0
    done = machine.run(*command)
    assert done.returncode == 0, done.stderr
    assert holding("迁移") == holding("外键") == holding("idempotency") == 1
    assert count(machine, "recall_docs") == 2
    fts_integrity(machine)
    with sqlite3.connect(database) as db:
        assert db.execute("SELECT value FROM counters WHERE name = ?",
                          (recall_index.TERMS_VERSION_COUNTER,)).fetchone()[0] == recall_terms.VERSION


def test_the_files_a_session_edited_are_in_its_recall_document(tmp_path):
    machine = build(tmp_path, specs=[spec("ord-cn-pdf-font"), spec("pay-double-charge")])
    with sqlite3.connect(machine.config_dir / "session-archive.db") as db:
        (said,) = db.execute("SELECT said FROM recall_docs WHERE session_id = ?",
                             (machine.session_id("ord-cn-pdf-font"),)).fetchone()
    assert {"pdfreport", "notosanscjkscregular"} <= set(said.split())   # PdfReport.java, NotoSansCJKsc-Regular.otf
    assert words(machine, "PdfReport")["pdfreport"] == 1
