import math
import os
import re
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, given, settings as hypothesis_settings, strategies as st

from testkit import REPO
from obsidian_memory.core import settings


def test_flag_beats_environment_beats_config_file(env, monkeypatch):
    env.apply(monkeypatch)
    (env.config_dir / "obsidian-memory").mkdir()
    (env.config_dir / "obsidian-memory" / "config.yaml").write_text(
        "vault: '/from/config'\nomnisearch_port: 1111\ncontext_budget: 4000\n", encoding="utf-8")
    monkeypatch.delenv("OBSIDIAN_VAULT")
    monkeypatch.delenv("OMNISEARCH_PORT")
    assert settings.load().vault == "/from/config"
    monkeypatch.setenv("OBSIDIAN_VAULT", "/from/env")
    monkeypatch.setenv("OMNISEARCH_PORT", "2222")
    resolved = settings.load()
    assert (resolved.vault, resolved.omnisearch_port, resolved.context_budget) == ("/from/env", 2222, 4000)
    flagged = settings.load(vault="/from/flag", port=3333)
    assert (flagged.vault, flagged.omnisearch_port) == ("/from/flag", 3333)


def test_the_command_line_of_a_plugin_install_takes_the_plugins_vault_option(env, monkeypatch, tmp_path):
    """The plugin's venv (marked by its bootstrap) run by hand: the vault is the plugin's option,
    as for its hooks, not $OBSIDIAN_VAULT, config.yaml or ~/Vault; a --vault flag still wins."""
    import json
    import sys

    env.apply(monkeypatch)
    monkeypatch.setenv("OBSIDIAN_VAULT", "/from/env")
    plugin = "obsidian-memory@obsidian-memory"
    (env.config_dir / "settings.json").write_text(json.dumps({
        "enabledPlugins": {plugin: True, "other@x": True},
        "pluginConfigs": {"other@x": {"options": {"vault": "/not/ours"}}, plugin: {"options": {"vault": "~/Notes"}}},
    }), encoding="utf-8")
    venv = tmp_path / "plugins" / "data" / "obsidian-memory-obsidian-memory" / "venv"
    venv.mkdir(parents=True)
    monkeypatch.setattr(sys, "prefix", str(venv))
    assert settings.load().vault == "/from/env"                          # not (yet) the plugin's venv
    (venv / settings.PLUGIN_VENV_STAMP).write_text("bootstrapped\n", encoding="utf-8")
    assert settings.load().vault == os.path.join(str(env.home), "Notes")
    assert settings.load(vault="/from/flag").vault == "/from/flag"
    monkeypatch.setattr(sys, "prefix", str(tmp_path / "another python"))   # the plugin's launcher (hooks/run_hook.py)
    assert settings.load().vault == "/from/env"
    monkeypatch.setenv("CLAUDE_PLUGIN_DATA", str(venv.parent))              # as a hook of the plugin: its venv's folder
    assert settings.load().vault == os.path.join(str(env.home), "Notes")
    monkeypatch.setenv("CLAUDE_PLUGIN_OPTION_VAULT", "/from/the/hook")   # what the client hands its hooks
    assert settings.load().vault == "/from/the/hook"
    monkeypatch.delenv("CLAUDE_PLUGIN_OPTION_VAULT")
    (env.config_dir / "settings.json").write_text(json.dumps({"enabledPlugins": {plugin: False}, "pluginConfigs": {
        plugin: {"options": {"vault": "/disabled"}}}}), encoding="utf-8")
    assert settings.load().vault == "/from/env"                          # a disabled plugin's option is none


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="this system has no FIFOs")
def test_the_command_line_of_a_plugin_install_never_waits_on_a_fifo_for_settings_json(env, tmp_path):
    """The plugin's venv reads the vault option from settings.json: a FIFO there is no settings
    file (a plain open() waits for a writer forever), and the command goes on without it."""
    import subprocess
    import sys

    venv = tmp_path / "plugins" / "data" / "obsidian-memory-obsidian-memory" / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120)
    (venv / settings.PLUGIN_VENV_STAMP).write_text("bootstrapped\n", encoding="utf-8")
    os.mkfifo(env.config_dir / "settings.json")
    done = subprocess.run([str(venv / "bin" / "python"), str(REPO / "scripts" / "obsidian_memory.py"), "status"],
                          capture_output=True, text=True, timeout=60, cwd=str(env.root),
                          env=env.environ(PYTHONPATH=REPO))
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[0].split() == ["vault:", str(env.vault)]


def test_flat_yaml_round_trips_what_the_installer_writes():
    data = {"vault": "/a b/it's", "omnisearch_port": 51361, "excluded_projects": ["x", "y z"], "redact": False}
    assert settings.parse_flat_yaml(settings.dump_flat_yaml(data)) == data


def test_config_outside_the_flat_subset_is_read_with_yaml(tmp_path):
    path = tmp_path / "config.yaml"
    path.write_text("vault: /v\nnested:\n  key: 1\n", encoding="utf-8")
    assert settings.read_config_file(str(path)) == {"vault": "/v", "nested": {"key": 1}}


def test_config_yaml_is_read_by_the_one_yaml_reader_without_aliases(tmp_path):
    """The frontmatter's reader (vault/frontmatter.load), so that no YAML in the package expands
    an alias: a settings file that uses one is told, on one line, to write the value out."""
    path = tmp_path / "config.yaml"
    path.write_text("vault: /v\nbase: &b [a, b]\nprivate: *b\n", encoding="utf-8")
    with pytest.raises(settings.ConfigError) as raised:
        settings.read_config_file(str(path))
    assert "uses a YAML alias" in str(raised.value) and "\n" not in str(raised.value)


def test_context_budget_is_capped_below_claude_codes_truncation():
    assert settings.Settings("/c", context_budget=50000).effective_context_budget == 9500


# -- every value of every setting (property tests) ---------------------------------------------------

PROPERTY = hypothesis_settings(max_examples=300, deadline=None,
                               suppress_health_check=[HealthCheck.function_scoped_fixture])
TEXTS = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=12)
ENV_TEXTS = TEXTS.filter(lambda text: "\0" not in text)  # the one character no environment variable holds
SCALARS = st.one_of(st.none(), st.booleans(), st.integers(), st.integers(-20, 20_000),
                    st.floats(allow_nan=False), TEXTS,
                    st.sampled_from(["true", "false", "ture", "no", "0", "6000", "-5", "abc", "1000000000",
                                     "~/Vault", "/abs/vault", "Vault", "$HOME/Vault", "Meta/x.md", "../out.md",
                                     "Meta\\x.md", "C:/x", "Meta/claude-sessions/", "a/./b", " ", ""]))
VALUES = st.recursive(SCALARS, lambda inner: st.one_of(st.lists(inner, max_size=3),
                                                       st.dictionaries(TEXTS, inner, max_size=2)), max_leaves=6)


def expected(definition, value):
    """What a value should resolve to, decided independently of the code under test: (True, the
    value used) or (False, None) for a value that must not be used."""
    kind = definition.kind
    if isinstance(kind, settings.Boolean):
        return (True, value) if isinstance(value, bool) else (False, None)
    if isinstance(kind, settings.Number):
        if isinstance(value, str) and re.fullmatch(r"[ \t]*[-+]?[0-9]{1,20}[ \t]*", value):
            value = int(value)
        ok = type(value) is int and (value == kind.off or kind.low <= value <= kind.high)
        return (True, value) if ok else (False, None)
    if isinstance(kind, settings.AbsolutePath):
        ok = isinstance(value, str) and value.strip() != "" and "\0" not in value \
            and os.path.isabs(os.path.expanduser(value))
        return (True, os.path.abspath(os.path.expanduser(value))) if ok else (False, None)
    if isinstance(kind, settings.VaultPath):
        if not isinstance(value, str) or "\\" in value or "\0" in value:
            return False, None
        path = value.strip().rstrip("/") if not kind.note else value.strip()
        parts = path.split("/")
        ok = bool(path) and not path.startswith("/") and ":" not in parts[0] \
            and all(p.strip() not in ("", ".", "..") for p in parts) \
            and (not kind.note or path.lower().endswith(".md"))
        return (True, path) if ok else (False, None)
    if isinstance(kind, settings.Texts):
        if value is None:
            return True, ()
        items = [value] if isinstance(value, str) else value
        ok = isinstance(items, list) and all(isinstance(i, str) and i.strip() for i in items)
        return (True, tuple(items)) if ok else (False, None)
    if isinstance(kind, settings.Choice):
        word = ("on" if value else "off") if isinstance(value, bool) else value
        ok = isinstance(word, str) and word.strip().lower() in kind.choices
        return (True, word.strip().lower()) if ok else (False, None)
    if isinstance(kind, settings.VaultPatterns):
        if value is None:
            return True, ()
        items = [value] if isinstance(value, str) else value
        if not isinstance(items, list) or not all(isinstance(i, str) and i.strip() for i in items):
            return False, None
        for item in items:
            path = item.strip().rstrip("/")
            parts = path.split("/")
            if not path or "\\" in path or "\0" in path or path.startswith("/") or ":" in parts[0] \
                    or any(p.strip() in ("", ".", "..") for p in parts):
                return False, None
        return True, tuple(i.strip() for i in items)
    if isinstance(kind, settings.TagName):
        if value is None:
            return True, ""
        if not isinstance(value, str):
            return False, None
        tag = value.strip().lstrip("#").strip("/")
        ok = not tag or (re.fullmatch(r"[\w\-/]+", tag) is not None and "//" not in tag
                         and not all(ch.isdigit() or ch == "/" for ch in tag))
        return (True, tag.lower()) if ok else (False, None)
    raise AssertionError(f"no oracle for {kind!r}")


@pytest.fixture
def user(env, monkeypatch):
    env.apply(monkeypatch)
    for name in ("OBSIDIAN_VAULT", "OMNISEARCH_PORT"):
        monkeypatch.delenv(name)
    (env.config_dir / "obsidian-memory").mkdir()
    return env


def write_config(user, data: dict) -> None:
    (user.config_dir / "obsidian-memory" / "config.yaml").write_text(yaml.safe_dump(data), encoding="utf-8")


@PROPERTY
@given(definition=st.sampled_from(settings.SETTINGS), value=VALUES)
def test_any_value_of_any_setting_is_used_or_reported_never_misread(user, definition, value):
    write_config(user, {definition.name: value})
    ok, wanted = expected(definition, value)
    try:
        loaded = settings.load()
    except settings.ConfigError as exc:
        assert not ok and definition.stops, exc
        assert f"`{definition.name}` is " in str(exc) and "writes nothing until this is fixed" in str(exc)
        assert "\n" not in str(exc)
        return
    used = getattr(loaded, definition.name)
    named = [p for p in loaded.problems if f"`{definition.name}`" in p.text]
    if ok:
        assert used == wanted and named == []
    else:
        assert not definition.stops
        assert used == definition.default_value()
        assert len(named) == 1 and named[0].level == settings.FAIL and "\n" not in named[0].text
    if definition.name == "redact":
        assert used is True or value is False  # only an explicit false turns redaction off
    if definition.name == "context_budget":
        assert used == 0 or settings.CONTEXT_BUDGET_MIN <= used <= settings.CONTEXT_BUDGET_HARD_CAP


@PROPERTY
@given(value=st.one_of(ENV_TEXTS, st.sampled_from(["0", "1", "65535", "65536", "-1", " 8080 ", "٣", "1e3", "0x50"])))
def test_any_omnisearch_port_in_the_environment_is_used_or_reported(user, monkeypatch, value):
    write_config(user, {"vault": str(user.vault)})
    monkeypatch.setenv("OMNISEARCH_PORT", value)
    ok, wanted = expected(settings.BY_NAME["omnisearch_port"], value)
    loaded = settings.load()
    if not value:
        ok, wanted = True, settings.DEFAULT_OMNISEARCH_PORT  # an empty variable is an unset one
    assert loaded.omnisearch_port == (wanted if ok else settings.DEFAULT_OMNISEARCH_PORT)
    assert bool(loaded.problems) == (not ok)
    assert all("$OMNISEARCH_PORT" in p.text for p in loaded.problems)


@PROPERTY
@given(value=st.one_of(ENV_TEXTS, st.sampled_from(["~/v", "/v", "v", "./v", "$HOME/v", "~user/v"])))
def test_any_vault_in_the_environment_is_used_or_stops_the_writers(user, monkeypatch, value):
    write_config(user, {"vault": str(user.vault)})
    monkeypatch.setenv("OBSIDIAN_VAULT", value)
    ok, wanted = expected(settings.BY_NAME["vault"], value)
    if not value:
        ok, wanted = True, str(user.vault)
    if ok:
        assert settings.load().vault == wanted
    else:
        with pytest.raises(settings.ConfigError, match=r"\$OBSIDIAN_VAULT"):
            settings.load()


# The flat reader must read what PyYAML reads, or hand the file to PyYAML: plausible hand edits,
# with a sprinkling of what YAML treats specially.
FRIENDLY = st.text(alphabet=list("abcXYZ019/ -_.:#'\"~é日,[]"), max_size=10)
ODD = st.text(alphabet=list("aZ0159-+.:# '\"[]{},~/\\\t_!&*|>%@`?=<\x00\x85\u2028é日\r"), max_size=6)
WORDS = st.sampled_from(["true", "True", "TRUE", "tRue", "yes", "on", "Off", "null", "NULL", "~", "0x1F", "010", "0",
                         "-0", "+5", "1.5", "1_000", "2024-01-01", ".inf", "1e3", "12:30", "y", "<<", "=", "-", "-5"])
FLAT_SCALAR = st.one_of(WORDS, FRIENDLY, ODD, FRIENDLY.map(lambda t: f"'{t}'"), FRIENDLY.map(lambda t: f'"{t}"'),
                        st.builds(lambda a, b: a + b, st.sampled_from(["a", "/x", "~/", "1", "'q'", "x #"]), FRIENDLY))
FLAT_VALUE = st.one_of(FLAT_SCALAR, st.lists(FLAT_SCALAR, max_size=3).map(lambda xs: "[" + ", ".join(xs) + "]"))
FLAT_KEY = st.one_of(st.sampled_from([d.name for d in settings.SETTINGS]), st.sampled_from(["on", "1", "a b", "-x", "é"]))
FLAT_LINE = st.one_of(
    st.builds(lambda k, sep, v: k + sep + v, FLAT_KEY, st.sampled_from([": ", ":", " : "]), FLAT_VALUE),
    st.builds(lambda indent, v: indent + "- " + v, st.sampled_from(["", "  "]), FLAT_SCALAR),
    st.sampled_from(["", "# c", "---", "key:", "  # x"]))


@hypothesis_settings(max_examples=1500, deadline=None)
@given(lines=st.lists(FLAT_LINE, max_size=4), newline=st.sampled_from(["\n", "\r\n"]))
def test_the_flat_reader_reads_exactly_what_yaml_reads_or_hands_over(lines, newline):
    text = newline.join(lines) + newline
    try:
        flat = settings.parse_flat_yaml(text)
    except settings._NotFlat:
        return
    assert yaml.safe_load(text) == (flat or None), text


@PROPERTY
@given(data=st.dictionaries(st.sampled_from([d.name for d in settings.SETTINGS]),
                            st.one_of(st.booleans(), st.integers(), st.none(),
                                      st.text(alphabet=st.characters(blacklist_categories=("Cs", "Cc"))),
                                      st.lists(st.text(alphabet=st.characters(blacklist_categories=("Cs", "Cc")))))))
def test_what_the_installer_writes_reads_back_the_same_with_both_readers(data):
    text = settings.dump_flat_yaml(data) if data else ""
    reread = {k: list(v) if isinstance(v, tuple) else v for k, v in data.items()}
    if any(isinstance(v, float) and math.isnan(v) for v in data.values()):
        return
    assert yaml.safe_load(text) in (reread, None if not data else reread)
    try:
        assert settings.parse_flat_yaml(text) == reread
    except settings._NotFlat:
        pass  # handed to PyYAML, which read it right


# -- one place defines each key, and README shows it ------------------------------------------------

def configuration_rows(path) -> list[str]:
    section = path.read_text(encoding="utf-8").split("\n## Configuration\n", 1)[1].split("\n## ", 1)[0]
    return [line for line in section.splitlines() if line.startswith("| `")]


def test_the_configuration_reference_matches_the_definitions():
    wanted = [f"| `{d.name}` | " + (f"`${d.env}`, else " if d.env else "") + f"`{d.shown}` | {d.kind.wants} | "
              f"{'nothing is written' if d.stops else 'default used'} | {d.doc} |" for d in settings.SETTINGS]
    assert configuration_rows(REPO / "docs" / "configuration.md") == wanted


def test_the_readme_names_only_real_settings_with_their_defaults():
    defaults = {d.name: (f"`${d.env}`, else " if d.env else "") + f"`{d.shown}`" for d in settings.SETTINGS}
    for row in configuration_rows(REPO / "README.md"):
        keys, shown = [cell.strip() for cell in row.strip("|").split("|")][:2]
        for key, default in zip(keys.split(" / "), shown.split(" / ")):
            assert defaults.get(key.strip("`")) == default if " / " not in keys else key.strip("`") in defaults, row


def test_settings_attributes_are_declared_with_their_types():
    annotations = settings.Settings.__annotations__
    for definition in settings.SETTINGS:
        assert definition.name in annotations
        default = definition.default_value()
        if default is not None:
            assert type(default).__name__ in annotations[definition.name]
    assert {"config_dir", "extra", "problems"} <= set(annotations)


def test_a_flag_outside_its_range_is_a_user_error(user):
    with pytest.raises(settings.ConfigError, match=r"--port 0 is not a whole number from 1 to 65535"):
        settings.load(port=0)


def test_a_relative_claude_config_dir_is_refused(user, monkeypatch):
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", "relative/.claude")
    with pytest.raises(settings.ConfigError, match=r"\$CLAUDE_CONFIG_DIR is 'relative/.claude', not an absolute"):
        settings.load()
    assert settings.log_path() == str(Path(user.home) / ".claude" / "obsidian-memory" / "obsidian-memory.log")
