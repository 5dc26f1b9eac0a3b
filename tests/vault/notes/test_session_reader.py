"""The note reader reads back what the renderer writes: render → read → the same record,
for whatever text a transcript holds (backticks, Markdown, YAML and table specials, Unicode)."""
from __future__ import annotations

import string

from hypothesis import HealthCheck, given, settings as hypothesis_settings, strategies as st

from obsidian_memory.capture.session_records import Command, Commit, CompactSummary, Prompt, Session, Subagent, Todo, ToolError
from obsidian_memory.vault.notes import sessions as notes
from obsidian_memory.vault.notes.session_reader import read_session

_ANY = st.characters(blacklist_categories=("Cc", "Cs"), blacklist_characters="\u202a\u202b\u202c\u202d\u202e"
                     "\u2066\u2067\u2068\u2069\ufeff")
TEXT = st.text(alphabet=st.one_of(_ANY, st.sampled_from(list("\n\n\t`~#|*_[]<>$%^\\\"':- "))), min_size=1, max_size=300) \
    .filter(lambda t: t.strip())
LINE = st.text(alphabet=st.one_of(_ANY, st.sampled_from(list("`#|*_[]<>\\\"': "))), min_size=1, max_size=60) \
    .filter(lambda t: t.strip())
WORD = st.text(alphabet=string.ascii_letters + string.digits + "_./-`~|", min_size=1, max_size=30)
NAME = st.text(alphabet=string.ascii_letters + "_", min_size=1, max_size=12)
MOMENT = st.datetimes(min_value=__import__("datetime").datetime(2020, 1, 1),
                      max_value=__import__("datetime").datetime(2030, 1, 1))


def iso(moment) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%S.000Z")


@st.composite
def sessions(draw) -> Session:
    start = draw(MOMENT)
    end = start + __import__("datetime").timedelta(minutes=draw(st.integers(0, 600)))
    session = Session(
        session_id=draw(st.uuids()).hex[:8] + "-aaaa-4bbb-8ccc-" + draw(st.uuids()).hex[:12],
        title=draw(LINE), project=draw(LINE), cwd="/" + draw(WORD), git_branch=draw(st.one_of(st.none(), LINE)),
        version=draw(st.sampled_from(["2.1.39", "2.0.76", None])),
        started_at=iso(start), ended_at=iso(end),
        prompts=[Prompt(text, iso(start)) for text in draw(st.lists(TEXT, min_size=1, max_size=4))],
        compact_summaries=[CompactSummary(text, iso(start), draw(st.sampled_from(["auto", "manual", None])))
                           for text in draw(st.lists(TEXT, max_size=2))],
        files_touched=draw(st.lists(WORD, max_size=4)),
        tools=draw(st.dictionaries(NAME, st.integers(1, 99), max_size=4)),
        subagents=[Subagent(draw(NAME), "/p", draw(st.integers(0, 99)), draw(st.one_of(st.none(), LINE)))
                   for _ in range(draw(st.integers(0, 2)))],
        machine=draw(st.sampled_from(["laptop-3f9a2c", "work-desk", None])),
        repo_id=draw(st.sampled_from(["github.com/o/r", "git:" + "a" * 40, "name:proj", None])),
    )
    for prompt in session.prompts:
        prompt.answer = draw(st.one_of(st.none(), TEXT))
    answered = [p.answer for p in session.prompts if p.answer]
    session.last_assistant_message = draw(st.sampled_from([answered[-1] if answered else None, None, "the end."]))
    session.todos = [Todo(text, status) for text, status in draw(st.lists(
        st.tuples(LINE, st.sampled_from(["pending", "in_progress", "completed"])), max_size=4))]
    session.plan = draw(st.one_of(st.none(), TEXT))
    session.commits = [Commit(subject, commit_hash) for subject, commit_hash in draw(st.lists(
        st.tuples(LINE.filter(lambda t: "—" not in t), st.one_of(st.none(), st.from_regex(r"[0-9a-f]{7}", fullmatch=True))),
        max_size=3))]
    session.pull_requests = [f"https://github.com/o/r/pull/{n}" for n in draw(st.lists(st.integers(1, 9999), max_size=2))]
    session.commands = [Command(text, runs, min(failures, runs)) for text, runs, failures in draw(st.lists(
        st.tuples(LINE.map(lambda t: t[:100]), st.integers(1, 5), st.integers(0, 5)), max_size=4))]
    session.errors = [ToolError(tool, text) for tool, text in draw(st.lists(st.tuples(NAME, LINE.map(lambda t: t[:100])),
                                                                            max_size=3))]
    return session


def session_seconds(session) -> float:
    from obsidian_memory.core import clock
    return (clock.parse_iso(session.ended_at) - clock.parse_iso(session.started_at)).total_seconds()


def shown(text: str) -> str:
    """What a code block shows of a text (the renderer ends it at its last non-newline)."""
    return text.rstrip("\n")


def one_line(text: str | None) -> str | None:
    return " ".join(text.split()) if text is not None else None


@hypothesis_settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(session=sessions())
def test_property_a_rendered_note_reads_back_as_the_same_session(session):
    back = read_session(notes.render_note(session))
    assert back is not None and back.origin == "vault"
    for field in ("session_id", "title", "project", "cwd", "git_branch", "version", "started_at", "ended_at",
                  "machine", "repo_id", "tools", "files_touched"):
        assert getattr(back, field) == getattr(session, field), field
    assert [p.text for p in back.prompts] == [shown(p.text) for p in session.prompts]
    assert [(s.text, s.trigger) for s in back.compact_summaries] == \
        [(shown(s.text), s.trigger) for s in session.compact_summaries]
    assert [(a.agent_id, a.entry_count, a.first_prompt) for a in back.subagents] == \
        [(a.agent_id, a.entry_count, one_line(a.first_prompt)) for a in session.subagents]
    # what the session did: answers, the outcome, commands, errors
    assert [p.answer for p in back.prompts] == [shown(p.answer) if p.answer else None for p in session.prompts]
    last = session.last_assistant_message
    assert back.last_assistant_message == (shown(last) if last else
                                           ([shown(p.answer) for p in session.prompts if p.answer] or [None])[-1])
    assert [(t.text, t.status) for t in back.todos] == [(one_line(t.text), t.status) for t in session.todos]
    assert back.plan == (shown(session.plan) if session.plan else None)
    assert [(c.message, c.hash) for c in back.commits] == [(one_line(c.message), c.hash) for c in session.commits]
    assert back.pull_requests == session.pull_requests
    assert [(c.command, c.runs, c.failures) for c in back.commands] == \
        [(one_line(c.command), c.runs, c.failures) for c in session.commands]
    assert [(e.tool, e.text) for e in back.errors] == [(e.tool, one_line(e.text)) for e in session.errors]
    assert back.duration_seconds == round((session_seconds(session)) / 60) * 60 or not session_seconds(session)


def test_the_users_section_and_unknown_sections_are_not_read():
    session = Session(session_id="0123abcd-1111-2222-3333-444455556666", started_at="2026-03-04T09:00:00.000Z",
                      prompts=[Prompt("the real prompt")])
    text = notes.render_note(session, user_section="## My notes\n\n## Prompts\n\n**1.** 10:00\n\n```text\nfake\n```\n")
    text = text.replace("## Prompts", "## Something new\n\n- `x` × 3\n\n## Prompts", 1)
    back = read_session(text)
    assert [p.text for p in back.prompts] == ["the real prompt"] and back.tools == {}


def test_a_note_without_a_session_id_is_not_a_session():
    assert read_session("---\ntitle: a note\n---\n# A note\n") is None
    assert read_session("no frontmatter at all") is None


def test_a_note_edited_in_obsidian_is_read_through_yaml():
    text = ("---\ntitle: Fix it\nsession_id: 0123abcd-1111-2222-3333-444455556666\nmachine: work-desk\n"
            "started: 2026-03-04 09:00:00\ntags:\n  - claude-session\n  - mine\naliases: {a: b}\n---\n"
            "## Prompts\n\n**1.** 09:00\n\n```text\nhello\n```\n")
    back = read_session(text)
    assert (back.title, back.machine, back.started_at[:10]) == ("Fix it", "work-desk", "2026-03-04")
    assert [p.text for p in back.prompts] == ["hello"]


# -- what a session note is embedded by ----------------------------------------------------------

def test_a_session_note_is_embedded_by_what_was_asked_answered_and_done_not_its_layout():
    from obsidian_memory.vault.notes.session_reader import told_apart_text

    session = Session(session_id="0fb7526d-aaaa-4bbb-8ccc-000000000001", title="pgbouncer errors in eu",
                      project="orders-service", cwd="/home/dana/work/orders-service",
                      started_at="2026-05-01T10:00:00.000Z", ended_at="2026-05-01T10:20:00.000Z",
                      prompts=[Prompt("prepared statement S_1 already exists", "2026-05-01T10:00:00.000Z",
                                      answer="pgbouncer 1.21 does not track prepared statements; upgraded to 1.22."),
                               Prompt("could it be the driver?", "2026-05-01T10:10:00.000Z", answer="No: the pooler.")],
                      commits=[Commit("pgbouncer eu-2: upgrade to 1.22.1", "90f5ec0")],
                      commands=[Command("psql -h pgb-eu-2 -c 'SHOW VERSION'")],
                      files_touched=["/home/dana/work/orders-service/ops/pgbouncer/pgb-eu-2.ini", "/etc/hosts"],
                      tools={"Bash": 3, "Edit": 2}, machine="laptop", version="2.1.332")
    session.last_assistant_message = "No: the pooler."
    note = notes.render_note(session, user_section="## My notes\n\nAsk Dana about the eu-2 maintenance window.\n")
    title, text = told_apart_text(note)
    assert title == "pgbouncer errors in eu"
    for kept in ("orders-service", "prepared statement S_1 already exists", "upgraded to 1.22", "could it be the driver?",
                 "No: the pooler.", "pgbouncer eu-2: upgrade to 1.22.1", "psql -h pgb-eu-2", "ops/pgbouncer/pgb-eu-2.ini",
                 "/etc/hosts", "Ask Dana about the eu-2 maintenance window."):
        assert kept in text, kept
    for left_out in ("claude --resume", "Where it stopped", "Bash ×", "/home/dana/work", "laptop", "2.1.332",
                     "obsidian-memory", "Started"):
        assert left_out not in text, left_out
    assert text.count("No: the pooler.") == 1           # the last answer is the last prompt's


def test_a_note_that_is_not_a_session_note_is_embedded_as_it_is():
    from obsidian_memory.vault.notes.session_reader import told_apart_text

    assert told_apart_text("---\ntags: [claude-session]\n---\n# Deploy checklist\nRun it on staging.\n") is None
    assert told_apart_text("# A session_id mentioned in a note\nsession_id: 42 is not a property here.\n") is None
