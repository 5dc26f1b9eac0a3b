"""Words to terms, the same for a session and a prompt: inflections met, identifiers kept whole as
well as in parts, function and chat words dropped; any text at all is handled in bounded form."""
from __future__ import annotations

import re

from hypothesis import given, settings as hypothesis_settings, strategies as st

from obsidian_memory.archive import recall_terms as terms


def test_inflected_forms_of_one_word_meet():
    for forms in (["lag", "lags", "lagged", "lagging"], ["cache", "caches", "caching", "cached"],
                  ["fail", "fails", "failed", "failing"], ["query", "queries"], ["replica", "replicas"],
                  ["timeout", "timeouts"], ["renew", "renewed", "renewing"]):
        assert len({terms.stem_word(f) for f in forms}) == 1, forms


def test_words_that_only_look_inflected_are_left_alone():
    for word in ("status", "redis", "analysis", "class", "bus"):
        assert terms.stem_word(word) == word


def test_an_identifier_gives_its_parts_and_one_compound():
    assert terms.terms("billing-db-2") == ["bill", "db", "billingdb2"]
    assert terms.terms("KotlinCompileDaemon") == ["kotlin", "compil", "daemon", "kotlincompiledaemon"]
    assert terms.terms("ERR_OSSL_EVP_UNSUPPORTED")[-1] == "errosslevpunsupported"
    assert terms.split_word("orders_daily.py") == (["order", "daily", "py"], ["ordersdaily"])
    assert terms.terms("http-01") == ["http", "http01"]


def test_chat_words_and_short_numbers_are_no_terms_and_telling_numbers_are():
    assert terms.terms("hi, thanks! can you please look at it again?") == []
    assert terms.terms("2 15 502 502s 0042 137") == ["502", "502", "0042", "137"]


@hypothesis_settings(max_examples=300, deadline=None)
@given(st.text(max_size=400))
def test_any_text_gives_bounded_terms_of_letters_and_digits(text):
    found = terms.terms(text)
    assert all(re.fullmatch(r"[^\W_]+", t) and len(t) <= terms.MAX_TERM_CHARS for t in found)
    assert all(t not in terms.STOPWORDS for t in found)
    assert terms.distinct([text]) == list(dict.fromkeys(found))


@hypothesis_settings(max_examples=100, deadline=None)
@given(st.dictionaries(st.sampled_from(terms.FIELDS), st.lists(st.text(max_size=3000), max_size=30)))
def test_a_document_is_bounded_whatever_the_session_holds(texts):
    document = terms.document(texts)
    assert set(document) == set(terms.FIELDS)
    for name, value in document.items():
        budget = terms.FIELD_CHARS[name]
        assert len(value.split()) <= budget   # never more terms than characters read
        assert len(set(value.split())) == len(value.split())
