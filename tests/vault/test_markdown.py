"""What the index reads from a note: frontmatter, names, tags, headings, plain body text, code, links."""
from __future__ import annotations

from obsidian_memory.vault import markdown


def test_frontmatter_is_parsed_and_removed_from_the_body():
    note = markdown.parse_note("---\naliases:\n  - One\n  - Two\ndescription: About it\n---\nBody text.", "T")
    assert note.aliases == ["One", "Two"]
    assert note.frontmatter["description"] == "About it"
    assert note.body == "Body text."


def test_a_single_alias_string_and_alias_key_are_accepted():
    assert markdown.parse_note("---\naliases: Solo\n---\nx", "T").aliases == ["Solo"]
    assert markdown.parse_note("---\nalias: [A, B]\n---\nx", "T").aliases == ["A", "B"]


def test_broken_frontmatter_is_salvaged_line_by_line():
    note = markdown.parse_note("---\ntitle: [unclosed\nstatus: draft\ntags:\n  - one\n---\nThe body.", "T")
    assert note.frontmatter["status"] == "draft"
    assert note.tags == ["one"]
    assert note.body == "The body."


def test_frontmatter_that_is_not_a_mapping_or_never_closes_is_harmless():
    assert markdown.parse_note("---\n- a list\n---\nbody", "T").frontmatter == {}
    unclosed = markdown.parse_note("---\ntitle: x\nno end here", "T")
    assert unclosed.frontmatter == {} and "no end here" in unclosed.body


def test_tags_come_from_frontmatter_and_inline_nested_and_lower_cased():
    text = "---\ntags: [Project, '#area/work']\n---\nSee #Idea and #area/home/garden, not a#b or #123.\n"
    assert markdown.parse_note(text, "T").tags == ["project", "area/work", "idea", "area/home/garden"]


def test_frontmatter_tags_as_a_comma_or_space_separated_string():
    assert markdown.parse_note("---\ntags: one, two three\n---\n", "T").tags == ["one", "two", "three"]


def test_tags_inside_code_urls_and_headings_markup_are_not_tags():
    text = ("# Heading\n`#notatag` and https://example.com/#anchor and \\#escaped\n```\n#incode\n```\n"
            "## Real #yes\n")
    assert markdown.parse_note(text, "T").tags == ["yes"]


def test_headings_are_collected_without_markup():
    note = markdown.parse_note("# Top\ntext\n## The **second** one ##\n####### not a heading", "T")
    assert note.headings == ["Top", "The second one"]
    assert "####### not a heading" in note.body


def test_code_fences_go_to_code_not_body():
    note = markdown.parse_note("before\n```python\nprint('x')\n```\nafter\n~~~\nmore code\n~~~", "T")
    assert note.body == "before\nafter"
    assert note.code == "print('x')\nmore code"


def test_an_unclosed_fence_keeps_the_rest_as_code():
    note = markdown.parse_note("text\n```\ncode forever", "T")
    assert note.body == "text" and note.code == "code forever"


def test_wikilinks_read_as_obsidian_shows_them_and_are_collected():
    note = markdown.parse_note("See [[Folder/Note Name|the alias]] and [[Other#Some heading]] and [[X#^blockid]].", "T")
    assert note.body == "See the alias and Other > Some heading and X."      # alias, else name > heading
    assert note.links == ["Folder/Note Name", "Other#Some heading", "X#^blockid"]


def test_identifiers_and_inline_code_stay_as_written():
    text = ("Set `MY_SECRET_PATH` (see $XDG_CONFIG_HOME/obsidian/) and snake_case_name; `**kwargs**` and "
            "`[[not a link]]` are code; _this_ and __that__ are emphasis, as is *a_b*.")
    note = markdown.parse_note(text, "T")
    assert note.body == ("Set MY_SECRET_PATH (see $XDG_CONFIG_HOME/obsidian/) and snake_case_name; **kwargs** and "
                         "[[not a link]] are code; this and that are emphasis, as is a_b.")
    assert note.links == []


def test_markdown_links_keep_their_text_only():
    note = markdown.parse_note("Read [the guide](https://example.com/guide \"Title\") and [local](Notes/a.md).", "T")
    assert note.body == "Read the guide and local."
    assert note.links == ["Notes/a.md"]


def test_note_embeds_keep_their_name_and_attachment_embeds_disappear():
    note = markdown.parse_note("![[Internal links]]\n![[diagram.png|300]]\n![[photo.jpg#interface]]", "T")
    assert note.body == "Internal links"
    assert note.links == ["Internal links"]   # attachments are not notes: not links of the graph


def test_callouts_quotes_lists_and_tables_become_plain_text():
    text = ("> [!tip]- Foldable title\n> Inside the callout.\n- item one\n1. first\n- [ ] task\n"
            "| a | b |\n| --- | --- |\n| c | d |\n---\n")
    note = markdown.parse_note(text, "T")
    assert note.body.split("\n") == ["Foldable title", "Inside the callout.", "item one", "first", "task",
                                     "a b", "c d"]


def test_emphasis_html_comments_and_block_ids_are_removed():
    text = "**bold** _it_ ==mark== ~~gone~~ <span class=x>html</span> %%hidden%% <!-- c --> end ^abc-1"
    assert markdown.parse_note(text, "T").body == "bold it mark gone html hidden end"


def test_crlf_and_bom_are_handled():
    note = markdown.parse_note("\ufeff---\r\naliases: [A]\r\n---\r\n# H\r\nbody\r\n", "T")
    assert (note.aliases, note.headings, note.body) == (["A"], ["H"], "body")


def test_frontmatter_pairs_for_filters_are_lower_cased_one_per_item():
    pairs = markdown.frontmatter_pairs({"Status": "Active", "tags": ["#A", "b"], "n": 3, "ok": True,
                                        "nested": {"x": 1}, "empty": None})
    assert sorted(pairs) == [("empty", ""), ("n", "3"), ("ok", "true"), ("status", "active"),
                             ("tags", "a"), ("tags", "b")]


def test_frontmatter_text_holds_the_searchable_values():
    text = markdown.frontmatter_text({"description": "About sync", "aliases": ["x"], "publish": True,
                                      "created": "2024-01-01"})
    assert text == "About sync\n2024-01-01"


# -- links: what counts as a link, where it is, and what it says -------------------------------------

def outlinks(text: str) -> list[tuple]:
    return [(k.target, k.anchor, k.label, k.embed, k.kind, k.line) for k in markdown.parse_note(text, "T").outlinks]


def test_links_carry_anchor_label_embed_kind_and_file_line():
    text = "---\ntags: [x]\n---\n\n# Title [[Head link]]\n[[A#Sec#Sub|label]] ![[B#^blk]]\n[t](Folder/C%20D.md#Part)"
    assert outlinks(text) == [("Head link", "", "", False, "wiki", 5), ("A", "Sec#Sub", "label", False, "wiki", 6),
                              ("B", "^blk", "", True, "wiki", 6), ("Folder/C D.md", "Part", "t", False, "markdown", 7)]


def test_links_in_code_comments_and_self_anchors_are_not_links():
    text = ("`[[code]]` and ``[[more `code`]]``\n```\n[[fenced]]\n```\n%% [[inline comment]] %%\n%%\n[[block comment]]\n"
            "%%\n<!-- [[html]] -->\n[[#Heading on this note]] [[ ]] `%%` [[after code]]")
    assert [link[0] for link in outlinks(text)] == ["after code"]


def test_markdown_links_to_the_web_mail_or_attachments_are_not_note_links():
    text = ("[w](https://x.org/a.md) [m](mailto:a@b.c) [o](obsidian://open?file=X) [a](#anchor) "
            "[i](pic.PNG) [p](doc.pdf#page=2) [n](<Note with spaces.md>) [v](Version 1.10)")
    assert [link[0] for link in outlinks(text)] == ["Note with spaces.md"]


def test_a_wikilink_with_an_escaped_pipe_in_a_table_keeps_its_label():
    assert outlinks("| [[Target\\|shown]] | cell |") == [("Target", "", "shown", False, "wiki", 1)]


def test_frontmatter_wikilinks_are_links_of_kind_frontmatter():
    text = "---\nup: \"[[Parent]]\"\nrelated:\n  - \"[[One|1]]\"\n  - \"[[pic.png]]\"\n---\nbody"
    assert outlinks(text) == [("Parent", "", "", False, "frontmatter", 2), ("One", "", "1", False, "frontmatter", 4)]


def test_link_context_is_the_plain_line_cut_around_the_link():
    long_line = "word " * 100 + "[[Far target|the far one]] " + "tail " * 100
    [link] = markdown.parse_note(long_line, "T").outlinks
    assert len(link.context) <= markdown.CONTEXT_CHARS + 2
    assert "the far one" in link.context and "Far target" not in link.context and link.context.startswith("…")
    [short] = markdown.parse_note("- [ ] Call **[[Bob]]** today", "T").outlinks
    assert short.context == "Call Bob today"


def test_a_code_block_inside_a_quote_or_callout_is_code_as_obsidian_shows_it():
    text = ("> [!tip] Run it\n> ```bash\n> make #notatag [[not a link]]\n> ```\n> after #yes\n"
            "> ~~~\n> left open #no\noutside #also\n")
    note = markdown.parse_note(text, "T")
    assert note.tags == ["yes", "also"] and note.outlinks == []
    assert "make #notatag [[not a link]]" in note.code and "left open #no" in note.code
    assert "after" in note.body and "outside" in note.body and "make" not in note.body


def test_escaped_brackets_make_no_link():
    note = markdown.parse_note(r"\[x\](Other) and !\[y\](Pic.png) but [real](Target)", "T")
    assert [link.target for link in note.outlinks] == ["Target"]


def test_a_note_read_for_its_text_only_has_the_same_body_code_and_headings():
    # (the index reads a hit's body from its file this way, for its excerpt: no YAML on a query's path)
    from hypothesis import given, settings, strategies as st

    pieces = st.sampled_from(["---", "tags: [a, b]", "aliases: [x]", "key: [[Link]]", "# Head", "## Sub [[A|b]]",
                              "```", "~~~", "> [!note] quoted", "> ```", "<!--", "-->", "text *em* `code`",
                              "- [ ] item #tag", "", "\r", "plain words", "related: \"[[B]]\"", "bad: [unclosed",
                              "%%", "a %% hidden", "%% ```", "`%%` [[C]]", "x <!-- %% --> y", "[t](u.md) %%",
                              "# H %%", "```py %%"])

    @settings(max_examples=300, deadline=None)
    @given(st.lists(pieces, max_size=14))
    def same(lines):
        text = "\n".join(lines)
        full, bare = markdown.parse_note(text, "t"), markdown.parse_note(text, "t", text_only=True)
        assert (bare.body, bare.code, bare.headings) == (full.body, full.code, full.headings)
        assert bare.frontmatter == {}

    same()
