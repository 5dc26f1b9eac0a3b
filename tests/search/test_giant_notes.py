"""A giant note (a log pasted into the vault): search indexes, scores and excerpts its first
SEARCHED_BYTES only, and says so in `status` and `doctor`; whether it is private is still judged
from all of it. Through the real CLIs as subprocesses."""
from __future__ import annotations

import json

import pytest
from hypothesis import given, settings, strategies as st

from testkit import write_note

from obsidian_memory.vault.markdown import SEARCHED_BYTES, searched_part

FILLER = "## Day entry\n\nThe deploy log: parser cache invalidation and the loader retry budget.\n\n"


def giant(head_word: str, tail_word: str, tail: str = "") -> str:
    """A note of ~3 searched parts: `head_word` in its first lines, `tail_word` (and `tail`) at its end."""
    body = FILLER * (3 * SEARCHED_BYTES // len(FILLER))
    return f"# Giant log\n\nStarted with {head_word}.\n\n{body}Ended with {tail_word}.\n{tail}"


def found(env, word: str, source: str) -> list[str]:
    result = env.search(word, "--json", "--source", source, "-n", "20")
    assert result.returncode == 0, result.stderr
    return [hit["path"] for hit in json.loads(result.stdout)["results"]]


@pytest.mark.parametrize("source", ["index", "scan"])
def test_the_first_part_of_a_giant_note_is_searched_the_rest_is_not(env, source):
    write_note(env.vault, "Logs/Giant log.md", giant("tangerinewombat", "periwinkleyak"))
    write_note(env.vault, "Notes/Small.md", "# Small\n\nAlso about tangerinewombat.\n")
    assert sorted(found(env, "tangerinewombat", source)) == ["Logs/Giant log.md", "Notes/Small.md"]
    assert found(env, "periwinkleyak", source) == []
    result = env.search("deploy loader", "--json", "--source", source)
    excerpt = json.loads(result.stdout)["results"][0]["excerpt"]
    assert "loader" in excerpt and len(excerpt) < 1000


@pytest.mark.parametrize("source", ["index", "scan"])
def test_a_private_tag_past_the_searched_part_keeps_the_giant_note_out(env, source):
    write_note(env.vault, "Logs/Giant log.md", giant("tangerinewombat", "the end", tail="#private\n"))
    assert found(env, "tangerinewombat", source) == []
    refused = env.run("read", "Logs/Giant log.md")
    assert refused.returncode == 2 and "is a private note" in refused.stderr.decode()
    assert "tangerinewombat" not in refused.stdout.decode() + refused.stderr.decode()


def test_status_and_doctor_count_what_is_left_out(env):
    write_note(env.vault, "Logs/Giant log.md", giant("tangerinewombat", "periwinkleyak"))
    write_note(env.vault, "Notes/Small.md", "# Small\n")
    assert env.run("reindex").returncode == 0
    status = json.loads(env.run("status", "--json").stdout)
    cut = status["index"]["cut"]
    size = (env.vault / "Logs" / "Giant log.md").stat().st_size
    assert cut == {"count": 1, "bytes": size - SEARCHED_BYTES, "searched_bytes": SEARCHED_BYTES}
    assert "1 note over 1 MB" in env.run("status").stdout.decode()
    assert "1 note over 1 MB" in env.run("doctor").stdout.decode()


@settings(deadline=None, max_examples=60)
@given(st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=300), st.integers(1, 4))
def test_the_searched_part_is_the_longest_whole_character_prefix_within_the_bytes(text, copies):
    text = text * (copies * (SEARCHED_BYTES // max(1, len(text.encode())) // 2 + 1)) if text else text
    part = searched_part(text)
    assert text.startswith(part) and len(part.encode("utf-8")) <= SEARCHED_BYTES
    if len(text.encode("utf-8")) <= SEARCHED_BYTES:
        assert part == text
    else:
        assert len(text[:len(part) + 1].encode("utf-8")) > SEARCHED_BYTES
