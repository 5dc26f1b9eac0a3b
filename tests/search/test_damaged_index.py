"""A damaged index cache (blocks overwritten mid-file: "database disk image is malformed") is
deleted and built again by whatever meets it: a search (which says so), read, related, similar,
reindex --force; status and doctor say it is damaged until then."""
from __future__ import annotations

import json

import pytest

from obsidian_memory.search import store
from testkit import index_file


def damage(path: str) -> None:
    """Garbage over the pages of the full-text index (not over the tables a freshness check
    reads), as a disk or a sync tool overwriting blocks mid-file would leave it."""
    conn = index_file(path)
    pages = [page for (page,) in conn.execute("SELECT pageno FROM dbstat WHERE name = 'notes_fts_data'")]
    size = conn.execute("PRAGMA page_size").fetchone()[0]
    conn.close()
    assert len(pages) > 3
    with open(path, "r+b") as handle:
        for page in pages[1:]:
            handle.seek((page - 1) * size)
            handle.write(b"\xde\xad\xbe\xef" * (size // 4))


@pytest.fixture
def damaged(env):
    for n in range(300):     # words of their own, so that the word index spans several of the index's large pages
        words = " ".join(f"w{n}x{k}" for k in range(60))
        (env.vault / f"Note {n}.md").write_text(f"# Note {n}\nzebra {n} grazes near [[Note {(n + 1) % 300}]]\n"
                                                 f"{words}\n", encoding="utf-8")
    assert env.run("reindex").returncode == 0
    from obsidian_memory.core import settings as settings_module

    env.index = store.index_path(settings_module.Settings(str(env.config_dir), vault=str(env.vault)))
    damage(env.index)
    return env


def test_a_search_deletes_and_rebuilds_a_damaged_index_and_says_so(damaged):
    found = damaged.search("zebra", "--source", "index", "-n", "3", "--json")
    assert found.returncode == 0, found.stderr
    assert json.loads(found.stdout)["total_results"] == 300
    told = found.stderr.decode() + (damaged.log_file.read_text(encoding="utf-8") if damaged.log_file.exists() else "")
    assert "local index" in told and "damaged" in told
    again = damaged.search("zebra", "--source", "index", "-n", "3")
    assert again.returncode == 0 and b"damaged" not in again.stdout


@pytest.mark.parametrize("command", [["read", "Note 7"], ["related", "Note 7"], ["similar", "Note 7"],
                                     ["reindex", "--force"], ["reindex"]])
def test_every_command_rebuilds_a_damaged_index(damaged, command):
    result = damaged.run(*command)
    assert result.returncode == 0, result.stderr
    status = json.loads(damaged.run("status", "--json").stdout)["index"]
    assert "error" not in status and status["notes_indexed"] == 300


def test_doctor_says_the_index_is_damaged_until_it_is_rebuilt(damaged):
    checks = {c["name"]: c for c in json.loads(damaged.run("doctor", "--json").stdout)["checks"]}
    assert checks["index"]["status"] == "warn" and "damaged" in checks["index"]["detail"]
    assert damaged.run("reindex", "--force").returncode == 0
    checks = {c["name"]: c for c in json.loads(damaged.run("doctor", "--json").stdout)["checks"]}
    assert checks["index"]["status"] == "info", checks["index"]
