"""Where things live and how the user configured them.

Precedence for every value: a command-line flag beats the environment, which beats
`config.yaml`, which beats the default. This module is on the SessionStart path, so it
imports nothing heavy: `config.yaml` is read with a small reader for the flat subset of
YAML that we write, and only a file outside that subset costs a `yaml` import.
"""
from __future__ import annotations

import os

DEFAULT_OMNISEARCH_PORT = 51361
DEFAULT_CONTEXT_BUDGET = 6000
CONTEXT_BUDGET_HARD_CAP = 9500

# name -> default. Paths are plain strings (absolute, user-expanded): pathlib and dataclasses
# cost more to import than the whole SessionStart hook may spend.
_DEFAULTS = {
    "vault": None,                      # $OBSIDIAN_VAULT, default ~/Vault
    "omnisearch_port": DEFAULT_OMNISEARCH_PORT,
    "context_budget": DEFAULT_CONTEXT_BUDGET,
    "excluded_projects": (),
    "redact": True,
    "sessions_folder": "Meta/claude-sessions",
    "history_note": "Meta/claude-session-history.md",
    "state_note": "Meta/claude-state.md",
    "learnings_note": "Meta/claude-learnings.md",
    "log_note": "Meta/claude-log.md",
    "index_ignore": (),                 # glob patterns (vault-relative) the local index skips
    "archive_path": None,               # default: <config_dir>/session-archive.db
}
_LIST_KEYS = {"excluded_projects", "index_ignore"}
_INT_KEYS = {"omnisearch_port", "context_budget"}
_PATH_KEYS = {"vault", "archive_path"}


class Settings:
    """Resolved settings. Attributes are the keys of _DEFAULTS plus `config_dir` and `extra`."""

    def __init__(self, config_dir: str, extra: dict | None = None, **values):
        self.config_dir = _expand(config_dir)
        self.extra = extra or {}          # unknown config keys, kept for forward compatibility
        for key, default in _DEFAULTS.items():
            setattr(self, key, values.pop(key, default))
        if values:
            raise TypeError(f"unknown settings: {sorted(values)}")
        if not self.vault:
            self.vault = os.path.join(os.path.expanduser("~"), "Vault")

    def __repr__(self):
        return f"Settings(config_dir={self.config_dir!r}, vault={self.vault!r})"

    def replace(self, **changes) -> "Settings":
        values = {key: getattr(self, key) for key in _DEFAULTS}
        values.update(_coerce(changes))
        return Settings(self.config_dir, dict(self.extra), **values)

    # -- derived locations -------------------------------------------------------------
    @property
    def home(self) -> str:
        """Our own folder inside the Claude config dir: config, log, venv, caches."""
        return os.path.join(self.config_dir, "obsidian-memory")

    @property
    def config_path(self) -> str:
        return os.path.join(self.home, "config.yaml")

    @property
    def archive(self) -> str:
        return self.archive_path or os.path.join(self.config_dir, "session-archive.db")

    @property
    def log_path(self) -> str:
        return os.path.join(self.home, "obsidian-memory.log")

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


def _expand(path) -> str:
    return os.path.abspath(os.path.expanduser(os.fspath(path)))


def claude_config_dir() -> str:
    value = os.environ.get("CLAUDE_CONFIG_DIR")
    return _expand(value) if value else os.path.join(os.path.expanduser("~"), ".claude")


def load(vault=None, port=None, config_dir=None) -> Settings:
    """Resolve the settings: flags (the arguments) > environment > config.yaml > defaults."""
    cdir = _expand(config_dir) if config_dir else claude_config_dir()
    values: dict = {}
    extra: dict = {}
    for key, value in read_config_file(os.path.join(cdir, "obsidian-memory", "config.yaml")).items():
        (values if key in _DEFAULTS else extra)[key] = value
    env_vault = os.environ.get("OBSIDIAN_VAULT")
    env_port = os.environ.get("OMNISEARCH_PORT")
    if env_vault:
        values["vault"] = env_vault
    if env_port:
        values["omnisearch_port"] = env_port
    if vault is not None:
        values["vault"] = vault
    if port is not None:
        values["omnisearch_port"] = port
    return Settings(cdir, extra, **_coerce(values))


def _coerce(values: dict) -> dict:
    out = {}
    for key, value in values.items():
        if key in _PATH_KEYS:
            out[key] = _expand(value) if value not in (None, "") else None
        elif key in _INT_KEYS:
            try:
                out[key] = int(value)
            except (TypeError, ValueError):
                continue  # a bad number falls back to the default rather than breaking a hook
        elif key in _LIST_KEYS:
            if value is None:
                value = []
            elif isinstance(value, str):
                value = [value]
            out[key] = tuple(str(v) for v in value)
        elif key == "redact":
            out[key] = value if isinstance(value, bool) else str(value).lower() in ("1", "true", "yes", "on")
        else:
            out[key] = value if value is None else str(value)
    return out


# -- a reader for the flat YAML subset we write -------------------------------------------

class _NotFlat(Exception):
    pass


def read_config_file(path: str) -> dict:
    """Read config.yaml; a missing or unreadable file is an empty config, never an error."""
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            text = handle.read()
    except OSError:
        return {}
    try:
        return parse_flat_yaml(text)
    except _NotFlat:
        try:
            import yaml  # only for hand-written files outside the flat subset
            data = yaml.safe_load(text)
            return data if isinstance(data, dict) else {}
        except Exception:
            return {}


def parse_flat_yaml(text: str) -> dict:
    """`key: scalar`, `key: [a, b]`, and `key:` followed by `- item` lines; comments allowed."""
    result: dict = {}
    list_key = None
    for raw in text.splitlines():
        line = _strip_comment(raw).rstrip()
        if not line.strip() or line.strip() == "---":
            continue
        stripped = line.lstrip()
        if stripped.startswith("- ") or stripped == "-":
            if list_key is None:
                raise _NotFlat(raw)
            result[list_key].append(_scalar(stripped[1:].strip()))
            continue
        if line[0].isspace() or ":" not in line:
            raise _NotFlat(raw)
        key, _, value = line.partition(":")
        key, value = key.strip(), value.strip()
        if not value:
            result[key] = []
            list_key = key
            continue
        list_key = None
        if value.startswith("["):
            if not value.endswith("]"):
                raise _NotFlat(raw)
            inner = value[1:-1].strip()
            result[key] = [_scalar(v.strip()) for v in _split_inline(inner)] if inner else []
        elif value.startswith(("{", "|", ">", "&", "*", "!")):
            raise _NotFlat(raw)
        else:
            result[key] = _scalar(value)
    # a `key:` with nothing under it is null, not an empty list
    return {k: (None if v == [] and k not in _LIST_KEYS else v) for k, v in result.items()}


def _strip_comment(line: str) -> str:
    quote = None
    for i, ch in enumerate(line):
        if quote:
            if ch == quote:
                quote = None
        elif ch in "\"'":
            quote = ch
        elif ch == "#" and (i == 0 or line[i - 1].isspace()):
            return line[:i]
    return line


def _split_inline(inner: str) -> list[str]:
    parts, current, quote = [], [], None
    for ch in inner:
        if quote:
            current.append(ch)
            if ch == quote:
                quote = None
        elif ch in "\"'":
            quote = ch
            current.append(ch)
        elif ch == ",":
            parts.append("".join(current))
            current = []
        else:
            current.append(ch)
    parts.append("".join(current))
    return parts


def _scalar(value: str):
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
        body = value[1:-1]
        if value[0] == '"':
            if "\\" in body:
                raise _NotFlat(value)
            return body
        return body.replace("''", "'")
    lowered = value.lower()
    if lowered in ("true", "yes", "on"):
        return True
    if lowered in ("false", "no", "off"):
        return False
    if lowered in ("null", "~", ""):
        return None
    try:
        return int(value)
    except ValueError:
        return value


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
