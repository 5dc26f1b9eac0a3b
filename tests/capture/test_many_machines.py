"""One vault, many machines, through the real CLI and hooks as subprocesses.

Machines are separate CLAUDE_CONFIG_DIRs (each its own HOME, archive, machine id, clone of the
repository at its own path with its own spelling of the remote URL), over one vault folder, or
over two copies of the vault synced by copying files (a sync tool's conflict copy included)."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
from archive_fixtures import session_id, write_transcript
from testkit import CLI, Env

from obsidian_memory.vault.notes.history import BEGIN, END

HISTORY = Path("Meta") / "claude-session-history.md"
SESSIONS = Path("Meta") / "claude-sessions"


def clone(path: Path, url: str) -> Path:
    """A repository at `path` whose `origin` is `url` (made by git when it is installed; else the
    same two files git would write)."""
    path.mkdir(parents=True)
    if shutil.which("git"):
        subprocess.run(["git", "init", "-q", str(path)], check=True, capture_output=True)
        subprocess.run(["git", "-C", str(path), "remote", "add", "origin", url], check=True, capture_output=True)
    else:
        (path / ".git").mkdir()
        (path / ".git" / "HEAD").write_text("ref: refs/heads/main\n", encoding="utf-8")
        (path / ".git" / "config").write_text(f'[remote "origin"]\n\turl = {url}\n', encoding="utf-8")
    return path


class Machine:
    """One machine: its own home and config folder, a machine id, a clone of the project."""

    def __init__(self, root: Path, name: str, vault: Path, url: str, clone_path: str):
        self.name = name
        self.env = Env(root / name)
        self.env.vault = vault
        self.env.vars["OBSIDIAN_VAULT"] = str(vault)
        self.repo = clone(root / name / clone_path, url)
        home = self.env.config_dir / "obsidian-memory"
        home.mkdir(parents=True, exist_ok=True)
        self.id = f"{name}-{'ab' * 3 if name == 'laptop' else 'cd' * 3}"
        (home / "machine.json").write_text(json.dumps({"id": self.id}), encoding="utf-8")

    @property
    def vault(self) -> Path:
        return self.env.vault

    def session(self, n: int, day: str, prompts: list[str], title: str) -> str:
        sid = session_id(n)
        folder = self.env.config_dir / "projects" / ("-" + str(self.repo).strip("/").replace("/", "-"))
        write_transcript(folder / f"{sid}.jsonl", sid, prompts, cwd=str(self.repo), title=title,
                         start=f"2026-03-{day}T09:00:00.000Z")
        return sid

    def run(self, *args, **kwargs) -> subprocess.CompletedProcess:
        done = self.env.run(*args, **kwargs)
        assert done.returncode == 0, (args, done.stdout.decode(), done.stderr.decode())
        return done

    def sweep(self) -> str:
        return self.run("sweep", "--quiet-seconds", "0").stdout.decode()

    def context(self, folder: Path | None = None) -> str:
        payload = {"hook_event_name": "SessionStart", "source": "startup", "session_id": "now-running",
                   "cwd": str(folder or self.repo)}
        done = self.env.hook(["session-start"], payload, cwd=folder or self.repo)
        assert done.returncode == 0 and done.stderr == b""
        return json.loads(done.stdout)["hookSpecificOutput"]["additionalContext"]

    def sessions(self, *args) -> list[dict]:
        return json.loads(self.run("sessions", "--json", "-n", "100", *args).stdout)


def history_rows(vault: Path) -> list[str]:
    text = (vault / HISTORY).read_text(encoding="utf-8")
    table = text[text.index(BEGIN):text.index(END)]
    return [line for line in table.splitlines() if line.startswith("| 2026")]


def snapshot(folder: Path) -> dict[str, tuple[bytes, int]]:
    return {str(p.relative_to(folder)): (p.read_bytes(), p.stat().st_mtime_ns)
            for p in sorted(folder.rglob("*.md"))}


@pytest.fixture
def shared(tmp_path):
    """Two machines over one vault folder, their clones at different paths and URL spellings."""
    vault = tmp_path / "vault"
    vault.mkdir()
    laptop = Machine(tmp_path, "laptop", vault, "git@github.com:Owner/Proj.git", "src/proj")
    desk = Machine(tmp_path, "desk", vault, "https://github.com/owner/proj", "work/clones/proj-main")
    return laptop, desk


def test_one_vault_folder_both_machines_sessions_listed_and_seen_in_the_other_clone(shared):
    laptop, desk = shared
    a1 = laptop.session(1, "01", ["fix the tokenizer crash"], "tokenizer crash")
    a2 = laptop.session(2, "03", ["add the release notes for 2.0"], "release notes")
    b1 = desk.session(3, "02", ["profile the slow import"], "slow import")
    laptop.run("import")
    desk.run("import")   # (when each machine's table listed only its own sessions, it showed only the desk's)
    assert [row.split(" | ")[2:4] for row in history_rows(laptop.vault)] == [
        ["release notes", "laptop-ababab"], ["slow import", "desk-cdcdcd"], ["tokenizer crash", "laptop-ababab"]]
    laptops_notes = {k: v for k, v in snapshot(laptop.vault / SESSIONS).items() if "0000000" in k and "_00000003" not in k}

    assert "learned 2 session(s) of other machines" in desk.sweep()
    assert "learned 1 session(s) of other machines" in laptop.sweep()
    assert {k: v for k, v in snapshot(laptop.vault / SESSIONS).items() if k in laptops_notes} == laptops_notes

    context = desk.context()
    assert "release notes" in context and "on laptop-ababab" in context and "slow import" in context
    # what another machine's session said (learned from a note anyone with the vault could write) stays out
    assert "Where the latest session" not in context and "answer 0" not in context
    assert "what the latest session wrote is not shown: it was learned from a note in the vault" in context
    assert context.index("release notes") < context.index("slow import")   # newest first, across machines
    assert f"session id {a2} (resume it on that machine)" in context and f"resume id {b1}" in context
    (laptop.repo / "src" / "deeper").mkdir(parents=True)
    from_subfolder = laptop.context(laptop.repo / "src" / "deeper")
    assert "tokenizer crash" in from_subfolder and "slow import" in from_subfolder and "on desk-cdcdcd" in from_subfolder

    assert [s["session_id"] for s in desk.sessions()] == [a2, b1, a1]
    assert [s["session_id"] for s in desk.sessions("--machine", "laptop")] == [a2, a1]
    assert [s["session_id"] for s in desk.sessions("--this-machine")] == [b1]
    assert [(s["machine"], s["this_machine"]) for s in laptop.sessions("--machine", "desk*")] == [("desk-cdcdcd", False)]
    found = desk.run("search", "fix the tok", "--sessions", "--machine", "laptop").stdout.decode()
    assert "tokenizer crash | on laptop-ababab" in found and "[prompt] fix the tokenizer crash" in found
    assert "No results." in desk.run("search", "tokenizer", "--sessions", "--this-machine").stdout.decode()
    shown = desk.run("show", a1[:8]).stdout.decode()
    assert 'machine: "laptop-ababab"' in shown and 'repo: "github.com/owner/proj"' in shown


def test_a_machine_never_rewrites_another_machines_note(shared):
    laptop, desk = shared
    sid = laptop.session(1, "01", ["the laptop's session"], "laptop work")
    laptop.run("import")
    note = next((laptop.vault / SESSIONS).rglob("*.md"))
    (note.parent / note.name).write_text(note.read_text("utf-8") + "\nMy thoughts, written on the desk.\n", "utf-8")
    before = note.read_bytes()
    copied = desk.env.config_dir / "projects" / "-copied" / f"{sid}.jsonl"   # the same transcript, copied over
    copied.parent.mkdir(parents=True)
    shutil.copy2(laptop.env.config_dir / "projects" / os.listdir(laptop.env.config_dir / "projects")[0] / f"{sid}.jsonl",
                 copied)
    desk.run("import")
    desk.sweep()
    assert note.read_bytes() == before
    assert "is the note of machine laptop-ababab" in desk.env.log_file.read_text("utf-8")
    assert len(history_rows(desk.vault)) == 1


def sync(source: Path, target: Path, stamp: str) -> None:
    """Copy every note of `source` that `target` lacks or holds otherwise, as a sync tool does: a
    note both sides changed (the history table) is kept in `target` and the incoming version is
    saved beside it as a Syncthing conflict copy."""
    for path in sorted(source.rglob("*.md")):
        relative = path.relative_to(source)
        there = target / relative
        if there.exists() and there.read_bytes() == path.read_bytes():
            continue
        there.parent.mkdir(parents=True, exist_ok=True)
        if there.exists() and relative == HISTORY:
            shutil.copy2(path, there.with_name(f"{there.stem}.sync-conflict-{stamp}-ABCDEF7.md"))
        else:
            shutil.copy2(path, there)


@pytest.mark.parametrize("order", ["laptop first", "desk first"])
def test_two_vault_copies_synced_by_copying_files_converge_to_the_same_bytes(tmp_path, order):
    laptop = Machine(tmp_path, "laptop", tmp_path / "vault-laptop", "git@github.com:owner/proj.git", "src/proj")
    desk = Machine(tmp_path, "desk", tmp_path / "vault-desk", "ssh://git@github.com:22/owner/proj", "w/proj")
    for machine in (laptop, desk):
        machine.vault.mkdir()
    laptop.session(1, "01", ["one"], "first on the laptop")
    laptop.session(2, "03", ["two"], "second on the laptop")
    desk.session(3, "02", ["three"], "on the desk")
    laptop.run("import")
    desk.run("import")
    first, second = (laptop, desk) if order == "laptop first" else (desk, laptop)
    sync(first.vault, second.vault, "20260304-101500")
    sync(second.vault, first.vault, "20260304-101501")
    # a conflict copy of a session note (edited on both machines before they synced)
    note = next(p for p in (desk.vault / SESSIONS).rglob("*_00000001.md"))
    note.with_name(note.stem + ".sync-conflict-20260304-101502-XYZ1234.md").write_text(
        note.read_text("utf-8") + "\nedited on the desk\n", "utf-8")
    first.sweep()
    second.sweep()
    sync(first.vault, second.vault, "20260304-101600")
    sync(second.vault, first.vault, "20260304-101601")
    assert (laptop.vault / HISTORY).read_bytes() == (desk.vault / HISTORY).read_bytes()
    activity = Path("Meta") / "claude-activity.md"   # (made of the same notes: the same bytes on a given day)
    assert (laptop.vault / activity).read_bytes() == (desk.vault / activity).read_bytes()
    assert [row.split(" | ")[2] for row in history_rows(laptop.vault)] == [
        "second on the laptop", "on the desk", "first on the laptop"]
    conflicts = sorted(p.name for p in laptop.vault.rglob("*sync-conflict*"))
    assert conflicts and not [c for c in conflicts if "-1016" in c]   # the tables agreed at the second sync
    for machine in (laptop, desk):
        assert sorted(s["session_id"] for s in machine.sessions()) == [session_id(1), session_id(2), session_id(3)]
    doctor = desk.env.run("doctor").stdout.decode()
    assert "laptop-ababab: 2 session note(s), the last 2026-03-03 09:00: second on the laptop" in doctor
    assert "desk-cdcdcd (this machine): 1 session note(s)" in doctor
    assert "2026-03-01_00000001.sync-conflict-20260304-101502-XYZ1234.md" in doctor
    assert "claude-session-history.sync-conflict-" in doctor


def test_import_from_vault_fills_a_new_or_lost_archive_with_every_session_once(shared, tmp_path):
    laptop, desk = shared
    own = [laptop.session(1, "01", ["one"], "one"), laptop.session(2, "02", ["two"], "two")]
    other = desk.session(3, "03", ["three"], "three")
    laptop.run("import")
    desk.run("import")
    newcomer = Machine(tmp_path, "new", laptop.vault, "https://github.com/owner/proj.git", "code/proj")
    out = newcomer.run("import", "--from-vault").stdout.decode()
    assert "laptop-ababab: 2 session note(s)" in out and "desk-cdcdcd: 1 session note(s)" in out
    assert out.splitlines()[-1] == "learned 3 of 3 session(s) from the vault"
    assert sorted(s["session_id"] for s in newcomer.sessions()) == sorted(own + [other])
    assert newcomer.run("import", "--from-vault").stdout.decode().splitlines()[-1] == \
        "learned 0 of 3 session(s) from the vault"
    assert "two" in newcomer.context() and "on laptop-ababab" in newcomer.context()

    laptop.env.archive_db.unlink()   # the laptop loses its archive; its transcripts are gone too
    shutil.rmtree(laptop.env.config_dir / "projects")
    assert laptop.run("import", "--from-vault").stdout.decode().splitlines()[-1] == \
        "learned 3 of 3 session(s) from the vault"
    assert [s["session_id"] for s in laptop.sessions("--this-machine")] == [own[1], own[0]]
    assert len(laptop.sessions()) == 3
    # a note naming this machine is not taken for this machine's session (any writer of the vault can
    # name it): it is shown as its note's, to resume where the note says it ran
    found = laptop.run("search", "one|three", "--sessions").stdout.decode()
    assert "| three | on desk-cdcdcd" in found and "| one | on laptop-ababab\n" in found


def test_concurrent_sweeps_on_two_machines_stay_consistent(shared):
    laptop, desk = shared
    expected = []
    for round_ in range(3):
        expected += [laptop.session(10 * round_ + 1, f"{10 + round_:02d}", ["laptop work"], f"laptop {round_}"),
                     desk.session(10 * round_ + 2, f"{10 + round_:02d}", ["desk work"], f"desk {round_}")]
        workers = [subprocess.Popen([sys.executable, str(CLI), "sweep", "--quiet-seconds", "0"], env=m.env.environ(),
                                    stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=str(m.env.root))
                   for m in (laptop, desk)]
        for worker in workers:
            out, err = worker.communicate(timeout=120)
            assert worker.returncode == 0 and err == b"", err
        rows = history_rows(laptop.vault)
        assert len(rows) == len(expected) == len(set(rows))   # every session once, whoever wrote last
    for machine in (laptop, desk):
        machine.sweep()
        assert sorted(s["session_id"] for s in machine.sessions()) == sorted(expected)
    assert not list(laptop.vault.rglob("*sync-conflict*")) and not list(laptop.vault.rglob(".obsidian-memory-tmp-*"))


def test_an_archive_from_before_machines_gets_its_machine_and_repository_at_the_next_sweep(shared):
    laptop, _ = shared
    import sqlite3

    from obsidian_memory import archive as archive_module
    sid = laptop.session(1, "01", ["older work"], "older work")
    (laptop.env.config_dir / "obsidian-memory" / "machine.json").unlink()
    laptop.run("import")
    with sqlite3.connect(laptop.env.archive_db) as db:   # as version 4 left it
        db.execute("UPDATE sessions SET machine = NULL, repo_id = NULL")
        assert db.execute("SELECT machine FROM sessions").fetchone() == (None,)
    made = json.loads((laptop.env.config_dir / "obsidian-memory" / "machine.json").read_text("utf-8"))["id"]
    with sqlite3.connect(laptop.env.archive_db) as db:
        db.execute("DELETE FROM meta WHERE key = 'machine'")
    time.sleep(0.01)
    laptop.sweep()
    with sqlite3.connect(laptop.env.archive_db) as db:
        assert db.execute("SELECT machine, repo_id, origin FROM sessions WHERE session_id = ?", (sid,)).fetchone() == \
            (made, "github.com/owner/proj", "transcript")
    note = next((laptop.vault / SESSIONS).rglob("*.md")).read_text("utf-8")
    assert f'machine: "{made}"' in note and 'repo: "github.com/owner/proj"' in note
    assert archive_module.SCHEMA_VERSION >= 5


def test_prompt_recall_on_one_machine_finds_the_other_machines_session_of_the_same_repository(shared):
    laptop, desk = shared
    crash = laptop.session(1, "01", ["the gradle kotlin daemon crashes with metaspace out of memory",
                                     "raise the kotlin daemon jvmargs to fix the metaspace crash"],
                           "kotlin daemon metaspace crash")
    laptop.session(2, "02", ["write the changelog for the release"], "changelog")
    desk.session(3, "03", ["profile the slow image import"], "slow image import")
    desk.session(4, "04", ["rename the settings screen"], "settings rename")
    laptop.run("import")
    desk.run("import")
    assert "learned 2 session(s) of other machines" in desk.sweep()

    prompt = "the kotlin daemon metaspace crash is back"
    payload = {"hook_event_name": "UserPromptSubmit", "session_id": "desk-running", "cwd": str(desk.repo),
               "prompt": prompt}
    done = desk.env.hook(["user-prompt"], payload, cwd=desk.repo)
    assert done.returncode == 0 and done.stderr == b"", done.stderr
    context = json.loads(done.stdout)["hookSpecificOutput"]["additionalContext"]
    assert "kotlin daemon metaspace crash" in context and "machine laptop-ababab" in context
    assert f"session id {crash} (resume it on that machine)" in context and f"resume id {crash}" not in context

    decision = json.loads(desk.run("recall", prompt, "--cwd", str(desk.repo), "--json").stdout)
    best = decision["candidates"][0]   # the desk's clone is the same repository: no discount
    assert (best["session_id"], best["machine"], best["same_place"]) == (crash, "laptop-ababab", True)
    own = json.loads(laptop.run("recall", prompt, "--cwd", str(laptop.repo), "--json").stdout)
    assert (own["candidates"][0]["machine"], own["candidates"][0]["same_place"]) == (None, True)
    assert f"resume id {crash}" in own["injected"]
