"""Obsidian-native views of the session notes: the activity note (Mermaid charts of
sessions per week per project and commits per week, last 12 weeks, rebuilt with the history
table) and the Bases view (written once, never overwritten)."""
from __future__ import annotations

import re

import pytest
import yaml
from freezegun import freeze_time

from obsidian_memory.core import settings as settings_module
from obsidian_memory.archive import open_archive
from obsidian_memory.capture.session_records import Commit, Prompt, Session
from obsidian_memory.vault.notes import activity, bases
from obsidian_memory.vault.notes import sessions as notes

TODAY = "2026-05-13 12:00:00"   # a Wednesday: this week starts Monday 11 May; the 12 weeks on 23 Feb


@pytest.fixture
def settings(env, monkeypatch):
    env.apply(monkeypatch)
    return settings_module.load()


def add(settings, archive, n: int, started_at: str, project: str, commits: int = 0, note: bool = True) -> None:
    """A session in the archive and, with `note`, its note in the vault (what the activity note
    is made of, as the history table is)."""
    session = Session(session_id=f"{n:08d}-act", project=project, started_at=started_at, prompts=[Prompt("p")],
                      commits=[Commit(f"c{i}", f"{i:07x}") for i in range(commits)])
    archive.sessions.upsert(session)
    if note:
        notes.write_note(session, settings)


@pytest.fixture
def archive(settings):
    with open_archive(settings.archive) as db:
        add(settings, db, 1, "2026-05-12T09:00:00.000Z", "alpha", commits=2)     # this week
        add(settings, db, 2, "2026-05-11T08:00:00.000Z", "alpha", commits=1)     # this week (Monday)
        add(settings, db, 3, "2026-05-10T23:00:00.000Z", "beta")                 # last week (Sunday)
        add(settings, db, 4, "2026-02-23T10:00:00.000Z", "beta", commits=5)      # the oldest week shown
        add(settings, db, 5, "2026-02-22T10:00:00.000Z", "beta", commits=7)      # too old
        add(settings, db, 6, "2026-05-12T10:00:00.000Z", "alpha", note=False)    # no note: not in the history either
        yield db


def charts(text: str) -> list[dict]:
    """Each mermaid block parsed along xychart-beta's grammar (title, x-axis, y-axis, bar)."""
    found = []
    for body in re.findall(r"```mermaid\n(.*?)```", text, re.S):
        lines = body.splitlines()
        assert lines[0] == "xychart-beta"
        title = re.fullmatch(r'    title "([^"]*)"', lines[1]).group(1)
        axis = re.fullmatch(r'    x-axis \[((?:"[^"]*"(?:, )?)+)\]', lines[2]).group(1)
        top = int(re.fullmatch(r'    y-axis "\w+" 0 --> (\d+)', lines[3]).group(1))
        bars = [int(v) for v in re.fullmatch(r"    bar \[([\d, ]+)\]", lines[4]).group(1).split(", ")]
        assert len(lines) == 5 and max(bars) <= top
        found.append({"title": title, "weeks": re.findall(r'"([^"]*)"', axis), "bars": bars})
    return found


@freeze_time(TODAY)
def test_sessions_per_week_per_project_and_commits_per_week(settings, archive):
    text = open(activity.rebuild(settings, archive), encoding="utf-8").read()
    alpha, beta, commits = charts(text)
    assert alpha["title"] == "alpha: sessions per week" and alpha["weeks"][0] == "Feb 23" and alpha["weeks"][-1] == "May 11"
    assert len(alpha["weeks"]) == 12
    assert alpha["bars"] == [0] * 11 + [2]
    assert beta["bars"] == [1] + [0] * 9 + [1, 0]
    assert commits["title"] == "Commits per week, all projects" and commits["bars"] == [5] + [0] * 10 + [3]
    assert "| May 11 | 2 | 0 | 3 |" in text and "| Feb 23 | 0 | 1 | 5 |" in text
    assert "### alpha (2 sessions)" in text and "### beta (2 sessions)" in text


@freeze_time(TODAY)
def test_the_busiest_projects_get_a_chart_each_and_the_rest_one_together(settings):
    with open_archive(settings.archive) as db:
        for n in range(8):
            for k in range(n + 1):
                add(settings, db, 100 * n + k, f"2026-05-0{1 + k % 9}T10:00:00.000Z", f"project {n}")
        text = open(activity.rebuild(settings, db), encoding="utf-8").read()
    titles = [c["title"] for c in charts(text)]
    assert titles == [f"project {n}: sessions per week" for n in (7, 6, 5, 4, 3)] + [
        "other projects: sessions per week", "Commits per week, all projects"]
    assert "### other projects (6 sessions)" in text


@freeze_time(TODAY)
def test_the_note_is_rebuilt_between_markers_and_keeps_the_users_text(settings, archive):
    path = activity.rebuild(settings, archive)
    text = open(path, encoding="utf-8").read()
    with open(path, "w", encoding="utf-8") as handle:
        handle.write("# My activity\n\nmine above\n\n" + text[text.index(activity.BEGIN):] + "\nmine below\n")
    add(settings, archive, 9, "2026-05-13T08:00:00.000Z", "gamma", commits=1)
    again = open(activity.rebuild(settings, archive), encoding="utf-8").read()
    assert again.startswith("# My activity\n\nmine above\n\n") and again.endswith("\nmine below\n")
    assert "gamma: sessions per week" in again and again.count(activity.BEGIN) == 1


@freeze_time(TODAY)
def test_no_session_in_twelve_weeks_says_so(settings):
    with open_archive(settings.archive) as db:
        add(settings, db, 1, "2025-01-01T10:00:00.000Z", "old")
        text = open(activity.rebuild(settings, db), encoding="utf-8").read()
    assert "No session in these weeks." in text and "```mermaid" not in text


def test_project_names_cannot_break_a_chart():
    rows = [("2026-05-12T09:00:00Z", 'a"b;c #d [[e]] `f` {g}\nh', 1)]
    text = activity.render_block(rows, __import__("datetime").date(2026, 5, 13))
    [chart, _] = charts(text)
    assert chart["title"] == "a b c d e f g h: sessions per week"
    assert "### a\"b;c \\#d \\[\\[e\\]\\] \\`f\\` {g} h (1 session)" in text


# -- the Bases view ---------------------------------------------------------------------------

def test_the_base_parses_as_yaml_with_the_keys_obsidian_expects(settings, archive):
    path = bases.ensure_base(settings, archive)
    assert path.endswith("Meta/claude-sessions.base")
    data = yaml.safe_load(open(path, encoding="utf-8").read())
    assert data["filters"] == {"and": ['file.hasTag("claude-session")', 'file.hasProperty("session_id")']}
    assert [v["name"] for v in data["views"]] == ["All sessions", "By project", "This week"]
    for view in data["views"]:
        assert view["type"] == "table" and view["order"][0] == "file.name"
        assert "note.started" in view["order"] and "note.commits" in view["order"]
        assert view["sort"] == [{"property": "note.started", "direction": "DESC"}]
    assert data["views"][1]["groupBy"] == {"property": "note.project", "direction": "ASC"}
    assert data["views"][2]["filters"] == {"and": ['note.started >= today() - "7d"']}
    assert set(data["properties"]) <= {f"note.{p}" for p in ("title", "started", "project", "branch", "duration",
                                                               "prompts", "commits")}


def test_the_base_is_written_once_and_never_overwritten_or_brought_back(settings, archive):
    path = bases.ensure_base(settings, archive)
    with open(path, "a", encoding="utf-8") as handle:
        handle.write("  - type: cards\n    name: Mine\n")
    assert bases.ensure_base(settings, archive) is None
    assert open(path, encoding="utf-8").read().endswith("name: Mine\n")
    import os
    os.remove(path)
    assert bases.ensure_base(settings, archive) is None and not os.path.exists(path)   # deleted stays deleted


def test_a_base_already_there_is_the_users(settings, archive, env):
    target = env.vault / "Meta" / "claude-sessions.base"
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text("views: []\n", encoding="utf-8")
    assert bases.ensure_base(settings, archive) is None
    assert target.read_text(encoding="utf-8") == "views: []\n"


def test_a_folder_name_with_quotes_stays_one_filter_in_the_view_of_version_1(settings, archive):
    data = yaml.safe_load(bases.render_base(folder="Meta/it's \"odd\""))
    assert data["filters"]["and"][0] == 'file.inFolder("Meta/it\'s \\"odd\\"")'


def test_a_view_exactly_as_version_1_wrote_it_is_brought_up_to_date_once_and_an_edited_one_never(settings, archive):
    path = bases.ensure_base(settings, archive)
    old = bases.render_base(folder=settings.sessions_folder)
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(old)
    archive.counters.set(bases.VERSION_COUNTER, 1)
    assert bases.ensure_base(settings, archive) == path
    assert open(path, encoding="utf-8").read() == bases.render_base()
    assert bases.ensure_base(settings, archive) is None
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(old + "# mine\n")
    archive.counters.set(bases.VERSION_COUNTER, 1)
    assert bases.ensure_base(settings, archive) is None
    assert open(path, encoding="utf-8").read() == old + "# mine\n"


def test_archiving_writes_the_history_the_activity_note_and_the_base(env):
    from testkit import FIXTURES
    target = env.config_dir / "projects" / "-home-dev-importer" / "outcomes.jsonl"
    target.parent.mkdir(parents=True)
    target.write_bytes((FIXTURES / "transcripts" / "outcomes.jsonl").read_bytes())
    assert env.run("import").returncode == 0
    meta = env.vault / "Meta"
    assert (meta / "claude-session-history.md").exists() and (meta / "claude-sessions.base").exists()
    assert activity.BEGIN in (meta / "claude-activity.md").read_text(encoding="utf-8")
