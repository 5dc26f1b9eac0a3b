"""The rule for what in a session note is the user's, as properties: whatever the user writes
around the generated part comes back byte for byte after any re-render, and a merge of two
writers' texts keeps every line of both in order."""
from __future__ import annotations

from hypothesis import given, settings as hypothesis_settings, strategies as st

from obsidian_memory.vault.notes import note_layout

LINE = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\r\n\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"),
               max_size=30)
USER_LINE = LINE.filter(lambda line: not line.startswith(("%% obsidian-memory", "```", "~~~", "    ", "---")))
USER_TEXT = st.lists(USER_LINE, max_size=8).map(lambda lines: "".join(f"{line}\n" for line in lines))
FRONT = st.sampled_from(["", '---\ntitle: "t"\nsession_id: "s"\n---\n'])


def is_subsequence(part: list[str], whole: list[str]) -> bool:
    items = iter(whole)
    return all(any(line == other for other in items) for line in part)


@hypothesis_settings(max_examples=300, deadline=None)
@given(front=FRONT, before=USER_TEXT, after=USER_TEXT, old=st.lists(LINE, max_size=6), new=st.lists(LINE, max_size=6))
def test_the_users_text_around_the_generated_part_survives_any_rerender(front, before, after, old, new):
    old_region = note_layout.region_of("".join(f"    {line}\n" for line in old) or "x")   # (indented: no marker)
    new_region = note_layout.region_of("".join(f"    {line}\n" for line in new) or "y")
    note = note_layout.compose(front, before, old_region, "\n" + after)
    kept_before, kept_after, moved = note_layout.users_text(note, new_region, old_region)
    assert (kept_before, kept_after, moved) == (before, "\n" + after, [])
    again = note_layout.compose(front, kept_before, new_region, kept_after)
    assert note_layout.split(again) == note_layout.Parts(front, before, new_region, "\n" + after)


@hypothesis_settings(max_examples=300, deadline=None)
@given(base=st.lists(LINE, max_size=10), a_added=st.lists(LINE, max_size=5), b_added=st.lists(LINE, max_size=5),
       cut=st.integers(0, 10))
def test_a_merge_of_two_writers_keeps_every_line_of_both_in_order(base, a_added, b_added, cut):
    a = base[:cut] + a_added + base[cut:]
    b = base + b_added
    merged = note_layout.merge_lines("".join(f"{x}\n" for x in a), "".join(f"{x}\n" for x in b)).splitlines()
    assert is_subsequence(a, merged) and is_subsequence(b, merged)
    assert note_layout.merge_lines("".join(f"{x}\n" for x in a), "".join(f"{x}\n" for x in a)) == \
        "".join(f"{x}\n" for x in a)


@hypothesis_settings(max_examples=200, deadline=None)
@given(region=st.lists(LINE, min_size=1, max_size=8), typed=USER_LINE.filter(lambda t: t.strip()), at=st.integers(0, 8))
def test_a_line_typed_inside_the_generated_part_is_moved_out_not_lost(region, typed, at):
    lines = [f"    {line}" for line in region]
    last = note_layout.region_of("".join(f"{line}\n" for line in lines))
    if any(line.rstrip() == typed.rstrip() for line in lines):
        return
    edited = note_layout.region_of("".join(f"{line}\n" for line in lines[:at] + [typed] + lines[at:]))
    note = note_layout.compose("", "", edited, "\n## My notes\n")
    before, after, moved = note_layout.users_text(note, note_layout.region_of("    other\n"), last)
    assert moved == [typed] and typed in after and after.endswith("\n## My notes\n")
