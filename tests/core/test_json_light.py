"""core.json_light.loads gives what json.loads gives, value or error, for any text: JSON of every
shape and spacing, JSON cut or spoiled, and text that is no JSON at all. And it does so without
importing the json package."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile

import pytest
from hypothesis import given, settings as hypothesis_settings, strategies as st

from obsidian_memory.core import json_light
from testkit import REPO

PROPERTY = hypothesis_settings(max_examples=400, deadline=None)

SCALARS = st.none() | st.booleans() | st.integers() | st.floats() | st.text()
VALUES = st.recursive(SCALARS, lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
                      max_leaves=20)
SPACING = st.sampled_from([{}, {"indent": 2}, {"separators": (",", ":")}, {"indent": "\t"}, {"ensure_ascii": False}])
WHITESPACE = st.text(alphabet=" \t\r\n\x0b\x0c\u00a0\ufeff", max_size=3)


def outcome(text):
    """What a reader gives for `text`: ("value", its repr) or ("error", its type and message)."""
    def of(read):
        try:
            return "value", repr(read(text))
        except Exception as exc:
            return "error", type(exc).__name__, str(exc)
    return of(json_light.loads), of(json.loads)


@PROPERTY
@given(VALUES, SPACING, WHITESPACE, WHITESPACE)
def test_json_of_any_shape_and_spacing_reads_as_json_loads_reads_it(value, spacing, before, after):
    light, reference = outcome(before + json.dumps(value, **spacing) + after)
    assert light == reference


@PROPERTY
@given(VALUES, st.data())
def test_json_cut_or_spoiled_fails_or_reads_as_json_loads_does(value, data):
    text = json.dumps(value)
    at = data.draw(st.integers(0, len(text)))
    spoiled = data.draw(st.sampled_from([text[:at], text[:at] + data.draw(st.text(max_size=3)) + text[at:],
                                         text + data.draw(st.text(max_size=3))]))
    light, reference = outcome(spoiled)
    assert light == reference


@PROPERTY
@given(st.text(max_size=40))
def test_any_text_reads_or_fails_as_json_loads(text):
    light, reference = outcome(text)
    assert light == reference


def test_the_json_constants_and_errors_of_every_kind():
    for text in ['NaN', '-Infinity', '[Infinity, NaN]', '{"a": 1}', '  {"a": 1}\n', '{"a": }', '{"a" 1}', '[1,',
                 '"abc', '"a\\qb"', '"tab\there"', '{"a": 1} x', '\ufeff{}', '', '   ', '1e400', '-0', '0012',
                 '"\\ud800"', '[' * 100_000 + ']' * 100_000]:
        light, reference = outcome(text)
        assert light == reference, text


def test_it_reads_without_the_json_package_or_re():
    code = ("import sys; from obsidian_memory.core import json_light; "
            "v = json_light.loads(' {\"prompt\": \"caf\\\\u00e9\", \"n\": [1, 2.5, null, true]} '); "
            "assert v == {'prompt': 'café', 'n': [1, 2.5, None, True]}, v; "
            "print(sorted(m for m in ('json', 're', 'enum') if m in sys.modules))")
    done = subprocess.run([sys.executable, "-S", "-c", code], capture_output=True, text=True, cwd=REPO,
                          env={"PYTHONPATH": str(REPO)}, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


# -- read_json / parse_json: a small JSON file that must hold an object -------------------------

def expected(data: bytes):
    """What parse_json must give for `data`: the object json.loads reads from its UTF-8 text (one
    leading BOM allowed), or the reason it gives none."""
    try:
        text = data.decode("utf-8-sig")
        if not text.strip(" \t\r\n"):
            return json_light.EMPTY
        value = json.loads(text)
    except UnicodeDecodeError:
        return json_light.NOT_UTF8
    except (ValueError, RecursionError):
        return json_light.NOT_JSON
    return value if isinstance(value, dict) else json_light.WRONG_KIND


def parsed(data: bytes):
    found = json_light.parse_json(data)
    if isinstance(found, json_light.Unread):
        assert found.detail and "\n" not in found.detail
        return found.reason
    return found


JSON_BYTES = st.builds(lambda value, spacing, bom, encoding: (b"\xef\xbb\xbf" if bom else b"")
                       + json.dumps(value, **spacing).encode(encoding, "surrogatepass"),
                       VALUES | st.dictionaries(st.text(), VALUES, max_size=4), SPACING, st.booleans(),
                       st.sampled_from(["utf-8", "utf-16"]))


@PROPERTY
@given(JSON_BYTES | st.binary(max_size=60) | st.builds(lambda text: text.encode("utf-8", "surrogatepass"),
                                                       st.text(max_size=40)))
def test_any_bytes_read_as_json_loads_reads_their_object_or_say_why_not(data):
    assert repr(parsed(data)) == repr(expected(data))


@PROPERTY
@given(JSON_BYTES, st.data())
def test_json_bytes_cut_or_spoiled_read_as_json_loads_or_say_why_not(data, draw):
    at = draw.draw(st.integers(0, len(data)))
    spoiled = data[:at] + draw.draw(st.binary(max_size=3)) + data[at:]
    assert repr(parsed(spoiled)) == repr(expected(spoiled))


@hypothesis_settings(max_examples=200, deadline=None)
@given(JSON_BYTES | st.binary(max_size=60), st.integers(0, 80))
def test_a_file_of_any_bytes_reads_as_its_bytes_do_within_the_bound_and_is_refused_past_it(data, bound):
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "settings.json")
        with open(path, "wb") as handle:
            handle.write(data)
        found = json_light.read_json(path, bound)
    if len(data) > bound:
        assert isinstance(found, json_light.Unread) and found.reason == json_light.TOO_LARGE
    else:
        assert repr(found) == repr(json_light.parse_json(data))
        assert repr(parsed(data)) == repr(expected(data))


def test_the_reasons_a_file_gives_no_object(tmp_path):
    cases = {"bom.json": b'\xef\xbb\xbf{"a": "caf\xc3\xa9"}', "plain.json": b' {"a": 1}\n', "list.json": b"[1]",
             "latin.json": b'{"a":\n "caf\xe9"}', "empty.json": b"", "cut.json": b'{"a": 1', "two-boms.json":
             b"\xef\xbb\xbf\xef\xbb\xbf{}", "deep.json": b"[" * 100_000}
    for name, data in cases.items():
        (tmp_path / name).write_bytes(data)
    (tmp_path / "folder.json").mkdir()
    read = {name: json_light.read_json(str(tmp_path / name), 1_000_000) for name in [*cases, "folder.json", "gone.json"]}
    assert read["bom.json"] == {"a": "café"} and read["plain.json"] == {"a": 1}
    assert json_light.read_json(str(tmp_path / "list.json"), 1000, kind=list) == [1]
    reasons = {name: (found.reason, str(found)) for name, found in read.items() if isinstance(found, json_light.Unread)}
    assert reasons == {
        "list.json": (json_light.WRONG_KIND, "does not hold a JSON object"),
        "latin.json": (json_light.NOT_UTF8, "is not UTF-8 text (line 2)"),
        "empty.json": (json_light.EMPTY, "is empty"),
        "cut.json": (json_light.NOT_JSON, "is not valid JSON (Expecting ',' delimiter: line 1 column 8 (char 7))"),
        "two-boms.json": (json_light.NOT_JSON, "is not valid JSON (Unexpected UTF-8 BOM (decode using utf-8-sig): "
                                               "line 1 column 1 (char 0))"),
        "deep.json": (json_light.NOT_JSON, "is not valid JSON (nested too deeply to read)"),
        "folder.json": (json_light.NOT_REGULAR, "is not a regular file"),
        "gone.json": (json_light.MISSING, "does not exist")}


def test_a_file_over_the_bound_is_refused_whole_not_cut(tmp_path):
    path = tmp_path / "settings.json"
    path.write_bytes(b'{"a": "' + b"x" * 100 + b'"}' + b" " * 50)
    assert json_light.read_json(str(path), 159) == {"a": "x" * 100}
    found = json_light.read_json(str(path), 110)    # its first 110 bytes are JSON too: refused all the same
    assert isinstance(found, json_light.Unread) and found.reason == json_light.TOO_LARGE
    assert str(found) == "is larger than 110 bytes"


FIFO_READ = """
import sys
from obsidian_memory.core import json_light
print(repr(json_light.read_json(sys.argv[1], 1000)))
"""


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="this system has no FIFOs")
def test_a_fifo_is_never_waited_on(tmp_path):
    os.mkfifo(tmp_path / "settings.json")       # no writer ever comes: a plain open() waits forever
    done = subprocess.run([sys.executable, "-c", FIFO_READ, str(tmp_path / "settings.json")], capture_output=True,
                          text=True, cwd=REPO, env={"PYTHONPATH": str(REPO)}, timeout=30)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "Unread('not a regular file', 'is not a regular file')"
