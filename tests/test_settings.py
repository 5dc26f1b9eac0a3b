from obsidian_memory import settings


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


def test_flat_yaml_round_trips_what_the_installer_writes():
    data = {"vault": "/a b/it's", "omnisearch_port": 51361, "excluded_projects": ["x", "y z"], "redact": False}
    assert settings.parse_flat_yaml(settings.dump_flat_yaml(data)) == data


def test_config_outside_the_flat_subset_is_read_with_yaml(tmp_path):
    path = tmp_path / "config.yaml"
    path.write_text("vault: /v\nnested:\n  key: 1\n", encoding="utf-8")
    assert settings.read_config_file(str(path)) == {"vault": "/v", "nested": {"key": 1}}


def test_context_budget_is_capped_below_claude_codes_truncation():
    assert settings.Settings("/c", context_budget=50000).effective_context_budget == 9500
