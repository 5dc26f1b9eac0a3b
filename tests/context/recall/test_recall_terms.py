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
    assert terms.terms("billing-db-2") == ["bill", "db", "billingdb2", "billing2", "db2"]   # (numbered names)
    assert terms.terms("KotlinCompileDaemon") == ["kotlin", "compil", "daemon", "kotlincompiledaemon"]
    assert terms.terms("SQLite") == ["sq", "lit", "sqlit", "sqlite"]   # and what `sqlite` gives: `sqlit`
    assert terms.terms("ERR_OSSL_EVP_UNSUPPORTED")[-1] == "errosslevpunsupported"
    assert terms.split_word("orders_daily.py") == (["order", "daily", "py"], ["ordersdaily"])
    assert terms.terms("http-01") == ["http", "http01", "http1"]


@hypothesis_settings(max_examples=300, deadline=None)
@given(st.from_regex(r"[A-Za-z]{1,12}([-_.][A-Za-z0-9]{1,8}){0,3}", fullmatch=True))
def test_a_session_that_wrote_a_word_in_any_case_holds_every_term_of_the_word_typed_in_lower_case(word):
    """A prompt's words are taken in lower case (recall.decide): whatever case a session wrote a
    word in, it holds what the word gives in lower case, so `SQLite` and `sqlite` score alike."""
    parts, compounds = terms.split_word(word.lower())
    assert set(parts + compounds) <= set(terms.word_terms(word))


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


def test_a_cjk_run_gives_its_bigrams_as_the_vault_index_does():
    from obsidian_memory.search.engines import fulltext

    assert terms.terms("数据库迁移失败了") == ["数据", "据库", "库迁", "迁移", "移失", "失败", "败了"]
    assert terms.terms("orders表的迁移") == ["order", "表的", "的迁", "迁移"]
    assert terms.terms("検索が走る") == ["検索", "索が", "が走", "走る"]
    # one tokenisation: a CJK word is the same term in the archive's recall index and the vault index
    assert [t for t in terms.terms("外键约束冲突") if t] == fulltext.words("外键约束冲突")


def test_a_duration_is_one_term_whatever_its_unit_or_words():
    def durations(text):
        return [term for _, term in terms.quantities(text)]

    thirty = ["half a minute", "30 s", "30s", "30-second timeout", "30000ms", "timeout.ms=30000", "30 seconds"]
    assert {d for text in thirty for d in durations(text)} == {"30000ms"}
    assert durations("five minutes") == durations("max.poll.interval.ms (300000)") == ["300000ms"]
    assert durations("an hour") == durations("timedelta(seconds=3600)") == durations("3600-second limit")
    assert durations("nearly two seconds") == durations("timed out after 1874ms") == ["2000ms"]
    assert durations("about a month") == durations("768h") == durations("32 days")
    assert durations("10 min") != durations("15 min")
    assert "30000ms" in terms.terms("gunicorn killed it after half a minute")
    assert durations("half-a-minute") == durations("half a minute") and durations("half-an-hour") == durations("30 min")
    assert durations("接口30s超时") == durations("タイムアウトは30秒ではなく30sです") == ["30000ms"]   # beside CJK text


def test_a_numbered_name_beside_cjk_text_is_one_too():
    assert terms.numbered_names("服务器kafka-broker-03挂了") == terms.numbered_names("kafka-broker-03 down")


def test_what_only_looks_like_a_duration_is_none():
    for text in ("502s from the ingress", "a cat", "one thing", "id_ed25519", "ttl=600", "version 2", "5m",
                 "as far as I know", "ah, I see", "tens of calls", "the ones that fail"):
        assert terms.quantities(text) == [], text


def test_function_words_of_other_languages_are_no_terms():
    assert terms.terms("In der Rechnungs-PDF stehen wieder Fragezeichen statt Umlauten") == [
        "rechnung", "pdf", "rechnungspdf", "stehen", "fragezeichen", "umlauten"]
    assert terms.terms("le tri ne marche pas encore dans la liste") == ["tri", "march", "list"]
    assert terms.terms("otra vez el error de conexión con la base") == ["error", "conexión", "con", "bas"]
    assert terms.terms("probably a cancelled pipeline, I guess, whether or not") == ["cancell", "pipelin"]
    # the short words that are also names in our trade stay terms: es (Elasticsearch), du, su
    assert terms.terms("es du su") == ["es", "du", "su"]


def test_british_and_american_spellings_meet():
    for forms in (["sessionisation", "sessionization", "sessionize", "sessionized"],
                  ["normalise", "normalised", "normalizing", "normalize"], ["authorisation", "authorization"]):
        assert len({terms.stem_word(f) for f in forms}) == 1, forms
    for word in ("raise", "noise", "revise", "analysis"):   # short stems are not words ending in -ize
        assert not terms.stem_word(word).endswith("iz"), word


def test_a_host_named_by_its_role_and_number_meets_its_name():
    def named(text):
        return {term for _, term in terms.numbered_names(text)}

    assert named("kafka-broker-03 went down") == {"kafka3", "broker3"} == named("kafka_broker_3")
    assert "broker3" in terms.terms("kafka-broker-03 went down") and "broker3" in terms.terms("broker-3")
    assert named("es-data-04:9200") == {"es4", "data4"}
    assert named("billing-db-2") == {"billing2", "db2"} and not named("billing-db-2") & named("billing-db-3")
    # a word and a number in running text are no name
    assert named("the retry created two charges") == named("the challenge returns 404") == named("es node 4") == set()


def test_an_error_by_its_other_name_gives_its_term():
    def named(text):
        return {term for _, term in terms.error_names(text)}

    assert named("bad gateway when finance downloads the invoices") == {"502"}
    assert "502" in terms.terms("Bad Gateway") and "502" in terms.terms("a 502 from the ingress")
    assert named("Gateway Time-out") == named("GatewayTimeout") == {"504"}
    oom = ("out of memory", "java.lang.OutOfMemoryError: Java heap space", "pod OOMKilled", "executors OOM")
    assert all(named(text) == {"oom"} for text in oom)
    assert named("No space left on device") == named("write ENOSPC") == {"enospc"}
    assert named("Segmentation fault (core dumped)") == named("SIGSEGV") == {"segfault"}
    assert named("psql: connection refused") == named("ECONNREFUSED 127.0.0.1:5432") == {terms.part_term("econnrefused")}
    # beside CJK text, and as a word of an identifier in camel case
    assert named("内存不足OOM了") == named("报错OOMKilled") == {"oom"} and named("服务器返回bad gateway") == {"502"}
    assert named("http.StatusBadGateway") == {"502"} and named("HTTPBadRequest") == {"400"}
    # the words that only hold a name, the names that say more than one error, and a name's words
    # apart (another line, another paragraph) give none
    for text in ("a roomy zoom room", "OOMPH", "library not found for -liconv", "merge conflict in the lockfile",
                 "the gateway is bad at timing", "boom", "forbidden to push to main", "bad\n\ngateway"):
        assert named(text) == set(), text


def test_an_errors_constant_gives_the_term_it_gives_as_a_word():
    # so that a prompt naming the constant holds it once, and the message's session meets it
    for constant in ("ECONNREFUSED", "EPIPE", "EACCES", "EMFILE", "EADDRINUSE", "ENOSPC", "ENOENT", "ECONNRESET"):
        (term,) = {term for _, term in terms.error_names(constant)}
        assert terms.terms(constant) == [term, term], constant
    assert {t for _, t in terms.error_names("connection refused")} == {t for _, t in terms.error_names("ECONNREFUSED")}


@given(st.lists(st.one_of(st.sampled_from([name for names in terms.ERROR_NAMES.values() for name in names]),
                          st.text(alphabet="abcdefghijklmnopqrstuvwxyz OMEG", min_size=1, max_size=8)), max_size=6),
       st.lists(st.sampled_from([" ", "_", "-", "", "\u00a0", "\n", ". "]), min_size=6, max_size=6),
       st.booleans())
def test_looking_only_for_the_names_a_text_holds_squeezed_never_skips_one(pieces, joins, upper):
    text = "".join(piece.replace(" ", joins[n % len(joins)]) + joins[n] for n, piece in enumerate(pieces))
    text = text.upper() if upper else text
    _, every_name = terms.names_pattern(list(terms._ERROR_FORMS))
    expected = [match.group(0) for match in every_name.finditer(text)]
    assert [written for written, _ in terms.error_names(text)] == expected
