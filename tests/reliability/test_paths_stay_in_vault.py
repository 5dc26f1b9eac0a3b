"""Paths: `--folder` leaving the vault, symlinks out of the vault (a folder and a file), odd file
names. Refused or handled by every engine, the index, `read` and the session notes; never
followed outside the vault."""
from __future__ import annotations

import json
import os

import pytest
from archive_fixtures import hook_payload, session_id, write_transcript
from reliability_kit import archive_counts, cli, fake_omnisearch_module, hook_archive, search, tree_snapshot

ODD_NAME = "Notes/a note #1 [draft] ünï 日本.md"


@pytest.fixture
def vault_with_links(env, tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.md").write_text("zebraword outside the vault\n", encoding="utf-8")
    (env.vault / "Notes").mkdir()
    (env.vault / ODD_NAME).write_text("zebraword inside with an odd name\n", encoding="utf-8")
    (env.vault / "linked-folder").symlink_to(outside, target_is_directory=True)
    (env.vault / "linked-file.md").symlink_to(outside / "secret.md")
    env.outside = outside
    return env


def _paths(result) -> list[str]:
    assert result.returncode == 0, result.stderr
    return sorted(hit["path"] for hit in json.loads(result.stdout)["results"])


@pytest.mark.parametrize("source", ["auto", "local", "index", "scan", "omnisearch"])
@pytest.mark.parametrize("folder", ["../..", "/etc", "Notes/../../x", "..\\.."])
def test_a_folder_outside_the_vault_is_refused_in_one_line(vault_with_links, source, folder):
    result = search(vault_with_links, "zebraword", "--source", source, "--folder", folder)
    assert result.returncode == 2 and result.stdout == b""
    assert result.stderr.count(b"\n") == 1 and b"vault" in result.stderr and b"Traceback" not in result.stderr


@pytest.mark.parametrize("source", ["index", "scan"])
def test_an_exclude_outside_the_vault_is_refused_too(vault_with_links, source):
    result = search(vault_with_links, "zebraword", "--source", source, "--exclude", "../..")
    assert result.returncode == 2 and result.stdout == b"" and result.stderr.count(b"\n") == 1


def test_the_scanner_never_follows_links_out_of_the_vault_and_finds_odd_names(vault_with_links):
    assert _paths(search(vault_with_links, "zebraword", "--source", "scan", "--json")) == [ODD_NAME]
    assert _paths(search(vault_with_links, "zebraword", "--source", "scan", "--json", "--folder", "linked-folder")) == []


def test_the_index_never_follows_links_out_of_the_vault(vault_with_links):
    assert cli(vault_with_links, "reindex").returncode == 0
    assert _paths(search(vault_with_links, "zebraword", "--source", "index", "--json")) == [ODD_NAME]


def test_the_index_finds_odd_file_names_by_their_exact_path(vault_with_links):
    found = _paths(search(vault_with_links, "zebraword", "--source", "index", "--json", "--folder", "Notes"))
    assert found == [ODD_NAME]


@pytest.mark.parametrize("path", ["../outside/secret.md", "linked-file.md", "linked-folder/secret.md", "/etc/passwd"])
def test_read_refuses_paths_that_resolve_outside_the_vault(vault_with_links, path):
    result = cli(vault_with_links, "read", path)
    assert result.returncode == 2 and b"outside" not in result.stdout and b"Traceback" not in result.stderr


def test_read_shows_a_note_with_an_odd_name(vault_with_links):
    result = cli(vault_with_links, "read", ODD_NAME)
    assert result.returncode == 0 and "odd name" in result.stdout.decode("utf-8")


def test_omnisearch_paths_leaving_the_vault_are_dropped(vault_with_links):
    fake = fake_omnisearch_module()
    with fake.FakeOmnisearch() as server:
        server.items = [fake.item(p, 1, excerpt="zebraword") for p in
                        ("../outside/secret.md", "/etc/passwd.md", "Notes/../../x.md", "..\\..\\x.md", ODD_NAME)]
        found = _paths(search(vault_with_links, "zebraword", "--source", "omnisearch", "--json",
                              "--port", str(server.port)))
    assert found == [ODD_NAME]


def _archive_one(env, n):
    sid = session_id(n)
    path = write_transcript(env.config_dir / "projects" / "-work-demo" / f"{sid}.jsonl", sid, [f"prompt {n}"])
    result = hook_archive(env, hook_payload("SessionEnd", path, session_id=sid))
    assert (result.returncode, result.stdout, result.stderr) == (0, b"", b"")
    return sid


def test_a_sessions_folder_linked_out_of_the_vault_is_not_written_through(env, tmp_path):
    outside = tmp_path / "outside-sessions"
    outside.mkdir()
    (env.vault / "Meta").mkdir()
    (env.vault / "Meta" / "claude-sessions").symlink_to(outside, target_is_directory=True)
    sid = _archive_one(env, 1)
    assert list(outside.iterdir()) == []
    assert archive_counts(env.archive_db)["notes"] == {sid: None}
    assert "resolves outside the vault" in env.log_file.read_text(encoding="utf-8")


def test_a_note_or_history_linked_out_of_the_vault_is_not_written_through(env, tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "target.md").write_text("someone else's file\n", encoding="utf-8")
    month = env.vault / "Meta" / "claude-sessions" / "2026-03"
    month.mkdir(parents=True)
    sid = session_id(2)
    (month / f"2026-03-04_{sid[:8]}.md").symlink_to(outside / "target.md")
    (env.vault / "Meta" / "claude-session-history.md").symlink_to(outside / "target.md")
    before = tree_snapshot(env.vault)
    assert _archive_one(env, 2) == sid
    assert (outside / "target.md").read_text(encoding="utf-8") == "someone else's file\n"
    assert tree_snapshot(env.vault) == before
    assert archive_counts(env.archive_db)["notes"] == {sid: None}


def test_odd_characters_in_the_sessions_folder_setting_are_handled(env):
    config = env.config_dir / "obsidian-memory" / "config.yaml"
    config.parent.mkdir(parents=True)
    config.write_text('sessions_folder: "Claude #sessions [ü] 日本"\n', encoding="utf-8")
    sid = _archive_one(env, 3)
    note = archive_counts(env.archive_db)["notes"][sid]
    assert note.startswith("Claude #sessions [ü] 日本/2026-03/") and (env.vault / note).is_file()


def test_a_sessions_folder_setting_leaving_the_vault_writes_nothing_outside(env, tmp_path):
    config = env.config_dir / "obsidian-memory" / "config.yaml"
    config.parent.mkdir(parents=True)
    config.write_text('sessions_folder: "../escaped"\n', encoding="utf-8")
    _archive_one(env, 4)
    assert not (env.root / "escaped").exists()
    # not a vault-relative folder: a setting that says where notes go stops the writers when it is
    # not valid, so nothing at all is written, and the log says why
    assert not env.archive_db.exists()
    assert "`sessions_folder` is '../escaped'" in env.log_file.read_text(encoding="utf-8")
    assert os.listdir(env.vault) in ([], ["Meta"])
