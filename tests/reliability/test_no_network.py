"""Nothing listens on a port, nothing reaches the network: every hook, CLI and search process
(and the sweep the SessionStart hook starts) runs under a guard that records and refuses
socket use; the Omnisearch engine's connects to 127.0.0.1 are the one thing allowed."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import time

import pytest

from archive_fixtures import copy_real, hook_payload, session_id, write_transcript
from reliability_kit import cli, fake_omnisearch_module, guarded_environ, network_events, search
from testkit import CLI, mcp_exchange

LOOPBACK = "127.0.0.1,::1"          # the Omnisearch client tries IPv4 loopback, then IPv6 loopback
LOOPBACK_HOSTS = set(LOOPBACK.split(","))


def _wait_for_exit(pids, timeout=30.0):
    deadline = time.monotonic() + timeout
    for pid in pids:
        while os.path.exists(f"/proc/{pid}") and time.monotonic() < deadline:
            time.sleep(0.05)


def _host(event) -> str | None:
    address = event.get("address")
    return address[0] if isinstance(address, list) and address else address


def _offending(events) -> list[dict]:
    """Anything but the guard loading and allowed connects (and lookups) of the loopback address."""
    return [e for e in events if e["event"] != "loaded" and not (e.get("allowed") and _host(e) in LOOPBACK_HOSTS)]


def test_the_guard_itself_refuses_and_records(env, tmp_path):
    log = tmp_path / "net.jsonl"
    code = ("import socket\n"
            "for call in (lambda s: s.bind(('127.0.0.1', 0)), lambda s: s.connect(('127.0.0.1', 9))):\n"
            "    try:\n        call(socket.socket())\n    except PermissionError as exc:\n        print('refused')\n")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, env=guarded_environ(env, log))
    assert result.stdout == b"refused\nrefused\n"
    assert [e["event"] for e in network_events(log)] == ["loaded", "bind", "connect"]


def test_hooks_commands_and_local_search_touch_no_socket(env, tmp_path):
    log = tmp_path / "net.jsonl"
    # (auto search asks Omnisearch first: 127.0.0.1:9, the discard port, where nothing answers)
    environ = guarded_environ(env, log, allow=LOOPBACK, OMNISEARCH_PORT="9")
    real = copy_real(env.config_dir / "projects")
    sid = session_id(1)
    work = env.root / "work"
    work.mkdir()
    path = write_transcript(env.config_dir / "projects" / "-work" / f"{sid}.jsonl", sid, ["zebraword task"],
                            cwd=str(work))
    (env.vault / "zebra.md").write_text("# Zebra\nzebraword\n", encoding="utf-8")

    def run(*args, stdin=None):
        result = cli(env, *args, input=stdin, environ=environ)
        assert result.returncode == 0, (args, result.stderr)
        return result

    run("hook", "archive", stdin=json.dumps(hook_payload("SessionEnd", path, session_id=sid)))
    run("hook", "archive", stdin=json.dumps(hook_payload("PreCompact", real)))
    start = run("hook", "session-start", stdin=json.dumps(
        {"session_id": session_id(2), "hook_event_name": "SessionStart", "source": "startup", "cwd": str(work)}))
    assert b"zebraword task" in start.stdout
    for args in (["import"], ["sweep", "--quiet-seconds", "0"], ["context"],
                 ["sessions"], ["show", sid[:8]], ["state", "set", "working on zebras"], ["learn", "zebras bite"],
                 ["log", "fed the zebras"], ["reindex"], ["status"], ["search", "--sessions", "zebraword"],
                 ["search", "zebraword"]):
        run(*args)
    doctor = cli(env, "doctor", environ=environ)   # exit 1: nothing is installed here; it still runs
    assert doctor.returncode in (0, 1) and b"Traceback" not in doctor.stderr and b"check" in doctor.stdout
    for source in ("index", "scan"):
        found = search(env, "zebraword", "--source", source, environ=environ)
        assert found.returncode == 0 and b"zebra.md" in found.stdout
    loaded = {e["pid"] for e in network_events(log) if e["event"] == "loaded"}
    _wait_for_exit(loaded)  # the detached sweep the SessionStart hook started
    events = network_events(log)
    assert len({e["pid"] for e in events if e["event"] == "loaded"}) >= 18   # every process was guarded
    assert _offending(events) == []
    assert not [e for e in events if e["event"] in ("bind", "listen")]


def test_auto_search_tries_only_127_0_0_1_and_the_omnisearch_engine_only_connects_there(env, tmp_path):
    log = tmp_path / "net.jsonl"
    (env.vault / "Deploy.md").write_text("deploy\n", encoding="utf-8")
    fake = fake_omnisearch_module()
    with fake.FakeOmnisearch() as server:
        server.items = [fake.item("Deploy.md", 2, excerpt="deploy")]
        environ = guarded_environ(env, log, allow=LOOPBACK, OMNISEARCH_PORT=str(server.port))
        for source in ("auto", "omnisearch"):
            found = search(env, "deploy", "--source", source, environ=environ)
            assert found.returncode == 0 and b"engine: omnisearch" in found.stdout, found.stderr
    closed = fake.closed_port()
    offline = search(env, "deploy", "--source", "auto", environ=guarded_environ(env, log, allow=LOOPBACK,
                                                                                  OMNISEARCH_PORT=str(closed)))
    assert offline.returncode == 0 and b"Deploy.md" in offline.stdout
    events = network_events(log)
    connects = [e for e in events if e["event"] in ("connect", "connect_ex")]
    assert connects and {e["address"][0] for e in connects} <= LOOPBACK_HOSTS
    assert _offending(events) == []
    assert not [e for e in events if e["event"] in ("bind", "listen", "sendto")]


def test_the_mcp_server_serves_a_search_over_stdio_without_any_socket(env, tmp_path):
    pytest.importorskip("mcp", reason="the [mcp] extra is not installed")
    log = tmp_path / "net.jsonl"
    (env.vault / "zebra.md").write_text("# Zebra\nzebraword\n", encoding="utf-8")
    requests = [{"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                 "params": {"name": "search", "arguments": {"query": "zebraword", "source": "local"}}}]
    answers = mcp_exchange([sys.executable, str(CLI), "mcp"], requests, cwd=str(env.root),
                           env=guarded_environ(env, log, allow=LOOPBACK))
    assert "zebra.md" in json.dumps(answers[2]["result"])
    events = network_events(log)
    assert [e["event"] for e in events] == ["loaded"], events
