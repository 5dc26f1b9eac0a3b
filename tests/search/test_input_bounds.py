"""Every input of a search is bounded, so that its cost in time and memory is linear in it and
no reply echoes a huge input. The processes run under an address-space limit: a
typo-variant step quadratic in a word's length (a 10,000-character word cost over 3 GB, 800
distinct CJK characters as much) would die of it."""
from __future__ import annotations

import json
import resource
import subprocess
import sys

import pytest

from testkit import SEARCH_CLI, mcp_exchange

MEMORY = 1 << 30        # 1 GiB of address space for the whole search process


def limited() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY, MEMORY))


def search_limited(env, *args) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(SEARCH_CLI), *args, "--source", "index"], env=env.environ(),
                          capture_output=True, timeout=120, preexec_fn=limited, cwd=str(env.root))


@pytest.fixture
def indexed(env):
    for n in range(40):
        (env.vault / f"Note {n}.md").write_text(f"zebra {n} 中文 notes about the savanna\n", encoding="utf-8")
    assert env.run("reindex").returncode == 0
    return env


@pytest.mark.parametrize("word", ["".join(chr(0x4E00 + i) for i in range(800)), "zebra" * 190],
                         ids=["800 distinct CJK characters", "a 950-character word"])
def test_a_long_word_within_the_bound_is_answered_in_little_memory(indexed, word):
    result = search_limited(indexed, word)
    assert result.returncode == 0, result.stderr.decode(errors="replace")[-500:]
    assert b"MemoryError" not in result.stderr


@pytest.mark.parametrize("query", ["x" * 10_000, "word " * 20_000], ids=["a 10,000-character word", "100 KB of words"])
def test_a_query_over_the_bound_is_one_line_that_does_not_echo_it(indexed, query):
    result = search_limited(indexed, query)
    assert result.returncode == 2
    assert b"at most 1,000 characters" in result.stderr and len(result.stderr) < 300
    assert result.stdout == b""


def test_too_many_queries_or_scopes_are_refused(indexed):
    many = indexed.search(*[f"q{n}" for n in range(11)])
    assert many.returncode == 2 and b"at most 10 queries" in many.stderr
    folders = [arg for n in range(40) for arg in ("--folder", f"F{n}")]
    scoped = indexed.search("zebra", *folders)
    assert scoped.returncode == 2 and b"at most 32 --folder values" in scoped.stderr


def test_the_mcp_server_refuses_a_huge_query_in_one_small_error_and_keeps_answering(indexed):
    pytest.importorskip("mcp", reason="the MCP server needs the [mcp] extra")
    huge = {"jsonrpc": "2.0", "id": 7, "method": "tools/call",
            "params": {"name": "search", "arguments": {"query": "z" * 10_000_000}}}
    status = {"jsonrpc": "2.0", "id": 8, "method": "tools/call", "params": {"name": "status", "arguments": {}}}
    answers = mcp_exchange([sys.executable, str(SEARCH_CLI.parent / "obsidian_memory.py"), "mcp"], [huge, status],
                           env=indexed.environ(), cwd=str(indexed.root), timeout=120)
    refused = answers[7]["result"]
    assert refused["isError"] is True
    text = refused["content"][0]["text"]
    assert "query" in text and len(json.dumps(answers[7])) < 1000
    assert answers[8]["result"].get("isError") is not True
