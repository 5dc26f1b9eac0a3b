"""The ranking signals on a real index: identifiers whole, markup runs as words, the
words other notes link to a note with (kept in step with the links), the title against a long
note holding every word, and the signals a hit carries with `explain`."""
from __future__ import annotations

from obsidian_memory.search.engines import fulltext
from obsidian_memory.search.base import Query
from obsidian_memory.search.store import VaultIndex
from obsidian_memory.search.tokens import identifiers, query_identifiers
from testkit import write_note as write

FILLER = "Some ordinary words about daily life, cooking and walking the dog in the park. "


def ranked(settings, text: str, **options):
    with VaultIndex.open_fresh(settings) as index:
        return fulltext.search(index, Query(text, **options))[0]


def paths(settings, text: str) -> list[str]:
    return [h.path for h in ranked(settings, text)]


# -- code-aware tokens --------------------------------------------------------------------------

def test_identifiers_are_glued_whole_and_by_piece():
    assert identifiers("export MY_SECRET_PATH=1") == ["mysecretpath1", "mysecretpath"]
    assert identifiers("call useFeatureFlag()") == ["usefeatureflag", "use", "feature", "flag"]
    assert identifiers("see ~/.ssh/config and 10.20.8.30") == ["sshconfig", "1020830", "zztisl"]   # `~/` a word too
    assert identifiers("https://grafana.internal/d/billing-webhooks") == [
        "httpsgrafanainternaldbillingwebhooks", "grafanainternal", "billingwebhooks", "zzcoslsl"]
    assert identifiers("plain words only") == []
    assert query_identifiers("MY_SECRET_PATH") == ["mysecretpath"]
    assert query_identifiers("how to embed ![[file]]") == ["zzexlblb", "zzrbrb"]


def test_a_note_holding_an_identifier_verbatim_ranks_first(vault, settings):
    write(vault, "Secret paths of my projects.md", "# My secret path\nWhere my secret files go: the path is secret.")
    write(vault, "Deploy runbook.md", FILLER + "Before deploying, export MY_SECRET_PATH=/srv/keys and restart.")
    for n in range(3):
        write(vault, f"filler{n}.md", FILLER + "a path, a secret, my notes")
    assert paths(settings, "MY_SECRET_PATH")[0] == "Deploy runbook.md"
    assert paths(settings, "my secret path")[0] == "Secret paths of my projects.md"   # the words still find words


def test_a_kebab_name_and_a_path_are_found_whole(vault, settings):
    write(vault, "Billing.md", FILLER + "The billing api and the webhooks are owned by payments.")
    write(vault, "Services.md", FILLER + "Service billing-api sends webhooks; config in ~/.config/billing/api.toml")
    assert paths(settings, "billing-api")[0] == "Services.md"
    assert paths(settings, "~/.config/billing/api.toml")[0] == "Services.md"


def test_link_syntax_in_a_query_finds_the_note_that_shows_it(vault, settings):
    write(vault, "Embed files.md", "# Embed files\nTo embed a note, write ![[Note name]] in yours.")
    write(vault, "Embed web pages.md", "# Embed web pages\nEmbed a web page with an iframe in your note.")
    assert paths(settings, "embed ![[file]]")[0] == "Embed files.md"


# -- the words other notes link to a note with --------------------------------------------------

def test_a_note_is_found_by_the_words_other_notes_link_to_it_with(vault, settings):
    write(vault, "Zettelkasten.md", "# Zettelkasten\nA method by Niklas Luhmann.")
    write(vault, "Reading.md", FILLER + "I keep my reading in a [[Zettelkasten|slip box]] of cards.")
    write(vault, "Other.md", FILLER)
    assert sorted(paths(settings, "slip box")) == ["Reading.md", "Zettelkasten.md"]   # it never says "slip box"


def test_incoming_link_words_follow_edits_moves_and_deletions(vault, settings):
    write(vault, "Zettelkasten.md", "# Zettelkasten\nA method by Niklas Luhmann.")
    write(vault, "Reading.md", "I keep my reading in a [[Zettelkasten|slip box]].")
    assert "Zettelkasten.md" in paths(settings, "slip box")
    write(vault, "Reading.md", "I keep my reading in a [[Zettelkasten|card index]].", bump=5)
    assert "Zettelkasten.md" not in paths(settings, "slip box")
    assert "Zettelkasten.md" in paths(settings, "card index")
    write(vault, "Later.md", "Back to the [[Zettelkasten|note archive]] tomorrow.")
    assert "Zettelkasten.md" in paths(settings, "archive")
    (vault / "Later.md").unlink()
    assert paths(settings, "archive") == []
    (vault / "Zettelkasten.md").rename(vault / "Luhmann method.md")       # the link no longer resolves
    assert paths(settings, "card index") == ["Reading.md"]


def test_a_required_phrase_holds_for_the_note_s_own_text_only(vault, settings):
    write(vault, "Zettelkasten.md", "# Zettelkasten\nA method by Niklas Luhmann.")
    write(vault, "Reading.md", "I keep my reading in a [[Zettelkasten|slip box]].")
    assert paths(settings, '"slip box"') == ["Reading.md"]


# -- the title against a long note with every word ------------------------------------------------

def test_a_note_named_after_the_query_beats_a_long_note_holding_every_word(vault, settings):
    write(vault, "Canvas.md", "# Canvas\nAn infinite space to lay out ideas.")
    write(vault, "Everything.md", "# Release notes\n" + (FILLER + "A canvas and a space, some ideas. ") * 8)
    for n in range(3):
        write(vault, f"filler{n}.md", FILLER)
    assert paths(settings, "canvas")[0] == "Canvas.md"


# -- explain ----------------------------------------------------------------------------------------

def test_explain_shows_the_signals_that_placed_each_hit(vault, settings):
    write(vault, "Zettelkasten.md", "# Zettelkasten\nA method for notes by Niklas Luhmann.")
    write(vault, "Reading.md", "I keep my reading in a [[Zettelkasten|slip box]].")
    first, *_ = ranked(settings, "zettelkasten method", explain=True)
    signals = first.extra["explain"]["signals"]
    assert first.path == "Zettelkasten.md"
    assert {"bm25", "title", "all_terms"} <= set(signals)
    assert sum(signals.values()) == first.score or abs(sum(signals.values()) - first.score) < 1e-3
    assert all(v > 0 for v in signals.values())
    assert "explain" not in ranked(settings, "zettelkasten method")[0].extra


def test_explain_says_when_the_scores_were_drawn_toward_a_weak_first(vault, settings):
    write(vault, "Zettelkasten.md", "# Zettelkasten\nA method for notes by Niklas Luhmann.")
    write(vault, "Cards.md", "Index cards for a zettelkasten, kept in boxes.")
    hits = ranked(settings, "zettelkasten quokka", explain=True)        # no note holds "quokka"
    assert all(0 < h.extra["explain"]["drawn_to_first"] < 1 for h in hits)
    assert "drawn_to_first" not in ranked(settings, "zettelkasten", explain=True)[0].extra["explain"]


def test_a_title_counts_by_how_much_of_it_the_query_holds(vault, settings):
    # "offices" is half of "Office Suites", "vpn" the whole of the alias "VPN": equally rare words,
    # the name the query holds whole weighs more; a query naming the note gets the whole bonus
    write(vault, "Office Suites.md", FILLER + "LibreOffice writes letters and spreadsheets.")
    write(vault, "Virtual Private Network.md",
          "---\naliases: [VPN]\n---\n" + FILLER + "A VPN joins remote sites as if they were one network.")
    for n in range(6):
        write(vault, f"filler{n}.md", FILLER + "set it up between two desks")

    def title_signal(query: str, path: str) -> float:
        hit = next(h for h in ranked(settings, query, explain=True) if h.path == path)
        return hit.extra["explain"]["signals"].get("title", 0.0)

    question = "how do I set up a vpn between two offices"
    assert title_signal(question, "Office Suites.md") < title_signal(question, "Virtual Private Network.md")
    assert title_signal("office suites", "Office Suites.md") == fulltext.BONUS_TITLE


# -- what the ranking tells a fusion ------------------------------------------------------------

def rank(settings, text: str) -> fulltext.Ranking:
    with VaultIndex.open_fresh(settings) as index:
        return fulltext.rank(index, Query(text))


def test_the_ranking_says_whether_the_query_is_literal_and_whether_words_settle_its_first_place(vault, settings):
    write(vault, "Deploy runbook.md", FILLER + "Before deploying, export MY_SECRET_PATH=/srv/keys and restart.")
    write(vault, "Errors/Connection slots.md", FILLER + "FATAL: remaining connection slots are reserved for superusers")
    write(vault, "Pancakes.md", FILLER + "Mix flour, eggs and milk; fry in butter.")
    for n in range(4):
        write(vault, f"filler{n}.md", FILLER + "a secret, a path, a connection, some eggs")
    identifier = rank(settings, "MY_SECRET_PATH")
    assert identifier.literal and identifier.decisive and identifier.hits[0].path == "Deploy runbook.md"
    error = rank(settings, "remaining connection slots are reserved")
    assert not error.literal and error.decisive                            # the words in a row
    named = rank(settings, "pancakes")
    assert named.decisive and named.hits[0].path == "Pancakes.md"          # the query is its title
    loose = rank(settings, "eggs for breakfast in bed")
    assert not loose.literal and not loose.decisive                        # its first holds "eggs" only
