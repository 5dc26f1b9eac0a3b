"""core.json_light.loads gives what json.loads gives, value or error, for any text: JSON of every
shape and spacing, JSON cut or spoiled, and text that is no JSON at all. And it does so without
importing the json package."""
from __future__ import annotations

import json
import subprocess
import sys

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
