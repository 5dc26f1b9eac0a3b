"""The import graph of the package goes one way: a module imports only modules of its own layer
or of the layers below (imports inside functions count too). README's Development section draws
the same layers."""
from __future__ import annotations

import ast
import fnmatch
import re

from testkit import REPO

PACKAGE = REPO / "obsidian_memory"

# Lowest first. A module matches the first pattern that names it.
LAYERS = [
    ("foundation", ["obsidian_memory", "obsidian_memory.errors", "obsidian_memory.clock", "obsidian_memory.textclean",
                    "obsidian_memory.record", "obsidian_memory.frontmatter", "obsidian_memory.fsutil", "obsidian_memory.sqlitedb",
                    "obsidian_memory.locks", "obsidian_memory.spawn", "obsidian_memory.logs",
                    "obsidian_memory.settings", "obsidian_memory.model", "obsidian_memory.progress",
                    "obsidian_memory.templating", "obsidian_memory.gitinfo", "obsidian_memory.machine", "obsidian_memory.sync_conflicts", "obsidian_memory.markdown",
                    "obsidian_memory.omnisearch_plugin", "obsidian_memory.privacy"]),
    ("data", ["obsidian_memory.transcript", "obsidian_memory.outcomes", "obsidian_memory.redact", "obsidian_memory.archive",
              "obsidian_memory.session_merge", "obsidian_memory.recall.terms",
              "obsidian_memory.session_search", "obsidian_memory.evaluation", "obsidian_memory.search.links",
              "obsidian_memory.search.tokens",
              "obsidian_memory.search.semantic"]),
    ("vault notes", ["obsidian_memory.notes", "obsidian_memory.notes.*"]),
    ("search stores", ["obsidian_memory.search.store", "obsidian_memory.search.store.*"]),
    ("search shapes", ["obsidian_memory.search.base", "obsidian_memory.search.fusion", "obsidian_memory.search.output"]),
    ("search engines", ["obsidian_memory.search.fulltext", "obsidian_memory.search.title", "obsidian_memory.search.hybrid",
                        "obsidian_memory.search.scan", "obsidian_memory.search.omnisearch"]),
    ("search", ["obsidian_memory.search", "obsidian_memory.search.dispatch", "obsidian_memory.search.graph",
                "obsidian_memory.search.reading"]),
    ("services", ["obsidian_memory.capture", "obsidian_memory.context", "obsidian_memory.status",
                  "obsidian_memory.install", "obsidian_memory.recall", "obsidian_memory.recall.*",
                  "obsidian_memory.mcp_endpoint"]),
    ("checks", ["obsidian_memory.doctor"]),
    ("entry points", ["obsidian_memory.cliutil", "obsidian_memory.cli", "obsidian_memory.__main__",
                      "obsidian_memory.commands", "obsidian_memory.commands.*", "obsidian_memory.search.cli",
                      "obsidian_memory.mcp_server", "obsidian_memory.mcp_http"]),
]


def module_name(path) -> str:
    parts = list(path.relative_to(REPO).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def modules() -> dict[str, object]:
    return {module_name(path): path for path in PACKAGE.rglob("*.py")}


def layer(name: str) -> int:
    for number, (_, patterns) in enumerate(LAYERS):
        if any(fnmatch.fnmatchcase(name, pattern) for pattern in patterns):
            return number
    raise AssertionError(f"{name} is in no layer of tests/test_layers.py: add it where it belongs")


def imports(path, known: set[str]) -> set[str]:
    """The package's modules that `path` imports, anywhere in it (relative imports resolved)."""
    found = set()
    package = module_name(path).split(".")
    if path.name != "__init__.py":
        package.pop()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = ".".join(package[:len(package) - node.level + 1] if node.level else [])
            source = ".".join(part for part in (base, node.module or "") if part)
            found.update(f"{source}.{alias.name}" if f"{source}.{alias.name}" in known else source
                         for alias in node.names)
    return {name for name in found if name in known}


def test_every_module_has_a_layer():
    for name in modules():
        layer(name)


def test_no_module_imports_from_a_higher_layer():
    known = modules()
    upward = []
    for name, path in sorted(known.items()):
        for target in sorted(imports(path, set(known))):
            if layer(target) > layer(name):
                upward.append(f"{name} ({LAYERS[layer(name)][0]}) imports {target} ({LAYERS[layer(target)][0]})")
    assert not upward, "\n".join(upward)


def test_the_readme_sketch_names_every_module():
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    sketch = readme.split("## Development", 1)[1].split("```")[1]
    words = set(re.findall(r"[\w/]+", sketch))
    folders = {word for word in words if word.endswith("/")}
    missing = []
    for name in modules():
        path = name.removeprefix("obsidian_memory").lstrip(".").replace(".", "/")
        parents = {"/".join(path.split("/")[:n]) + "/" for n in range(1, path.count("/") + 1)}
        if path and path != "__main__" and path not in words and not (parents | {path + "/"}) & folders:
            missing.append(path)
    assert not missing, f"README's Development sketch does not name {missing}"
