"""`related`, `similar` and `read` run as a user runs them (subprocesses of scripts/obsidian_memory.py),
and the links and backlinks every JSON search hit carries."""
from __future__ import annotations

import json
import shutil

import pytest

from testkit import FIXTURES, shared_path


@pytest.fixture
def vault(env):
    shutil.rmtree(env.vault)
    shutil.copytree(FIXTURES / "graph-vault", env.vault)
    return env.vault


def ok(proc) -> str:
    assert proc.returncode == 0, proc.stderr.decode("utf-8", "replace")
    assert proc.stderr == b""
    return proc.stdout.decode("utf-8")


def one_line_error(proc) -> str:
    assert proc.returncode == 2
    assert proc.stdout == b""
    err = proc.stderr.decode("utf-8")
    assert err.count("\n") == 1 and "Traceback" not in err
    return err


# -- related -----------------------------------------------------------------------------------

def test_related_json_lists_notes_with_depths_contexts_and_unresolved_links(env, vault):
    data = json.loads(ok(env.run("related", "Home", "--json")))
    assert set(data) == {"path", "depth", "direction", "notes", "unresolved"}
    assert data["path"] == "Home.md" and data["depth"] == 1 and data["direction"] == "both"
    assert [(n["path"], n["depth"]) for n in data["notes"]] == [
        ("Projects/Alpha plan.md", 1), ("Café ☕.md", 1), ("Projects/Beta.md", 1), ("Projects/Notes.md", 1),
        ("Archive/Old/Notes.md", -1)]
    assert all(set(n) == {"path", "title", "depth", "context"} for n in data["notes"])
    assert data["unresolved"] == [{"target": "Missing note", "context": "Still to write: Missing note. A picture:"}]


def test_related_text_shows_arrows_depths_and_the_linking_lines(env, vault):
    out = ok(env.run("related", "Projects/Beta.md", "--depth", "2", "--direction", "outgoing"))
    lines = out.splitlines()
    assert lines[0] == "related to Projects/Beta.md | outgoing, depth 2 | 3 notes"
    assert " +1 -> Deep/Inside/Leaf.md" in lines
    assert "       Beta goes deep: Leaf." in lines
    assert " +2 -> Archive/Old/Notes.md" in lines and " +2 -> Café ☕.md" in lines
    back = ok(env.run("related", "Projects/Beta.md", "--direction", "backlinks"))
    assert " -1 <- Home.md" in back.splitlines() and " -1 <- [draft] ideas.md" in back.splitlines()


def test_related_with_a_misspelled_path_or_bad_options_is_one_line_and_exit_2(env, vault):
    err = one_line_error(env.run("related", "Projects/Alpah plan"))
    assert "did you mean: Projects/Alpha plan.md" in err
    assert "depth" in one_line_error(env.run("related", "Home", "--depth", "0"))
    assert env.run("related", "Home", "--direction", "sideways").returncode == 2


# -- similar ----------------------------------------------------------------------------------

def test_similar_json_and_text_give_the_same_ranking_with_reasons(env):
    notes = {
        "Sourdough.md": "Feed the levain, autolyse the flour, mind the hydration. " * 3,
        "Baguette.md": "A long autolyse, high hydration and a young levain. " * 2,
        "Engine.md": "Pistons, crankshaft and gasket.",
        "Brakes.md": "Pads, rotors and the gasket of the cylinder.",
    }
    for n in range(6):
        notes[f"Filler {n}.md"] = "Ordinary words about ordinary days. " * 4
    for name, text in notes.items():
        (env.vault / name).write_text(text, encoding="utf-8")
    data = json.loads(ok(env.run("similar", "Sourdough", "-n", "2", "--json")))
    assert set(data) == {"path", "engine", "results"} and data["engine"] == "lexical"
    assert data["results"][0]["path"] == "Baguette.md"
    assert set(data["results"][0]) == {"path", "title", "score", "why"}
    text = ok(env.run("similar", "Sourdough.md", "-n", "2")).splitlines()
    assert text[0].startswith("similar to Sourdough.md | engine: lexical")
    assert text[1].startswith("1. Baguette.md (") and text[2].startswith("   shared terms: ")
    assert "-n" in one_line_error(env.run("similar", "Sourdough", "-n", "0"))


# -- read -----------------------------------------------------------------------------------------

def test_read_json_gives_each_note_with_links_and_backlinks(env, vault):
    data = json.loads(ok(env.run("read", "Home", "C# notes", "--json")))
    home, c_sharp = data["notes"]
    assert set(home) == {"path", "title", "aliases", "tags", "frontmatter", "body", "truncated", "links", "backlinks"}
    assert home["path"] == "Home.md" and home["aliases"] == ["Start"] and home["tags"] == ["hub"]
    assert c_sharp["path"] == "C# notes.md" and c_sharp["links"] == ["Projects/Alpha plan.md"]
    assert c_sharp["backlinks"] == ["Projects/Alpha plan.md"]


def test_read_text_shows_names_links_and_the_body(env, vault):
    out = ok(env.run("read", "Projects/Alpha plan", "--max-chars", "20"))
    lines = out.splitlines()
    assert lines[0] == "=== Projects/Alpha plan.md ==="
    assert "tags: #project #alpha" in lines
    assert "links: Projects/Notes.md, C# notes.md, [draft] ideas.md, Home.md" in lines
    assert "backlinks: C# notes.md, Home.md" in lines
    assert "The plan keeps its m" in lines and "[… cut at 20 characters: --max-chars N for more]" in lines
    raw = ok(env.run("read", "Projects/Alpha plan", "--raw"))
    assert "---\ntags: [project, alpha]\n---" in raw


def test_read_cuts_a_long_note_by_default_and_says_how_to_get_more(env, vault):
    """The agent runs `read` pre-approved: what it prints is bounded unless it asks for more."""
    (env.vault / "Long.md").write_text("# Long\n\n" + "word " * 10_000 + "THE-END\n", encoding="utf-8")
    out = ok(env.run("read", "Long"))
    assert "THE-END" not in out and "[… cut at 20000 characters: --max-chars N for more]" in out
    assert len(out) < 21_000
    assert "THE-END" in ok(env.run("read", "Long", "--max-chars", "60000"))
    assert json.loads(ok(env.run("read", "Long", "--json")))["notes"][0]["truncated"] is True


def test_read_inside_claude_code_reads_the_configured_vault_only(env, vault, tmp_path):
    other = tmp_path / "elsewhere"
    other.mkdir()
    (other / "Secret.md").write_text("not for the agent\n", encoding="utf-8")
    err = one_line_error(env.run("read", "Secret", "--vault", str(other), env={"CLAUDECODE": "1"}))
    assert "--vault is refused inside Claude Code" in err
    assert "Home.md" in ok(env.run("read", "Home", "--vault", str(env.vault), env={"CLAUDECODE": "1"}))
    assert "not for the agent" in ok(env.run("read", "Secret", "--vault", str(other)))   # the user, by hand


@pytest.mark.parametrize("command", [["read"], ["search"], ["search", "--sessions"], ["search_vault.py"]])
def test_inside_claude_code_no_pre_approved_command_names_what_a_folder_outside_the_vault_holds(env, vault, tmp_path,
                                                                                              command):
    """`<command> /some/private/dir/*`: the shell hands over the names that folder holds, and a
    command that runs without a permission prompt must neither say them back nor read them."""
    private = tmp_path / "private-dir"
    private.mkdir()
    names = ["id_rsa", "passwords-2026.txt"]
    for name in names:
        (private / name).write_text("secret\n", encoding="utf-8")
    expanded = [str(private / name) for name in names]
    if "--sessions" in command:     # one pattern: a glob over a folder of one file
        expanded = expanded[:1]
    if command == ["search_vault.py"]:
        done = env.search(*expanded, env={"CLAUDECODE": "1"})
    else:
        done = env.run(command[0], *expanded, *command[1:], env={"CLAUDECODE": "1"})
    err = one_line_error(done)
    assert "argument 1 names a file or folder outside the vault" in err
    assert not any(name in err for name in names) and b"secret" not in done.stdout


def test_read_misspelled_or_outside_paths_is_one_line_and_exit_2(env, vault):
    err = one_line_error(env.run("read", "Projects/Alpah plan"))
    assert "did you mean: Projects/Alpha plan.md, " in err
    assert "leaves the vault" in one_line_error(env.run("read", "../etc/passwd"))
    assert "not a vault-relative path" in one_line_error(env.run("read", "/etc/passwd"))


def test_read_never_prints_escape_sequences_from_a_note(env, vault):
    (env.vault / "Evil \x1b[31mname.md").write_text("Body \x1b]0;title\x07 and \x1b[2J [[Home]]", encoding="utf-8")
    name = "Evil \x1b[31mname"
    for args in (["read", name], ["read", name, "--json"], ["related", "Home", "--direction", "backlinks"],
                 ["related", "Home", "--json"], ["similar", name], ["search", "Body", "--source", "index", "--json"]):
        out = ok(env.run(*args))
        assert "Evil" in out and "\x1b" not in out and "\x07" not in out, args
    err = one_line_error(env.run("read", "Evil nam"))
    assert "did you mean: Evil name.md" in err and "\x1b" not in err


# -- search hits carry links ---------------------------------------------------------------------

def test_every_json_search_hit_carries_links_and_backlinks(env, vault):
    data = json.loads(ok(env.search("plan", "--source", "index", "--json")))
    by_path = {r["path"]: r for r in data["results"]}
    plan = by_path["Projects/Alpha plan.md"]
    assert plan["links"] == ["Projects/Notes.md", "C# notes.md", "[draft] ideas.md", "Home.md"]
    assert plan["backlinks"] == ["C# notes.md", "Home.md"]
    assert all("links" in r and "backlinks" in r for r in data["results"])


def test_search_hits_without_an_index_carry_empty_link_lists(env, vault):
    data = json.loads(ok(env.search("plan", "--source", "scan", "--json")))
    assert data["results"]
    assert all(r["links"] == [] and r["backlinks"] == [] for r in data["results"])


# -- Done when: the Obsidian help vault ------------------------------------------------------------

def test_help_vault_read_with_a_misspelled_path_suggests_the_note(env):
    help_vault = shared_path("eval", "obsidian-help-en")
    err = one_line_error(env.run("read", "Plugins/Bakclinks", "--vault", help_vault))
    assert "did you mean: Plugins/Backlinks.md, " in err
    data = json.loads(ok(env.run("related", "Plugins/Backlinks.md", "--direction", "outgoing", "--json",
                                 "--vault", help_vault)))
    assert [n["path"] for n in data["notes"]] == ["Plugins/Core plugins.md", "Plugins/Search.md",
                                                  "Plugins/Command palette.md", "User interface/Settings.md"]
