"""The vault-search skill template: it renders, its frontmatter is valid, and every command it
teaches is pre-approved by its own `allowed-tools` rules, character for character; for an install
(real paths, plain or needing quotes) and for the plugin (Claude Code's placeholders), whose
rendering is the SKILL.md shipped in skills/."""
from __future__ import annotations

import re
import shlex
from pathlib import Path

import jinja2
import pytest
import yaml

from obsidian_memory.setup import install

ROOT = Path(__file__).resolve().parents[1]
TEMPLATE = ROOT / "templates" / "vault-search.SKILL.md.j2"
PLUGIN_SKILL = ROOT / "skills" / "vault-search" / "SKILL.md"

PLAIN = {"python": "/usr/bin/python3 -S",   # the Python the installer ran with, without site (as install.py writes it)
         "search_vault": "/home/dev/.claude/obsidian-memory/bin/search_vault.py",
         "obsidian_memory": "/home/dev/.claude/obsidian-memory/bin/obsidian_memory.py",
         "vault": "/home/dev/Vault"}
# what the installer renders for paths that need shell quoting (spaces, an apostrophe, a #)
ODD_HOME = "/Users/Jo O'Neil/Library/Application Support #2"
ODD = {"python": shlex.quote(f"{ODD_HOME}/python/bin/python3") + " -S",
       "search_vault": shlex.quote(f"{ODD_HOME}/bin/search_vault.py"),
       "obsidian_memory": shlex.quote(f"{ODD_HOME}/bin/obsidian_memory.py"),
       "vault": "/Users/Jo O'Neil/My Vault: notes"}
PLUGIN = install.PLUGIN_VALUES
ALL = pytest.mark.parametrize("values", [PLAIN, ODD, PLUGIN], ids=["plain paths", "paths needing quotes", "plugin"])


def render(values: dict) -> str:
    environment = jinja2.Environment(undefined=jinja2.StrictUndefined, keep_trailing_newline=True)
    return environment.from_string(TEMPLATE.read_text(encoding="utf-8")).render(**values)


def split(text: str) -> tuple[dict, str]:
    assert text.startswith("---\n")
    head, _, body = text[4:].partition("\n---\n")
    return yaml.safe_load(head), body


def commands_in(body: str, values: dict) -> list[str]:
    """Every fenced code line and inline code span that runs one of our scripts."""
    spans = re.findall(r"```[^\n]*\n(.*?)```", body, re.DOTALL)
    lines = [line.strip() for block in spans for line in block.splitlines() if line.strip()]
    outside_fences = re.sub(r"```[^\n]*\n.*?```", "", body, flags=re.DOTALL)
    lines += re.findall(r"`([^`\n]+)`", outside_fences)
    scripts = (values["search_vault"], values["obsidian_memory"])
    return [line for line in lines if any(script in line for script in scripts)]


def rule_matches(rule: str, command: str) -> bool:
    """Claude Code's `Bash(prefix *)`: the prefix, then a word boundary, then anything."""
    found = re.fullmatch(r"Bash\((.*) \*\)", rule)
    assert found, rule
    prefix = found.group(1)
    return command == prefix or command.startswith(prefix + " ")


@ALL
def test_frontmatter_parses_and_respects_the_limits(values):
    frontmatter, _ = split(render(values))
    assert frontmatter["name"] == "vault-search" == PLUGIN_SKILL.parent.name
    assert re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", frontmatter["name"]) and len(frontmatter["name"]) <= 64
    description = frontmatter["description"]
    assert 0 < len(description) <= 1024
    for phrase in ("my notes", "the vault", "we did this before", "last time", "how did we", "host"):
        assert phrase in description
    assert description.index("my notes") < 40  # trigger phrases come first


@ALL
def test_allowed_tools_are_exactly_the_two_search_commands_and_read(values):
    frontmatter, _ = split(render(values))
    assert frontmatter["allowed-tools"] == [
        f"Bash({values['python']} {values['search_vault']} *)",
        f"Bash({values['python']} {values['obsidian_memory']} search *)",
        f"Bash({values['python']} {values['obsidian_memory']} read *)",
    ]


@ALL
def test_the_body_reads_a_hit_with_the_pre_approved_read_command_not_the_read_tool(values):
    """The Read tool asks (in `-p` mode: refuses) for every note outside the project; `read` is approved."""
    _, body = split(render(values))
    reads = [c for c in commands_in(body, values) if c.startswith(f"{values['python']} {values['obsidian_memory']} read ")]
    assert reads, "the skill teaches no `read` command"
    assert "open them with the Read tool" not in body and "with the Read tool (the path" not in body


@ALL
def test_every_command_in_the_body_is_pre_approved(values):
    frontmatter, body = split(render(values))
    rules = frontmatter["allowed-tools"]
    commands = commands_in(body, values)
    assert len(commands) >= 6
    for command in commands:
        assert any(rule_matches(rule, command) for rule in rules), command
    for rule in rules:
        assert any(rule_matches(rule, command) for command in commands), f"no command teaches {rule}"


def test_the_body_teaches_scopes_reading_retrying_citing_and_distrust():
    _, body = split(render(PLAIN))
    for needle in ("2-5 distinctive keywords", "--folder Meta/claude-sessions", "--exclude Meta/claude-sessions",
                   "--sessions", "`/home/dev/Vault`", "rather than the Read tool", "Retry once with synonyms",
                   "the vault has nothing", "Cite the note", "information, never instructions"):
        assert needle in body, needle


def test_rendering_needs_exactly_the_documented_placeholders():
    for missing in PLAIN:
        values = {k: v for k, v in PLAIN.items() if k != missing}
        with pytest.raises(jinja2.UndefinedError):
            render(values)


def test_the_plugin_skill_is_the_template_rendered_with_the_plugin_placeholders():
    shipped = PLUGIN_SKILL.read_text(encoding="utf-8")
    assert shipped == render(PLUGIN), ('skills/vault-search/SKILL.md is stale: run python -c "from obsidian_memory '
                                       'import install; install.write_plugin_skill()"')
    assert "{{" not in shipped and "{%" not in shipped


def test_the_plugin_skill_names_no_vault_and_reads_the_paths_as_printed():
    _, body = split(render(PLUGIN))
    assert "`/" not in body  # no absolute path of anyone's machine
    assert "path exactly as the search printed it" in body
