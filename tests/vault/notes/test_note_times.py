"""Times are instants: a session note written on a machine in any time zone is read back by a
machine in any other zone to the same instants (start, end, each prompt and compaction), and
session notes from many zones are ordered as they happened, on every machine (property tests).
Zones are switched in this process as a machine's would be (TZ + time.tzset)."""
from __future__ import annotations

import datetime as dt
import os
import time
import zoneinfo
from contextlib import contextmanager

import pytest
from hypothesis import example, given, settings as hypothesis_settings, strategies as st

from obsidian_memory.capture.session_records import CompactSummary, Prompt, Session
from obsidian_memory.vault.notes import sessions as notes
from obsidian_memory.vault.notes import vault_sessions
from obsidian_memory.vault.notes.history import table_rows
from obsidian_memory.vault.notes.session_reader import read_session

if not hasattr(time, "tzset"):
    pytest.skip("switching the process's time zone needs time.tzset (not on Windows)", allow_module_level=True)

ZONES = sorted(z for z in zoneinfo.available_timezones() if "/" in z and not z.startswith(("Etc/", "SystemV/")))
# the zones the issue names, the half- and quarter-hour ones, both extremes and DST's Southern side
NAMED = ["Asia/Kolkata", "America/St_Johns", "Asia/Kathmandu", "Pacific/Kiritimati", "Pacific/Pago_Pago",
         "Australia/Lord_Howe", "Europe/London", "America/Los_Angeles", "UTC"]
ZONE = st.one_of(st.sampled_from(NAMED), st.sampled_from(ZONES))
INSTANT = st.datetimes(min_value=dt.datetime(2000, 1, 1), max_value=dt.datetime(2037, 12, 31),
                       timezones=st.just(dt.timezone.utc)).map(lambda m: m.replace(microsecond=0))


@contextmanager
def machine_in(zone: str):
    before = os.environ.get("TZ")
    os.environ["TZ"] = zone
    time.tzset()
    try:
        yield
    finally:
        if before is None:
            os.environ.pop("TZ", None)
        else:
            os.environ["TZ"] = before
        time.tzset()


def iso(moment: dt.datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%S.000Z")


def session(n: int, start: dt.datetime, minutes: int = 30) -> Session:
    end = start + dt.timedelta(minutes=minutes)
    return Session(session_id=f"{n:08d}-aaaa-4bbb-8ccc-{n:012d}", title=f"session {n}", started_at=iso(start),
                   ended_at=iso(end), prompts=[Prompt("first", iso(start)), Prompt("last", iso(end))],
                   compact_summaries=[CompactSummary("what happened", iso(start + dt.timedelta(minutes=minutes // 2)))])


@hypothesis_settings(max_examples=150, deadline=None)
@given(writer=ZONE, reader=ZONE, start=INSTANT, minutes=st.integers(0, 600))
# across the end of daylight saving time: 01:00 is on the wall clock twice (the note's one offset)
@example(writer="America/Los_Angeles", reader="Asia/Kolkata", start=dt.datetime(2000, 10, 29, 8, tzinfo=dt.timezone.utc),
         minutes=60)
@example(writer="Europe/London", reader="UTC", start=dt.datetime(2026, 3, 29, 0, 30, tzinfo=dt.timezone.utc),
         minutes=90)
def test_a_note_written_in_one_zone_reads_back_to_the_same_instants_in_any_other(writer, reader, start, minutes):
    written = session(1, start, minutes)
    with machine_in(writer):
        text = notes.render_note(written)
    with machine_in(reader):
        back = read_session(text)
    assert back.started_at == written.started_at and back.ended_at == written.ended_at
    # a prompt's heading shows the writer's wall clock to the minute (with the date once the
    # session spans days): read back to that minute
    first, last = (dt.datetime.fromisoformat(p.timestamp.replace("Z", "+00:00")) for p in back.prompts)
    assert first == start.replace(second=0)
    assert last == (start + dt.timedelta(minutes=minutes)).replace(second=0)
    summary = dt.datetime.fromisoformat(back.compact_summaries[0].timestamp.replace("Z", "+00:00"))
    assert summary == (start + dt.timedelta(minutes=minutes // 2)).replace(second=0)


@hypothesis_settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(ZONE, INSTANT), min_size=2, max_size=6, unique_by=lambda pair: pair[1]), ZONE)
def test_notes_from_many_zones_are_ordered_as_they_happened_on_every_machine(written, reader):
    texts = []
    for n, (zone, start) in enumerate(written):
        with machine_in(zone):
            texts.append(notes.render_note(session(n, start)))
    with machine_in(reader):
        rows = []
        for n, text in enumerate(texts):
            properties = vault_sessions.properties_of(text)
            rows.append({"session_id": properties["session_id"], "path": f"{n}.md",
                         "started": vault_sessions.note_times(properties).started_record})
        order = [row["session_id"] for row in table_rows(rows)]
    truth = [session(n, start).session_id for n, (_, start) in sorted(enumerate(written), key=lambda p: p[1][1],
                                                                        reverse=True)]
    assert order == truth


def test_a_note_written_before_notes_said_their_instant_is_read_in_this_machines_zone():
    with machine_in("Asia/Kolkata"):
        text = notes.render_note(session(1, dt.datetime(2026, 3, 5, 9, tzinfo=dt.timezone.utc)))
    older = "".join(line for line in text.splitlines(keepends=True) if not line.startswith(("started_utc", "ended_utc")))
    with machine_in("Asia/Kolkata"):
        assert read_session(older).started_at == "2026-03-05T09:00:00.000Z"


def test_a_start_the_user_gave_an_offset_is_read_at_that_offset():
    text = notes.render_note(session(1, dt.datetime(2026, 3, 5, 9, tzinfo=dt.timezone.utc)))
    lines = [line for line in text.splitlines(keepends=True) if not line.startswith(("started_utc", "ended_utc"))]
    edited = "".join("started: 2026-03-05T14:30:00+05:30\n" if line.startswith("started:") else line for line in lines)
    with machine_in("America/St_Johns"):
        assert read_session(edited).started_at == "2026-03-05T09:00:00.000Z"
