"""Check an installation and explain, one line per check, what is wrong and how to fix it.

Each check is `ok`, `fail` (a required check: doctor exits 1), `warn` (works, but worth knowing)
or `info` (a fact, such as whether Obsidian's Omnisearch is answering).
"""
from __future__ import annotations

import glob
import json
import os
import sys

from obsidian_memory.setup import install
from obsidian_memory.core import fsutil, json_light, settings as settings_module

OK, FAIL, WARN, INFO = "ok", "fail", "warn", "info"
RUN_INSTALL = "run `python3 install.py` (or ./install.sh; Windows: `py -3 install.py`) in the obsidian-memory checkout"


class Check:
    def __init__(self, name: str, status: str, detail: str):
        self.name, self.status, self.detail = name, status, detail

    def as_dict(self) -> dict:
        return {"name": self.name, "status": self.status, "detail": self.detail}


def run_checks(settings=None) -> list[Check]:
    broken = None
    if settings is None:
        try:
            settings = settings_module.load()
        except settings_module.ConfigError as exc:
            broken = exc
    layout = install.Layout(settings.config_dir if settings else broken.config_dir)
    settings_obj, settings_problem = _read_settings(layout)
    plugin = _enabled_plugin(settings_obj or {})
    checks = [check_python(layout), check_package(layout), *check_config(settings, broken)]
    if settings:
        checks += [check_vault(settings), check_private(settings), check_excluded(settings), check_archive(settings), check_prompt_recall(settings),
                   check_machine(settings), *check_machines_in_vault(settings), *check_sync_conflicts(settings)]
    checks += [
        check_hooks(layout, settings_obj, settings_problem, plugin),
        check_skill(layout, plugin),
        check_permissions(layout, settings_obj, settings_problem, plugin),
        check_effective_permissions(layout, os.getcwd()),
        check_claude_md(layout, plugin),
    ]
    if settings:
        checks += [check_index(settings), check_omnisearch(settings), check_semantic(settings),
                   check_transcripts(settings), check_clock(settings), check_mcp_http(settings)]
    else:
        checks.append(Check("others", INFO, "vault, archive, Omnisearch, semantic search and transcripts are "
                                            "checked once the settings above are fixed"))
    return checks


def exit_code(checks: list[Check]) -> int:
    return 1 if any(c.status == FAIL for c in checks) else 0


def format_text(checks: list[Check]) -> str:
    width = max(len(c.name) for c in checks)
    lines = [f"{c.status:<4}  {c.name.ljust(width)}  {c.detail}" for c in checks]
    failed = sum(c.status == FAIL for c in checks)
    lines.append("all required checks pass" if not failed else f"{failed} required check(s) failed")
    return "\n".join(lines) + "\n"


def format_json(checks: list[Check]) -> str:
    return json.dumps({"ok": exit_code(checks) == 0, "checks": [c.as_dict() for c in checks]},
                      indent=2, ensure_ascii=False) + "\n"


# -- the checks ------------------------------------------------------------------------------

def check_python(layout) -> Check:
    version = ".".join(map(str, sys.version_info[:3]))
    if sys.version_info < (3, 10):
        return Check("python", FAIL, f"{sys.executable} is Python {version}; 3.10 or newer is needed")
    detail = f"Python {version} at {sys.executable}"
    if os.path.exists(layout.state_path) and not _same_file(layout.launcher_python, sys.executable):
        detail += f" (the hooks start with {layout.launcher_python})"
    return Check("python", OK, detail)


# the packages the hooks and commands import: (module, distribution)
DEPENDENCIES = (("yaml", "PyYAML"), ("jinja2", "Jinja2"), ("tqdm", "tqdm"))
IMPORT_PROBE = """
import importlib, json, sys
from importlib import metadata
found = {}
for module, distribution in json.loads(sys.argv[1]):
    try:
        version = metadata.version(distribution)
    except Exception:
        version = None
    try:
        importlib.import_module(module)
        found[module] = [version, None]
    except Exception as exc:
        found[module] = [version, f"{type(exc).__name__}: {exc}"]
print(json.dumps(found))
"""


def check_package(layout) -> Check:
    """Each dependency imported for real, by the interpreter the hooks run (the venv's, when there
    is one): package metadata outlives a package folder that was deleted."""
    import obsidian_memory

    python = layout.python if os.path.isfile(layout.python) else sys.executable
    wanted = list(DEPENDENCIES)
    if not _same_file(python, sys.executable):
        wanted.append(("obsidian_memory", "obsidian-memory"))
    found, problem = _import_probe(python, wanted)
    if problem:
        return Check("package", FAIL, f"cannot check the packages of {python}: {problem} ({RUN_INSTALL})")
    broken = []
    for module, distribution in wanted:
        version, error = found.get(module, (None, "not checked"))
        if error and version:
            broken.append(f"{distribution} {version} is registered but `import {module}` fails ({error})")
        elif error:
            broken.append(f"{distribution} is not installed")
    if broken:
        return Check("package", FAIL, f"{python}: {'; '.join(broken)}: {RUN_INSTALL}")
    where = os.path.dirname(os.path.abspath(obsidian_memory.__file__))
    versions = ", ".join(f"{distribution} {found[module][0]}" for module, distribution in DEPENDENCIES)
    return Check("package", OK, f"obsidian-memory {obsidian_memory.__version__} ({where}); {versions}")


def _import_probe(python: str, wanted) -> tuple[dict, str | None]:
    """{module: [version or None, import error or None]} as `python` sees them (isolated mode:
    neither the current folder nor PYTHON* variables change what it finds)."""
    import subprocess

    try:
        done = subprocess.run([python, "-I", "-c", IMPORT_PROBE, json.dumps(wanted)], capture_output=True,
                              timeout=60, stdin=subprocess.DEVNULL)
    except (OSError, subprocess.SubprocessError) as exc:
        return {}, f"{type(exc).__name__}: {exc}"
    try:
        return json.loads(done.stdout.decode("utf-8", "replace").strip().splitlines()[-1]), None
    except (ValueError, IndexError):
        tail = done.stderr.decode("utf-8", "replace").strip().splitlines()[-1:] or [f"exit {done.returncode}"]
        return {}, tail[0]


def check_config(settings, broken) -> list[Check]:
    """The settings in use, then one line per value that was not used (or why none can be)."""
    if broken:
        return [Check("config", problem.level, problem.text) for problem in broken.problems]
    path = settings.config_path
    if os.path.exists(path):
        checks = [Check("config", INFO if settings.problems else OK,
                        f"{path} (vault {settings.vault}, Omnisearch port {settings.omnisearch_port}, "
                        f"context budget {settings.effective_context_budget} chars, "
                        f"redaction {'on' if settings.redact else 'off'})")]
    else:
        checks = [Check("config", WARN, f"{path} not found: defaults in use ({RUN_INSTALL} to write it)")]
    return checks + [Check("config", problem.level, problem.text) for problem in settings.problems]


def check_vault(settings) -> Check:
    vault = settings.vault
    if not os.path.isdir(vault):
        return Check("vault", FAIL, f"{vault} does not exist: create it, or re-install with --vault PATH")
    if not os.access(vault, os.W_OK | os.X_OK):
        return Check("vault", FAIL, f"{vault} is not writable by this user")
    from obsidian_memory.vault.notes.vault_sessions import is_note_name
    from obsidian_memory.vault.sync_conflicts import copy_of

    sessions = settings.vault_path(settings.sessions_folder)
    notes = sum(1 for path in glob.glob(os.path.join(glob.escape(sessions), "**", "*.md"), recursive=True)
                if not copy_of(os.path.basename(path), is_note_name))   # (a conflict copy is no session)
    if not os.path.isdir(sessions):
        return Check("vault", OK, f"{vault} (writable; {settings.sessions_folder}/ appears with the first note)")
    return Check("vault", OK, f"{vault} (writable; {notes} session note(s) in {settings.sessions_folder}/)")


def check_private(settings) -> Check:
    """The private rules and how many notes they cover; a warning when one of the notes the
    SessionStart context quotes, or the session notes, are private (the context leaves them out)."""
    from obsidian_memory.vault.privacy import Privacy
    from obsidian_memory.search.store import VaultIndex, walk_vault

    privacy = Privacy.of(settings)
    if not os.path.isdir(settings.vault):
        return Check("private", INFO, privacy.describe())
    by_path = sum(1 for path in walk_vault(settings.vault) if privacy.path_is_private(path))
    index = VaultIndex.open_readonly(settings)
    if index is None:
        by_text = "notes private by property or tag are counted once the index is built (`reindex`)"
    else:
        with index:
            by_text = f"{index.private_count()} by property or tag (as of the last index update)"
    detail = f"{privacy.describe()}: {by_path} note(s) by folder or pattern, {by_text}"
    ours = [f"{what} {relative}" for what, relative in (("the state note", settings.state_note),
                                                         ("the learnings note", settings.learnings_note))
            if privacy.note_is_private(settings.vault, relative, unreadable=False)]
    if privacy.path_is_private(settings.sessions_folder):
        ours.append(f"the session notes in {settings.sessions_folder}/ (and their sessions)")
    if ours:
        return Check("private", WARN, f"{detail}; private, so the SessionStart context leaves them out: "
                                      + ", ".join(ours))
    return Check("private", INFO, detail)


def check_excluded(settings) -> Check:
    """How many notes Obsidian's Excluded files cover (left out of search, related and similar); a
    warning naming the entries that cannot run here."""
    from obsidian_memory.vault.excluded import APP_JSON, ExcludedFiles
    from obsidian_memory.search.store import walk_vault

    if not settings.excluded_files:
        return Check("excluded files", INFO, "not followed (excluded_files: false): search covers those notes too")
    excluded = ExcludedFiles.of(settings)
    if not os.path.isdir(settings.vault) or not (excluded or excluded.refused):
        return Check("excluded files", INFO, f"none set in Obsidian ({'/'.join(APP_JSON)})")
    covered = sum(1 for path in walk_vault(settings.vault) if excluded.covers(path))
    detail = (f"{len(excluded.prefixes) + len(excluded.expressions)} entr(ies) of Obsidian's Excluded files cover "
              f"{covered} note(s): left out of search, related and similar (excluded_files: false searches them)")
    if excluded.refused:
        shown = "; ".join(f"{entry!r}: {why}" for entry, why in excluded.refused[:5])
        return Check("excluded files", WARN, f"{detail}; left out as they cannot run here: {shown}")
    return Check("excluded files", INFO, detail)


def check_archive(settings) -> Check:
    path = settings.archive
    denied = _permission_problem(path)
    if denied:
        return Check("archive", FAIL, denied)
    if not os.path.exists(path):
        return Check("archive", OK, f"{path} not created yet: the first archived session creates it")
    from obsidian_memory import archive
    from obsidian_memory.capture import archiving as capture

    emptied = capture.archive_problem(settings)
    if emptied:
        return Check("archive", FAIL, emptied)
    verdict = archive.integrity_check(path)
    if verdict != "ok":
        return Check("archive", FAIL, f"{path} failed the integrity check ({verdict}): {archive.damage_advice(path)}")
    try:
        with archive.open_archive(path, readonly=True) as db:
            count = db.sessions.count()
            unknown = _notes_unknown_to(db, settings)
            unredacted = _stored_under_other_rules(db, settings)
    except Exception as exc:
        return Check("archive", FAIL, f"{path} cannot be opened: {type(exc).__name__}: {exc}")
    problems = []
    if unknown:
        problems.append(f"{unknown} session note(s) in {settings.sessions_folder}/ are not in it (written on another "
                        "machine and not learned yet, or the archive was emptied or replaced): the next sweep learns "
                        "them, `obsidian_memory.py import --from-vault` does it now")
    if unredacted:
        problems.append(f"{unredacted} of its sessions were stored under other redaction rules (redaction was off, a "
                        "pattern was added since, or they were archived before the rules were recorded): the next "
                        "sweep redacts them again, `obsidian_memory.py sweep` does it now")
    if problems:
        return Check("archive", WARN, f"{path} (integrity ok, {count} session(s)), but " + "; and ".join(problems))
    return Check("archive", OK, f"{path} (integrity ok, {count} session(s))")


def _stored_under_other_rules(db, settings) -> int:
    """How many sessions the sweep is to redact again (none while redaction is off)."""
    from obsidian_memory.capture.redact import rules

    return db.redaction.count_stored_under_other_rules(rules(True)) if settings.redact else 0


def _notes_unknown_to(db, settings) -> int:
    from obsidian_memory.vault.notes.sessions import session_note_ids

    if not os.path.isdir(settings.vault):
        return 0
    return sum(1 for session_id in session_note_ids(settings) if not db.sessions.find(session_id))


def check_prompt_recall(settings) -> Check:
    """Prompt recall (the UserPromptSubmit hook, registered with the others): its mode, and how
    much of the archive its index holds."""
    mode = settings.prompt_recall
    if mode == "off":
        return Check("prompt recall", INFO, "off (prompt_recall: off in config.yaml)")
    when = "the first prompt of a session" if mode == "first" else "every prompt"
    if not os.path.exists(settings.archive):
        return Check("prompt recall", OK, f"on for {when}; nothing archived yet")
    try:
        from obsidian_memory import archive
        with archive.open_archive(settings.archive, readonly=True) as db:
            if not db.recall.available():
                return Check("prompt recall", WARN, f"on for {when}, but the archive has no recall index: this "
                                                    "Python's SQLite lacks FTS5, so no past session is found")
            indexed, total = db.recall.size(), db.sessions.count()
            embedded = db.recall_vectors.count() if db.recall_vectors.has_any() else None
    except Exception as exc:
        return Check("prompt recall", WARN, f"cannot read {settings.archive}: {type(exc).__name__}: {exc}")
    rest = "" if indexed >= total else " (the background sweep and `import` index the rest)"
    meaning = "" if embedded is None else (
        f"; {embedded} of {total} embedded for recall by meaning"
        f"{'' if embedded >= total else ' (the background sweep and `embed --sessions` embed the rest)'}")
    return Check("prompt recall", OK, f"on for {when}; {indexed} of {total} archived sessions indexed{rest}{meaning}")


def check_machine(settings) -> Check:
    """This installation's machine id (machine.json), which every session note records."""
    from obsidian_memory.core import machine

    path = machine.id_path(settings.home)
    try:
        machine_id = machine.read_id(settings.home)
    except machine.MachineIdError as exc:
        return Check("machine", FAIL, f"{exc}; until then sessions are archived without a machine id")
    if not machine_id:
        return Check("machine", INFO, f"no machine id yet: the first archived session makes one in {path}")
    return Check("machine", OK, f"this machine is {machine_id} ({path})")


MAX_LISTED = 10


def check_machines_in_vault(settings) -> list[Check]:
    """The machines whose session notes are in the vault, and the last session of each."""
    from obsidian_memory.core import machine
    from obsidian_memory.vault.notes import vault_sessions

    if not os.path.isdir(settings.vault):
        return []
    counted = vault_sessions.canonical(vault_sessions.survey(settings))[0]
    if not counted:
        return []
    here = machine.current(settings)
    latest: dict = {}
    for row in counted:
        count, last = latest.get(row["machine"], (0, None))
        if last is None or (row["started"] or "") > (last["started"] or ""):
            last = row
        latest[row["machine"]] = (count + 1, last)
    checks = []
    for machine_id, (count, last) in sorted(latest.items(), key=lambda item: item[1][1]["started"] or "", reverse=True):
        name = machine_id or "(no machine recorded: notes of an earlier version)"
        when = (last["started"] or "an unknown time").replace("T", " ")[:16]
        title = " ".join((last["title"] or last["session_id"]).split())[:80]
        checks.append(Check("machines", INFO, f"{name}{' (this machine)' if machine_id and machine_id == here else ''}: "
                                              f"{count} session note(s), the last {when}: {title}"))
    return checks


def check_sync_conflicts(settings) -> list[Check]:
    """Sync conflict copies of our notes, and second notes of one session: never counted as
    sessions nor indexed; the user merges what they want to keep and deletes them."""
    from obsidian_memory.vault.notes import vault_sessions
    from obsidian_memory.vault.sync_conflicts import copy_of

    if not os.path.isdir(settings.vault):
        return []
    rows = vault_sessions.survey(settings)
    recorded = _recorded_note_paths(settings, [row["session_id"] for row in rows if row.get("session_id")])
    counted, duplicates, conflicts = vault_sessions.canonical(rows, recorded)
    note_of = {row["session_id"]: row["path"] for row in counted}
    found = [(row["path"], f"a copy of session {row['session_id']}'s note") for row in conflicts]
    found += [(row["path"], f"{_second_note_kind(settings, row['path'])} of session {row['session_id']}, whose "
                            f"note is {note_of.get(row['session_id'], '?')}") for row in duplicates]
    for note in (settings.history_note, settings.state_note, settings.learnings_note, settings.log_note):
        folder, _, name = note.strip("/").rpartition("/")
        try:
            names = os.listdir(settings.vault_path(folder) if folder else settings.vault)
        except OSError:
            continue
        found += [(f"{folder}/{other}" if folder else other, f"a copy of {note}")
                  for other in sorted(names) if copy_of(other, lambda original, name=name: original == name)]
    if not found:
        return [Check("conflicts", OK, "no sync conflict copies of our notes")]
    shown = "; ".join(f"{path} ({what})" for path, what in found[:MAX_LISTED])
    more = f"; and {len(found) - MAX_LISTED} more" if len(found) > MAX_LISTED else ""
    return [Check("conflicts", WARN, f"{len(found)} sync conflict copies or second notes, not counted as sessions nor "
                                     f"indexed: {shown}{more}. Merge what you want to keep of a copy into the session's "
                                     "note named, then delete the copy")]


def _recorded_note_paths(settings, session_ids: list[str]) -> dict[str, str]:
    """{session_id: note path} the archive recorded for this machine's own sessions ({} without one)."""
    if not session_ids or not os.path.exists(settings.archive):
        return {}
    try:
        from obsidian_memory import archive
        with archive.open_archive(settings.archive, readonly=True) as db:
            return db.sessions.own_note_paths(session_ids)
    except Exception:
        return {}


def _second_note_kind(settings, relative: str) -> str:
    """How a second note of a session is named to the user: a copy of our note (it has our
    generated part), or a note of theirs that carries the session's id (never rewritten)."""
    from obsidian_memory.vault.notes import note_layout

    text = fsutil.read_note(settings.vault, relative) or ""
    if note_layout.is_marked(text) or note_layout.looks_like_earlier_note(text):
        return "a copy"
    return "your own note (left as it is: obsidian-memory never rewrites it) carrying the id"


def check_hooks(layout, settings_obj, problem, plugin) -> Check:
    if problem:
        return Check("hooks", FAIL, problem)
    hooks = settings_obj.get("hooks", {}) if isinstance(settings_obj.get("hooks"), dict) else {}
    missing, broken, found = [], [], []
    for event in install.HOOKS:
        ours = [h for group in hooks.get(event, []) if isinstance(group, dict)
                for h in group.get("hooks", []) or [] if install.is_ours(h)]
        if not ours:
            missing.append(event)
            continue
        found.append(event)
        for handler in ours:
            problem = _command_problem(handler)
            if problem:
                broken.append(f"{event}: {problem}")
    if not found and plugin:
        return Check("hooks", OK, f"provided by the plugin {plugin}")
    if broken:
        return Check("hooks", FAIL, "; ".join(broken) + f" ({RUN_INSTALL})")
    if missing:
        return Check("hooks", FAIL, f"not registered in {layout.settings_json}: {', '.join(missing)} ({RUN_INSTALL})")
    return Check("hooks", OK, f"{', '.join(found)} registered; interpreter and launcher present")


def _command_problem(handler: dict) -> str | None:
    try:
        argv = [part for part in install.hook_argv(handler) if not part.startswith("-")]
    except ValueError:
        return f"cannot parse the command {handler.get('command')!r}"
    if len(argv) < 2:
        return f"unexpected command {install.describe_handler(handler)!r}"
    interpreter, script = argv[0], argv[1]
    if not os.path.isfile(interpreter) or not os.access(interpreter, os.X_OK):
        return f"interpreter {interpreter} is missing or not executable"
    if not os.path.isfile(script):
        return f"launcher {script} is missing"
    return None


def check_skill(layout, plugin) -> Check:
    text = _read(layout.skill_md)
    if text is None:
        if plugin:
            return Check("skill", INFO, f"no personal skill; the plugin {plugin} ships vault-search")
        return Check("skill", FAIL, f"{layout.skill_md} is missing ({RUN_INSTALL})")
    wanted = install.agent_prefixes(layout)
    if not all(prefix in text for prefix in wanted):
        return Check("skill", FAIL, f"{layout.skill_md} does not name this installation's commands ({RUN_INSTALL})")
    missing = [p for p in (layout.launcher_python, *map(layout.launcher, install.LAUNCHERS)) if not os.path.isfile(p)]
    if missing:
        return Check("skill", FAIL, f"the commands in {layout.skill_md} need missing files: {', '.join(missing)}")
    return Check("skill", OK, f"{layout.skill_md} (commands match this installation)")


def check_permissions(layout, settings_obj, problem, plugin) -> Check:
    if problem:
        return Check("permissions", FAIL, problem)
    permissions = settings_obj.get("permissions") if isinstance(settings_obj.get("permissions"), dict) else {}
    allow = permissions.get("allow") if isinstance(permissions.get("allow"), list) else []
    missing = [rule for rule in (*install.permission_rules(layout), *install.SHARED_RULES) if rule not in allow]
    if missing and plugin and not any(install.is_our_rule(r) for r in allow):
        return Check("permissions", INFO, "no permissions.allow rules (plugin install): Claude Code asks before "
                                          "the skill runs, and versions before 2.1.332 before each vault search")
    if missing:
        return Check("permissions", FAIL, f"permissions.allow lacks {', '.join(missing)} ({RUN_INSTALL})")
    return Check("permissions", OK, "the vault-search skill, both search commands and `read` are "
                                    "pre-approved in permissions.allow")


MANAGED_SETTINGS_ENV = "OBSIDIAN_MEMORY_MANAGED_SETTINGS"   # where doctor looks for managed settings (tests)


def managed_settings_path() -> str:
    """Where Claude Code reads the managed (organisation) settings on this platform."""
    if os.environ.get(MANAGED_SETTINGS_ENV):
        return os.environ[MANAGED_SETTINGS_ENV]
    if sys.platform == "darwin":
        return "/Library/Application Support/ClaudeCode/managed-settings.json"
    if os.name == "nt":
        return os.path.join(os.environ.get("ProgramData", r"C:\ProgramData"), "ClaudeCode", "managed-settings.json")
    return "/etc/claude-code/managed-settings.json"


def settings_files(layout, cwd: str) -> list[tuple[str, str]]:
    """(what, path) of the settings files Claude Code reads, highest precedence first: managed,
    the project's local and shared settings (of the folder Claude Code starts in), the user's."""
    return [("managed settings", managed_settings_path()),
            ("the project's local settings", os.path.join(cwd, ".claude", "settings.local.json")),
            ("the project's settings", os.path.join(cwd, ".claude", "settings.json")),
            ("your settings", layout.settings_json)]


def check_effective_permissions(layout, cwd: str) -> Check:
    """Whether a settings file Claude Code reads denies (or makes it ask for) what the install
    pre-approves: the skill and the two search commands. Deny wins at every level, and managed
    settings with `allowManagedPermissionRulesOnly` make every other file's allow rules void."""
    search, sessions, read = install.agent_prefixes(layout)
    ours = {"the vault search": ("Bash", f'{search} "words"'), "the sessions search": ("Bash", f'{sessions} --sessions "x"'),
            "reading a note": ("Bash", f'{read} "Note.md"'), "the vault-search skill": ("Skill", install.SKILL_NAME)}
    problems = []
    for what, path in settings_files(layout, cwd):
        data = _json_file(path)
        permissions = data.get("permissions") if isinstance(data.get("permissions"), dict) else {}
        for kind, verb in (("deny", "denies"), ("ask", "asks before")):
            rules = [r for r in permissions.get(kind) or [] if isinstance(r, str)] if isinstance(permissions.get(kind), list) else []
            hit = sorted({name for name, (tool, call) in ours.items() for rule in rules if rule_matches(rule, tool, call)})
            if hit:
                problems.append(f"{what} ({path}) {verb} {', '.join(hit)}")
        if what == "managed settings" and data.get("allowManagedPermissionRulesOnly") is True:
            problems.append(f"{what} ({path}) allow only their own permission rules: the install's are ignored")
    if problems:
        return Check("effective permissions", WARN, "; ".join(problems) + ": Claude Code follows these over the "
                     "install's permissions.allow, so vault searches need approval or fail there")
    return Check("effective permissions", OK, "no settings file Claude Code reads denies the skill or the searches")


def rule_matches(rule: str, tool: str, call: str) -> bool:
    """Whether a permission rule (`Bash`, `Bash(prefix *)`, `Bash(*search*)`, `Skill(name)`)
    covers the `call` of `tool`: `*` matches any run of characters, as Claude Code's rules do."""
    import fnmatch

    rule = rule.strip()
    if rule in (tool, f"{tool}(*)"):
        return True
    if not (rule.startswith(tool + "(") and rule.endswith(")")):
        return False
    pattern = rule[len(tool) + 1:-1]
    if pattern.endswith(":*"):                          # the older prefix form `Bash(npm run:*)`
        pattern = pattern[:-2] + " *"
    escaped = pattern.replace("[", "[[]").replace("?", "[?]")
    return fnmatch.fnmatchcase(call, escaped)


def _json_file(path: str) -> dict:
    found = json_light.read_json(path, 1_000_000)
    return {} if isinstance(found, json_light.Unread) else found


def check_claude_md(layout, plugin) -> Check:
    text = _read(layout.claude_md)
    if text is not None and install.BLOCK_BEGIN in text and install.BLOCK_END in text:
        return Check("CLAUDE.md", OK, f"{layout.claude_md} holds the search directive")
    if plugin:
        return Check("CLAUDE.md", INFO, "no standing directive in CLAUDE.md (plugin install)")
    return Check("CLAUDE.md", FAIL, f"{layout.claude_md} lacks the obsidian-memory block ({RUN_INSTALL})")


def check_index(settings) -> Check:
    """Information, or a warning when the local index leaves notes out or cannot be read."""
    from obsidian_memory.search import store
    from obsidian_memory.search.store.build import cut_text, skipped_text

    info = store.status(settings)
    if info.get("error"):
        return Check("index", WARN, info["error"])
    if not info["exists"]:
        return Check("index", INFO, "not built yet: the first local search or `reindex` builds it")
    verdict = store.integrity(settings)
    if verdict != "ok":
        return Check("index", WARN, f"{info['index_path']} is damaged ({verdict}): the next search or reindex "
                                    f"deletes it and builds it again")
    detail = f"{info['notes_indexed']} notes ({info['index_path']}; {info['sqlite']})"
    if info["cut"]["count"]:
        detail += f"; {cut_text(info['cut'])}"
    if info["skipped"]["count"]:
        return Check("index", WARN, f"{detail}; {skipped_text(info['skipped']['names'], info['skipped']['count'])}")
    return Check("index", INFO, detail)


def check_omnisearch(settings) -> Check:
    """Information only: whether Omnisearch answers on the port in use, and if not, what to do."""
    from obsidian_memory.vault import omnisearch_plugin
    from obsidian_memory.setup.status import probe_omnisearch

    answering = probe_omnisearch(settings.omnisearch_port, timeout=0.8)["answers"]
    return Check("omnisearch", INFO, omnisearch_plugin.describe(settings.vault, settings.omnisearch_port, answering))


def check_semantic(settings) -> Check:
    """Information only: semantic search is an optional extra, and full-text search works without it."""
    from obsidian_memory.setup.status import semantic_status

    info = semantic_status(settings)
    if not info["available"]:
        hint = "" if "--semantic" in info["reason"] else " (optional: install.py --semantic adds it)"
        return Check("semantic", INFO, f"off: {info['reason']}{hint}; searches use full text")
    embedded = (f"{info['embedded']} of {info['notes']} indexed notes embedded" if info["notes"] >= info["embedded"] > 0
                else f"{info['embedded']} note(s) embedded")  # the index may lag behind, or not exist yet
    if info["on"]:
        return Check("semantic", INFO, f"on ({info['model']}): {embedded}, "
                                       f"{info['size_bytes'] / 1048576:.1f} MB; searches default to hybrid")
    return Check("semantic", INFO, f"installed ({info['model']}) but off: {info['off_reason']} ({embedded})")


def check_transcripts(settings) -> Check:
    """What `import` would archive now: the very same list and comparison (a dry run)."""
    from obsidian_memory.capture import archiving as capture

    transcripts = capture.transcript_paths(settings)
    if not transcripts:
        return Check("transcripts", INFO, f"none under {settings.projects_dir}")
    if capture.archive_problem(settings):
        return Check("transcripts", INFO, f"{len(transcripts)} found; import waits until the archive is repaired "
                                          "(see archive)")
    try:
        waiting = len(capture.import_transcripts(settings, dry_run=True, progress=False).would_archive)
    except capture.ArchiveDamaged:
        return Check("transcripts", INFO, f"{len(transcripts)} found; import waits until the archive is repaired "
                                          "(see archive)")
    except Exception as exc:
        return Check("transcripts", WARN, f"{len(transcripts)} found; cannot compare with the archive: {exc}")
    if waiting:
        return Check("transcripts", INFO, f"{waiting} of {len(transcripts)} not archived yet: "
                                          f"run `obsidian_memory.py import`")
    return Check("transcripts", INFO, f"all {len(transcripts)} archived")


def check_clock(settings) -> Check:
    """A warning when the sweep stamp or transcripts carry times from the future: a clock was wrong
    once. They are treated as stale (the sweep starts and archives them), but the times the
    archive learned then may be off."""
    import time

    from obsidian_memory.capture import archiving as capture
    from obsidian_memory.core import clock

    now, found = time.time(), []
    try:
        if clock.from_the_future(os.stat(settings.sweep_stamp).st_mtime, now):
            found.append("the sweep stamp")
    except OSError:
        pass
    ahead = 0
    for path in capture.transcript_paths(settings):
        try:
            ahead += clock.from_the_future(os.path.getmtime(path), now)
        except OSError:
            continue
    if ahead:
        found.append(f"{ahead} transcript(s)")
    if not found:
        return Check("clock", OK, "no stamp or transcript from the future")
    return Check("clock", WARN, f"{' and '.join(found)} modified in the future (a clock was wrong once): "
                                "treated as stale, so the sweep goes on; check the system clock")


def check_mcp_http(settings) -> Check:
    """The opt-in HTTP MCP server: running or not, a state file left behind, and a token file that
    others could read (a failure: whoever read it can call the tools)."""
    from obsidian_memory.setup.status import mcp_http_status

    info = mcp_http_status(settings)
    token = info["token"]
    if token.get("problem"):
        return Check("mcp http", FAIL, f"the token file is refused: {token['problem']}")
    mode = f"; token file {token['path']} mode {token['mode']}" if token.get("exists") else ""
    if info["running"]:
        return Check("mcp http", INFO, f"{info['detail']}{mode}")
    if info["stale"]:
        return Check("mcp http", WARN, info["detail"] + mode)
    service = install.service_file()
    if service and os.path.isfile(service):
        return Check("mcp http", INFO, f"not running; its user service {service} is installed: "
                                       f"{install.enable_hint(service)}{mode}")
    return Check("mcp http", INFO, "off (optional: `obsidian_memory.py mcp --http`, or `install.py --mcp-http` "
                                   f"for a user service){mode}")


# -- helpers ------------------------------------------------------------------------------------

def _permission_problem(path: str) -> str | None:
    """Why this user cannot write the SQLite file `path` (its folder holds the -wal and -shm files
    beside it), or None."""
    folder = os.path.dirname(path)
    while folder and not os.path.exists(folder) and os.path.dirname(folder) != folder:
        folder = os.path.dirname(folder)   # the first folder that exists is where it gets created
    for target, needs, fix in ((folder, os.W_OK | os.X_OK, "u+rwx"), (path, os.R_OK | os.W_OK, "u+rw"),
                               (path + "-wal", os.R_OK | os.W_OK, "u+rw"), (path + "-shm", os.R_OK | os.W_OK, "u+rw")):
        if os.path.exists(target) and not os.access(target, needs):
            kind = "folder" if os.path.isdir(target) else "file"
            return (f"permission problem: the {kind} {target} is not {'writable' if kind == 'folder' else 'readable and writable'} "
                    f"by this user ({_owner_and_mode(target)}), so sessions cannot be archived: "
                    f"`chmod {fix} {target}` (or chown it to this user)")
    return None


def _owner_and_mode(path: str) -> str:
    import stat

    info = os.stat(path)
    return f"owner uid {info.st_uid}, mode {stat.filemode(info.st_mode)}"


def _read_settings(layout):
    try:
        data = install.read_bytes(layout.settings_json)
        return install.parse_settings(layout.settings_json, data), None
    except Exception as exc:
        return None, str(exc)


def _enabled_plugin(settings_obj: dict) -> str | None:
    enabled = settings_obj.get("enabledPlugins")
    if isinstance(enabled, dict):
        for name, on in enabled.items():
            if on and str(name).split("@")[0] == settings_module.PLUGIN:
                return str(name)
    return None


def _read(path: str) -> str | None:
    return fsutil.read_text(path)


def _same_file(a: str, b: str) -> bool:
    # not samefile(): a venv's python is a symlink to the interpreter it was made from
    return os.path.normcase(os.path.abspath(a)) == os.path.normcase(os.path.abspath(b))
