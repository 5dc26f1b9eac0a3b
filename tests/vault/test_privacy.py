"""The private rule itself (`privacy.Privacy`): which paths and which note texts are private."""
from __future__ import annotations

import pytest
import yaml
from hypothesis import given, settings as hypothesis_settings, strategies as st

from obsidian_memory.vault import markdown
from obsidian_memory.vault.privacy import Privacy

RULES = Privacy(["Journal", "People/Bob.md", "**/secret*", "Clients/*/contracts", "Health/"], "private")


@pytest.mark.parametrize("path, private", [
    ("Journal/2026/a.md", True), ("journal/a.md", True), ("Journal.md", True), ("Notes/Journal/a.md", False),
    ("Journals/a.md", False), ("People/Bob.md", True), ("People/Bobby.md", False), ("secret.md", True),
    ("a/b/secret-plan.md", True), ("a/secrets/x.md", True), ("Clients/acme/contracts/x.md", True),
    ("Clients/acme/invoices/x.md", False), ("Health/x.md", True), ("Public/x.md", False),
])
def test_paths(path, private):
    assert RULES.path_is_private(path) is private


@pytest.mark.parametrize("text, private", [
    ("---\nprivate: true\n---\nx", True), ("---\nprivate: yes\n---\n", True), ("---\nPrivate: 'True'\n---\n", True),
    ("---\nprivate: ture\n---\n", True),            # not understood: private
    ("---\nprivate: false\n---\n", False), ("---\nprivate: no # shared\n---\n", False), ("---\nprivate:\n---\n", False),
    ("---\nprivate:\n  - alice\n---\n", True), ("---\nmeta:\n  private: true\n---\n", False),
    ("---\ntags: [work, Private]\n---\n", True), ("---\ntags: work, private/health\n---\n", True),
    ("---\ntags:\n- work\n- '#private'\n---\n", True), ("---\ntag: privateer\n---\n", False),
    ("---\r\nprivate: true\r\n---\r\nx", True), ("\ufeff---\nprivate: true\n---\n", True),
    ("text\n---\nprivate: true\n---\n", False),     # not a frontmatter block
    ("a #private b", True), ("#Private/health at the start", True), ("```\n#private\n```", True),
    ("a#private", False), ("#privately", False), ("#private-ish", False), ("&#private;", False),
    ("http://host/#private", False), ("[[Note#private]]", False), ("no tag here", False),
])
def test_texts(text, private):
    assert RULES.text_is_private(text) is private


def test_no_tag_and_no_patterns_leave_only_the_property():
    rules = Privacy((), "")
    assert not rules.has_paths and not rules.path_is_private("Journal/a.md")
    assert not rules.text_is_private("#private\n---\ntags: [private]\n---\n")
    assert rules.text_is_private("---\nprivate: true\n---\n")


def test_the_signature_changes_with_the_rules_only():
    assert Privacy(["A", "b/*"], "x").signature() == Privacy(["b/*", "a/"], "X").signature()
    assert Privacy(["A"], "x").signature() != Privacy(["A"], "y").signature() != Privacy(["B"], "y").signature()


# What PyYAML and the Markdown grammar read as private must be private for the line reader too
# (it may say private more often, never less).
KEYS = st.sampled_from(["private", "tags", "tag", "title", "aliases", "Private", "status"])
SCALARS = st.one_of(st.booleans(), st.none(), st.integers(-2, 2), st.sampled_from(
    ["private", "Private", "#private", "private/x", "privacy", "a b", "no", "off", "yes", "true", "false", "", "x, private"]))
FRONTMATTER = st.dictionaries(KEYS, st.one_of(SCALARS, st.lists(SCALARS, max_size=3)), max_size=4)


def says_yes(value) -> bool:
    """`private: value` makes a note private: any value but false, no, off, 0 or nothing (in a
    list: any item that says yes)."""
    if isinstance(value, list):
        return any(says_yes(v) for v in value)
    if isinstance(value, str):
        value = value.strip().lower()
    return value not in (None, False, 0, "", "false", "no", "off", "0")


def private_by_yaml(data: dict) -> bool:
    said = says_yes(data.get("private"))
    tags = [t.strip().lstrip("#").strip("/").lower() for t in markdown.tag_values(data.get("tags", data.get("tag")))]
    return said or any(t == "private" or t.startswith("private/") for t in tags)


@hypothesis_settings(max_examples=400, deadline=None)
@given(data=FRONTMATTER, flow=st.booleans())
def test_whatever_yaml_reads_as_private_is_private(data, flow):
    text = "---\n" + yaml.safe_dump(data, default_flow_style=flow, allow_unicode=True) + "---\nbody\n"
    if private_by_yaml(yaml.safe_load(text.split("---\n")[1]) or {}):
        assert RULES.text_is_private(text), text
