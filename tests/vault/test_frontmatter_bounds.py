"""A note's frontmatter is input from whoever wrote the note: YAML aliases (a 1 KB "billion
laughs"), merge keys, deep nesting and huge scalars must cost every reader of notes time and
memory in proportion to the note, and one bad note must cost nothing but itself. The real
commands as subprocesses under a memory limit, and a property test over every reader."""
from __future__ import annotations

import json
import resource
import subprocess
import sys
import time
import tracemalloc

import pytest
from hypothesis import HealthCheck, example, given, settings as hypothesis_settings, strategies as st
from testkit import CLI, SEARCH_CLI, Env, write_note

from obsidian_memory.search.reading import json_ready
from obsidian_memory.vault import frontmatter, markdown
from obsidian_memory.vault.notes import memory, session_reader, sessions, vault_sessions
from obsidian_memory.vault.privacy import Privacy

MEMORY_LIMIT = 1024 * 1024 * 1024      # of address space for a command: the bomb needs far more
COMMAND_SECONDS = 60


def alias_bomb(levels: int = 8, width: int = 9) -> str:
    lines = ['a0: &a0 ["lol"]']
    lines += [f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * width) + "]" for i in range(1, levels + 1)]
    return "\n".join(lines)


def merge_bomb(levels: int = 12) -> str:
    lines = ["m0: &m0 {k: v}"]
    lines += [f"m{i}: &m{i} {{<<: [" + ", ".join([f"*m{i - 1}"] * 9) + f"], k{i}: v}}" for i in range(1, levels + 1)]
    return "\n".join(lines)


def limited() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))


def run_limited(env: Env, script, *args) -> subprocess.CompletedProcess:
    started = time.monotonic()
    done = subprocess.run([sys.executable, str(script), *map(str, args)], capture_output=True, env=env.environ(),
                          cwd=str(env.root), timeout=COMMAND_SECONDS, preexec_fn=limited)
    assert time.monotonic() - started < COMMAND_SECONDS
    return done


@pytest.mark.parametrize("bomb", [alias_bomb, merge_bomb])
def test_a_bomb_in_one_note_costs_no_command_more_than_that_note(tmp_path, bomb):
    env = Env(tmp_path)
    write_note(env.vault, "bomb.md", f"---\n{bomb()}\ntags: [tokenizer]\n---\nbody about the tokenizer crash\n")
    write_note(env.vault, "good.md", "---\ntags: [crash]\n---\nthe tokenizer crash, fixed by pinning\n")
    write_note(env.vault, "links.md", "see [[bomb]] and [[good]]\n")
    for script, args in [(CLI, ["reindex"]), (SEARCH_CLI, ["tokenizer", "crash"]), (CLI, ["read", "bomb.md"]),
                         (CLI, ["read", "good.md"]), (CLI, ["related", "bomb.md"]), (CLI, ["sweep", "--quiet-seconds", "0"]),
                         (CLI, ["doctor"])]:
        done = run_limited(env, script, *args)
        assert b"Traceback" not in done.stderr and b"MemoryError" not in done.stderr, (args, done.stderr[-2000:])
        if script is SEARCH_CLI:
            assert b"good.md" in done.stdout, done.stdout
        if args[:2] == ["read", "good.md"]:
            assert done.returncode == 0 and b"pinning" in done.stdout
        if args[:2] == ["read", "bomb.md"]:
            assert done.returncode == 0 and b"tokenizer crash" in done.stdout
            assert len(done.stdout) < 100_000     # the note as written, not its aliases expanded


def test_aliases_and_merges_are_refused_and_plain_lines_kept():
    assert frontmatter.parse("title: x\nlist: &a [1]\nother: *a\n") == {"title": "x", "list": "&a [1]", "other": "*a"}
    assert frontmatter.parse("base: &b {k: 1}\nuse:\n  <<: *b\n") == {"base": "&b {k: 1}", "use": ""}
    assert frontmatter.parse("tags: [a, b]\ndate: 2026-01-02\n")["tags"] == ["a", "b"]
    with pytest.raises(frontmatter.Refused):
        frontmatter.load("x: " + "[" * 40 + "]" * 40)
    with pytest.raises(frontmatter.Refused):
        frontmatter.load("x: " + "y" * (frontmatter.MAX_BLOCK_CHARS + 1))
    assert frontmatter.parse(" " * 200_000) == {}


def test_a_private_note_stays_private_when_its_yaml_is_refused():
    rules = Privacy((), "private")
    assert rules.text_is_private("---\nyes: &y true\nprivate: *y\n---\nbody\n")
    assert rules.text_is_private("---\nt: &t [private]\ntags: *t\n---\nbody\n")
    assert not rules.text_is_private("---\nt: &t [work]\ntags: *t\n---\nbody\n")


# -- every reader, arbitrary frontmatter -----------------------------------------------------------

NAMES = st.text("abcxyz_", min_size=1, max_size=4)
PLAIN = st.one_of(st.text(max_size=30), st.integers(), st.sampled_from(["true", "null", "2026-01-02", "~", "''"]))


@st.composite
def yaml_blocks(draw) -> str:
    """Frontmatter YAML as a hostile writer would make it: anchors and aliases (chained, so
    that they expand), merge keys, nesting deeper than any reader expects, huge scalars, and
    what hypothesis makes of arbitrary lines."""
    lines: list[str] = []
    anchors: list[str] = []
    for index in range(draw(st.integers(1, 12))):
        key = f"{draw(NAMES)}{index}"
        kind = draw(st.sampled_from(["plain", "anchor", "alias", "merge", "deep", "huge", "text", "list", "chain"]))
        if kind == "chain":     # anchors each holding the last one several times: expands geometrically
            for link in range(draw(st.integers(2, 7))):
                name = f"c{index}_{link}"
                items = ", ".join([f"*{anchors[-1]}"] * 9) if anchors else '"lol"'
                lines.append(f"{key}{link}: &{name} [{items}]")
                anchors.append(name)
        elif kind == "anchor" or (kind in ("alias", "merge") and not anchors):
            name = f"n{index}"
            items = ", ".join([f"*{anchors[-1]}"] * draw(st.integers(1, 9))) if anchors else json.dumps(draw(st.text(max_size=8)))
            lines.append(f"{key}: &{name} [{items}]")
            anchors.append(name)
        elif kind == "alias":
            lines.append(f"{key}: *{draw(st.sampled_from(anchors))}")
        elif kind == "merge":
            lines.append(f"{key}: {{<<: *{draw(st.sampled_from(anchors))}}}")
        elif kind == "deep":
            depth = draw(st.integers(1, 3000))
            lines.append(f"{key}: " + draw(st.sampled_from(["[", "{a: "])) * depth)
        elif kind == "huge":
            lines.append(f"{key}: " + draw(st.sampled_from(["x", " ", "é", "#"])) * draw(st.integers(1, 300_000)))
        elif kind == "text":
            lines.append(draw(st.text(max_size=60)).replace("\n---", "\n-"))
        elif kind == "list":
            lines.append(f"{key}:")
            lines += [f"  - {json.dumps(draw(PLAIN), ensure_ascii=False)}" for _ in range(draw(st.integers(0, 4)))]
        else:
            lines.append(f"{key}: {json.dumps(draw(PLAIN), ensure_ascii=False)}")
    return "\n".join(lines)


def size_of(value, budget: int) -> int:
    """How big `value` is when walked (as a consumer walks it), stopping past `budget`."""
    seen = 0
    pending = [value]
    while pending and seen <= budget:
        item = pending.pop()
        seen += 1
        if isinstance(item, dict):
            pending += list(item.keys()) + list(item.values())
        elif isinstance(item, (list, tuple, set)):
            pending += list(item)
        elif isinstance(item, str):
            seen += len(item)
    return seen


def every_reader(text: str, tmp_path) -> list:
    """What each reader of notes makes of `text`."""
    path = tmp_path / "note.md"
    path.write_text(text, encoding="utf-8", errors="surrogatepass")
    stat = path.stat()
    return [
        markdown.split_frontmatter(text)[0],
        markdown.parse_note(text, "note").__dict__ if hasattr(markdown.parse_note(text, "note"), "__dict__") else None,
        vault_sessions.properties_of(text),
        vault_sessions.read_facts(str(tmp_path), "note.md", (stat.st_size, stat.st_mtime_ns, stat.st_ctime_ns),
                                  Privacy((), "private")),
        sessions.note_session_id(text),
        sessions.keep_user_properties("---\ntitle: \"t\"\ntags: [claude-session]\n---\nbody\n", text),
        session_reader.read_session(text).__dict__ if session_reader.read_session(text) else None,
        Privacy(("x/*",), "private").text_is_private(text),
        [chunk.text for chunk in markdown.chunks_of(text, "note")],
        sessions.prompts_shown(text),
        memory.state_body(text),
        [entry.text for entry in memory.learning_entries(text)],
        json_ready(markdown.parse_note(text, "note").frontmatter),      # what `read` and the MCP read give
        config_read(vault_sessions.frontmatter_block(text) or text, tmp_path),
    ]


def config_read(text: str, tmp_path):
    """What the settings reader (the same YAML reader, for a hand-written config.yaml) makes of it."""
    from obsidian_memory.core.settings import ConfigError, read_config_file

    path = tmp_path / "config.yaml"
    path.write_text(text, encoding="utf-8", errors="surrogatepass")
    try:
        return read_config_file(str(path))
    except ConfigError as exc:
        return str(exc)


@hypothesis_settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(block=yaml_blocks(), session=st.booleans())
@example(block='_0: éé\n_1: ""\n\x1b', session=False)     # (libyaml told the refused character's place in bytes)
def test_every_reader_of_notes_is_bounded_by_the_note(tmp_path_factory, block, session):
    head = 'session_id: "abc-1"\nstarted: 2026-01-02T03:04:05\n' if session else ""
    text = f"---\n{head}{block}\n---\n# Title\n\nbody text\n"
    tmp_path = tmp_path_factory.mktemp("note")
    tracemalloc.start()
    started = time.monotonic()
    try:
        results = every_reader(text, tmp_path)
        walked = size_of(results, 50 * len(text) + 20_000)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert walked <= 50 * len(text) + 20_000, "a reader gave back far more than the note holds"
    assert peak <= 200 * len(text) + 50_000_000, f"{peak:,} bytes for a {len(text):,}-character note"
    assert time.monotonic() - started < 20


def test_a_note_no_reader_can_parse_is_left_out_and_counted(tmp_path, monkeypatch):
    from obsidian_memory.core.settings import Settings
    from obsidian_memory.search import store

    env = Env(tmp_path).apply(monkeypatch)
    write_note(env.vault, "poison.md", "POISON body\n")
    write_note(env.vault, "fine.md", "a fine note\n")
    real = markdown.parse_note

    def parse_note(text, title, **options):
        if "POISON" in text:
            raise RecursionError("maximum recursion depth exceeded")
        return real(text, title, **options)

    monkeypatch.setattr(markdown, "parse_note", parse_note)
    settings = Settings(str(env.config_dir), vault=str(env.vault))
    stats = store.update(settings)
    assert stats.failed_names == ["poison.md"] and "1 left out: could not be parsed (poison.md)" in stats.summary()
    assert stats.added == 1
