"""Prompt-time recall never brings back a session whose note in the vault is private:
the hook and the `recall` command leave it out as if it were not archived, whichever way the
note is private (its `private` property, the private tag, or a `private` folder rule)."""
from __future__ import annotations

import json

import pytest

from recall_kit import KOTLIN, REVISIT, ask, build, spec


@pytest.fixture
def machine(tmp_path):
    """The two Kotlin daemon sessions (one problem met twice) and an unrelated one."""
    return build(tmp_path, specs=[spec(key) for key in (*KOTLIN, "pay-celery-oom")])


def note_of(machine, key: str):
    return next((machine.vault / "Meta" / "claude-sessions").rglob(f"*_{machine.session_id(key)[:8]}.md"))


def make_private(note, how: str) -> None:
    text = note.read_text(encoding="utf-8")
    if how == "property":
        text = text.replace("---\n", "---\nprivate: true\n", 1)
    else:
        text += "\nAbout my employer #private\n"
    note.write_text(text, encoding="utf-8")


def configure(machine, text: str) -> None:
    config = machine.config_dir / "obsidian-memory" / "config.yaml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(text, encoding="utf-8")


@pytest.mark.parametrize("how", ["property", "tag"])
def test_a_session_whose_note_is_private_is_not_recalled(machine, how):
    first, second = KOTLIN
    before = ask(machine, "trailmap-android", REVISIT)
    assert before and machine.session_id(first) in before and machine.session_id(second) in before
    note = note_of(machine, first)
    make_private(note, how)
    after = ask(machine, "trailmap-android", REVISIT)
    assert after and machine.session_id(second) in after, after
    assert machine.session_id(first) not in after
    assert note.name not in after and "Kotlin daemon crash during Gradle build" not in after
    done = machine.run("recall", "--cwd", machine.cwd("trailmap-android"), "--json", REVISIT)
    assert done.returncode == 0, done.stderr
    assert machine.session_id(first) not in done.stdout.decode()
    assert "Kotlin daemon crash during Gradle build" not in done.stdout.decode()
    assert json.loads(done.stdout)["injected"] == after


def test_a_private_folder_holding_the_session_notes_turns_recall_of_them_off(machine):
    assert ask(machine, "trailmap-android", REVISIT)
    configure(machine, "private: [Meta/claude-sessions]\n")
    assert ask(machine, "trailmap-android", REVISIT) is None
    done = machine.run("recall", "--cwd", machine.cwd("trailmap-android"), REVISIT)
    assert done.returncode == 0, done.stderr
    out = done.stdout.decode()
    assert out.startswith("decision: nothing") and not any(machine.session_id(k) in out for k in KOTLIN)


def test_a_session_whose_note_is_gone_is_still_recalled(machine):
    """The archive is the durable copy: a deleted or moved note does not make a session private."""
    note_of(machine, KOTLIN[0]).unlink()
    context = ask(machine, "trailmap-android", REVISIT)
    assert context and machine.session_id(KOTLIN[0]) in context
