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


class AsTheVersionBefore:
    """The machine runs the version before notes carried their instants (its notes rendered with
    that template, its archive without that migration) until `upgrade()`."""

    def __init__(self, machine: Machine):
        from testkit import REPO

        self.machine = machine
        self.template = machine.env.config_dir / "obsidian-memory" / "templates" / "session.md.j2"
        self.template.parent.mkdir(parents=True)
        current = (REPO / "templates" / "session.md.j2").read_text(encoding="utf-8")
        self.template.write_text("".join(line for line in current.splitlines(keepends=True) if "_utc" not in line),
                                 encoding="utf-8")

    def upgrade(self) -> None:
        import sqlite3

        self.template.unlink()
        with sqlite3.connect(self.machine.env.archive_db) as raw:
            from obsidian_memory.archive import schema

            raw.execute(f"DELETE FROM {schema.TABLE} WHERE name = 'session-notes-carry-instants'")
            raw.execute(f"PRAGMA user_version = {raw.execute('PRAGMA user_version').fetchone()[0] - 1}")
        self.machine.sweep()            # the upgraded machine's first run


def test_an_archive_from_before_instants_renders_its_own_notes_again_with_them(zoned):
    laptop, _ = zoned
    older = AsTheVersionBefore(laptop)
    sid = laptop.session(1, "05", ["fix the tokenizer crash"], "tokenizer crash")
    laptop.run("import")
    note = next(laptop.vault.rglob(f"*{sid[:8]}.md"))
    assert "started_utc" not in note.read_text(encoding="utf-8")
    older.upgrade()
    assert '\nstarted_utc: "2026-03-05T09:00:00Z"\n' in note.read_text(encoding="utf-8")


def test_a_replica_learned_from_an_older_note_is_put_right_once_its_machine_upgrades(zoned):
    laptop, desk = zoned
    older = AsTheVersionBefore(laptop)
    sid = laptop.session(1, "05", ["fix the tokenizer crash"], "tokenizer crash")
    laptop.run("import")
    desk.sweep()
    # a note that says no zone is read in the reader's: 14:30 taken as St John's time
    assert started(desk)[sid].startswith("2026-03-05T18:00:00")
    older.upgrade()                                     # renders the laptop's notes again
    desk.sweep()
    assert started(desk)[sid].startswith("2026-03-05T09:00:00")
