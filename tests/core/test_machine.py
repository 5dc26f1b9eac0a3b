"""This installation's machine id: made once, kept in machine.json, never in config.yaml."""
from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from obsidian_memory.core import machine, settings as settings_module
from testkit import REPO


@pytest.fixture
def settings(env, monkeypatch):
    env.apply(monkeypatch)
    return settings_module.load()


def test_the_id_is_a_readable_name_and_a_random_suffix_made_once(settings, monkeypatch):
    monkeypatch.setattr(machine, "host_name", lambda: "Anns-MacBook-Pro.local")
    first = machine.this_machine(settings)
    name, _, suffix = first.rpartition("-")
    assert name == "anns-macbook-pro" and len(suffix) == 6 and int(suffix, 16) >= 0
    assert machine.this_machine(settings) == first == machine.current(settings)
    with open(machine.id_path(settings.home), encoding="utf-8") as handle:
        record = json.load(handle)
    assert record["id"] == first and record["host"] == "Anns-MacBook-Pro.local" and record["created"].endswith("Z")
    assert not os.path.exists(settings.config_path)   # config.yaml is the user's: not written


def test_two_installations_on_hosts_of_one_name_get_different_ids(tmp_path):
    from testkit import Env
    ids = {machine.this_machine(settings_module.Settings(str(Env(tmp_path / n).config_dir))) for n in "ab"}
    assert len(ids) == 2


def test_processes_starting_at_once_agree_on_one_id(settings, env):
    code = "from obsidian_memory.core import machine, settings; print(machine.this_machine(settings.load()))"
    workers = [subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, env=env.environ(PYTHONPATH=REPO))
               for _ in range(6)]
    ids = {worker.communicate(timeout=60)[0].decode().strip() for worker in workers}
    assert len(ids) == 1 and ids == {machine.current(settings)}


@pytest.mark.parametrize("content", [b"not json", b'{"id": ""}', b'{"id": "has space"}', b"[1, 2]",
                                     b'{"id": "-leading-dash"}', b'\xff\xfe'])
def test_a_broken_file_is_reported_and_never_replaced(settings, content):
    path = machine.id_path(settings.home)
    os.makedirs(settings.home, exist_ok=True)
    open(path, "wb").write(content)
    with pytest.raises(machine.MachineIdError, match="machine.json"):
        machine.this_machine(settings)
    assert machine.current(settings) is None
    assert open(path, "rb").read() == content


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="this system has no FIFOs")
def test_a_fifo_for_the_file_is_reported_and_never_waited_on(env):
    """A plain open() of a FIFO waits for a writer forever: every command that asks for the id hung."""
    home = env.config_dir / "obsidian-memory"
    home.mkdir(parents=True)
    os.mkfifo(home / machine.FILE_NAME)
    done = env.run("doctor", "--json", timeout=60)
    check = {c["name"]: c for c in json.loads(done.stdout)["checks"]}["machine"]
    assert check["status"] == "fail"
    assert check["detail"].startswith(f"{home / machine.FILE_NAME} is not a regular file: fix it or delete it")
    assert env.run("sessions", timeout=60).returncode == 0


def test_an_id_the_user_chose_is_kept(settings):
    os.makedirs(settings.home, exist_ok=True)
    open(machine.id_path(settings.home), "w", encoding="utf-8").write('{"id": "work-laptop"}')
    assert machine.this_machine(settings) == "work-laptop"


@pytest.mark.parametrize("host, name", [("DESKTOP-7F3K2.corp.example.com", "desktop-7f3k2"), ("", "machine"),
                                        ("Ünïcode_Host", "n-code-host"), ("----", "machine"),
                                        ("a" * 60, "a" * 24)])
def test_readable_names(host, name):
    assert machine.readable_name(host) == name
    assert machine.valid_id(machine.new_id(host))


def test_machine_patterns_match_the_id_or_its_name():
    assert machine.matches("laptop", "laptop-3f9a2c") and machine.matches("LAP*", "laptop-3f9a2c")
    assert machine.matches("laptop-3f9a2c", "laptop-3f9a2c") and not machine.matches("desk", "laptop-3f9a2c")
    assert machine.name_of("work-laptop") == "work-laptop" and not machine.matches("x", None)
