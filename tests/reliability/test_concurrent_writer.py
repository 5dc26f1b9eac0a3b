"""A concurrent writer against the real hooks: an editor and a sync client (appends, in-place
rewrites, temp+rename replaces, renames, deletes) work on a session's note while SessionEnd and
PreCompact re-archive the growing session, round after round. No line the writer wrote is lost
(every line is in the note at the end, unless it was in a file the writer itself deleted) and
the session has exactly one note at the end (docs/vault-writes.md)."""
from __future__ import annotations

import json
import subprocess
import sys
import textwrap


from archive_fixtures import hook_payload, session_id, write_transcript
from testkit import CLI

from obsidian_memory.vault.notes import note_layout
from obsidian_memory.vault.notes import sessions as notes

SID = session_id(2828)
ROUNDS = 100
WRITER = textwrap.dedent('''
    import json, os, random, sys, time
    vault, sid, stop_file, out = sys.argv[1:5]
    rng = random.Random(2828)
    pending = set()    # the lines written and not yet deleted by the writer itself
    total = 0

    def the_note():
        for folder, _, names in os.walk(vault):
            for name in names:
                if name.endswith(".md") and not name.startswith("."):
                    path = os.path.join(folder, name)
                    try:
                        with open(path, encoding="utf-8") as handle:
                            if sid in handle.read(2048):
                                return path
                    except OSError:
                        pass
        return None

    n = 0
    while not os.path.exists(stop_file):
        path = the_note()
        if path is None:
            time.sleep(0.005)
            continue
        op = rng.choice(["append"] * 4 + ["inplace"] * 2 + ["replace"] * 2 + ["rename", "delete"])
        line = f"writer line {n} ({op})"
        try:
            if op == "append":
                with open(path, "a", encoding="utf-8") as handle:
                    handle.write(f"\\n{line}\\n")
            elif op == "inplace":
                with open(path, "r+", encoding="utf-8") as handle:
                    text = handle.read()
                    handle.seek(0)
                    handle.write(text.rstrip("\\n") + f"\\n\\n{line}\\n")
                    handle.truncate()
            elif op == "replace":
                with open(path, encoding="utf-8") as handle:
                    text = handle.read()
                tmp = os.path.join(os.path.dirname(path), f".sync-{n}.tmp")
                with open(tmp, "w", encoding="utf-8") as handle:
                    handle.write(text.rstrip("\\n") + f"\\n\\n{line}\\n")
                os.replace(tmp, path)
            elif op == "rename":
                folder = os.path.dirname(path)
                os.replace(path, os.path.join(folder, f"renamed {n}.md"))
                line = None
            else:   # the lines the deleted note holds are the writer's own to lose
                with open(path, encoding="utf-8") as handle:
                    text = handle.read()
                os.unlink(path)
                pending = {mine for mine in pending if mine not in text}
                line = None
        except FileNotFoundError:
            line = None           # renamed or recreated under it: not written
        if line:
            pending.add(line)
            total += 1
        n += 1
        time.sleep(rng.uniform(0.002, 0.03))
    with open(out, "w", encoding="utf-8") as handle:
        json.dump({"pending": sorted(pending), "total": total, "ops": n}, handle)
''')


def hook(env, event, transcript):
    proc = subprocess.Popen([sys.executable, str(CLI), "hook", "archive"], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env.environ(), cwd=str(env.root))
    proc.stdin.write(json.dumps(hook_payload(event, transcript, session_id=SID)).encode("utf-8"))
    proc.stdin.close()
    return proc


def session_notes(vault) -> list:
    return sorted(p for p in vault.rglob("*.md") if notes.note_session_id(p.read_text(encoding="utf-8")) == SID)


def test_a_concurrent_writer_loses_no_line_and_the_session_keeps_one_note(env, tmp_path):
    transcript = env.config_dir / "projects" / "-work-demo" / f"{SID}.jsonl"
    prompts = ["prompt 0"]
    write_transcript(transcript, SID, prompts)
    assert hook(env, "SessionEnd", transcript).wait(timeout=120) == 0
    stop, out = tmp_path / "stop", tmp_path / "writer.json"
    writer = subprocess.Popen([sys.executable, "-c", WRITER, str(env.vault), SID, str(stop), str(out)])
    try:
        running = []
        for round_ in range(1, ROUNDS + 1):
            prompts.append(f"prompt {round_}")
            write_transcript(transcript, SID, prompts)
            running.append(hook(env, "PreCompact" if round_ % 3 else "SessionEnd", transcript))
            if len(running) >= 2:          # two hooks at once, as PreCompact and SessionEnd may be
                proc = running.pop(0)
                assert proc.wait(timeout=120) == 0, proc.stderr.read()
        for proc in running:
            assert proc.wait(timeout=120) == 0, proc.stderr.read()
    finally:
        stop.write_text("stop")
        writer.wait(timeout=60)
    written = json.loads(out.read_text(encoding="utf-8"))
    prompts.append("after the writer stopped")   # one more run brings the note up to date (or back)
    write_transcript(transcript, SID, prompts)
    assert hook(env, "SessionEnd", transcript).wait(timeout=120) == 0
    env.follow_ups_done()      # a note the writer moved or deleted is the hook's detached sweep's to find
    found = session_notes(env.vault)
    assert len(found) == 1, f"the session has {len(found)} notes: {[str(p.relative_to(env.vault)) for p in found]}"
    note = found[0]
    final = note.read_text(encoding="utf-8")
    lost = [line for line in written["pending"] if line not in final]
    assert lost == [], f"{len(lost)} of {written['total']} lines lost in {written['ops']} writer operations"
    assert written["ops"] >= ROUNDS and written["total"] >= ROUNDS
    assert "after the writer stopped" in note_layout.split(final).region
    assert [p for p in env.vault.rglob(".obsidian-memory-tmp-*")] == []
