"""`Meta/claude-activity.md`: sessions and commits per week over the last 12 weeks.

Rebuilt with the history table (beside it: the history note's folder), from the same session notes
in the vault (their `started`, `project` and `commits` properties: every machine's sessions, the
same bytes on every machine on a given day), between two markers; whatever the user wrote above or
below them is kept. The charts are Mermaid
`xychart-beta` bar charts in `mermaid` code blocks, which Obsidian renders: one per project (the
WEEKLY_PROJECTS busiest of the 12 weeks, the rest together), one of commits; a table gives the
same numbers as text. Weeks start on Monday, in local time; the last week is the current one.
"""
from __future__ import annotations

import datetime as dt
import os

from obsidian_memory.core import clock, fsutil
from obsidian_memory.vault.notes.history import between_markers
from obsidian_memory.vault.notes.sessions import VaultUnavailable
from obsidian_memory.core.textclean import markdown_inline as inline

NOTE_NAME = "claude-activity.md"
WEEKS = 12
WEEKLY_PROJECTS = 5
BEGIN = "<!-- obsidian-memory:activity:begin (rebuilt from the session notes; edit outside these markers) -->"
END = "<!-- obsidian-memory:activity:end -->"
DEFAULT_PREAMBLE = "# Claude activity\n\n"
OTHER = "other projects"
_MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")


def note_path(settings) -> str:
    """Vault-relative: beside the history note (`Meta/claude-activity.md` by default)."""
    folder = os.path.dirname(settings.history_note.strip("/"))
    return f"{folder}/{NOTE_NAME}" if folder else NOTE_NAME


def week_starts(today: dt.date, weeks: int = WEEKS) -> list[dt.date]:
    """The Mondays of the last `weeks` weeks, oldest first; the last is this week's."""
    monday = today - dt.timedelta(days=today.weekday())
    return [monday - dt.timedelta(weeks=weeks - 1 - i) for i in range(weeks)]


def tally(rows, weeks: list[dt.date]) -> tuple[dict[str, list[int]], list[int]]:
    """({project: sessions per week}, commits per week) from (started, project, commits) rows
    (`started` as a note's property says: its machine's local date and time), the projects
    busiest first, at most WEEKLY_PROJECTS of them plus OTHER."""
    index = {week: i for i, week in enumerate(weeks)}
    per_project: dict[str, list[int]] = {}
    commits = [0] * len(weeks)
    for started, project, commit_count in rows:
        try:
            day = dt.date.fromisoformat(str(started or "")[:10])
        except ValueError:
            continue
        slot = index.get(day - dt.timedelta(days=day.weekday()))
        if slot is None:
            continue
        per_project.setdefault(project or "(no project)", [0] * len(weeks))[slot] += 1
        commits[slot] += int(commit_count or 0)
    ranked = sorted(per_project.items(), key=lambda item: (-sum(item[1]), item[0]))
    shown = dict(ranked[:WEEKLY_PROJECTS])
    if len(ranked) > WEEKLY_PROJECTS:
        shown[OTHER] = [sum(counts[i] for _, counts in ranked[WEEKLY_PROJECTS:]) for i in range(len(weeks))]
    return shown, commits


def render_block(rows, today: dt.date) -> str:
    weeks = week_starts(today)
    projects, commits = tally(rows, weeks)
    labels = [_label(week) for week in weeks]
    parts = [f"Sessions and commits per week over the last {WEEKS} weeks ({labels[0]} to {labels[-1]}, "
             "weeks from Monday), from the session notes in the vault.\n"]
    if not projects:
        parts.append("\nNo session in these weeks.\n")
        return "".join(parts)
    parts.append("\n## Sessions per week\n")
    for project, counts in projects.items():
        total = sum(counts)
        parts.append(f"\n### {inline(project)} ({total} session{'' if total == 1 else 's'})\n\n")
        parts.append(xychart(f"{_chart_text(project)}: sessions per week", labels, counts, "sessions"))
    parts.append(f"\n## Commits per week\n\n{xychart('Commits per week, all projects', labels, commits, 'commits')}")
    parts.append("\n## In numbers\n\n" + _table(projects, commits, labels))
    return "".join(parts)


def xychart(title: str, labels: list[str], values: list[int], unit: str) -> str:
    """A Mermaid bar chart (xychart-beta) in a `mermaid` code block."""
    top = max(1, max(values, default=0))
    axis = ", ".join(f'"{label}"' for label in labels)
    return (f"```mermaid\nxychart-beta\n    title \"{_chart_text(title)}\"\n    x-axis [{axis}]\n"
            f"    y-axis \"{unit}\" 0 --> {top}\n    bar [{', '.join(str(v) for v in values)}]\n```\n")


def _table(projects: dict[str, list[int]], commits: list[int], labels: list[str]) -> str:
    names = list(projects)
    lines = ["| Week of | " + " | ".join(inline(n) for n in names) + " | Commits |",
             "|---|" + "---|" * len(names) + "---|"]
    for i in range(len(labels) - 1, -1, -1):   # newest first
        lines.append(f"| {labels[i]} | " + " | ".join(str(projects[n][i]) for n in names) + f" | {commits[i]} |")
    return "\n".join(lines) + "\n"


def _label(day: dt.date) -> str:
    return f"{_MONTHS[day.month - 1]} {day.day}"


def _chart_text(text: str) -> str:
    """Text for a quoted Mermaid string: one line, no quote, no characters Mermaid reads as markup."""
    cleaned = "".join(c if c.isprintable() and c not in '"`#;{}[]<>\\' else " " for c in str(text))
    return " ".join(cleaned.split())[:80]


def rebuild(settings, archive, notes: list[dict] | None = None) -> str:
    """Rewrite the activity note from the session notes in the vault (`notes`: the counted notes
    as the history table's rebuild found them; else they are listed here); returns its absolute
    path. Raises OSError."""
    if not os.path.isdir(settings.vault):
        raise VaultUnavailable(f"the vault {settings.vault} does not exist")
    target = fsutil.resolve_inside(settings.vault, note_path(settings))
    if os.path.isdir(target):
        raise IsADirectoryError(f"{target} is a folder, not a note")
    if notes is None:
        from obsidian_memory.vault.notes import vault_sessions
        notes = vault_sessions.canonical(vault_sessions.refresh(settings, archive).rows)[0]
    today = clock.now().date()
    rows = [(note["started"], note["project"], note["commits"]) for note in notes]
    existing = fsutil.read_text(target) if os.path.exists(target) else None
    text = between_markers(existing, BEGIN, END, render_block(rows, today), DEFAULT_PREAMBLE)
    if text != existing:
        fsutil.atomic_write_text(target, text)
    return target
