"""Chinese, Japanese and Korean text as words: each run of CJK characters as its overlapping
pairs of characters (bigrams), the way full-text engines index these scripts when they have no
dictionary.

CJK writing puts no spaces between words, so a tokenizer that splits on spaces and punctuation
(SQLite's unicode61, or a `\\w+` pattern) takes a whole clause, `数据库迁移失败了`, for one word:
only a query that begins that run of text and spans all of it would find it. As bigrams the
clause is `数据 据库 库迁 迁移 移失 失败 败了`, and a word anywhere inside it (`迁移`, `失败`,
`数据库` = `数据 据库`) is found by the same pairs. A run of one character stays itself.

Used by the vault index (the text it stores and the query it reads) and by prompt recall (the
session's terms and the prompt's), so the two split CJK text the same way. Pure and light: the
prompt hook imports it.
"""
from __future__ import annotations

import re

# Han (with extensions and compatibility ideographs), Hiragana, Katakana (with halfwidth forms
# and phonetic extensions), Hangul syllables and jamo. The iteration marks 々 〆 〇 belong to
# words too.
_CJK_CLASS = ("\u3005\u3006\u3007\u3040-\u309f\u30a0-\u30ff\u31f0-\u31ff\u3400-\u4dbf\u4e00-\u9fff"
              "\uf900-\ufaff\uff66-\uff9f\u1100-\u11ff\u3130-\u318f\uac00-\ud7af\U00020000-\U0003134f")
# One pattern, compiled on first use (re's cache): a class this wide takes a millisecond or more
# to compile, and ASCII text, most prompts, never needs it.
_RUN = f"([{_CJK_CLASS}]+)"


def has_cjk(text: str) -> bool:
    return bool(text) and not text.isascii() and re.search(_RUN, text) is not None


def bigrams(run: str) -> list[str]:
    """The overlapping character pairs of a CJK run (a run of one character: itself)."""
    if len(run) < 2:
        return [run] if run else []
    return [run[i:i + 2] for i in range(len(run) - 1)]


def split_runs(text: str) -> list[str]:
    """`text` cut into its CJK runs and the pieces between them, in order (joined: `text`)."""
    if not has_cjk(text):
        return [text]
    return [piece for piece in re.split(_RUN, text) if piece]


def spaced(text: str) -> str:
    """`text` with each CJK run replaced by its bigrams, separated (and set apart from the text
    around it) by spaces; text without CJK characters is returned as it is."""
    if not has_cjk(text):
        return text
    return re.sub(_RUN, lambda m: " " + " ".join(bigrams(m.group(0))) + " ", text)
