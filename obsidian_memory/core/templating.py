"""Finding and rendering the jinja2 templates.

Search order: the user's override folder (`settings.user_templates_dir`), the templates packaged
with the installed package (`obsidian_memory/templates/`), then the checkout's `templates/`.
jinja2 is imported here only, never on the SessionStart path.

Compiling the session template is a fifth of a SessionEnd hook's time, so a compiled template is
kept: in the process (one environment per search path and filters, so that `import` compiles once
for all its sessions) and on disk, in the cache folder (`templates/`, jinja2's bytecode cache: keyed
by the template's name and checked against its source, so an edited override is compiled again).
The disk cache is a cache: a file it cannot read or write is compiled from the source instead.
"""
from __future__ import annotations

import os

_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PACKAGED_DIR = os.path.join(_PACKAGE_DIR, "templates")
REPO_DIR = os.path.join(os.path.dirname(_PACKAGE_DIR), "templates")


def search_path(settings=None) -> list[str]:
    """The template folders, most specific first (missing ones are left out)."""
    folders = [settings.user_templates_dir] if settings is not None else []
    folders += [PACKAGED_DIR, REPO_DIR]
    unique: list[str] = []
    for folder in folders:
        if folder and os.path.isdir(folder) and folder not in unique:
            unique.append(folder)
    return unique


_ENVIRONMENTS: dict[tuple, object] = {}
CACHE_FOLDER = "templates"


def environment(settings=None, filters: dict | None = None):
    """A jinja2 environment over the search path: no autoescape (Markdown, not HTML), undefined
    names are errors, and the text is kept as written (no trailing-newline loss). The same one
    for the same folders and filters within a process; with `settings`, compiled templates are
    kept in its cache folder."""
    import jinja2

    folders = search_path(settings)
    cache = os.path.join(settings.cache_dir, CACHE_FOLDER) if settings is not None else None
    key = (tuple(folders), cache, tuple(sorted((filters or {}).items())))
    env = _ENVIRONMENTS.get(key)
    if env is None:
        env = jinja2.Environment(
            loader=jinja2.FileSystemLoader(folders),
            autoescape=False,
            undefined=jinja2.StrictUndefined,
            keep_trailing_newline=True,
            trim_blocks=True,
            lstrip_blocks=True,
            bytecode_cache=_bytecode_cache(jinja2, cache) if cache else None,
        )
        env.filters.update(filters or {})
        _ENVIRONMENTS[key] = env
    return env


def _bytecode_cache(jinja2, folder: str):
    """jinja2's file cache of compiled templates, made harmless: a file it cannot read (damaged,
    from another jinja2, unreadable) is a miss, one it cannot write is not written."""
    class QuietCache(jinja2.FileSystemBytecodeCache):
        def load_bytecode(self, bucket) -> None:
            try:
                super().load_bytecode(bucket)
            except Exception:
                bucket.reset()

        def dump_bytecode(self, bucket) -> None:
            try:
                os.makedirs(self.directory, exist_ok=True)
                super().dump_bytecode(bucket)
            except OSError:
                pass

    return QuietCache(folder)


def render(name: str, settings=None, *, filters: dict | None = None, **context) -> str:
    """The template `name` rendered. A user's override that fails (a syntax error, a name this
    version no longer gives, a filter misused) costs a log line, not the note: the packaged
    template renders instead."""
    try:
        return environment(settings, filters).get_template(name).render(**context)
    except Exception as exc:
        override = _user_override(name, settings)
        if override is None:
            raise
        failure = f"{type(exc).__name__}: {exc}"
    from obsidian_memory.core import logs
    logs.log_for(settings, f"template {override} failed ({failure}); the packaged template was used instead")
    return environment(None, filters).get_template(name).render(**context)


def _user_override(name: str, settings) -> str | None:
    folder = settings.user_templates_dir if settings is not None else None
    path = os.path.join(folder, name) if folder else None
    return path if path and os.path.isfile(path) else None
