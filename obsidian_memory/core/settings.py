"""Where things live and how the user configured them.

Precedence for every value: a command-line flag beats the environment, which beats
`config.yaml`, which beats the default; for the Omnisearch port, the vault's own Omnisearch
settings come between config.yaml and the default (omnisearch_plugin.py); for the vault of a
plugin install, the plugin's vault option comes right after the flag (`plugin_vault`). Every value a user gives is checked against its
setting's definition (the `setting(...)` lines of `Settings`), and a value that is not valid is
never used. It becomes a Problem (`doctor` fails with it, a command prints it as a warning, a
hook logs it once) and then:
- for most settings the next source counts instead, in the end the default, which is safe
  (redaction on, the default budget, the default port);
- for a setting without a safe default, one that says where data goes (the vault, the archive,
  the note paths) or what must never be archived, `load()` raises ConfigError, as it does for a
  config.yaml that cannot be read or parsed: commands stop with one line, hooks write nothing,
  rather than write into a place the user did not choose.
Values given in code (`Settings(...)`, `replace(...)`) are taken as given: tests use extreme ones.

This module is on the SessionStart path, so it imports nothing heavy: `config.yaml` is read with
a small reader for the flat subset of YAML that we write (it yields what PyYAML would, and hands
anything else to PyYAML), and only a file outside that subset costs a `yaml` import.
"""
from __future__ import annotations

import os

from obsidian_memory.core.errors import UserError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

DEFAULT_OMNISEARCH_PORT = 51361
DEFAULT_MCP_HTTP_PORT = 51362      # beside Omnisearch's; opt-in, loopback only
MAX_EMBED_THREADS = 256
DEFAULT_CONTEXT_BUDGET = 6000
CONTEXT_BUDGET_HARD_CAP = 9500     # Claude Code cuts a hook's additionalContext at 10,000 characters
CONTEXT_BUDGET_MIN = 1000          # below this the framing leaves no room for a section
CONFIG_MAX_BYTES = 1_000_000       # a settings file is a few hundred bytes; a bigger one is not ours
CONFIG_DIR_ENV = "CLAUDE_CONFIG_DIR"
MAX_UNKNOWN_REPORTED = 20          # unknown keys named one by one; a file of thousands is not a typo


def show(value) -> str:
    """A value as a person would write it in config.yaml, cut to a readable length (whatever its
    size: YAML aliases can make a small file hold a list of a billion items)."""
    if value is None:
        return "empty"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (list, tuple)) and all(isinstance(v, (str, int)) for v in value[:5]):
        text = "[" + ", ".join(show(v) for v in value[:5]) + (", ...]" if len(value) > 5 else "]")
    elif isinstance(value, (str, int, float)):
        text = repr(value) if isinstance(value, str) else str(value)
    else:
        import reprlib
        shorter = reprlib.Repr()
        shorter.maxlevel, shorter.maxlist, shorter.maxdict, shorter.maxstring = 2, 3, 3, 20
        text = shorter.repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


# -- what a value may be ------------------------------------------------------------------------

class Invalid(ValueError):
    """A value its setting cannot take (the setting's kind says in words what it wants)."""


class Kind:
    """What values a setting takes. `wants` says it in words (messages and README's table);
    `parse` turns a value from YAML, the environment or a flag into the setting's value, or
    raises Invalid."""
    wants = ""

    def parse(self, value):
        raise NotImplementedError


class Boolean(Kind):
    wants = "true or false"

    def parse(self, value):
        if isinstance(value, bool):
            return value
        raise Invalid(value)


class Number(Kind):
    """A whole number in [low, high], or `off` (a value that turns the feature off). A string of
    ASCII digits counts (environment variables are strings); a bool or a float does not."""

    def __init__(self, low: int, high: int, *, off: int | None = None, off_means: str = ""):
        self.low, self.high, self.off = low, high, off
        self.wants = (f"{off} ({off_means}) or " if off is not None else "") + f"a whole number from {low} to {high}"

    def parse(self, value):
        if isinstance(value, str):
            text = value.strip(" \t")
            digits = text[1:] if text[:1] in ("-", "+") else text
            if not (digits.isascii() and digits.isdigit() and len(digits) <= 20):
                raise Invalid(value)
            value = int(text)
        if isinstance(value, bool) or not isinstance(value, int):
            raise Invalid(value)
        if value == self.off or self.low <= value <= self.high:
            return value
        raise Invalid(value)


class AbsolutePath(Kind):
    """A folder or file given as an absolute path (`~` is expanded; `$VARIABLES` are not, and a
    relative path would mean something else in every folder a hook runs in)."""
    wants = "an absolute path (~ allowed)"

    def parse(self, value):
        if not isinstance(value, str) or not value.strip() or "\0" in value:
            raise Invalid(value)
        path = os.path.expanduser(value)
        if not os.path.isabs(path):
            raise Invalid(value)
        return os.path.abspath(path)


class VaultPath(Kind):
    """A path inside the vault: relative, with forward slashes, no `.` or `..` part; a note's
    path ends in `.md`."""

    def __init__(self, *, note: bool):
        self.note = note
        self.wants = ("a vault-relative path to a .md note" if note else "a vault-relative folder") + \
            " (forward slashes, no ..)"

    def parse(self, value):
        if not isinstance(value, str) or "\0" in value or "\\" in value:
            raise Invalid(value)
        path = value.strip()
        if not self.note:
            path = path.rstrip("/")
        parts = path.split("/")
        if (not path or path.startswith("/") or ":" in parts[0]
                or any(part.strip() in ("", ".", "..") for part in parts)
                or (self.note and not path.lower().endswith(".md"))):
            raise Invalid(value)
        return path


class Texts(Kind):
    """A list of texts; one text alone counts as a list of one, nothing at all as an empty list."""
    wants = "a list of texts, like [a, 'b c']"

    def parse(self, value):
        if value is None:
            return ()
        items = [value] if isinstance(value, str) else value
        if not isinstance(items, (list, tuple)) or not all(isinstance(i, str) and i.strip() for i in items):
            raise Invalid(value)
        return tuple(items)


class Choice(Kind):
    """One of a few words, case aside. YAML reads a bare `off` as false (and `on` as true): those
    count as the words themselves."""

    def __init__(self, *choices: str):
        self.choices = choices
        self.wants = ", ".join(choices[:-1]) + f" or {choices[-1]}"

    def parse(self, value):
        if isinstance(value, bool):
            value = "on" if value else "off"
        if isinstance(value, str) and value.strip().lower() in self.choices:
            return value.strip().lower()
        raise Invalid(value)


class VaultPatterns(Kind):
    """A list of vault-relative folders, notes or glob patterns (one alone counts as a list of
    one): forward slashes, no `..` part, nothing absolute (a path outside the vault would
    silently match nothing)."""
    wants = "a list of vault-relative folders, notes or glob patterns (forward slashes, no ..)"

    def parse(self, value):
        items = Texts().parse(value)
        if not all(_vault_pattern(item) for item in items):
            raise Invalid(value)
        return tuple(item.strip() for item in items)


def _vault_pattern(text: str) -> bool:
    path = text.strip().rstrip("/")
    parts = path.split("/")
    return bool(path) and "\\" not in path and "\0" not in path and not path.startswith("/") \
        and ":" not in parts[0] and all(part.strip() not in ("", ".", "..") for part in parts)


class TagName(Kind):
    """A tag, with or without its `#` (nested tags as `a/b`); nothing at all for no tag."""
    wants = "a tag (letters, digits, _ - /), or nothing for none"

    def parse(self, value):
        if value is None:
            return ""
        if not isinstance(value, str):
            raise Invalid(value)
        tag = value.strip().lstrip("#").strip("/")
        if tag and (not all(c.isalnum() or c in "_-/" for c in tag) or tag.replace("/", "").isdigit()
                    or "//" in tag):
            raise Invalid(value)
        return tag.lower()


# -- the definitions ------------------------------------------------------------------------------

class Setting:
    """One key of config.yaml (its name is the attribute of Settings it is defined as)."""

    def __init__(self, kind: Kind, default, doc: str, *, env: str | None = None, flag: str | None = None,
                 stops: bool = False, shown: str | None = None):
        self.kind, self.default, self.doc = kind, default, doc
        self.env, self.flag, self.stops = env, flag, stops
        self.shown = shown if shown is not None else default if isinstance(default, str) else show(default)
        self.name = ""

    def __set_name__(self, owner, name: str) -> None:
        self.name = name

    def default_value(self):
        return self.default() if callable(self.default) else self.default


def setting(kind: Kind, default, doc: str, **options) -> Any:
    """A setting's definition (typed Any so that `name: int = setting(...)` reads as an int)."""
    return Setting(kind, default, doc, **options)


def _home_vault() -> str:
    return os.path.join(os.path.expanduser("~"), "Vault")


class Settings:
    """The resolved settings: one attribute per definition below, plus where everything lives.

    A setting is one line here: its type, then `setting(kind, default, doc, env=..., stops=...)`.
    To add one, add its line (README's configuration table must show it: a test compares them)
    and read it as `settings.<name>`. `stops=True` for a setting whose invalid value must stop
    the writers (a place data goes, or data that must stay out) instead of falling back.
    """
    vault: str = setting(AbsolutePath(), _home_vault, "your vault", env="OBSIDIAN_VAULT", flag="--vault",
                         stops=True, shown="~/Vault")
    omnisearch_port: int = setting(Number(1, 65535), DEFAULT_OMNISEARCH_PORT,
                                   "Omnisearch's HTTP server (unset: the port in the vault's Omnisearch settings, "
                                   "before the default)", env="OMNISEARCH_PORT", flag="--port")
    context_budget: int = setting(
        Number(CONTEXT_BUDGET_MIN, CONTEXT_BUDGET_HARD_CAP, off=0, off_means="no context"), DEFAULT_CONTEXT_BUDGET,
        "characters the SessionStart hook may inject")
    excluded_projects: tuple = setting(Texts(), (), "project names (glob patterns allowed) or absolute folders "
                                                    "whose sessions are never archived", stops=True)
    redact: bool = setting(Boolean(), True, "redact secrets before writing (only `false` turns it off)")
    sessions_folder: str = setting(VaultPath(note=False), "Meta/claude-sessions",
                                   "where session notes go (the Bases view is this path + `.base`)",
                                   stops=True)
    history_note: str = setting(VaultPath(note=True), "Meta/claude-session-history.md",
                                "the table of the newest sessions (the month notes go in a folder of its name, `claude-activity.md` beside it)", stops=True)
    state_note: str = setting(VaultPath(note=True), "Meta/claude-state.md", "the working-state note", stops=True)
    learnings_note: str = setting(VaultPath(note=True), "Meta/claude-learnings.md", "the learnings note",
                                  stops=True)
    log_note: str = setting(VaultPath(note=True), "Meta/claude-log.md", "the agent log note", stops=True)
    index_ignore: tuple = setting(Texts(), (), "vault-relative glob patterns the local index skips")
    excluded_files: bool = setting(Boolean(), True, "leave the notes of Obsidian's Excluded files (Settings → "
                                                    "Files and links) out of search, related and similar, as "
                                                    "Obsidian's search does (`false`: search them too)")
    private: tuple = setting(VaultPatterns(), (), "folders, notes or glob patterns (`*` crosses folders) whose "
                                                  "notes no search, read, link list or context returns "
                                                  "(see docs/security.md)", stops=True)
    private_tag: str = setting(TagName(), "private", "a note with this tag (nested ones too), in its `tags` or "
                                                     "as `#tag` in its text, is private; so is one with "
                                                     "`private: true`", stops=True)
    archive_path: str | None = setting(AbsolutePath(), None, "the session archive", stops=True,
                                       shown="~/.claude/session-archive.db")
    prompt_recall: str = setting(Choice("off", "first", "every"), "first",
                                 "when the prompt hook looks for past sessions a prompt revisits: the first "
                                 "prompt of a session, every prompt, or never")
    session_text: str = setting(Choice("own", "all"), "own",
                                "whose answers, summaries and open tasks past sessions show (context, recall, "
                                "`search --sessions`): `own`, this machine's sessions that read no web page or "
                                "MCP tool; `all`, every session's (see docs/security.md)")
    auto_memory: bool = setting(Boolean(), False, "keep Claude Code's own auto memory of each repository in the vault "
                                                  "(Meta/claude-memory/<repository>/; `install.py --auto-memory`)")
    mcp_http_port: int = setting(Number(1024, 65535), DEFAULT_MCP_HTTP_PORT,
                                 "the port of the HTTP MCP server (`mcp --http`, on loopback only)")
    embed_threads: int = setting(Number(1, MAX_EMBED_THREADS, off=0, off_means="one core fewer than the machine has"),
                                 0, "cores `embed` computes embeddings on (it also runs at low priority)",
                                 flag="--threads")

    config_dir: str
    extra: dict              # config keys no definition knows (each is a `doctor` warning)
    problems: tuple          # the Problems of the values that were not used

    def __init__(self, config_dir: str, extra: dict | None = None, problems=(), **values):
        self.config_dir = _expand(config_dir)
        self.extra = dict(extra or {})
        self.problems = tuple(problems)
        for definition in SETTINGS:
            setattr(self, definition.name, values.pop(definition.name) if definition.name in values
                    else definition.default_value())
        if values:
            raise TypeError(f"unknown settings: {sorted(values)}")

    def __repr__(self):
        return f"Settings(config_dir={self.config_dir!r}, vault={self.vault!r})"

    def replace(self, **changes) -> "Settings":
        values = {definition.name: getattr(self, definition.name) for definition in SETTINGS}
        values.update(changes)
        return Settings(self.config_dir, self.extra, self.problems, **values)

    # -- derived locations -------------------------------------------------------------
    @property
    def home(self) -> str:
        """Our own folder inside the Claude config dir: config, log, venv, caches."""
        return home_dir(self.config_dir)

    @property
    def config_path(self) -> str:
        return config_path(self.config_dir)

    @property
    def archive(self) -> str:
        return self.archive_path or os.path.join(self.config_dir, "session-archive.db")

    @property
    def log_path(self) -> str:
        return log_path(self.config_dir)

    @property
    def sweep_stamp(self) -> str:
        """The file whose time says when the last background sweep started."""
        return os.path.join(self.home, SWEEP_STAMP)

    @property
    def pending_marks(self) -> str:
        """The folder of the marks a hook makes while its vault work is not done (one file per
        session, named by its id): SessionStart starts a sweep when one is newer than the stamp."""
        return os.path.join(self.home, "vault-pending")

    @property
    def cache_dir(self) -> str:
        override = os.environ.get("OBSIDIAN_MEMORY_CACHE_DIR")
        return _expand(override) if override else os.path.join(self.home, "cache")

    @property
    def user_templates_dir(self) -> str:
        return os.path.join(self.home, "templates")

    @property
    def projects_dir(self) -> str:
        """Where Claude Code keeps transcripts."""
        return os.path.join(self.config_dir, "projects")

    @property
    def effective_context_budget(self) -> int:
        return max(0, min(int(self.context_budget), CONTEXT_BUDGET_HARD_CAP))

    def vault_path(self, relative: str) -> str:
        """Absolute path of a vault-relative path written with forward slashes."""
        return os.path.join(self.vault, *relative.split("/"))


SETTINGS: tuple[Setting, ...] = tuple(v for v in vars(Settings).values() if isinstance(v, Setting))
BY_NAME = {definition.name: definition for definition in SETTINGS}


SWEEP_STAMP = "sweep.stamp"


def home_dir(config_dir: str) -> str:
    return os.path.join(config_dir, "obsidian-memory")


def config_path(config_dir: str) -> str:
    return os.path.join(home_dir(config_dir), "config.yaml")


def log_path(config_dir: str | None = None) -> str:
    """The log file; with no config dir given, the one of $CLAUDE_CONFIG_DIR (or ~/.claude when
    that is not usable: the log is where a broken setting is told, so it cannot depend on one)."""
    if config_dir is None:
        try:
            config_dir = claude_config_dir()
        except ConfigError:
            config_dir = _default_config_dir()
    return os.path.join(home_dir(config_dir), "obsidian-memory.log")


# -- problems --------------------------------------------------------------------------------------

FAIL, WARN = "fail", "warn"


class Problem:
    """A value that was not used, or a config file that could not be: `text` is the one line a
    person reads (where, what, what happens now); `short` names it without quoting any value;
    `stops` says it stops the writers; `level` is `fail` or `warn` (doctor's words)."""

    def __init__(self, text: str, short: str, *, stops: bool = False, level: str = FAIL):
        self.text, self.short, self.stops, self.level = text, short, stops, level

    def __str__(self) -> str:
        return self.text

    def __repr__(self) -> str:
        return f"Problem({self.text!r})"


class ConfigError(UserError):
    """The settings cannot be used: a config.yaml that cannot be read or parsed, or a value that
    has no safe default. `problems` are all of them (the stopping ones first); `config_dir` is
    where the log goes. For the command line it is a UserError: one line, exit 2."""

    def __init__(self, problems: list[Problem], config_dir: str):
        problems = sorted(problems, key=lambda p: not p.stops)
        self.problems, self.config_dir = problems, config_dir
        more = len([p for p in problems if p.level == FAIL]) - 1
        suffix = f" (and {more} more: `obsidian_memory.py doctor` lists them)" if more > 0 else ""
        super().__init__(problems[0].text + suffix)

STOPS_WRITERS = "obsidian-memory writes nothing until this is fixed"


def _invalid(definition: Setting, where: str, value, resolved, in_use: bool) -> Problem:
    """A value that is not valid. `in_use`: no source above it had a valid value, so it would
    have been the one used."""
    what = f"{where}: `{definition.name}` is {show(value)}, not {definition.kind.wants}"
    source = where if where.startswith(("$", "-")) else "config.yaml"
    short = f"`{definition.name}` in {source} is not valid"
    if definition.stops and in_use:
        return Problem(f"{what}; {STOPS_WRITERS}", short, stops=True)
    return Problem(f"{what}; ignored, so {definition.name} is {show(resolved)}", short)


def _unknown(key, where: str) -> Problem:
    import difflib

    close = difflib.get_close_matches(str(key), list(BY_NAME), n=1, cutoff=0.6)
    hint = f" (did you mean `{close[0]}`?)" if close else ""
    return Problem(f"{where}: unknown setting `{key}`{hint}; ignored", f"unknown setting `{key}`", level=WARN)


# -- resolving ---------------------------------------------------------------------------------------

def _expand(path) -> str:
    return os.path.abspath(os.path.expanduser(os.fspath(path)))


def _default_config_dir() -> str:
    return os.path.join(os.path.expanduser("~"), ".claude")


def claude_config_dir() -> str:
    """$CLAUDE_CONFIG_DIR (an absolute path), else ~/.claude. Raises ConfigError when it is set
    to something else: every file of ours and Claude Code's lives under it."""
    value = os.environ.get(CONFIG_DIR_ENV)
    if not value:
        return _default_config_dir()
    try:
        return AbsolutePath().parse(value)
    except Invalid:
        problem = Problem(f"${CONFIG_DIR_ENV} is {show(value)}, not {AbsolutePath.wants}; {STOPS_WRITERS}",
                          f"${CONFIG_DIR_ENV} is not valid", stops=True)
        raise ConfigError([problem], _default_config_dir()) from None


def load(vault=None, port=None, config_dir=None, threads=None) -> Settings:
    """Resolve the settings: flags (the arguments) > environment > config.yaml > defaults; for
    the vault of a plugin install, its vault option comes after the flag (`plugin_vault`).

    Raises ConfigError when they cannot be used (see the module's docstring), and for a flag
    that is not valid. Problems that fell back to a safe value are in `settings.problems`."""
    cdir = _expand(config_dir) if config_dir else claude_config_dir()
    path = config_path(cdir)
    try:
        found = read_config_file(path)
    except ConfigError as exc:
        raise ConfigError(exc.problems, cdir) from None
    flags = {"vault": _expand(vault) if vault not in (None, "") else None, "omnisearch_port": port,
             "embed_threads": threads}
    problems: list[Problem] = []
    values = {}
    for definition in SETTINGS:
        values[definition.name] = _resolve(definition, flags.get(definition.name), found, path, problems, cdir,
                                           _fallback(definition, values),
                                           plugin_vault(cdir) if definition.name == "vault" else None)
    extra = {key: value for key, value in found.items() if key not in BY_NAME}
    problems += [_unknown(key, path) for key in list(extra)[:MAX_UNKNOWN_REPORTED]]
    if any(p.stops for p in problems):
        raise ConfigError(problems, cdir)
    _report(problems)
    return Settings(cdir, extra, problems, **values)


PLUGIN = "obsidian-memory"                 # the plugin's name (plugin.json), before `@<marketplace>`
PLUGIN_OPTION_ENV = "CLAUDE_PLUGIN_OPTION_VAULT"
PLUGIN_VENV_STAMP = ".obsidian-memory-plugin"   # hooks/run_hook.py's mark in the venv it bootstrapped
CLAUDE_SETTINGS_MAX_BYTES = 4_000_000


def plugin_vault(config_dir: str) -> tuple[str, str] | None:
    """(where it comes from, the vault) of a plugin install, which the plugin's hooks and its command
    line both follow, or None for any other process. Claude Code hands the plugin's `vault` option
    to its hooks as $CLAUDE_PLUGIN_OPTION_VAULT; the command line of a plugin install (the Python
    of the venv the plugin bootstrapped, run by hand) reads it where Claude Code keeps it: the
    enabled plugin's `pluginConfigs` entry in <config>/settings.json. An empty option is none."""
    given = os.environ.get(PLUGIN_OPTION_ENV, "").strip()
    if given:
        return f"${PLUGIN_OPTION_ENV} (the plugin's vault option)", os.path.expanduser(given)
    if not _plugin_process():
        return None
    from obsidian_memory.core import json_light

    path = os.path.join(config_dir, "settings.json")
    data = json_light.read_json(path, CLAUDE_SETTINGS_MAX_BYTES)
    if isinstance(data, json_light.Unread):
        return None
    try:
        enabled, configs = data.get("enabledPlugins") or {}, data.get("pluginConfigs") or {}
        for name, config in configs.items():
            if str(name).split("@")[0] == PLUGIN and enabled.get(name) and isinstance(config, dict):
                value = (config.get("options") or {}).get("vault")
                if isinstance(value, str) and value.strip():
                    return f"the plugin's vault option ({path}, pluginConfigs)", os.path.expanduser(value.strip())
    except AttributeError:     # (a part that is no object)
        return None
    return None


def _plugin_process() -> bool:
    """The Python of the venv the plugin bootstrapped (marked by its bootstrap), or the plugin's
    hook launcher (hooks/run_hook.py, run by another Python: Claude Code names it the plugin's
    data folder, where that venv is), which answers some prompts itself."""
    import sys

    data = os.environ.get("CLAUDE_PLUGIN_DATA")
    homes = [sys.prefix] + ([os.path.join(data, "venv")] if data else [])
    return any(os.path.isfile(os.path.join(home, PLUGIN_VENV_STAMP)) for home in homes)


def _fallback(definition: Setting, resolved: dict):
    """What a setting is when no source gives a valid value: its default, except the Omnisearch
    port, which the vault's own Omnisearch settings give first (the vault is resolved before it)."""
    if definition.name != "omnisearch_port":
        return definition.default_value

    def port() -> int:
        from obsidian_memory.vault import omnisearch_plugin
        return omnisearch_plugin.discovered_port(resolved["vault"]) or definition.default_value()
    return port


def _resolve(definition: Setting, flag, found: dict, path: str, problems: list, cdir: str, fallback,
             plugin: tuple[str, str] | None = None):
    sources = []
    if flag is not None:
        sources.append((definition.flag or definition.name, flag))
    if plugin is not None:
        sources.append(plugin)
    if definition.env and os.environ.get(definition.env):
        sources.append((f"${definition.env}", os.environ[definition.env]))
    if definition.name in found:
        sources.append((path, found[definition.name]))
    rejected, accepted = [], []
    for where, value in sources:  # every source is checked, also those a higher one overrides
        try:
            accepted.append(definition.kind.parse(value))
        except Invalid:
            if where == definition.flag:
                problem = Problem(f"{where} {show(value)} is not {definition.kind.wants}", f"{where} is not valid",
                                  stops=True)
                raise ConfigError([problem], cdir) from None
            rejected.append((where, value, not accepted))  # would it have been the value used?
    resolved = accepted[0] if accepted else fallback()
    problems.extend(_invalid(definition, where, value, resolved, in_use)
                    for where, value, in_use in rejected)
    return resolved


# Where a command line prints the problems that fell back (set by the CLI entry points; hooks
# never set it: they log). Each problem is printed once per process.
_warn_stream = None
_warned: set = set()


def warn_on(stream) -> None:
    global _warn_stream
    _warn_stream = stream


def _report(problems) -> None:
    if _warn_stream is None:
        return
    for problem in problems:
        if problem.text not in _warned:
            _warned.add(problem.text)
            try:
                _warn_stream.write(f"obsidian-memory: warning: {problem.text}\n")
            except Exception:
                pass


# -- config.yaml -----------------------------------------------------------------------------------

class _NotFlat(Exception):
    pass


def read_config_file(path: str) -> dict:
    """The key/value pairs of config.yaml; {} when there is no such file. Raises ConfigError when
    there is one but it cannot be used (unreadable, not UTF-8, not YAML, not `key: value` lines):
    settings silently replaced by defaults would send notes into another vault."""
    def broken(what: str, short: str = "cannot be used") -> ConfigError:
        return ConfigError([Problem(f"{path} {what}", f"config.yaml {short}", stops=True)], "")

    if not os.path.lexists(path):
        return {}
    if not os.path.exists(path):
        raise broken(f"is a link to {os.readlink(path)}, which does not exist: fix the link or delete it")
    if os.path.isdir(path):
        raise broken("is a folder, not a file: remove it (install.sh writes a fresh config.yaml)")
    try:
        with open(path, "rb") as handle:
            data = handle.read(CONFIG_MAX_BYTES + 1)
    except OSError as exc:
        raise broken(f"cannot be read ({exc.strerror or exc}): check its permissions "
                     f"(chmod u+r), or delete it and re-run install.py", "cannot be read") from None
    if len(data) > CONFIG_MAX_BYTES:
        raise broken(f"is larger than {CONFIG_MAX_BYTES:,} bytes: not a settings file")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[:exc.start].count(b"\n") + 1
        raise broken(f"line {line} is not UTF-8 text: save the file as UTF-8", f"line {line} is not UTF-8") from None
    try:
        return parse_flat_yaml(text)
    except _NotFlat:
        pass
    from obsidian_memory.vault import frontmatter   # (the one YAML reader: PyYAML's, without aliases)

    try:
        data = frontmatter.load(text)      # only for hand-written files outside the flat subset
    except ImportError:
        raise broken("uses YAML beyond plain `key: value` lines, and PyYAML is not installed: "
                     "simplify it or re-run install.py") from None
    except frontmatter.Refused as exc:
        raise broken(f"uses {exc}, which obsidian-memory does not read: write each value out "
                     "(or delete the file and re-run install.py)", "cannot be parsed") from None
    except Exception as exc:
        where = _yaml_error_place(exc, text)
        raise broken(f"{where[0]}: fix that line (or delete the file and re-run install.py, which writes "
                     "a fresh one)", where[1]) from None
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise broken("does not hold `key: value` lines: fix it, or delete it and re-run install.py")
    return data


def _yaml_error_place(exc: Exception, text: str) -> tuple[str, str]:
    """(a description with the line, a short one without its content) of a YAML error. An error
    found after an unfinished part (an unclosed bracket or quote) is told at the line where that
    part began: that is the line to fix."""
    lines = text.splitlines()

    def line_of(mark) -> int | None:
        if mark is None or not lines:
            return None
        number = min(mark.line, len(lines) - 1)
        while number > 0 and not lines[number].strip():
            number -= 1  # an error at the end of the file belongs to the last line that says something
        return number

    problem = getattr(exc, "problem", None) or (str(exc).splitlines() or [type(exc).__name__])[0]
    found, began = line_of(getattr(exc, "problem_mark", None)), line_of(getattr(exc, "context_mark", None))
    if isinstance(getattr(exc, "position", None), int):  # a character the reader refuses
        # (its first place in the text: libyaml's reader counts its position in bytes, not characters)
        character = getattr(exc, "character", None)
        at = text.find(chr(character)) if isinstance(character, int) else -1
        found = min(text[:at if at >= 0 else exc.position].count("\n"), max(len(lines) - 1, 0))
    if found is None and began is None:
        return f"cannot be parsed ({problem})", "cannot be parsed"
    if began is not None and (found is None or began < found):
        detail = f"{exc.context} {show(lines[began].strip())}, {problem} on line {found + 1}" if found is not None \
            else f"{exc.context} {show(lines[began].strip())}"
        return f"line {began + 1} is not valid YAML ({detail})", f"line {began + 1} is not valid YAML"
    return (f"line {found + 1} is not valid YAML ({problem}: {show(lines[found].strip() if lines else '')})",
            f"line {found + 1} is not valid YAML")


# The flat reader. It accepts only what it reads exactly as PyYAML does (a test compares them on
# generated files) and raises _NotFlat for anything else: quoted keys, escapes, anchors, tags,
# block scalars, nested maps, numbers other than plain decimal integers, odd indentation.
_BOOLS = {**dict.fromkeys(("yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON"), True),
          **dict.fromkeys(("no", "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF"), False)}
_NULLS = ("", "~", "null", "Null", "NULL")


def parse_flat_yaml(text: str) -> dict:
    """`key: scalar`, `key: [a, b]`, and `key:` followed by `- item` lines; comments allowed."""
    if not _printable(text):
        raise _NotFlat("a character YAML does not allow")
    result: dict = {}
    list_key = list_indent = None
    seen_content = False
    for raw in text.splitlines():
        line = raw.rstrip(" ")
        stripped = line.lstrip(" ")
        if not stripped or stripped.startswith("#"):
            continue
        if stripped.rstrip() == "---" and not seen_content and line == stripped:
            seen_content = True
            continue
        seen_content = True
        indent = len(line) - len(stripped)
        if stripped.startswith("-") and stripped[1:2] in ("", " "):
            if list_key is None or list_indent not in (None, indent):
                raise _NotFlat(raw)
            list_indent = indent
            result[list_key].append(_block_scalar(stripped[1:].lstrip(" "), in_list=True))
            continue
        if indent:
            raise _NotFlat(raw)
        key, value = _key_and_rest(stripped)
        if list_key is not None and not result[list_key]:
            result[list_key] = None  # `key:` with nothing under it is null
        list_key = list_indent = None
        if not _without_comment(value):
            result[key] = []
            list_key = key
            continue
        result[key] = _flow_list(value) if value.startswith("[") else _block_scalar(value)
    if list_key is not None and not result[list_key]:
        result[list_key] = None
    return result


def _printable(text: str) -> bool:
    # the characters PyYAML's reader accepts (tab, newlines and printable Unicode)
    for ch in text:
        code = ord(ch)
        if code < 0x20 and ch not in "\t\n\r" or 0x7F <= code < 0xA0 and code != 0x85 \
                or 0xD800 <= code < 0xE000 or code in (0xFFFE, 0xFFFF):
            return False
    # tabs are legal in places but never needed here, and Python splits lines where YAML does not
    return not any(ch in text for ch in "\t\x85\u2028\u2029")


def _key_and_rest(line: str) -> tuple[str, str]:
    key, colon, rest = line.partition(":")
    key = key.rstrip(" ")
    if (not colon or not key or not (key[0].isascii() and (key[0].isalpha() or key[0] == "_"))
            or not all(c.isascii() and (c.isalnum() or c == "_") for c in key)
            or key in _BOOLS or key in _NULLS or rest[:1] not in ("", " ")):
        raise _NotFlat(line)
    return key, rest.strip(" ")


def _without_comment(value: str) -> str:
    """A plain value without its trailing comment (a `#` after a space)."""
    cut = value.find(" #")
    return (value[:cut] if cut >= 0 else value).rstrip(" ") if not value.startswith("#") else ""


def _block_scalar(value: str, in_list: bool = False):
    if value.startswith(("'", '"')):
        body, rest = _quoted(value)
        if _without_comment(rest.lstrip(" ")) or (rest and not rest.startswith(" ")):
            raise _NotFlat(value)
        return body
    return _plain(_without_comment(value), flow=False)


def _quoted(value: str) -> tuple[str, str]:
    """A quoted scalar at the start of `value`: (its text, what follows it)."""
    quote = value[0]
    i = 1
    while True:
        end = value.find(quote, i)
        if end < 0:
            raise _NotFlat(value)
        if quote == "'" and value[end + 1:end + 2] == "'":
            i = end + 2
            continue
        body = value[1:end]
        if quote == '"' and "\\" in body:
            raise _NotFlat(value)  # escapes: PyYAML's job
        return (body.replace("''", "'") if quote == "'" else body), value[end + 1:]


def _plain(value: str, *, flow: bool):
    if value in _NULLS:
        return None
    if value in _BOOLS:
        return _BOOLS[value]
    first = value[0]
    if first.isdigit() or first in "+-":
        digits = value[1:] if first in "+-" else value
        if digits.isascii() and digits.isdigit() and (digits == "0" or digits[0] != "0") and len(digits) < 100:
            return int(value)
        raise _NotFlat(value)  # octal, hex, floats, dates, sexagesimal: PyYAML's job
    if not (first.isalpha() or first in "/_~") or ": " in value or value.endswith(":") \
            or (flow and any(c in value for c in "[]{},#:")):
        raise _NotFlat(value)
    return value


def _flow_list(value: str) -> list:
    items: list = []
    rest = value[1:].lstrip(" ")
    if rest.startswith("]"):
        rest = rest[1:]
    else:
        while True:
            if rest.startswith(("'", '"')):
                item, rest = _quoted(rest)
            else:
                cut = min((i for i in (rest.find(","), rest.find("]")) if i >= 0), default=-1)
                if cut < 0:
                    raise _NotFlat(value)
                item, rest = rest[:cut].strip(" "), rest[cut:]
                if not item:
                    raise _NotFlat(value)
                item = _plain(item, flow=True)
            items.append(item)
            rest = rest.lstrip(" ")
            if rest.startswith("]"):
                rest = rest[1:]
                break
            if not rest.startswith(","):
                raise _NotFlat(value)
            rest = rest[1:].lstrip(" ")
    if _without_comment(rest.lstrip(" ")) or (rest and not rest.startswith(" ")):
        raise _NotFlat(value)
    return items


def dump_flat_yaml(data: dict) -> str:
    """Write the subset parse_flat_yaml reads back exactly (used by the installer)."""
    lines = []
    for key, value in data.items():
        if isinstance(value, (list, tuple)):
            lines.append(f"{key}: [{', '.join(_quote(v) for v in value)}]")
        else:
            lines.append(f"{key}: {_quote(value)}")
    return "\n".join(lines) + "\n"


def _quote(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "null"
    if isinstance(value, int):
        return str(value)
    text = str(value)
    return "'" + text.replace("'", "''") + "'"
