"""A property: whatever the vault and the private rules, no response of any command that reads
the vault contains a private note's path or a word found only in it. Vault layouts, rules and
the ways a note is made private are generated; the commands run as subprocesses (search on
every engine, Omnisearch as a real HTTP server, read, related, similar, the SessionStart hook,
and the MCP server's tools when its SDK is installed).
Public notes link to the private ones by name, and each public note must still be found, so
that hiding everything cannot pass."""
from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path

from fake_omnisearch import FakeOmnisearch, item
from hypothesis import HealthCheck, given, settings as hypothesis_settings, strategies as st

from testkit import CLI, Env, mcp_exchange, write_note

try:
    import mcp.server.mcpserver  # noqa: F401
    HAS_MCP = True
except ImportError:       # the optional [mcp] extra: the MCP tools are then left out of the property
    HAS_MCP = False

WAYS = ("folder", "glob", "note", "property", "tag", "nested tag", "inline tag", "inline tag in code")
PUBLIC_FOLDERS = ("", "Notes", "Notes/Sub", "Projects")
TAGS = st.sampled_from(["private", "Confidential", "keep-out", "x/secret"])
PROPERTY_VALUES = st.sampled_from(["true", "yes", "True", "'true'", "on", "1", "typo"])


@st.composite
def vaults(draw):
    tag = draw(TAGS)
    ways = draw(st.lists(st.sampled_from(WAYS), min_size=1, max_size=5))
    public = draw(st.lists(st.sampled_from(PUBLIC_FOLDERS), min_size=1, max_size=4))
    rules, notes = [], {}
    for n, way in enumerate(ways):
        word = f"zq{n}{draw(st.sampled_from(['vex', 'lum', 'quo']))}private"
        folder = draw(st.sampled_from(PUBLIC_FOLDERS))
        name = f"hidden{n}"
        head, body = "", f"Deploy notes {word} on rollout.\n"
        if way == "folder":
            folder = f"Vault{n}/{folder}".rstrip("/")
            rules.append(f"Vault{n}")
        elif way == "glob":
            name = f"secret-{n}"
            rules.append(f"**/secret-{n}*")
        elif way == "note":
            rules.append(f"{folder}/{name}".lstrip("/") + draw(st.sampled_from([".md", ""])))
        elif way == "property":
            head = f"---\nprivate: {draw(PROPERTY_VALUES)}\n---\n"
        elif way in ("tag", "nested tag"):
            shown = tag if way == "tag" else f"{tag}/sub"
            head = draw(st.sampled_from([f"---\ntags: [a, {shown}]\n---\n", f"---\ntags:\n  - '#{shown.upper()}'\n---\n",
                                         f"---\ntag: {shown}\n---\n"]))
        elif way == "inline tag":
            body += f"Filed under #{tag.upper() if n % 2 else tag}.\n"
        else:
            body = f"```\n#{tag}\n```\n" + body
        path = f"{folder}/{name}.md".lstrip("/")
        notes[path] = (head + f"# {name}\n" + body, word)
    for n, folder in enumerate(public):
        links = " ".join(f"[[{Path(p).stem}]]" for p in notes)
        notes[f"{folder}/public{n}.md".lstrip("/")] = (f"# public{n}\nDeploy notes pub{n}lic on rollout. {links}\n", None)
    return notes, rules, tag


def leaks(text: str, notes: dict) -> list[str]:
    found = []
    for path, (_, word) in notes.items():
        if word is not None and (word in text or path in text):
            found.append(path)
    return found


@hypothesis_settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                           HealthCheck.too_slow])
@given(layout=vaults())
def test_no_command_returns_a_private_note(layout):
    notes, rules, tag = layout
    public = sorted(p for p, (_, word) in notes.items() if word is None)
    hidden = sorted(p for p, (_, word) in notes.items() if word is not None)
    with tempfile.TemporaryDirectory() as root:
        env = Env(Path(root))
        for path, (text, _) in notes.items():
            write_note(env.vault, path, text)
        folder = env.config_dir / "obsidian-memory"
        folder.mkdir(parents=True)
        (folder / "sweep.stamp").write_text("0\n")   # a sweep ran lately: the hook starts none (it would write
                                                     # into this folder while it is removed)
        (folder / "config.yaml").write_text(
            f"private: {json.dumps(rules)}\nprivate_tag: {json.dumps(tag)}\n"
            f"state_note: {json.dumps(hidden[0])}\nlearnings_note: {json.dumps(hidden[-1])}\n", encoding="utf-8")
        with FakeOmnisearch() as fake:
            fake.items = [item(p, 10.0, excerpt=text) for p, (text, _) in notes.items()]
            runs = [env.search("deploy rollout", "--json", "-n", "50", "--source", source, "--port", str(fake.port))
                    for source in ("scan", "index", "omnisearch")]
            runs.append(env.search(" ".join(Path(p).stem for p in hidden), "--mode", "title", "--source", "index"))
            runs.append(env.run("search", "deploy", "--source", "local"))
            runs.append(env.run("read", *public))
            runs.append(env.run("related", public[0], "--depth", "3", "--json"))
            runs.append(env.run("similar", public[0], "--json"))
            runs.append(env.hook(["session-start"], {"hook_event_name": "SessionStart", "source": "startup",
                                                     "cwd": str(env.root)}))
            answers = mcp_answers(env, public, fake.port) if HAS_MCP else {}
        for result in runs:
            text = result.stdout.decode("utf-8") + result.stderr.decode("utf-8")
            assert result.returncode == 0, text
            assert leaks(text, notes) == [], (rules, tag, text)
        for result in runs[:3]:
            assert sorted(hit["path"] for hit in json.loads(result.stdout)["results"]) == public
        for answer in answers.values():
            assert leaks(json.dumps(answer), notes) == [], (rules, tag, answer)
            assert not answer["result"].get("isError"), answer
        for search in [answers[n] for n in (FIRST_ID, FIRST_ID + 1, FIRST_ID + 2) if n in answers]:
            assert sorted(hit["path"] for hit in search["result"]["structuredContent"]["results"]) == public


FIRST_ID = 10        # the ids of our requests: 1 is the exchange's own initialize


def mcp_answers(env, public: list[str], port: int) -> dict:
    """The MCP tools' answers (search on each engine, read, related, similar), by request id."""
    calls = [("search", {"query": "deploy rollout", "limit": 50, "source": source})
             for source in ("scan", "index", "omnisearch")]
    calls += [("read", {"paths": public}), ("related", {"path": public[0], "depth": 3}),
              ("similar", {"path": public[0]})]
    requests = [{"jsonrpc": "2.0", "id": n, "method": "tools/call", "params": {"name": name, "arguments": args}}
                for n, (name, args) in enumerate(calls, start=FIRST_ID)]
    answers = mcp_exchange([sys.executable, str(CLI), "mcp"], requests, env=env.environ(OMNISEARCH_PORT=port),
                           cwd=str(env.root))
    return {n: answers[n] for n in range(FIRST_ID, FIRST_ID + len(calls))}
