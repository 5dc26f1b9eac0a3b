"""The Omnisearch port found by itself in the vault's own plugin settings
(`.obsidian/plugins/omnisearch/data.json`), a configured port still winning (flag > OMNISEARCH_PORT >
config.yaml > the vault's settings > 51361), and `doctor` / `status` saying why Omnisearch does not
answer and how to turn it on. Against a real HTTP server on 127.0.0.1 (tests/fake_omnisearch.py)."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest
from fake_omnisearch import FakeOmnisearch, closed_port, item

from testkit import CLI, SEARCH_CLI


@pytest.fixture
def server():
    with FakeOmnisearch() as fake:
        fake.items = [item("Runbooks/Deploy.md", 2.0, excerpt="how we deploy")]
        yield fake


def omnisearch_settings(vault, port, enabled=True, turned_on=True):
    folder = vault / ".obsidian" / "plugins" / "omnisearch"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "data.json").write_text(json.dumps({"httpApiEnabled": enabled, "httpApiPort": str(port),
                                                  "httpApiNotice": True, "weightBasename": 10}), encoding="utf-8")
    (vault / ".obsidian" / "community-plugins.json").write_text(
        json.dumps(["omnisearch"] if turned_on else ["dataview"]), encoding="utf-8")


def run(env, script, *args, **extra_env):
    environ = env.environ(**extra_env)
    if "OMNISEARCH_PORT" not in extra_env:
        environ.pop("OMNISEARCH_PORT")   # (the test Env points it at a dead port)
    return subprocess.run([sys.executable, str(script), *map(str, args)], capture_output=True, env=environ,
                          timeout=120, cwd=str(env.root))


def engine_of(result) -> str:
    assert result.returncode == 0, result.stderr.decode()
    return json.loads(result.stdout)["engine"]


def test_the_port_comes_from_the_vaults_omnisearch_settings_when_none_is_configured(env, server):
    (env.vault / "Local.md").write_text("deploy locally\n", encoding="utf-8")
    (env.vault / "Runbooks").mkdir()     # the note of the server's hit (one that cannot be read is dropped)
    (env.vault / "Runbooks" / "Deploy.md").write_text("how we deploy\n", encoding="utf-8")
    assert engine_of(run(env, SEARCH_CLI, "deploy", "--json")) != "omnisearch"   # 51361: nothing there
    omnisearch_settings(env.vault, server.port)
    result = run(env, SEARCH_CLI, "deploy", "--json")
    assert engine_of(result) == "omnisearch"
    assert [r["path"] for r in json.loads(result.stdout)["results"]] == ["Runbooks/Deploy.md"]
    assert server.queries == ["deploy"]


def test_a_configured_port_wins_flag_over_environment_over_config_over_the_vault(env, server):
    omnisearch_settings(env.vault, server.port)
    config = env.config_dir / "obsidian-memory" / "config.yaml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(f"omnisearch_port: {closed_port()}\n", encoding="utf-8")
    assert engine_of(run(env, SEARCH_CLI, "deploy", "--json")) != "omnisearch"
    assert engine_of(run(env, SEARCH_CLI, "deploy", "--json", OMNISEARCH_PORT=server.port)) == "omnisearch"
    assert engine_of(run(env, SEARCH_CLI, "deploy", "--json", "--port", closed_port(),
                         OMNISEARCH_PORT=server.port)) != "omnisearch"
    assert engine_of(run(env, SEARCH_CLI, "deploy", "--json", "--port", server.port,
                         OMNISEARCH_PORT=closed_port())) == "omnisearch"


def omnisearch_line(env, command) -> str:
    result = run(env, CLI, command)
    lines = [line for line in result.stdout.decode().splitlines() if "omnisearch" in line]
    assert len(lines) == 1, result.stdout.decode() + result.stderr.decode()
    return lines[0]


@pytest.mark.parametrize("command", ["doctor", "status"])
def test_doctor_and_status_say_what_keeps_omnisearch_from_answering_and_how_to_fix_it(env, server, command):
    port = closed_port()
    line = omnisearch_line(env, command)
    assert "not answering on port 51361" in line and "not installed in this vault" in line
    assert "Community plugins → Browse → Omnisearch" in line

    omnisearch_settings(env.vault, port, enabled=False)
    line = omnisearch_line(env, command)
    assert f"not answering on port {port} (the vault's Omnisearch settings)" in line
    assert "HTTP server is off (Obsidian → Settings → Omnisearch → turn on the HTTP server)" in line

    omnisearch_settings(env.vault, port, enabled=True, turned_on=False)
    assert "turned off in Obsidian (Settings → Community plugins → Omnisearch)" in omnisearch_line(env, command)

    omnisearch_settings(env.vault, port, enabled=True)
    assert "Obsidian is not running or has another vault open" in omnisearch_line(env, command)

    omnisearch_settings(env.vault, server.port, enabled=True)
    assert f"answering on port {server.port} (the vault's Omnisearch settings)" in omnisearch_line(env, command)

    result = run(env, CLI, command, OMNISEARCH_PORT=port)   # configured elsewhere: said so
    text = next(x for x in result.stdout.decode().splitlines() if "omnisearch" in x)
    assert f"the vault's Omnisearch settings say {server.port}" in text


@pytest.mark.parametrize("data", ['{"httpApiEnabled": true, "httpApiPort": "seventy"}', "not json",
                                  '{"httpApiPort": "99999"}', '["a list"]', ""])
def test_unusable_plugin_settings_fall_back_to_the_default_port(env, data):
    folder = env.vault / ".obsidian" / "plugins" / "omnisearch"
    folder.mkdir(parents=True)
    (folder / "data.json").write_text(data, encoding="utf-8")
    result = run(env, CLI, "status", "--json")
    assert result.returncode == 0, result.stderr.decode()
    assert json.loads(result.stdout)["engines"]["omnisearch"]["port"] == 51361
