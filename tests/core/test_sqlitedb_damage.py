"""A disposable database (the vault index, the vector store) meets damage one way: the file is
let go of and deleted, and the work runs once more; any other error, or damage again, is raised."""
from __future__ import annotations

import sqlite3

import pytest

from obsidian_memory.core import sqlitedb


def work_failing(*errors):
    calls = []

    def work():
        calls.append(len(calls))
        if len(calls) <= len(errors):
            raise errors[len(calls) - 1]
        return "answer"
    return work, calls


def test_damage_is_discarded_and_the_work_runs_once_more():
    work, calls = work_failing(sqlite3.DatabaseError("database disk image is malformed"))
    discarded = []
    assert sqlitedb.again_if_damaged(work, discarded.append) == "answer"
    assert len(calls) == 2 and [str(why) for why in discarded] == ["database disk image is malformed"]


@pytest.mark.parametrize("errors", [
    [sqlite3.OperationalError("database is locked")],                                     # not damage
    [sqlite3.DatabaseError("file is not a database"), sqlite3.DatabaseError("file is not a database")],
])
def test_other_errors_and_damage_twice_are_raised(errors):
    work, calls = work_failing(*errors)
    discarded = []
    with pytest.raises(sqlite3.DatabaseError):
        sqlitedb.again_if_damaged(work, discarded.append)
    assert len(calls) == len(errors) and len(discarded) == len(errors) - 1
