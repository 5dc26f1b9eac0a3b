"""`obsidian_memory.py recall "PROMPT" [--cwd DIR] [--session-id ID] [--json]`: what the prompt hook
would inject, with the words it weighed, the candidates' scores and the decision's reason."""
from __future__ import annotations

import json

import pytest

from recall_kit import KOTLIN, REVISIT, UNRELATED, ask, build, hook, injected, new_session, prompt_payload, spec
from obsidian_memory.context.recall.decide import OTHER_PLACE


@pytest.fixture(scope="module")
def machine(tmp_path_factory):
    return build(tmp_path_factory.mktemp("recall-command"))


def recall(machine, *args):
    return machine.run("recall", *args)


def test_recall_shows_the_decision_the_words_the_scores_and_the_text(machine):
    done = recall(machine, "--cwd", machine.cwd("trailmap-android"), REVISIT)
    assert done.returncode == 0, done.stderr
    out = done.stdout.decode()
    assert out.startswith("decision: inject (covers 100% of the prompt's informative words)")
    assert "words (sessions holding them, weight):\n  kotlin 5 2.73, daemon 2 3.51, error 29 1.05 (common)\n" in out
    assert "1.00  1.00  here" in out and "matched: kotlin (title), daemon (title)" in out
    assert "would inject (" in out and machine.session_id(KOTLIN[0]) in out


def test_recall_json_is_what_the_hook_injects(machine):
    done = recall(machine, "--cwd", machine.cwd("trailmap-android"), "--json", REVISIT)
    data = json.loads(done.stdout)
    assert data["confident"] is True and data["mode"] == "first"
    assert set(data["chosen"]) == {machine.session_id(key) for key in KOTLIN}
    assert data["candidates"][0]["score"] == 1.0 and data["words"][0]["word"] == "kotlin"
    assert data["injected"] == ask(machine, "trailmap-android", REVISIT)


def test_the_prompt_may_be_given_as_several_words(machine):
    done = recall(machine, "--cwd", machine.cwd("trailmap-android"), "--json", *REVISIT.split())
    assert json.loads(done.stdout)["prompt"] == REVISIT


@pytest.mark.parametrize("prompt, reason", [
    (UNRELATED, "needs 80% for a request of new work"),
    ("hi there", "too few informative words"),
    ("/compact", "a slash command"),
    ("Lisbon itinerary with tapas bars", "no informative word of the prompt is in the archive"),
    ("Plan a 3 day trip to Lisbon", "the best session covers 26% of the prompt, x0.85 as another repository's; "
                                    "needs 60%"),
])
def test_recall_says_why_nothing_would_be_injected(machine, prompt, reason):
    done = recall(machine, "--cwd", machine.cwd("trailmap-android"), prompt)
    out = done.stdout.decode()
    assert done.returncode == 0 and out.startswith("decision: nothing (") and reason in out, out
    assert "would inject" not in out


def test_a_session_of_another_repository_scores_less(machine):
    data = json.loads(recall(machine, "--cwd", machine.cwd(""), "--json", REVISIT).stdout)
    best = data["candidates"][0]
    assert best["same_place"] is False and best["score"] == round(best["coverage"] * OTHER_PLACE, 3)


def test_with_a_session_id_what_it_was_shown_is_left_out(machine):
    session = new_session()
    assert injected(hook(machine, "user-prompt", prompt_payload(machine, "trailmap-android", REVISIT, session)))
    data = json.loads(recall(machine, "--cwd", machine.cwd("trailmap-android"), "--session-id", session, "--json",
                             REVISIT).stdout)
    assert data["chosen"] == [] and set(data["already_shown"]) == {machine.session_id(key) for key in KOTLIN}
    assert data["reason"] == "the matching sessions were shown in this session already" and data["injected"] == ""


def test_off_is_reported(machine):
    config = machine.config_dir / "obsidian-memory" / "config.yaml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text("prompt_recall: off\n", encoding="utf-8")
    try:
        out = recall(machine, "--cwd", machine.cwd("trailmap-android"), REVISIT).stdout.decode()
    finally:
        config.unlink()
    assert "prompt_recall is off in config.yaml: the hook injects nothing" in out


def test_a_missing_folder_or_archive_is_a_one_line_error(machine, tmp_path):
    done = recall(machine, "--cwd", str(tmp_path / "nowhere"), REVISIT)
    assert done.returncode != 0 and done.stderr.decode().count("\n") == 1 and b"no such folder" in done.stderr
    empty = build(tmp_path / "empty", specs=[spec("pay-jpy-rounding")])
    (empty.config_dir / "session-archive.db").unlink()
    done = empty.run("recall", REVISIT)
    assert done.returncode != 0 and b"no session archive" in done.stderr and b"Traceback" not in done.stderr


def one_session_among_chores(env, prompt: str):
    """An archive of one session whose prompt is `prompt` and four chores; the real `recall --json`
    of a prompt on it, and the session's id."""
    from archive_fixtures import session_id, write_transcript

    projects = env.config_dir / "projects" / "-work-demo"
    write_transcript(projects / f"{session_id(1)}.jsonl", session_id(1), [prompt])
    for n in range(2, 6):
        write_transcript(projects / f"{session_id(n)}.jsonl", session_id(n), [f"Tidy the release notes, part {n}"])
    assert env.run("import").returncode == 0
    return (lambda asked: json.loads(env.run("recall", "--json", "--cwd", str(env.root), asked).stdout)), session_id(1)


def test_the_case_a_word_is_typed_in_changes_neither_the_decision_nor_its_figures(env):
    """A session wrote `SQLite-safe`; `SQLite` and `sqlite` in a prompt weigh and match alike, and
    the words line counts each term of a word (none shows 0 beside a match)."""
    decided, session = one_session_among_chores(
        env, "Rewrite the SQLite-safe migration for the nullable column (table rewrite pattern)")
    upper, lower = decided("the SQLite migration for the nullable column again"), \
        decided("the sqlite migration for the nullable column again")
    assert upper["candidates"][0]["session_id"] == session
    assert [(c["session_id"], c["coverage"], c["score"]) for c in upper["candidates"]] == \
        [(c["session_id"], c["coverage"], c["score"]) for c in lower["candidates"]]
    assert upper["words"] == lower["words"] and upper["confident"] == lower["confident"]
    text = env.run("recall", "--cwd", str(env.root), "the SQLite migration for the nullable column again").stdout
    assert b"sqlite 1 " in text and b"matched: sqlite (" in text


def test_a_duration_or_an_error_weighs_and_matches_alike_whatever_it_is_called(env):
    """A session logged `502` and `30s`; a prompt that says "bad gateway" and "half a minute" weighs
    and matches as one that says "502" and "30 seconds": each is one word, held whole."""
    decided, session = one_session_among_chores(
        env, "gunicorn returns 502 for the invoice download: the worker is killed at 30s")
    said = [decided(f"gunicorn invoice download {error}, killed after {duration}")
            for error, duration in (("502", "30s"), ("bad gateway", "half a minute"),
                                    ("502 Bad Gateway", "30 seconds"))]
    assert said[0]["candidates"][0]["session_id"] == session
    figures = [[(c["session_id"], c["coverage"], c["score"]) for c in d["candidates"]] for d in said]
    assert figures[1:] == figures[:1] * 2 and said[0]["candidates"][0]["coverage"] == 1.0
    assert [len(d["words"]) for d in said[1:]] == [len(said[0]["words"])] * 2
