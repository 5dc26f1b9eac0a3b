"""RE2 (`google-re2`, linear time in the text) as a plain `text -> bool`, for expressions that come
from outside (a person's, an agent's, a synced vault's settings) and run on every text of a set.

The binding's `search()` costs ~4 us a call (its wrapper maps byte offsets back to characters);
its own matcher without groups (RE2 then runs its DFA) ~1.5 us, about what Python's `re` costs on
an ordinary pattern. Without RE2, or for an expression RE2 refuses, there is none (None): the
caller decides what runs instead.
"""
from __future__ import annotations


def compile_re2(expression: str, *, ignore_case: bool = False, never_capture: bool = False):
    """The RE2 regex of `expression` in RE2's syntax, or None (not installed, refused, or over
    RE2's memory budget)."""
    try:
        import re2
    except ImportError:
        return None
    options = re2.Options()
    options.case_sensitive = not ignore_case
    options.log_errors = False        # (RE2 would print its refusals on stderr)
    options.never_capture = never_capture
    try:
        return re2.compile(expression, options)
    except Exception:                  # re2.error, or a pattern over RE2's memory budget
        return None


def re2_exists(expression: str, *, ignore_case: bool = False):
    """`text -> bool` (whether `expression` matches anywhere in it) through RE2's own matcher, or
    None when RE2 cannot run it. When the binding no longer looks the way it did, its search()."""
    regex = compile_re2(expression, ignore_case=ignore_case, never_capture=True)
    if regex is None:
        return None
    import re2

    match, anchor = getattr(getattr(regex, "_regexp", None), "Match", None), getattr(re2, "_Anchor", None)
    if match is None or anchor is None:
        return lambda text: regex.search(text) is not None
    unanchored, nothing = anchor.UNANCHORED, (-1, -1)

    def exists(text: str) -> bool:
        data = text.encode("utf-8", "surrogatepass")
        return match(unanchored, data, 0, len(data))[0] != nothing
    return exists
