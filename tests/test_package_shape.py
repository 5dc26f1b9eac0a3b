"""The package stays readable by its shape: few modules sit flat at its top (the folder is the
layer: tests/test_layers.py), no class grows past what one reader holds in mind, and the README
stays a ten-minute read (detail goes to docs/)."""
from __future__ import annotations

import ast

from testkit import REPO

PACKAGE = REPO / "obsidian_memory"
MAX_FLAT_MODULES = 12
MAX_CLASS_LINES = 400
MAX_README_LINES = 300


def flat_modules(package) -> list[str]:
    return sorted(path.name for path in package.glob("*.py") if path.stem not in ("__init__", "__main__"))


def long_classes(source: str, limit: int) -> list[tuple[str, int]]:
    """(name, lines) of each class in `source` longer than `limit` lines, nested ones too."""
    return [(node.name, node.end_lineno - node.lineno + 1) for node in ast.walk(ast.parse(source))
            if isinstance(node, ast.ClassDef) and node.end_lineno - node.lineno + 1 > limit]


def test_few_modules_sit_flat_at_the_package_top():
    flat = flat_modules(PACKAGE)
    assert len(flat) <= MAX_FLAT_MODULES, f"{len(flat)} modules at the package's top: {flat}"


def test_no_class_is_longer_than_a_reader_holds():
    found = [f"{path.relative_to(REPO)}: {name} ({lines} lines)" for path in sorted(PACKAGE.rglob("*.py"))
             for name, lines in long_classes(path.read_text(encoding="utf-8"), MAX_CLASS_LINES)]
    assert not found, "\n".join(found)


def test_the_readme_is_a_ten_minute_read():
    lines = (REPO / "README.md").read_text(encoding="utf-8").splitlines()
    assert len(lines) <= MAX_README_LINES, f"README.md has {len(lines)} lines: move detail to docs/"


def test_the_checks_see_what_they_count(tmp_path):
    """Not checks that cannot fail: a long class and a crowded top are found."""
    body = "".join(f"    def m{i}(self):\n        return {i}\n" for i in range(MAX_CLASS_LINES))
    assert long_classes(f"class Outer:\n    class Inner:\n{body.replace('    ', '        ')}", MAX_CLASS_LINES) \
        == [("Outer", 2 * MAX_CLASS_LINES + 2), ("Inner", 2 * MAX_CLASS_LINES + 1)]
    assert long_classes("class Small:\n    pass\n", MAX_CLASS_LINES) == []
    for number in range(MAX_FLAT_MODULES + 1):
        (tmp_path / f"m{number}.py").write_text("", encoding="utf-8")
    (tmp_path / "__init__.py").write_text("", encoding="utf-8")
    assert len(flat_modules(tmp_path)) == MAX_FLAT_MODULES + 1
