"""Times are instants on every machine: two machines in different time zones over one vault,
through the real CLI as subprocesses. Each reads the other's session notes back to the very instant
its transcript holds, and lists every machine's sessions in the order they happened."""
from __future__ import annotations

import json

import pytest
from test_many_machines import Machine, history_rows

KOLKATA, ST_JOHNS = "Asia/Kolkata", "America/St_Johns"     # UTC+05:30, UTC-03:30 in March


@pytest.fixture
def zoned(tmp_path):
    vault = tmp_path / "vault"
    vault.mkdir()
    laptop = Machine(tmp_path, "laptop", vault, "git@github.com:Owner/Proj.git", "src/proj")
    desk = Machine(tmp_path, "desk", vault, "https://github.com/owner/proj", "work/clones/proj-main")
    laptop.env.vars["TZ"], desk.env.vars["TZ"] = KOLKATA, ST_JOHNS
    return laptop, desk


def before_instants(raw) -> None:
    """The archive as the version before notes carried their instants left it."""
    from obsidian_memory.archive import schema

    raw.execute(f"DELETE FROM {schema.TABLE} WHERE name = 'session-notes-carry-instants'")
    raw.execute(f"PRAGMA user_version = {raw.execute('PRAGMA user_version').fetchone()[0] - 1}")


def started(machine: Machine) -> dict[str, tuple[str, str]]:
    return {s["session_id"]: s["started_at"] for s in machine.sessions()}


def test_each_machine_reads_the_other_machines_sessions_at_their_true_instant_and_order(zoned):
    laptop, desk = zoned
    # one day, the laptop's sessions at 09:00 and 12:00 UTC, the desk's at 10:00 UTC: in local
    # times 14:30 and 17:30 in Kolkata, 06:30 in St John's (a naive reading is 9 hours off)
    early = laptop.session(1, "05", ["fix the tokenizer crash"], "tokenizer crash")
    middle = desk.session(2, "05", ["profile the slow import"], "slow import")
    late = laptop.session(3, "05", ["write the release notes"], "release notes")
    for machine, sid, hour in ((desk, middle, "10"), (laptop, late, "12")):
        path = next(machine.env.config_dir.joinpath("projects").rglob(f"{sid}.jsonl"))
        path.write_text(path.read_text().replace("2026-03-05T09:", f"2026-03-05T{hour}:"), encoding="utf-8")

    laptop.run("import")
    desk.run("import")
    laptop.sweep()
    desk.sweep()

    truth = {early: "2026-03-05T09:00:00", middle: "2026-03-05T10:00:00", late: "2026-03-05T12:00:00"}
    for machine in (laptop, desk):
        seen = started(machine)
        assert {sid: seen[sid][:19] for sid in truth} == truth, machine.name
        assert all(seen[sid].endswith("Z") for sid in truth)
        assert [s["session_id"] for s in machine.sessions()] == [late, middle, early]
        rows = history_rows(machine.vault)
        assert [row.split(" | ")[2] for row in rows] == ["release notes", "slow import", "tokenizer crash"]


def test_a_note_shows_its_own_machines_local_time_as_a_typed_date_time_and_the_instant_beside_it(zoned):
    laptop, _ = zoned
    sid = laptop.session(1, "05", ["fix the tokenizer crash"], "tokenizer crash")
    laptop.run("import")
    note = next(laptop.vault.rglob(f"*{sid[:8]}.md")).read_text(encoding="utf-8")
    assert "\nstarted: 2026-03-05T14:30:00\n" in note          # Obsidian's date & time, as the user's clock said
    assert '\nstarted_utc: "2026-03-05T09:00:00Z"\n' in note
    assert "**Started:** 2026-03-05 14:30" in note
    assert json.loads(laptop.run("sessions", "--json").stdout)[0]["started_at"].startswith("2026-03-05T09:00:00")


def test_an_archive_from_before_instants_renders_its_own_notes_again_with_them(zoned):
    import sqlite3

    laptop, _ = zoned
    older = laptop.env.config_dir / "obsidian-memory" / "templates" / "session.md.j2"
    older.parent.mkdir(parents=True)
    from testkit import REPO
    template = (REPO / "templates" / "session.md.j2").read_text(encoding="utf-8")
    older.write_text("".join(line for line in template.splitlines(keepends=True) if "_utc" not in line),
                     encoding="utf-8")                  # the template of the version before
    sid = laptop.session(1, "05", ["fix the tokenizer crash"], "tokenizer crash")
    laptop.run("import")
    note = next(laptop.vault.rglob(f"*{sid[:8]}.md"))
    assert "started_utc" not in note.read_text(encoding="utf-8")
    older.unlink()
    with sqlite3.connect(laptop.env.archive_db) as raw:
        before_instants(raw)

    laptop.sweep()
    assert '\nstarted_utc: "2026-03-05T09:00:00Z"\n' in note.read_text(encoding="utf-8")


def test_a_replica_learned_from_an_older_note_is_put_right_once_its_machine_upgrades(zoned):
    import sqlite3

    from testkit import REPO

    laptop, desk = zoned
    older = laptop.env.config_dir / "obsidian-memory" / "templates" / "session.md.j2"
    older.parent.mkdir(parents=True)
    template = (REPO / "templates" / "session.md.j2").read_text(encoding="utf-8")
    older.write_text("".join(line for line in template.splitlines(keepends=True) if "_utc" not in line),
                     encoding="utf-8")                  # the laptop still writes notes as the version before
    sid = laptop.session(1, "05", ["fix the tokenizer crash"], "tokenizer crash")
    laptop.run("import")
    desk.sweep()
    # a note that says no zone is read in the reader's: 14:30 taken as St John's time
    assert started(desk)[sid].startswith("2026-03-05T18:00:00")
    older.unlink()
    with sqlite3.connect(laptop.env.archive_db) as raw:
        before_instants(raw)
    laptop.sweep()                                      # the upgrade renders the laptop's notes again
    desk.sweep()
    assert started(desk)[sid].startswith("2026-03-05T09:00:00")
