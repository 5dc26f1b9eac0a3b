"""The Bases view chooses session notes by what they are (their tag and `session_id` property),
so a session note the user moved anywhere in the vault stays in it, and the user's other notes stay
out. The view is written by the real CLI; its filters are evaluated here as Obsidian's Bases
documents them (file.hasTag, file.hasProperty, file.inFolder: an oracle written from the Help
vault's "Functions" page, refusing any other statement)."""
from __future__ import annotations

import re
from pathlib import Path

import yaml
from archive_fixtures import session_id, write_transcript


def properties(note: Path) -> dict:
    text = note.read_text(encoding="utf-8")
    if not text.startswith("---\n"):
        return {}
    return yaml.safe_load(text[4:text.index("\n---", 4)]) or {}


def holds(statement: str, vault: Path, note: Path) -> bool:
    props = properties(note)
    call = re.fullmatch(r'file\.(hasTag|hasProperty|inFolder)\("((?:[^"\\]|\\.)*)"\)', statement)
    assert call, f"the oracle does not know {statement!r}"
    function, argument = call.group(1), call.group(2).replace('\\"', '"')
    if function == "hasTag":
        tags = props.get("tags") or []
        tags = [tags] if isinstance(tags, str) else tags
        return any(t == argument or str(t).startswith(argument + "/") for t in tags)
    if function == "hasProperty":
        return argument in props
    folder = note.parent.relative_to(vault).as_posix()
    return folder == argument or folder.startswith(argument + "/")


def chosen(vault: Path) -> set[str]:
    base = yaml.safe_load((vault / "Meta" / "claude-sessions.base").read_text(encoding="utf-8"))
    statements = base["filters"]["and"]
    return {note.relative_to(vault).as_posix() for note in vault.rglob("*.md")
            if all(holds(statement, vault, note) for statement in statements)}


def test_a_session_note_moved_out_of_the_sessions_folder_stays_in_the_view(env):
    folder = env.config_dir / "projects" / "-work-demo"
    for n in (1, 2):
        write_transcript(folder / f"{session_id(n)}.jsonl", session_id(n), [f"task {n}"],
                         start=f"2026-03-0{n}T09:00:00.000Z")
    assert env.run("import").returncode == 0
    notes = {n: next(env.vault.rglob(f"*{session_id(n)[:8]}.md")) for n in (1, 2)}
    moved = env.vault / "Projects" / "demo" / "the tokenizer session.md"
    moved.parent.mkdir(parents=True)
    notes[2].rename(moved)
    (env.vault / "Projects" / "demo" / "plans.md").write_text("---\ntags: [claude-session]\n---\nmy plans\n",
                                                             encoding="utf-8")
    (env.vault / "Meta" / "claude-sessions" / "mine.md").write_text("my own note in the sessions folder\n",
                                                                   encoding="utf-8")
    assert chosen(env.vault) == {notes[1].relative_to(env.vault).as_posix(), "Projects/demo/the tokenizer session.md"}
