"""Wire Claude Code to obsidian-memory, and unwire it exactly.

The only module that edits the user's Claude Code files. Every run first computes a plan (a list
of actions, each changing one thing), then prints it (`--dry-run`) or carries it out. A plan
holds only real changes, so a second install plans nothing and writes nothing.

What an install adds, and what an uninstall takes away again:
- `$CLAUDE_CONFIG_DIR/obsidian-memory/bin/` — copies of the launcher scripts (scripts/);
- `config.yaml` there (kept on re-install and on uninstall; `--purge` removes it);
- in `settings.json`: five hook handlers and three `permissions.allow` rules (the two searches and `read`), recognised by the
  `obsidian-memory/bin/` path in their command or arguments, and the rule `Skill(vault-search)`
  unless the user already had it (`install-state.json` remembers that we added it: it names no
  path of ours). A hook runs the launcher with the Python the installer ran with (the one the venv
  is made from), not the venv's: with the venv or the package gone, the hook still starts, logs why
  and exits 0. It is written in exec form (`command` + `args`, no shell: Claude Code >= 2.1.139,
  and the only form that survives Windows quoting), or as a shell command line when an older
  `claude` is found on PATH;
- `skills/vault-search/SKILL.md`, rendered from `templates/vault-search.SKILL.md.j2` with the real
  absolute paths;
- one block in `CLAUDE.md` between `<!-- obsidian-memory:begin -->` and `<!-- obsidian-memory:end -->`;
- `Meta/` and `Meta/claude-sessions/` in the vault when missing.

To give settings.json and CLAUDE.md back byte for byte, `install-state.json` remembers each file
as it was without us ("pristine") and the digest of what we wrote. On uninstall, a file we
wrote and nobody touched since is replaced by its pristine bytes (or removed if it did not
exist); a file the user edited in between keeps their edits and loses only our entries. A file
that is a symbolic link (dotfiles kept in a repository) is written through: its target changes,
the link stays a link; and a file keeps its permissions (settings.json may hold secrets in `env`).

Uninstall also removes what only we use (the venv, bin/, cache/, locks/, sweep.stamp, vault-pending/,
transcript-reads/, and backups/, whose copies of settings.json may hold the user's secrets) and
says what it keeps: config.yaml, the log, sessions-off, the session archive and the notes in the
vault (`--purge` deletes all but the notes).
"""
from __future__ import annotations

import base64
import difflib
import hashlib
import json
import os
import re
import shlex
import shutil
import subprocess
import sys

from obsidian_memory.core import fsutil, json_light, settings as settings_module
from obsidian_memory.mcp import endpoint as mcp_endpoint
from obsidian_memory.core.errors import UserError

BLOCK_BEGIN = "<!-- obsidian-memory:begin -->"
BLOCK_END = "<!-- obsidian-memory:end -->"
OWN_MARK = "obsidian-memory/bin/"          # in every command we write, and in nothing else
LAUNCHERS = ("obsidian_memory.py", "search_vault.py", "_launcher.py")
EXECUTABLE_LAUNCHERS = ("obsidian_memory.py", "search_vault.py")
SKILL_NAME = "vault-search"
SKILL_TEMPLATE = ("templates", "vault-search.SKILL.md.j2")
PLUGIN_SKILL = ("skills", SKILL_NAME, "SKILL.md")
# Rules that name no path of ours, so only install-state.json can tell that we added them. Claude
# Code asks (or, in `-p` mode, denies) before a skill with `allowed-tools` runs, unless allowed.
SHARED_RULES = (f"Skill({SKILL_NAME})",)
STATE_VERSION = 1
EXEC_FORM_SINCE = (2, 1, 139)   # Claude Code runs `command` + `args` without a shell from this version

# event -> (matcher or None, `hook` argument, timeout in seconds)
HOOKS = {
    "SessionStart": ("startup|resume|clear|compact|fork", "session-start", 10),
    "UserPromptSubmit": (None, "user-prompt", 5),   # prompt recall; a timed-out hook's output is dropped
    "SessionEnd": (None, "archive", 30),     # a settings-file timeout also raises the 1.5 s end budget
    "PreCompact": (None, "archive", 30),
    "PostCompact": (None, "archive", 30),
}
NEW_CONFIG_KEYS = ("vault", "context_budget", "excluded_projects", "redact", "prompt_recall")


# -- where everything lives ------------------------------------------------------------------

def slashes(path: str) -> str:
    return os.path.abspath(path).replace(os.sep, "/")


class Layout:
    """Absolute paths of everything the installer touches, for one Claude config dir, and the
    Python the hooks and search commands run the launchers with (`launcher_python`: given, else
    the one the last install recorded, else the one the venv is made from)."""

    def __init__(self, config_dir: str, launcher_python: str | None = None):
        self.config_dir = os.path.abspath(config_dir)
        self._launcher_python = launcher_python
        self.home = os.path.join(self.config_dir, "obsidian-memory")
        self.venv = os.path.join(self.home, "venv")
        self.bin_dir = os.path.join(self.home, "bin")
        self.config_yaml = os.path.join(self.home, "config.yaml")
        self.state_path = os.path.join(self.home, "install-state.json")
        self.backups_dir = os.path.join(self.home, "backups")
        self.settings_json = os.path.join(self.config_dir, "settings.json")
        self.claude_md = os.path.join(self.config_dir, "CLAUDE.md")
        self.skills_root = os.path.join(self.config_dir, "skills")
        self.skill_dir = os.path.join(self.skills_root, SKILL_NAME)
        self.skill_md = os.path.join(self.skill_dir, "SKILL.md")

    @property
    def python(self) -> str:
        if os.name == "nt":
            return os.path.join(self.venv, "Scripts", "python.exe")
        return os.path.join(self.venv, "bin", "python")

    def launcher(self, name: str) -> str:
        return os.path.join(self.bin_dir, name)

    @property
    def launcher_python(self) -> str:
        if not self._launcher_python:
            recorded = load_state(self).get("python")
            self._launcher_python = recorded if isinstance(recorded, str) and recorded else base_python()
        return self._launcher_python


def base_python() -> str:
    """The Python this one is made from when it runs in a venv, else this one."""
    return os.path.abspath(getattr(sys, "_base_executable", None) or sys.executable)


# -- the command strings -----------------------------------------------------------------------
# A hook in exec form is an argument list (no shell, no quoting: native paths). A hook in shell form
# (older clients) runs through `sh -c`: its paths are always double-quoted. The search commands are
# typed by the model into its shell and must match the permission rules character for character,
# so they use forward slashes and are quoted only when a path needs it (the usual path has no
# space and then reads like any command).

_SAFE = re.compile(r"^[A-Za-z0-9_@%+=:,./-]+$")
# The launchers run without `site` (-S): the system Python's own site-packages and .pth files (which
# may import anything, at a cost) stay out, and the launcher adds the venv's: the venv's environment.
NO_SITE = "-S"


def quote_if_needed(path: str) -> str:
    return path if _SAFE.match(path) else shlex.quote(path)


def double_quote(path: str) -> str:
    return f'"{path}"' if not re.search(r'["$`\\]', path) else shlex.quote(path)


def hook_handler(layout: Layout, argument: str, timeout: int, form: str = "exec") -> dict:
    """The settings.json handler that runs `obsidian_memory.py hook <argument>`."""
    if form == "exec":
        return {"type": "command", "command": os.path.abspath(layout.launcher_python),
                "args": [NO_SITE, layout.launcher("obsidian_memory.py"), "hook", argument], "timeout": timeout}
    return {"type": "command", "command": cli_command(layout, "hook", argument), "timeout": timeout}


def hook_argv(handler: dict) -> list[str]:
    """What a handler of ours runs, as an argument list (exec form, or the shell form split)."""
    if isinstance(handler.get("args"), list):
        return [str(handler.get("command", "")), *map(str, handler["args"])]
    return shlex.split(str(handler.get("command", "")))


def describe_handler(handler: dict) -> str:
    """A handler as one line for people: the exec form's command and arguments, quoted as needed."""
    if isinstance(handler.get("args"), list):
        return " ".join(quote_if_needed(part) for part in hook_argv(handler))
    return str(handler.get("command", ""))


def mcp_command(layout: Layout) -> str:
    return cli_command(layout, "mcp")


def cli_command(layout: Layout, *arguments: str) -> str:
    python, script = slashes(layout.launcher_python), slashes(layout.launcher("obsidian_memory.py"))
    return " ".join([double_quote(python), NO_SITE, double_quote(script), *arguments])


def claude_version() -> tuple[int, ...] | None:
    """The version of the `claude` on PATH (`claude --version` prints e.g. "2.1.332 (Claude Code)")."""
    claude = shutil.which("claude")
    if not claude:
        return None
    try:
        done = subprocess.run([claude, "--version"], capture_output=True, text=True, timeout=20,
                              stdin=subprocess.DEVNULL)
    except (OSError, subprocess.SubprocessError):
        return None
    found = re.search(r"(\d+)\.(\d+)\.(\d+)", done.stdout or "")
    return tuple(int(part) for part in found.groups()) if found else None


def hook_form(version: tuple[int, ...] | None) -> str:
    """Exec form, unless the client found is older than the exec form (unknown: the current client)."""
    return "shell" if version is not None and version < EXEC_FORM_SINCE else "exec"


def installed_extras(options: "Options", state: dict) -> list[str]:
    """The extras asked for now or at an earlier install (pip never removes them)."""
    asked = {"semantic": options.semantic, "mcp": options.mcp}
    return [name for name in ("semantic", "mcp") if asked[name] or name in state.get("extras", [])]


def agent_prefixes(layout: Layout) -> tuple[str, str, str]:
    """The commands the agent runs pre-approved: the ranked search, the regex over sessions, and
    `read` (a hit's text, with the search's promises: the configured vault only, private notes
    refused, a bounded size; the Read tool would ask for every note outside the project)."""
    python = f"{quote_if_needed(slashes(layout.launcher_python))} {NO_SITE}"
    cli = f"{python} {quote_if_needed(slashes(layout.launcher('obsidian_memory.py')))}"
    return (f"{python} {quote_if_needed(slashes(layout.launcher('search_vault.py')))}", f"{cli} search", f"{cli} read")


def permission_rules(layout: Layout) -> list[str]:
    return [f"Bash({prefix} *)" for prefix in agent_prefixes(layout)]


def template_values(layout: Layout, vault: str) -> dict:
    return {
        "python": f"{quote_if_needed(slashes(layout.launcher_python))} {NO_SITE}",
        "search_vault": quote_if_needed(slashes(layout.launcher("search_vault.py"))),
        "obsidian_memory": quote_if_needed(slashes(layout.launcher("obsidian_memory.py"))),
        "vault": slashes(vault),
    }


# The plugin's copy of the skill: Claude Code substitutes these placeholders in a plugin skill's
# body and `allowed-tools` (2.1.197 and 2.1.332 alike). run_hook.py bootstraps that venv.
PLUGIN_VALUES = {
    "python": "${CLAUDE_PLUGIN_DATA}/venv/bin/python",
    "search_vault": "${CLAUDE_PLUGIN_ROOT}/scripts/search_vault.py",
    "obsidian_memory": "${CLAUDE_PLUGIN_ROOT}/scripts/obsidian_memory.py",
    "vault": "",
}


# -- actions: one change each -------------------------------------------------------------------

class Action:
    summary = ""

    def describe(self) -> str:
        return self.summary

    def details(self) -> str:
        return ""

    def apply(self) -> None:
        raise NotImplementedError


class WriteFile(Action):
    """Write `data` to `path`, atomically. A symbolic link is written through (its target changes,
    the link stays), and the file keeps its permissions unless `mode` says otherwise."""

    def __init__(self, path: str, data: bytes, before: bytes | None, what: str, mode: int | None = None,
                 backup_to: str | None = None):
        self.path, self.data, self.before, self.mode, self.backup_to = path, data, before, mode, backup_to
        link = " (through the link to its target)" if os.path.islink(path) else ""
        self.summary = f"{'create' if before is None else 'update'} {path}{link} ({what})"

    def details(self) -> str:
        if self.before is None or not self.path.endswith((".json", ".md", ".yaml")):
            return ""
        old = self.before.decode("utf-8", "replace").splitlines(keepends=True)
        new = self.data.decode("utf-8", "replace").splitlines(keepends=True)
        return "".join(difflib.unified_diff(old, new, self.path, self.path + " (new)"))

    def apply(self) -> None:
        if self.backup_to and self.before is not None:
            fsutil.atomic_write_bytes(self.backup_to, self.before, mode=0o600)  # settings.json may hold API keys
        target = os.path.realpath(self.path)
        mode = self.mode
        if mode is None:
            try:
                mode = os.stat(target).st_mode & 0o7777
            except OSError:
                mode = None
        fsutil.atomic_write_bytes(target, self.data, mode=mode)


class DeleteFile(Action):
    """Remove `path`; for a symbolic link, the file it points at (the link stays, as it was)."""

    def __init__(self, path: str, what: str):
        self.path = path
        self.summary = f"remove {path} ({what})"

    def apply(self) -> None:
        try:
            os.unlink(os.path.realpath(self.path))
        except FileNotFoundError:
            pass


class MakeDir(Action):
    def __init__(self, path: str, what: str):
        self.path = path
        self.summary = f"create folder {path} ({what})"

    def apply(self) -> None:
        os.makedirs(self.path, exist_ok=True)


class RemoveDirIfEmpty(Action):
    def __init__(self, path: str, what: str):
        self.path = path
        self.summary = f"remove folder {path} if empty ({what})"

    def apply(self) -> None:
        try:
            os.rmdir(self.path)
        except OSError:
            pass


class RemoveTree(Action):
    def __init__(self, path: str, what: str):
        self.path = path
        self.summary = f"remove {path} ({what})"

    def apply(self) -> None:
        if os.path.isdir(self.path) and not os.path.islink(self.path):
            shutil.rmtree(self.path, ignore_errors=True)
        elif os.path.lexists(self.path):
            os.unlink(self.path)


# -- small file helpers --------------------------------------------------------------------------

def read_bytes(path: str) -> bytes | None:
    """The file at `path`, None when there is none; a folder, a FIFO or a device stops everything
    (a FIFO is never waited on: fsutil.open_regular)."""
    try:
        with fsutil.open_regular(path) as handle:
            return handle.read()
    except FileNotFoundError:
        return None
    except (fsutil.NotARegularFile, IsADirectoryError):
        raise UserError(f"{path} is a folder, expected a file" if os.path.isdir(path) else
                        f"{path} is not a regular file (a FIFO or a device): move it away and run the installer again")
    except OSError as exc:
        raise UserError(f"cannot read {path}: {exc.strerror}")


def digest(data: bytes | None) -> str | None:
    return None if data is None else hashlib.sha256(data).hexdigest()


def _b64(data: bytes | None) -> str | None:
    return None if data is None else base64.b64encode(data).decode("ascii")


def _unb64(text: str | None) -> bytes | None:
    return None if text is None else base64.b64decode(text.encode("ascii"))


def backup_path(layout: Layout, name: str) -> str:
    from obsidian_memory.core import clock
    stamp = clock.now().strftime("%Y%m%d-%H%M%S")
    return os.path.join(layout.backups_dir, f"{name}.{stamp}")


# -- settings.json ------------------------------------------------------------------------------

def parse_settings(path: str, data: bytes | None) -> dict:
    """The settings object; a file that is not a JSON object stops everything, untouched."""
    if data is None:
        return {}
    obj = json_light.parse_json(data)
    if isinstance(obj, json_light.Unread):
        raise UserError(f"{path} {obj}; fix it and run the installer again — nothing was changed", code=1)
    for key, kind in (("hooks", dict), ("permissions", dict)):
        if key in obj and not isinstance(obj[key], kind):
            raise UserError(f"{path}: `{key}` is not an object; nothing was changed", code=1)
    allow = obj.get("permissions", {}).get("allow")
    if allow is not None and not isinstance(allow, list):
        raise UserError(f"{path}: `permissions.allow` is not a list; nothing was changed", code=1)
    for event, groups in obj.get("hooks", {}).items():
        if not isinstance(groups, list):
            raise UserError(f"{path}: `hooks.{event}` is not a list; nothing was changed", code=1)
    return obj


def is_ours(handler) -> bool:
    if not isinstance(handler, dict):
        return False
    args = handler.get("args") if isinstance(handler.get("args"), list) else []
    text = " ".join([str(handler.get("command", "")), *map(str, args)])
    return OWN_MARK in text.replace("\\", "/")


def is_our_rule(rule) -> bool:
    return isinstance(rule, str) and OWN_MARK in rule.replace("\\", "/")


def our_hook_groups(layout: Layout, form: str = "exec") -> dict:
    groups = {}
    for event, (matcher, argument, timeout) in HOOKS.items():
        group = {"matcher": matcher} if matcher else {}
        group["hooks"] = [hook_handler(layout, argument, timeout, form)]
        groups[event] = group
    return groups


def _without_our_handlers(groups: list) -> tuple[list, int | None]:
    """The groups minus our handlers (groups emptied by that dropped), and where ours first stood."""
    kept, first = [], None
    for group in groups:
        handlers = group.get("hooks") if isinstance(group, dict) else None
        if not isinstance(handlers, list) or not any(is_ours(h) for h in handlers):
            kept.append(group)
            continue
        if first is None:
            first = len(kept)
        rest = [h for h in handlers if not is_ours(h)]
        if rest:
            kept.append({**group, "hooks": rest})
    return kept, first


def merge_settings(obj: dict, layout: Layout, form: str = "exec") -> dict:
    """`obj` with our hooks and permission rules in place; everything else as it was, in order."""
    result = json.loads(json.dumps(obj))
    hooks = result.setdefault("hooks", {})
    for event, group in our_hook_groups(layout, form).items():
        kept, first = _without_our_handlers(hooks.get(event, []))
        kept.insert(len(kept) if first is None else first, group)
        hooks[event] = kept
    allow = result.setdefault("permissions", {}).setdefault("allow", [])
    wanted = permission_rules(layout)
    kept, seen = [], set()
    for rule in allow:  # ours stay where they are (once); stale ones of ours go
        if is_our_rule(rule):
            if rule not in wanted or rule in seen:
                continue
            seen.add(rule)
        kept.append(rule)
    allow[:] = kept + [rule for rule in wanted if rule not in seen]
    allow.extend(rule for rule in SHARED_RULES if rule not in allow)
    return result


def shared_rules_added(before: dict, owned: list | tuple = ()) -> list[str]:
    """The shared rules that are ours after a merge into `before`: missing from it (we add them), or
    added by an earlier install (`owned`, from the state) and still there. The user's own stay theirs."""
    allow = before.get("permissions", {}).get("allow") or []
    return [rule for rule in SHARED_RULES if rule not in allow or rule in owned]


def shared_rules_owned(state: dict) -> list[str]:
    """The shared rules an earlier install recorded as added by us."""
    return [rule for rule in state.get("shared_rules", []) if rule in SHARED_RULES]


def strip_settings(obj: dict, shared: list | tuple = ()) -> dict:
    """`obj` without any entry of ours (`shared`: the shared rules we added, see `shared_rules_added`);
    containers that only we filled go too."""
    result = json.loads(json.dumps(obj))
    hooks = result.get("hooks")
    if isinstance(hooks, dict):
        for event in list(hooks):
            groups = hooks[event]
            if not isinstance(groups, list):
                continue
            kept, first = _without_our_handlers(groups)
            if first is None:
                continue
            if kept:
                hooks[event] = kept
            else:
                del hooks[event]
        if not hooks and obj.get("hooks"):
            del result["hooks"]
    permissions = result.get("permissions")
    if isinstance(permissions, dict) and isinstance(permissions.get("allow"), list):
        allow = permissions["allow"]
        kept = [r for r in allow if not is_our_rule(r)]
        for rule in shared:  # one copy: the one we added (a later copy of the user's stays)
            if rule in kept:
                del kept[len(kept) - 1 - kept[::-1].index(rule)]
        if len(kept) != len(allow):
            permissions["allow"] = kept
            if not kept:
                del permissions["allow"]
                if not permissions:
                    del result["permissions"]
    return result


def settings_contains_ours(obj: dict, shared: list | tuple = ()) -> bool:
    return strip_settings(obj, shared) != obj


def detect_indent(text: str):
    for line in text.splitlines()[1:]:
        stripped = line.lstrip(" \t")
        if stripped and len(stripped) != len(line):
            lead = line[: len(line) - len(stripped)]
            return "\t" if lead.startswith("\t") else len(lead)
    return 2


def dump_settings(obj: dict, like: bytes | None) -> bytes:
    """JSON in the file's own indentation (2 spaces for a new file), UTF-8, trailing newline."""
    indent = detect_indent(like.decode("utf-8", "replace")) if like else 2
    return (json.dumps(obj, indent=indent, ensure_ascii=False) + "\n").encode("utf-8")


# -- CLAUDE.md ------------------------------------------------------------------------------------

def claude_md_block(layout: Layout, vault: str) -> str:
    values = template_values(layout, vault)
    search, sessions, read = agent_prefixes(layout)
    return "\n".join([
        BLOCK_BEGIN,
        "## Memory: search the Obsidian vault first",
        f"Every past Claude Code session is archived as a note in the Obsidian vault `{values['vault']}`, "
        "next to the decisions, learnings and project notes kept there.",
        "Before re-investigating a bug, an error message, a design question or a setup step that may "
        "have come up before, search the vault (the `vault-search` skill) and build on what it finds:",
        f'- ranked vault search: `{search} "<words>"`',
        f'- regex over archived sessions: `{sessions} --sessions "<regex>"`',
        f'- read a hit (vault-relative path as printed): `{read} "<path>"`',
        "Cite the note you used. If nothing relevant is found, say so and continue normally.",
        BLOCK_END,
    ]) + "\n"


_BLOCK_RE = re.compile(re.escape(BLOCK_BEGIN) + r".*?" + re.escape(BLOCK_END) + r"(?:\r?\n)?", re.S)


def newline_of(text: str | None) -> str:
    """The line ending a file mostly uses ("\\r\\n" or "\\n"): what we add to it uses the same."""
    return "\r\n" if text and text.count("\r\n") * 2 > text.count("\n") else "\n"


def put_block(text: str | None, block: str) -> str:
    newline = newline_of(text)
    block = block.replace("\n", newline)
    if text and _BLOCK_RE.search(text):
        return _BLOCK_RE.sub(lambda _m: block, text, count=1)
    if not text:
        return block
    return text + ("" if text.endswith("\n") else newline) + newline + block


def remove_block(text: str) -> str:
    match = _BLOCK_RE.search(text)
    if not match:
        return text
    before, after = text[: match.start()], text[match.end():]
    newline = newline_of(text)
    if not after and before.endswith(newline * 2):
        before = before[:-len(newline)]  # the blank line put_block added before the block
    return before + after


# -- config.yaml, the skill, the launchers ---------------------------------------------------

def planned_vault(options: "Options") -> str:
    """The vault an install with these options would use (flag, config.yaml, $OBSIDIAN_VAULT, ~/Vault)."""
    config = Layout(options.config_dir).config_yaml
    return choose_vault(options.vault, settings_module.read_config_file(config) if os.path.exists(config) else {})


def choose_vault(vault_flag: str | None, existing: dict) -> str:
    if vault_flag:
        return os.path.abspath(os.path.expanduser(vault_flag))
    if existing.get("vault"):
        return os.path.abspath(os.path.expanduser(str(existing["vault"])))
    env = os.environ.get("OBSIDIAN_VAULT")
    return os.path.abspath(os.path.expanduser(env)) if env else os.path.join(os.path.expanduser("~"), "Vault")


def config_text(layout: Layout, vault: str, vault_flag: str | None, existing_bytes: bytes | None,
                auto_memory: bool = False) -> bytes | None:
    """What config.yaml should hold, or None to leave the user's file exactly as it is.
    `auto_memory`: --auto-memory asks for `auto_memory: true`."""
    if existing_bytes is not None:
        existing = settings_module.read_config_file(layout.config_yaml)
        asked = {**({"vault": vault} if vault_flag else {}), **({"auto_memory": True} if auto_memory else {})}
        changes = {key: value for key, value in asked.items() if existing.get(key) != value}
        if not changes:
            return None
        if list(changes) == ["auto_memory"] and "auto_memory" not in existing:   # one line added, comments kept
            return existing_bytes + (b"" if existing_bytes.endswith(b"\n") or not existing_bytes else b"\n") + \
                b"auto_memory: true\n"
        return settings_module.dump_flat_yaml({**existing, **changes}).encode("utf-8")
    defaults = settings_module.Settings(layout.config_dir, vault=vault)
    values = {key: getattr(defaults, key) for key in NEW_CONFIG_KEYS}
    values["excluded_projects"] = list(values["excluded_projects"])
    if auto_memory:
        values["auto_memory"] = True
    header = ("# obsidian-memory settings. Edit freely: install.py keeps your values on re-install.\n"
              "# The environment (OBSIDIAN_VAULT, OMNISEARCH_PORT) and command flags take precedence.\n"
              "# The Omnisearch port comes from the vault's Omnisearch settings; set omnisearch_port to override.\n")
    return (header + settings_module.dump_flat_yaml(values)).encode("utf-8")


def render_template(text: str, values: dict) -> str:
    import jinja2  # (a dry run on a bare system python goes through can_render() first)

    environment = jinja2.Environment(keep_trailing_newline=True, undefined=jinja2.StrictUndefined,
                                     autoescape=False)
    return environment.from_string(text).render(**values)


def can_render() -> bool:
    try:
        import jinja2  # noqa: F401
    except ImportError:
        return False
    return True


class CannotPreview(Action):
    """A dry run on a Python without jinja2 (no venv yet) cannot show the rendered skill."""

    def __init__(self, path: str, what: str):
        self.summary = f"write {path} ({what}; rendered by the venv's jinja2 at install time)"

    def apply(self) -> None:
        raise UserError("jinja2 is missing: run install.py, which installs it into the venv", code=1)


def source_file(source: str, *parts: str) -> str:
    path = os.path.join(source, *parts)
    if not os.path.isfile(path):
        raise UserError(f"{path} is missing: run the installer from a complete checkout", code=1)
    return path


# -- the install state --------------------------------------------------------------------------

def load_state(layout: Layout) -> dict:
    data = read_bytes(layout.state_path)
    state = json_light.parse_json(data) if data is not None else {}
    return {} if isinstance(state, json_light.Unread) else state


def _skill_is_ours(data: bytes) -> bool:
    return OWN_MARK in data.decode("utf-8", "replace")


def pristine_of(name: str, current: bytes | None, state: dict, contains_ours, strip) -> dict:
    """How the file would be without us: from the state if the file is still ours, else derived."""
    recorded = state.get("files", {}).get(name)
    if recorded and current is not None and digest(current) == recorded.get("written_sha256"):
        return {"existed": recorded.get("existed", True), "pristine": recorded.get("pristine")}
    if current is not None and contains_ours(current):
        return {"existed": True, "pristine": _b64(strip(current))}
    return {"existed": current is not None, "pristine": _b64(current)}


# -- planning ---------------------------------------------------------------------------------

class Options:
    """`python`: the Python the hooks and search commands run the launchers with (default: the one
    the last install recorded, else the one this venv is made from); `hook_form`: "exec" or "shell"."""

    def __init__(self, config_dir: str, source: str | None = None, vault: str | None = None,
                 semantic: bool = False, mcp: bool = False, purge: bool = False, python: str | None = None,
                 hook_form: str = "exec", mcp_http: bool = False, auto_memory: bool = False):
        self.config_dir, self.source, self.vault = config_dir, source, vault
        self.semantic, self.mcp, self.purge = semantic, mcp or mcp_http, purge
        self.python, self.hook_form = python, hook_form
        self.mcp_http = mcp_http      # the user service file of the HTTP MCP server (implies mcp)
        self.auto_memory = auto_memory   # Claude Code's auto memory of each repository in the vault


def plan_install(options: Options) -> tuple[list[Action], dict]:
    """The actions an install would take, and facts for the summary (vault, commands)."""
    layout = Layout(options.config_dir, options.python)
    source = os.path.abspath(options.source or default_source())
    state = load_state(layout)
    actions: list[Action] = []
    created_dirs = list(state.get("created_dirs", []))

    def make_dir(path: str, what: str):
        if not os.path.isdir(path):
            actions.append(MakeDir(path, what))
            if path not in created_dirs:
                created_dirs.append(path)

    make_dir(layout.bin_dir, "launchers")
    for name in LAUNCHERS:
        data = read_bytes(source_file(source, "scripts", name))
        current = read_bytes(layout.launcher(name))
        mode = 0o755 if name in EXECUTABLE_LAUNCHERS else 0o644
        if current != data or (mode & 0o100 and not os.access(layout.launcher(name), os.X_OK)):
            actions.append(WriteFile(layout.launcher(name), data, current, "launcher", mode=mode))

    config_before = read_bytes(layout.config_yaml)
    existing_config = settings_module.read_config_file(layout.config_yaml) if config_before is not None else {}
    vault = choose_vault(options.vault, existing_config)
    config_after = config_text(layout, vault, options.vault, config_before, options.auto_memory)
    if config_after is not None and config_after != config_before:
        actions.append(WriteFile(layout.config_yaml, config_after, config_before, "settings"))

    sessions_folder = str(existing_config.get("sessions_folder") or "Meta/claude-sessions")
    vault_dirs = [os.path.join(vault, "Meta"), os.path.join(vault, *sessions_folder.split("/"))]
    if not os.path.isdir(vault):
        make_dir(vault, "the vault did not exist")
    for folder in dict.fromkeys(vault_dirs):
        make_dir(folder, "vault folder for session notes")

    files_state = {}
    settings_before = read_bytes(layout.settings_json)
    settings_obj = parse_settings(layout.settings_json, settings_before)
    merged = merge_settings(settings_obj, layout, options.hook_form)
    settings_after = (settings_before if merged == settings_obj and settings_before is not None
                      else dump_settings(merged, settings_before))
    owned_before = shared_rules_owned(state)
    files_state["settings.json"] = pristine_of(
        "settings.json", settings_before, state,
        lambda data: settings_contains_ours(parse_settings(layout.settings_json, data), owned_before),
        lambda data: dump_settings(strip_settings(parse_settings(layout.settings_json, data), owned_before),
                                   data))
    if settings_after != settings_before:
        actions.append(WriteFile(layout.settings_json, settings_after, settings_before,
                                 "hooks and permission rules", backup_to=backup_path(layout, "settings.json")))
    files_state["settings.json"]["written_sha256"] = digest(settings_after)

    make_dir(layout.skills_root, "skills")
    make_dir(layout.skill_dir, "the vault-search skill")
    template = fsutil.read_text(source_file(source, *SKILL_TEMPLATE))
    skill_before = read_bytes(layout.skill_md)
    if not can_render():
        actions.append(CannotPreview(layout.skill_md, "the vault-search skill"))
    else:
        skill = render_template(template, template_values(layout, vault)).encode("utf-8")
        files_state["SKILL.md"] = pristine_of("SKILL.md", skill_before, state, _skill_is_ours, lambda data: None)
        files_state["SKILL.md"]["written_sha256"] = digest(skill)
        if skill != skill_before:
            theirs = skill_before is not None and not _skill_is_ours(skill_before)
            actions.append(WriteFile(
                layout.skill_md, skill, skill_before,
                "the vault-search skill; your own SKILL.md is backed up and given back by uninstall" if theirs
                else "the vault-search skill", backup_to=backup_path(layout, "SKILL.md") if theirs else None))

    md_before = read_bytes(layout.claude_md)
    md_text = md_before.decode("utf-8", "surrogateescape") if md_before is not None else None
    md_after = put_block(md_text, claude_md_block(layout, vault)).encode("utf-8", "surrogateescape")
    files_state["CLAUDE.md"] = pristine_of(
        "CLAUDE.md", md_before, state,
        lambda data: _BLOCK_RE.search(data.decode("utf-8", "surrogateescape")) is not None,
        lambda data: remove_block(data.decode("utf-8", "surrogateescape")).encode("utf-8", "surrogateescape"))
    if md_after != md_before:
        actions.append(WriteFile(layout.claude_md, md_after, md_before, "the standing search directive",
                                 backup_to=backup_path(layout, "CLAUDE.md")))
    files_state["CLAUDE.md"]["written_sha256"] = digest(md_after)

    service = service_file() if options.mcp_http or state.get("service_file") else None
    if service:
        for folder in missing_folders(os.path.dirname(service)):
            make_dir(folder, "user services")
        service_bytes, service_before = service_text(layout, service), read_bytes(service)
        if service_bytes != service_before:
            actions.append(WriteFile(service, service_bytes, service_before,
                                     "user service of the HTTP MCP server; not enabled"))
    if (options.mcp_http or state.get("service_file")) and not os.path.lexists(mcp_endpoint.token_path(layout.home)):
        actions.append(MakeToken(layout.home))

    new_state = {
        "version": STATE_VERSION,
        "files": files_state,
        "created_dirs": created_dirs,
        "shared_rules": shared_rules_added(settings_obj, owned_before),
        "skill_files": [layout.skill_md],
        "extras": installed_extras(options, state),
        "source": source,
        "python": os.path.abspath(layout.launcher_python),
    }
    if service:
        new_state["service_file"] = service
    state_bytes = (json.dumps(new_state, indent=2, ensure_ascii=False) + "\n").encode("utf-8")
    state_before = read_bytes(layout.state_path)
    if state_bytes != state_before:
        actions.append(WriteFile(layout.state_path, state_bytes, state_before, "what uninstall restores",
                                 mode=0o600))
    facts = {"vault": vault, "layout": layout, "rules": permission_rules(layout),
             "hooks": {event: hook_handler(layout, arg, timeout, options.hook_form)
                       for event, (_m, arg, timeout) in HOOKS.items()},
             "extras": new_state["extras"], "mcp_command": mcp_command(layout),
             "mcp_http": options.mcp_http or bool(state.get("service_file")), "service_file": service}
    return actions, facts


# What else in our folder only we use: uninstall removes it. backups/ holds copies of settings.json,
# which may hold secrets from its `env`: never kept unasked.
LEFTOVERS = (("cache", "search index caches"), ("locks", "lock files"), ("sweep.stamp", "when the last sweep ran"),
             ("vault-pending", "marks of hooks' vault work left to a sweep"),
             ("transcript-reads", "where the last read of each long transcript stopped"),
             ("backups", "copies of settings.json and CLAUDE.md made at install; they may hold secrets"),
             (mcp_endpoint.TOKEN_FILE, "the HTTP MCP server's token, a secret"),
             (mcp_endpoint.STATE_FILE, "the HTTP MCP server's state file"))


def plan_uninstall(options: Options) -> list[Action]:
    layout = Layout(options.config_dir)
    state = load_state(layout)
    actions: list[Action] = []
    files = state.get("files", {})

    actions.extend(_remove_service(layout, state))
    actions.extend(_undo_auto_memory(layout))
    shared = shared_rules_owned(state)
    actions.extend(_restore_settings(layout, files.get("settings.json"), shared))
    actions.extend(_restore_claude_md(layout, files.get("CLAUDE.md")))

    theirs = _unb64((files.get("SKILL.md") or {}).get("pristine"))
    for path in state.get("skill_files", [layout.skill_md]):
        data = read_bytes(path)
        if data is None or not _skill_is_ours(data):
            continue
        if path == layout.skill_md and theirs is not None:
            actions.append(WriteFile(path, theirs, data, "your own vault-search skill, given back"))
        else:
            actions.append(DeleteFile(path, "the vault-search skill"))
    created = state.get("created_dirs", [])
    for path in (layout.skill_dir, layout.skills_root):
        if path in created and os.path.isdir(path):
            actions.append(RemoveDirIfEmpty(path, "created by the installer"))
    for path in reversed(created):  # vault folders we made: only while still empty
        if path not in (layout.skill_dir, layout.skills_root, layout.bin_dir) and os.path.isdir(path):
            actions.append(RemoveDirIfEmpty(path, "created by the installer"))

    if os.path.isdir(layout.bin_dir):
        actions.append(RemoveTree(layout.bin_dir, "launchers"))
    if os.path.exists(layout.state_path):
        actions.append(DeleteFile(layout.state_path, "install state"))
    for name, what in LEFTOVERS if not options.purge else ():
        if os.path.lexists(os.path.join(layout.home, name)):
            actions.append(RemoveTree(os.path.join(layout.home, name), what))
    if options.purge:
        for suffix in ("", "-wal", "-shm"):
            archive = archive_path(layout) + suffix
            if os.path.exists(archive):
                actions.append(DeleteFile(archive, "the session archive (--purge)"))
        for name in sorted(os.listdir(layout.home)) if os.path.isdir(layout.home) else []:
            path = os.path.join(layout.home, name)
            if path not in (layout.venv, layout.bin_dir, layout.state_path):
                actions.append(RemoveTree(path, "--purge"))
    if os.path.isdir(layout.venv):
        actions.append(RemoveTree(layout.venv, "virtual environment"))  # last: we may be running from it
    actions.append(RemoveDirIfEmpty(layout.home, "nothing of ours left"))
    return [a for a in actions if not (isinstance(a, RemoveDirIfEmpty) and not os.path.isdir(a.path))]


def _undo_auto_memory(layout: Layout) -> list[Action]:
    """Each repository's settings.local.json the SessionStart hook pointed at the vault, as it was
    (the memory files stay in the vault: they are the user's), and the git exclude lines it added."""
    from obsidian_memory.setup import auto_memory

    actions: list[Action] = []
    excludes = set()
    for path, entry in auto_memory.records(layout.home).items():
        current = read_bytes(path)
        after = auto_memory.undone(path, entry, current)
        if after is None:
            actions.append(DeleteFile(path, "made for Claude Code's auto memory in the vault"))
            if entry.get("made_folder"):
                actions.append(RemoveDirIfEmpty(os.path.dirname(path), "made for it"))
        elif after != "" and current is not None:
            actions.append(WriteFile(path, after, current, "its autoMemoryDirectory, which pointed into the vault, removed"))
        if entry.get("excluded_in"):
            excludes.add(entry["excluded_in"])
    for path in sorted(excludes):
        current = read_bytes(path)
        if current is not None:
            kept = auto_memory.without_exclude_line(current.decode("utf-8", "replace")).encode("utf-8")
            if kept != current:
                actions.append(WriteFile(path, kept, current, "the line that kept settings.local.json out of git"))
    if os.path.exists(os.path.join(layout.home, auto_memory.RECORD)):
        actions.append(DeleteFile(os.path.join(layout.home, auto_memory.RECORD), "the record of those edits"))
    return actions


def archive_path(layout: Layout) -> str:
    """The session archive, also when config.yaml cannot be used (an uninstall must not stop there)."""
    try:
        return settings_module.load(config_dir=layout.config_dir).archive
    except UserError:
        return os.path.join(layout.config_dir, "session-archive.db")


def kept_after_uninstall(layout: Layout) -> list[str]:
    """What an uninstall (without --purge) leaves, in words: everything still in our folder, and the archive."""
    kept = []
    archive = archive_path(layout)
    if os.path.exists(archive):
        kept.append(f"the session archive {archive}")
    names = sorted(os.listdir(layout.home)) if os.path.isdir(layout.home) else []
    known = {"config.yaml": "your settings", "obsidian-memory.log": "the log", "obsidian-memory.log.1": "the old log",
             "templates": "your note templates", SERVICE_LOG: "the HTTP MCP server's log",
             "machine.json": "this machine's id, which its session notes in the vault carry: kept for a re-install",
             "sessions-off": "the sessions you started with OBSIDIAN_MEMORY=off: never archived, after a re-install too"}
    for name in names:
        kept.append(f"{os.path.join(layout.home, name)} ({known.get(name, 'not made by the installer')})")
    return kept


CLIENT_STATE_MAX_BYTES = 50_000_000


def mcp_entries_left(layout: Layout) -> list[str]:
    """The commands that remove the MCP server entries the user added for obsidian-memory
    (`claude mcp add`, as the README shows) and Claude Code still holds: an uninstall leaves them
    (they are the client's state, in its own file, not ours to rewrite), and says how."""
    home = os.path.expanduser("~")
    candidates = [os.path.join(layout.config_dir, ".claude.json"), os.path.join(home, ".claude.json")]
    commands: list[str] = []
    for path in dict.fromkeys(candidates):
        data = json_light.read_json(path, CLIENT_STATE_MAX_BYTES)
        if isinstance(data, json_light.Unread):
            continue
        scopes = [("user", None, data.get("mcpServers"))]
        projects = data.get("projects") if isinstance(data.get("projects"), dict) else {}
        scopes += [("local", folder, entry.get("mcpServers")) for folder, entry in projects.items()
                   if isinstance(entry, dict)]
        for scope, folder, servers in scopes:
            for name, server in (servers.items() if isinstance(servers, dict) else ()):
                if _ours_as_mcp(layout, name, server):
                    where = f"cd {shlex.quote(folder)} && " if folder else ""
                    command = f"{where}claude mcp remove --scope {scope} {shlex.quote(str(name))}"
                    if command not in commands:
                        commands.append(command)
    return commands


def _ours_as_mcp(layout: Layout, name, server) -> bool:
    text = json.dumps(server) if isinstance(server, dict) else ""
    return name == "obsidian-memory" or layout.home in text or "obsidian_memory.py" in text


def _restore(path: str, recorded: dict | None, current: bytes | None, strip) -> list[Action]:
    """Put the file back as it was without us, or (if the user edited it since) strip only ours."""
    if current is None:
        return []
    if recorded and digest(current) == recorded.get("written_sha256"):
        pristine = _unb64(recorded.get("pristine"))
        if not recorded.get("existed", True) or pristine is None:
            return [DeleteFile(path, "it did not exist before the install")]
        if pristine == current:
            return []
        return [WriteFile(path, pristine, current, "restored as it was before the install")]
    stripped = strip(current)
    if stripped == current:
        return []
    return [WriteFile(path, stripped, current, "our entries removed, your edits kept")]


def _restore_settings(layout: Layout, recorded: dict | None, shared: list) -> list[Action]:
    current = read_bytes(layout.settings_json)

    def strip(data: bytes) -> bytes:
        obj = parse_settings(layout.settings_json, data)
        stripped = strip_settings(obj, shared)
        return data if stripped == obj else dump_settings(stripped, data)
    return _restore(layout.settings_json, recorded, current, strip)


def _restore_claude_md(layout: Layout, recorded: dict | None) -> list[Action]:
    current = read_bytes(layout.claude_md)

    def strip(data: bytes) -> bytes:
        return remove_block(data.decode("utf-8", "surrogateescape")).encode("utf-8", "surrogateescape")
    actions = _restore(layout.claude_md, recorded, current, strip)
    if (actions and isinstance(actions[0], WriteFile) and not actions[0].data.strip()
            and recorded is None):
        return [DeleteFile(layout.claude_md, "it held nothing but our block")]
    return actions


# -- the HTTP MCP server as a user service (--mcp-http) ---------------------------------------------
# Offered, never started: the installer writes the file and prints how to enable it. Uninstall
# stops a running server, disables the service and removes the file (only a file that runs this
# installation's launcher).

SERVICE_NAME = "obsidian-memory-mcp"
LAUNCHD_LABEL = "com.obsidian-memory.mcp"
SERVICE_LOG = "mcp-http.log"          # the launchd agent's stderr (systemd has the journal)


def service_file(platform: str | None = None) -> str | None:
    """A systemd user unit on Linux, a launchd agent on macOS; None elsewhere (Windows)."""
    platform = platform or sys.platform
    home = os.path.expanduser("~")
    if platform.startswith("linux"):
        base = os.environ.get("XDG_CONFIG_HOME") or os.path.join(home, ".config")
        return os.path.join(base, "systemd", "user", f"{SERVICE_NAME}.service")
    if platform == "darwin":
        return os.path.join(home, "Library", "LaunchAgents", f"{LAUNCHD_LABEL}.plist")
    return None


def service_command(layout: Layout) -> list[str]:
    """The server as the service runs it: the venv's Python (it has the [mcp] extra) and our launcher."""
    return [layout.python, layout.launcher("obsidian_memory.py"), "mcp", "--http"]


def service_text(layout: Layout, path: str) -> bytes:
    if path.endswith(".plist"):
        import plistlib

        return plistlib.dumps({
            "Label": LAUNCHD_LABEL, "ProgramArguments": service_command(layout),
            "EnvironmentVariables": {"CLAUDE_CONFIG_DIR": layout.config_dir},
            "RunAtLoad": True, "KeepAlive": {"SuccessfulExit": False}, "ProcessType": "Background",
            "StandardErrorPath": os.path.join(layout.home, SERVICE_LOG)})

    return "\n".join([
        "# The HTTP MCP server of obsidian-memory (written by `install.py --mcp-http`; `install.py --uninstall`",
        "# removes it). It listens on 127.0.0.1 and ::1 only; every request needs its bearer token.",
        "[Unit]",
        "Description=obsidian-memory MCP server (Streamable HTTP on loopback, token required)",
        "",
        "[Service]",
        "ExecStart=" + " ".join(_systemd_quoted(part, True) for part in service_command(layout)),
        "Environment=" + _systemd_quoted(f"CLAUDE_CONFIG_DIR={layout.config_dir}", False),
        "Restart=on-failure",
        "RestartSec=5",
        "RestartPreventExitStatus=2",     # a bad config or a taken port: restarting cannot mend it
        "",
        "[Install]",
        "WantedBy=default.target",
        "",
    ]).encode("utf-8")


def _systemd_quoted(text: str, command: bool) -> str:
    """A quoted word of a unit file: C escapes, %-specifiers, and $ in commands."""
    text = text.replace("\\", "\\\\").replace('"', '\\"').replace("%", "%%")
    return '"' + (text.replace("$", "$$") if command else text) + '"'


def service_is_ours(path: str, layout: Layout) -> bool:
    """The service file at `path` runs this installation's launcher (not another config dir's)."""
    data = read_bytes(path) if os.path.isfile(path) else None
    if data is None:
        return False
    launcher = layout.launcher("obsidian_memory.py")
    if path.endswith(".plist"):
        import plistlib

        try:
            return launcher in plistlib.loads(data).get("ProgramArguments", [])
        except Exception:
            return False
    return _systemd_quoted(launcher, True) in data.decode("utf-8", "replace")


def enable_hint(path: str) -> str:
    if path.endswith(".plist"):
        return f"launchctl bootstrap gui/$(id -u) {quote_if_needed(path)}"
    return f"systemctl --user daemon-reload && systemctl --user enable --now {SERVICE_NAME}.service"


def missing_folders(folder: str) -> list[str]:
    """`folder` and those of its parents that do not exist, outermost first."""
    missing = []
    while folder and not os.path.isdir(folder) and os.path.dirname(folder) != folder:
        missing.append(folder)
        folder = os.path.dirname(folder)
    return missing[::-1]


class MakeToken(Action):
    def __init__(self, home: str):
        self.home = home
        self.summary = (f"create {mcp_endpoint.token_path(home)} (the HTTP MCP server's bearer token, "
                        f"readable by you only)")

    def apply(self) -> None:
        mcp_endpoint.ensure_token(self.home)


class StopServer(Action):
    """SIGTERM to the running HTTP MCP server (it removes its state file); waits until it is gone."""

    def __init__(self, home: str, pid: int):
        self.home, self.pid = home, pid
        self.summary = f"stop the running HTTP MCP server (pid {pid})"

    def apply(self) -> None:
        import signal
        import time

        try:
            os.kill(self.pid, signal.SIGTERM)
        except OSError:
            return
        deadline = time.monotonic() + 15
        while fsutil.process_alive(self.pid) and time.monotonic() < deadline:
            time.sleep(0.1)


class RunQuietly(Action):
    """A command whose failure changes nothing for us (e.g. unloading an agent that is not loaded)."""

    def __init__(self, argv: list[str], what: str):
        self.argv = argv
        self.summary = f"{what} (`{' '.join(argv)}`)"

    def apply(self) -> None:
        try:
            subprocess.run(self.argv, capture_output=True, timeout=30, stdin=subprocess.DEVNULL)
        except (OSError, subprocess.SubprocessError):
            pass


def _remove_service(layout: Layout, state: dict) -> list[Action]:
    actions: list[Action] = []
    server = mcp_endpoint.server_status(layout.home)
    if server["running"]:
        actions.append(StopServer(layout.home, server["pid"]))
    path = state.get("service_file") or service_file()
    if not path or not service_is_ours(path, layout):
        return actions
    if path.endswith(".plist"):
        if sys.platform == "darwin" and shutil.which("launchctl"):
            actions.append(RunQuietly(["launchctl", "bootout", f"gui/{os.getuid()}/{LAUNCHD_LABEL}"],
                                      "unload the launchd agent"))
    else:
        wanted = os.path.join(os.path.dirname(path), "default.target.wants", os.path.basename(path))
        if os.path.islink(wanted):
            actions.append(DeleteLink(wanted, "the user service was enabled: this disables it"))
    actions.append(DeleteFile(path, "user service of the HTTP MCP server"))
    return actions


class DeleteLink(Action):
    def __init__(self, path: str, what: str):
        self.path = path
        self.summary = f"remove the link {path} ({what})"

    def apply(self) -> None:
        if os.path.islink(self.path):
            os.unlink(self.path)


def default_source() -> str:
    """The checkout holding scripts/ and skills/ (install.py passes it explicitly)."""
    return os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def apply(actions: list[Action]) -> None:
    for action in actions:
        action.apply()


def print_plan(actions: list[Action], stream=None, diffs: bool = True, empty: str = "change nothing") -> None:
    stream = stream or sys.stdout
    if not actions:
        stream.write(f"- {empty}\n")
        return
    for action in actions:
        stream.write(f"- {action.describe()}\n")
        if diffs and action.details():
            stream.write("".join(f"    {line}" for line in action.details().splitlines(keepends=True)))
            if not action.details().endswith("\n"):
                stream.write("\n")


# -- the plugin's skill ---------------------------------------------------------------------------

def plugin_skill_text(source: str | None = None) -> str:
    """skills/vault-search/SKILL.md as the plugin ships it: the same template, with placeholders that
    Claude Code fills in (a plugin is copied or used in place, and nothing renders it there)."""
    template = fsutil.read_text(source_file(source or default_source(), *SKILL_TEMPLATE))
    return render_template(template, PLUGIN_VALUES)


def write_plugin_skill(source: str | None = None) -> str:
    """Regenerate the plugin's SKILL.md after editing the template (a test keeps the two in step):
    `python -c "from obsidian_memory.setup import install; install.write_plugin_skill()"`."""
    path = os.path.join(source or default_source(), *PLUGIN_SKILL)
    fsutil.atomic_write_text(path, plugin_skill_text(source))
    return path
