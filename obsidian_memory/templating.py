"""Finding and rendering the jinja2 templates.

Search order: the user's override folder (`settings.user_templates_dir`), the templates packaged
with the installed package (`obsidian_memory/templates/`), then the checkout's `templates/`.
jinja2 is imported here only, never on the SessionStart path.
"""
from __future__ import annotations

import os

_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))
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


def environment(settings=None, filters: dict | None = None):
    """A jinja2 environment over the search path: no autoescape (Markdown, not HTML), undefined
    names are errors, and the text is kept as written (no trailing-newline loss)."""
    import jinja2

    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(search_path(settings)),
        autoescape=False,
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters.update(filters or {})
    return env


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
    from obsidian_memory import logs
    logs.log_for(settings, f"template {override} failed ({failure}); the packaged template was used instead")
    return environment(None, filters).get_template(name).render(**context)


def _user_override(name: str, settings) -> str | None:
    folder = settings.user_templates_dir if settings is not None else None
    path = os.path.join(folder, name) if folder else None
    return path if path and os.path.isfile(path) else None
