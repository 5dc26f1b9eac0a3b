"""A vault file name that is not valid UTF-8 (bytes from another system, an old archive) never
takes the index down: every command answers, the note is left out and counted, and `status` and
`doctor` say how many and which. A property test covers arbitrary byte names."""
from __future__ import annotations

import json
import os
import string

import pytest
from hypothesis import HealthCheck, given, settings as hypothesis_settings, strategies as st

from obsidian_memory.search import search, store

BAD = b"bad\xff\xfename.md"


def make_vault(root) -> None:
    os.makedirs(root, exist_ok=True)
    with open(os.path.join(os.fsencode(root), BAD), "w", encoding="utf-8") as handle:
        handle.write("zebra in a note whose name is not UTF-8\n")
    os.makedirs(os.path.join(os.fsencode(root), b"folder\xff"), exist_ok=True)
    with open(os.path.join(os.fsencode(root), b"folder\xff", b"inside.md"), "w", encoding="utf-8") as handle:
        handle.write("zebra inside a folder whose name is not UTF-8\n")
    for name, text in (("Good.md", "zebra in a good note, see [[Other]]"), ("Other.md", "other zebra crossing")):
        with open(os.path.join(root, name), "w", encoding="utf-8") as handle:
            handle.write(text)


@pytest.fixture
def odd(env):
    make_vault(str(env.vault))
    return env


def test_every_command_answers_and_the_odd_names_are_counted(odd):
    reindex = odd.run("reindex")
    assert reindex.returncode == 0, reindex.stderr
    assert b"2 added" in reindex.stdout and b"2 skipped: names not valid UTF-8" in reindex.stdout
    assert b"bad\\xff\\xfename.md" in reindex.stdout and b"folder\\xff/" in reindex.stdout
    found = odd.search("zebra", "--source", "local", "--json")
    assert found.returncode == 0, found.stderr
    data = json.loads(found.stdout)
    assert data["engine"] == "index" and sorted(r["path"] for r in data["results"]) == ["Good.md", "Other.md"]
    title = odd.search("good", "--mode", "title", "--source", "local")
    assert title.returncode == 0 and b"engine: index | mode: title" in title.stdout
    for args in (["related", "Good"], ["similar", "Good"], ["read", "Good"]):
        result = odd.run(*args)
        assert result.returncode == 0, (args, result.stderr)
    status = json.loads(odd.run("status", "--json").stdout)
    assert status["index"]["notes_indexed"] == 2
    assert status["index"]["skipped"]["count"] == 2
    assert sorted(status["index"]["skipped"]["names"]) == ["bad\\xff\\xfename.md", "folder\\xff/"]
    assert b"2 skipped: names not valid UTF-8" in odd.run("status").stdout
    doctor = json.loads(odd.run("doctor", "--json").stdout)
    (index,) = [c for c in doctor["checks"] if c["name"] == "index"]
    assert index["status"] == "warn" and "bad\\xff\\xfename.md" in index["detail"]


def test_the_scanner_leaves_them_out_too_and_says_so(odd):
    found = odd.search("zebra", "--source", "scan", "--json")
    assert found.returncode == 0, found.stderr
    assert sorted(r["path"] for r in json.loads(found.stdout)["results"]) == ["Good.md", "Other.md"]
    assert b"scanner: 2 skipped" in found.stderr


NAME_BYTES = st.binary(min_size=1, max_size=30).filter(
    lambda b: b"/" not in b and b"\0" not in b and not b.startswith(b"."))


@hypothesis_settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(names=st.lists(NAME_BYTES, min_size=1, max_size=6, unique=True))
def test_any_byte_name_is_indexed_or_counted_never_fatal(tmp_path_factory, names):
    root = tmp_path_factory.mktemp("vault")
    cache = tmp_path_factory.mktemp("cache")
    for name in names:
        with open(os.path.join(os.fsencode(root), name + b".md"), "wb") as handle:
            handle.write(b"walrus " + name)
    from obsidian_memory.core import settings as settings_module

    os.environ["OBSIDIAN_MEMORY_CACHE_DIR"] = str(cache)
    try:
        settings = settings_module.Settings(str(cache / "claude"), vault=str(root))
        readable = [n for n in names if _is_utf8(n)]
        stats = store.update(settings)
        assert stats.added == len(readable) and len(stats.skipped_names) == len(names) - len(readable)
        assert all(set(shown) <= set(string.printable) or shown.isprintable() for shown in stats.skipped_names)
        for mode in ("fulltext", "title"):
            response = search("walrus", settings, source="local", mode=mode, links=True)
            assert response.engine == "index"
        response = search("walrus", settings, source="index", mode="fulltext", limit=50)
        assert sorted(h.path for h in response.hits) == sorted(n.decode() + ".md" for n in readable)
        json.dumps(response.to_dict()).encode("utf-8")
        info = store.status(settings)
        assert info["notes_indexed"] == len(readable) and info["skipped"]["count"] == len(names) - len(readable)
    finally:
        del os.environ["OBSIDIAN_MEMORY_CACHE_DIR"]


def _is_utf8(name: bytes) -> bool:
    try:
        name.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True
