"""How a prompt is weighed (recall.decide.weigh) against a real archive: a thing the prompt names by
words that have a term of their own (an error by its other name, a duration) is one word, however
it is typed, repeated or mixed with its own term."""
from __future__ import annotations

from hypothesis import example, given, strategies as st

import pytest

from obsidian_memory.archive import open_archive, recall_terms as terms
from obsidian_memory.context.recall.decide import weigh

NAMES = [name for names in terms.ERROR_NAMES.values() for name in names]
DURATIONS = ["30s", "30 seconds", "half a minute", "an hour", "1h", "5 days", "2 min", "30000ms"]
OTHERS = ["502", "bad", "gateway", "timeout", "again", "the", "invoice", "OutOfMemoryError", "Bad Gateway", "a", "as"]


@pytest.fixture(scope="module")
def archive(tmp_path_factory):
    with open_archive(str(tmp_path_factory.mktemp("weigh") / "session-archive.db")) as opened:
        yield opened


@given(st.lists(st.sampled_from(NAMES + DURATIONS + OTHERS), max_size=8),
       st.lists(st.sampled_from([" ", ", ", " and ", "\n", ": "]), min_size=8, max_size=8))
@example(["502", "bad gateway"], [" "] * 8)                       # the term typed beside its name
@example(["Bad Gateway", "502", "bad gateway"], [", "] * 8)       # named twice
@example(["30s", "timeout", "30 seconds", "half a minute"], [" "] * 8)
@example(["connection refused", "ECONNREFUSED", "as"], ["\n"] * 8)
def test_a_thing_named_in_words_is_one_word_however_it_is_typed(archive, pieces, joins):
    """(Words of their own: a term inside a joined word, `502-error` or `OOMKilled`, still counts
    there too.)"""
    prompt = "".join(piece + joins[n] for n, piece in enumerate(pieces))
    words = weigh(archive, prompt, 100)
    named = terms.error_names(prompt) + terms.quantities(prompt)
    texts = {word.text for word in words}
    for written, term in named:
        assert sum(term in word.terms for word in words) == 1, (prompt, term, texts)
        assert not texts & {part.lower() for part in terms.words(written)}, (prompt, written, texts)   # none apart
    assert all(word.terms for word in words)
    assert len({word.text for word in words}) == len(words)
