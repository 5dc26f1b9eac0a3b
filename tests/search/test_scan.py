"""The reference scanner: scores against hand-computed values, what it skips, odd file names."""
from __future__ import annotations

import os

import pytest

from obsidian_memory.search.engines import scan
from obsidian_memory.search.base import Query


def write(vault, relative, text):
    path = vault / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def scores(vault, text, **kwargs):
    hits, _ = scan.search(Query(text=text, limit=100, **kwargs), str(vault))
    return {h.path: h.score for h in hits}


@pytest.fixture
def vault(tmp_path):
    root = tmp_path / "vault"
    write(root, "Deploy checklist.md",
          "# Deploy checklist\n## Staging deploy\nRun the deploy script. Then deploy again.\n")
    write(root, "Notes/Release process.md",
          "---\ntags: [ops]\n---\nThe checklist for a deploy: build, tag, push.\n")
    write(root, "Journal/2024-01-01.md", "deploy\n" * 30)
    write(root, "Journal/both terms.md", "deploy.\n" * 20 + "checklist.\n" * 20)
    write(root, "Unrelated.md", "Nothing to see here.\n")
    return root


def test_scores_match_the_hand_computed_values(vault):
    got = scores(vault, "Deploy  CHECKLIST")
    # name hit: 2 terms x 20 + all 50 + phrase in name 80 + 2 terms in name x 15
    #           + (deploy, checklist) in heading 1 and deploy in heading 2: 3 x 8 + frequency 4 + 1
    assert got["Deploy checklist.md"] == 40 + 50 + 80 + 30 + 24 + 5 == 229
    # both terms in the body, not as a phrase, no name or heading hit, frequency 1 + 1
    assert got["Notes/Release process.md"] == 40 + 50 + 2 == 92
    # one term of two, 30 occurrences capped at 25
    assert got["Journal/2024-01-01.md"] == 20 + 25 == 45
    assert "Unrelated.md" not in got


def test_frequency_cap_is_on_the_total_over_terms_not_per_term(vault):
    # 20 x deploy + 20 x checklist = 40 occurrences -> +25 in total (per term it would be +40)
    assert scores(vault, "deploy checklist")["Journal/both terms.md"] == 40 + 50 + 25 == 115


def test_phrase_in_body_scores_30(tmp_path):
    write(tmp_path, "a.md", "we keep a deploy checklist somewhere\n")
    # 2 terms + all + phrase in body + frequency 2
    assert scores(tmp_path, "deploy checklist") == {"a.md": 40 + 50 + 30 + 2}


def test_name_only_match_gets_the_start_of_the_body_as_excerpt(tmp_path):
    write(tmp_path, "Kubernetes.md", "---\nalias: k\n---\nNo term here.\n")
    hits, total = scan.search(Query(text="kubernetes"), str(tmp_path))
    assert total == 1
    assert hits[0].score == 20 + 50 + 80 + 15
    assert hits[0].excerpt == "No term here."


def test_headings_inside_code_fences_do_not_count(tmp_path):
    write(tmp_path, "a.md", "```bash\n# deploy\n```\n## deploy\n")
    # 1 term + all + phrase in body + one heading + frequency 2
    assert scores(tmp_path, "deploy") == {"a.md": 20 + 50 + 30 + 8 + 2}


def test_duplicate_query_terms_count_once(tmp_path):
    write(tmp_path, "a.md", "deploy\n")
    assert scores(tmp_path, "deploy deploy") == scores(tmp_path, "deploy")


def test_excerpt_is_70_before_and_130_after_the_earliest_match_flattened(tmp_path):
    text = "A" * 100 + " deploy\n\n" + "B " * 150
    write(tmp_path, "a.md", text)
    hits, _ = scan.search(Query(text="deploy"), str(tmp_path))
    at = text.find("deploy")
    expected = "..." + " ".join(text[at - 70:at + 130].split()) + "..."
    assert hits[0].excerpt == expected
    assert "\n" not in hits[0].excerpt


def test_excerpt_prefers_the_body_to_the_frontmatter(tmp_path):
    write(tmp_path, "a.md", "---\npermalink: plugins/canvas\n---\nA canvas is a board.\n")
    hits, _ = scan.search(Query(text="canvas"), str(tmp_path))
    assert hits[0].excerpt == "A canvas is a board."


def test_excerpt_of_a_short_note_is_not_marked_as_cut(tmp_path):
    write(tmp_path, "a.md", "short deploy note")
    hits, _ = scan.search(Query(text="deploy"), str(tmp_path))
    assert hits[0].excerpt == "short deploy note"


def test_excerpt_never_carries_escape_sequences(tmp_path):
    write(tmp_path, "a.md", "deploy \x1b[31mred\x1b[0m \x1b]0;title\x07 done\x07\n")
    hits, _ = scan.search(Query(text="deploy"), str(tmp_path))
    assert "\x1b" not in hits[0].excerpt and "\x07" not in hits[0].excerpt
    assert "red" in hits[0].excerpt


def test_text_whose_lowercase_changes_length_still_gets_an_excerpt(tmp_path):
    write(tmp_path, "a.md", "İstanbul İzmir " * 10 + "deploy here")
    hits, _ = scan.search(Query(text="deploy"), str(tmp_path))
    assert "deploy here" in hits[0].excerpt


def test_hidden_folders_and_files_are_skipped(vault):
    for hidden in (".obsidian/Deploy checklist.md", ".trash/Deploy checklist.md", ".git/x/deploy.md",
                   "Notes/.hidden deploy.md", "Notes/.sub/deploy.md"):
        write(vault, hidden, "deploy checklist\n")
    assert not [p for p in scores(vault, "deploy") if "/." in "/" + p]


def test_only_markdown_notes_and_canvases_are_read(vault):
    write(vault, "deploy.txt", "deploy\n")
    write(vault, "board.canvas", "deploy\n")        # not JSON Canvas: no text
    write(vault, "plan.canvas", '{"nodes": [{"id": "a", "type": "text", "text": "deploy friday"}]}')
    write(vault, "UPPER.MD", "deploy\n")
    got = scores(vault, "deploy")
    assert "UPPER.MD" in got and "plan.canvas" in got and "deploy.txt" not in got and "board.canvas" not in got


def test_a_symlink_out_of_the_vault_is_not_followed(tmp_path):
    vault = tmp_path / "vault"
    outside = tmp_path / "outside"
    write(outside, "secret.md", "deploy secret\n")
    write(vault, "inside.md", "deploy inside\n")
    os.symlink(outside / "secret.md", vault / "Linked secret.md")
    os.symlink(outside, vault / "Linked folder")
    os.symlink(vault / "inside.md", vault / "Alias of inside.md")
    got = scores(vault, "deploy")
    assert set(got) == {"inside.md", "Alias of inside.md"}


def test_odd_file_names_come_back_as_vault_relative_paths(tmp_path):
    names = ["With space/Odd [draft] #1 — café.md", "日本語/メモ.md", "a&b/100% done!.md"]
    for name in names:
        write(tmp_path, name, "deploy\n")
    hits, total = scan.search(Query(text="deploy"), str(tmp_path))
    assert total == 3
    assert {h.path for h in hits} == set(names)
    assert {h.basename for h in hits} == {"Odd [draft] #1 — café", "メモ", "100% done!"}


def test_invalid_utf8_is_read_with_replacement(tmp_path):
    (tmp_path / "bad.md").write_bytes(b"deploy \xff\xfe bytes\n")
    hits, _ = scan.search(Query(text="deploy"), str(tmp_path))
    assert hits[0].path == "bad.md" and "\ufffd" in hits[0].excerpt


def test_folder_and_exclude_scope_the_scan(vault):
    assert set(scores(vault, "deploy", folders=("Journal",))) == {"Journal/2024-01-01.md", "Journal/both terms.md"}
    assert set(scores(vault, "deploy", excludes=("Journal", "Notes"))) == {"Deploy checklist.md"}
    assert set(scores(vault, "deploy", folders=("Journal", "Notes"), excludes=("Journal",))) == {
        "Notes/Release process.md"}


def test_limit_truncates_but_total_counts_every_hit(vault):
    hits, total = scan.search(Query(text="deploy", limit=2), str(vault))
    assert len(hits) == 2 and total == 4
    assert [h.path for h in hits] == ["Deploy checklist.md", "Journal/2024-01-01.md"]


def test_single_term_scores_match_the_hand_computed_values(vault):
    assert scores(vault, "deploy") == {
        # term + all + phrase in name + term in name + 2 headings + frequency 4
        "Deploy checklist.md": 20 + 50 + 80 + 15 + 16 + 4,
        # term + all + phrase (= the term) in body + frequency capped at 25
        "Journal/2024-01-01.md": 20 + 50 + 30 + 25,
        "Journal/both terms.md": 20 + 50 + 30 + 20,
        "Notes/Release process.md": 20 + 50 + 30 + 1,
    }


def test_ties_are_ordered_by_path(tmp_path):
    for name in ("b.md", "a.md", "c.md"):
        write(tmp_path, name, "same deploy\n")
    hits, _ = scan.search(Query(text="deploy"), str(tmp_path))
    assert [h.path for h in hits] == ["a.md", "b.md", "c.md"]


def test_tag_and_frontmatter_filters(tmp_path):
    write(tmp_path, "ops.md", "---\ntags: [ops/deploy]\nstatus: done\n---\ndeploy\n")
    write(tmp_path, "draft.md", "---\nstatus: draft\n---\ndeploy #draft\n")
    write(tmp_path, "plain.md", "deploy\n")
    assert set(scores(tmp_path, "deploy", tags=("ops",))) == {"ops.md"}
    assert set(scores(tmp_path, "deploy", not_tags=("draft",))) == {"ops.md", "plain.md"}
    assert set(scores(tmp_path, "deploy", frontmatter=(("Status", "DONE"),))) == {"ops.md"}
    assert set(scores(tmp_path, "deploy", not_frontmatter=(("status", "draft"),))) == {"ops.md", "plain.md"}
    assert set(scores(tmp_path, "deploy", frontmatter=(("status", ""),))) == {"ops.md", "draft.md"}
