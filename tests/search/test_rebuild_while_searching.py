"""`reindex --force` reads every note into a new file beside the index, which takes the index's
place at the end: a search meanwhile answers at once from the previous index instead of waiting
for the whole rebuild, and a second --force at the same time is refused."""
from __future__ import annotations

import json
import signal
import subprocess
import sys
import time

import pytest
from testkit import CLI

NOTES = 4000


def _wait_for_the_new_file_beside_the_index(env, rebuild) -> None:
    deadline = time.monotonic() + 120
    while not any(env.config_dir.rglob("index-*.sqlite.rebuild")):
        assert rebuild.poll() is None, "the rebuild ended before it was seen under way"
        assert time.monotonic() < deadline, "no rebuild file appeared"
        time.sleep(0.005)


@pytest.mark.skipif(not hasattr(signal, "SIGSTOP"), reason="pausing the rebuild needs POSIX signals")
def test_a_search_during_reindex_force_answers_from_the_previous_index(env):
    for n in range(NOTES):
        words = " ".join(f"w{(n * 7 + k) % 5000}" for k in range(300))     # a rebuild of some seconds
        (env.vault / f"Note {n:04d}.md").write_text(f"# Note {n}\nzebra {n} {words}\n", encoding="utf-8")
    assert env.run("reindex").returncode == 0
    rebuild = subprocess.Popen([sys.executable, str(CLI), "reindex", "--force"], env=env.environ(),
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=str(env.root))
    try:
        _wait_for_the_new_file_beside_the_index(env, rebuild)
        rebuild.send_signal(signal.SIGSTOP)          # frozen half-way: the search cannot outwait it
        try:
            found = env.search("zebra", "--source", "index", "--json", timeout=60)
        except subprocess.TimeoutExpired:
            pytest.fail("the search waited for the rebuild to finish")
        finally:
            rebuild.send_signal(signal.SIGCONT)
    finally:
        out, err = rebuild.communicate(timeout=300)
    assert found.returncode == 0, found.stderr
    assert json.loads(found.stdout)["total_results"] == NOTES
    assert rebuild.returncode == 0 and f"{NOTES} updated".encode() in out, err
    after = env.search("zebra", "--source", "index", "--json")
    assert json.loads(after.stdout)["total_results"] == NOTES
