"""The import graph of the package goes one way: a module imports only modules of its own layer
or of the layers below (imports inside functions count too). README's Development section draws
the same layers."""
from __future__ import annotations

import ast
import fnmatch
import re

from testkit import REPO

PACKAGE = REPO / "obsidian_memory"

# Lowest first. A module belongs to the layer of the most specific (longest) pattern that names it:
# a package's pattern gives its modules their layer, and a module named on its own sits elsewhere.
LAYERS = [
    ("foundations", ["obsidian_memory", "obsidian_memory.core*", "obsidian_memory.vault*"]),
    ("records", ["obsidian_memory.capture*", "obsidian_memory.archive*"]),
    ("vault notes", ["obsidian_memory.vault.notes*"]),
    ("search parts", ["obsidian_memory.search.*"]),
    ("search store", ["obsidian_memory.search.store*"]),
    ("search shapes", ["obsidian_memory.search.base", "obsidian_memory.search.fusion", "obsidian_memory.search.output"]),
    ("search engines", ["obsidian_memory.search.engines*"]),
    ("search", ["obsidian_memory.search", "obsidian_memory.search.dispatch", "obsidian_memory.search.graph",
                "obsidian_memory.search.reading"]),
    ("services", ["obsidian_memory.capture.archiving", "obsidian_memory.context*", "obsidian_memory.setup*",
                  "obsidian_memory.mcp.endpoint"]),
    ("checks", ["obsidian_memory.setup.doctor"]),
    ("entry points", ["obsidian_memory.__main__", "obsidian_memory.cli*", "obsidian_memory.search.cli",
                      "obsidian_memory.mcp*"]),
]


def module_name(path) -> str:
    parts = list(path.relative_to(REPO).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def modules() -> dict[str, object]:
    return {module_name(path): path for path in PACKAGE.rglob("*.py")}


def layer(name: str) -> int:
    matches = [(len(pattern), number) for number, (_, patterns) in enumerate(LAYERS) for pattern in patterns
               if fnmatch.fnmatchcase(name, pattern)]
    if not matches:
        raise AssertionError(f"{name} is in no layer of tests/test_layers.py: add it where it belongs")
    return max(matches)[1]


def imports(path, known: set[str], name: str | None = None) -> set[str]:
    """The package's modules that `path` (the module `name`) imports, anywhere in it (relative
    imports resolved)."""
    found = set()
    package = (name or module_name(path)).split(".")
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


def upward_imports(known: dict[str, object]) -> list[str]:
    upward = []
    for name, path in sorted(known.items()):
        for target in sorted(imports(path, set(known), name)):
            if layer(target) > layer(name):
                upward.append(f"{name} ({LAYERS[layer(name)][0]}) imports {target} ({LAYERS[layer(target)][0]})")
    return upward


def test_no_module_imports_from_a_higher_layer():
    upward = upward_imports(modules())
    assert not upward, "\n".join(upward)


def test_an_upward_import_is_found(tmp_path):
    """Not a check that cannot fail: a foundation importing a command, inside a function and
    relatively, is named."""
    fake = tmp_path / "fake.py"
    fake.write_text("def later():\n    from ..cli.commands import search\n    return search\n", encoding="utf-8")
    found = upward_imports({**modules(), "obsidian_memory.core.fake": fake})
    assert found == ["obsidian_memory.core.fake (foundations) imports obsidian_memory.cli.commands.search (entry points)"]


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
