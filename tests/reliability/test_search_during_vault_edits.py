"""`search_vault.py --source index` run again and again while another process creates, renames
and deletes notes (and `reindex` runs too): no crash, and no note deleted before a search
started comes back from it."""
from __future__ import annotations

import json
import subprocess
import sys
import time

from reliability_kit import search
from testkit import CLI

WRITER = r"""
import os, random, sys, time
vault, ledger, rounds = sys.argv[1], sys.argv[2], int(sys.argv[3])
rng = random.Random(11)
live = []
def log(event, name):
    with open(ledger, "a", encoding="utf-8") as handle:
        handle.write(f"{time.time():.6f} {event} {name}\n")
for i in range(rounds):
    folder = os.path.join(vault, f"area{i % 4}")
    os.makedirs(folder, exist_ok=True)
    name = os.path.join(f"area{i % 4}", f"note {i} #odd [x].md")
    with open(os.path.join(vault, name), "w", encoding="utf-8") as handle:
        handle.write(f"# Note {i}\n\nzebraword entry {i} " + "filler words " * rng.randrange(5, 200) + "\n")
    log("created", name)
    live.append(name)
    if len(live) > 5 and rng.random() < 0.4:
        old = live.pop(rng.randrange(len(live)))
        new = old.replace(".md", " renamed.md")
        os.rename(os.path.join(vault, old), os.path.join(vault, new))
        log("gone", old)
        live.append(new)
    if len(live) > 5 and rng.random() < 0.4:
        old = live.pop(rng.randrange(len(live)))
        os.unlink(os.path.join(vault, old))
        log("gone", old)
    time.sleep(0.01)
print("done", flush=True)
"""


def test_searches_while_notes_change_never_crash_nor_return_notes_deleted_before_they_started(env, tmp_path):
    ledger = tmp_path / "ledger.txt"
    writer = subprocess.Popen([sys.executable, "-c", WRITER, str(env.vault), str(ledger), "400"],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    reindexer = None
    runs = []
    try:
        while writer.poll() is None or len(runs) < 3:
            if reindexer is None or reindexer.poll() is not None:
                if reindexer is not None:
                    assert reindexer.returncode == 0, reindexer.stderr.read()
                reindexer = subprocess.Popen([sys.executable, str(CLI), "reindex"], stdout=subprocess.PIPE,
                                             stderr=subprocess.PIPE, env=env.environ(), cwd=str(env.root))
            started = time.time()
            result = search(env, "zebraword", "--source", "index", "--json", "-n", "1000", timeout=120)
            assert result.returncode == 0, result.stderr
            assert b"Traceback" not in result.stderr
            runs.append((started, [hit["path"] for hit in json.loads(result.stdout)["results"]]))
    finally:
        writer.wait(timeout=120)
        if reindexer is not None:
            reindexer.wait(timeout=120)
    assert writer.returncode == 0, writer.stderr.read()
    assert reindexer is None or reindexer.returncode == 0, reindexer.stderr.read()   # the last one too
    gone = {}
    for line in ledger.read_text(encoding="utf-8").splitlines():
        stamp, event, name = line.split(" ", 2)
        if event == "gone":
            gone[name] = float(stamp)
    assert len(runs) >= 3 and len(gone) > 20
    for started, paths in runs:
        stale = [p for p in paths if p in gone and gone[p] < started]
        assert stale == [], f"search started at {started} returned notes deleted before it: {stale}"
    final = search(env, "zebraword", "--source", "index", "--json", "-n", "1000")
    on_disk = sorted(str(p.relative_to(env.vault)) for p in env.vault.rglob("*.md"))
    answer = json.loads(final.stdout)
    assert answer["total_results"] == len(on_disk)
    assert {hit["path"] for hit in answer["results"]} <= set(on_disk)
