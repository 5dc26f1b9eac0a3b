"""What following Obsidian's rules costs, in one run, each figure against the plain version:

- `search --sessions`: the regex over every archived text with both sides in NFC
  (session_search.nfc) against the same matcher without it, over N synthetic prompts and answers
  (mostly ASCII, some accented, a few decomposed);
- the index walk of a vault (default: the Help vault) with Obsidian's Excluded files (a prefix and a
  regular expression entry) against the walk without them;
- reading a session note's times back (vault_sessions.note_times) against the plain read of its
  `started` property (the version before).

    .venv/bin/python benchmarks/vault_rules.py [--vault ../shared/eval/obsidian-help-en] [--texts 20000]
"""
from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from obsidian_memory.search import session_search  # noqa: E402
from obsidian_memory.search.store import walk  # noqa: E402
from obsidian_memory.vault.excluded import ExcludedFiles  # noqa: E402
from obsidian_memory.vault.notes import vault_sessions  # noqa: E402


def best(fn, rounds: int) -> float:
    return interleaved(fn, fn, rounds)[0]


def interleaved(first, second, rounds: int) -> tuple[float, float]:
    """The median time of each, run alternately (one warm-up each), so that the machine's load
    weighs on both alike."""
    times: tuple[list, list] = ([], [])
    for n in range(rounds + 1):
        for fn, into in ((first, times[0]), (second, times[1])) if n % 2 else ((second, times[1]), (first, times[0])):
            start = time.perf_counter()
            fn()
            if n:
                into.append(time.perf_counter() - start)
    return statistics.median(times[0]), statistics.median(times[1])


def texts(count: int) -> list[str]:
    """Prompts and answers: words, some accented; one text in a hundred typed with a combining accent."""
    rng = random.Random(7)
    words = ["deploy", "the", "tokenizer", "crash", "café", "naïve", "résumé", "migrate", "index", "Straße"]
    made = [" ".join(rng.choice(words) for _ in range(rng.randint(5, 80))) for _ in range(count)]
    return [text.replace("é", "e\u0301") if n % 100 == 0 else text for n, text in enumerate(made)]


def nfc_cost(count: int, rounds: int) -> tuple[float, float]:
    corpus = texts(count)
    pattern = "tokeni[sz]er crash"
    matcher = session_search.compile_pattern(pattern)
    plain = session_search._re2_exists(pattern) if matcher.engine == "re2" else (
        lambda text: matcher.regex.search(text) is not None)    # the same matcher, without NFC

    def with_nfc():
        return sum(1 for text in corpus if matcher.matches(text))

    def without():
        return sum(1 for text in corpus if plain(text))
    return interleaved(with_nfc, without, rounds)


def walk_cost(vault: str, rounds: int) -> tuple[float, float, int, int]:
    rules = ExcludedFiles(["Plugins/", "/[Ss]ync/"])
    patterns = rules.walk_patterns()
    plain = len(walk.walk_vault(vault))
    left = len(walk.walk_vault(vault, patterns))
    return (*interleaved(lambda: walk.walk_vault(vault, patterns), lambda: walk.walk_vault(vault), rounds), plain, left)


def times_cost(rounds: int) -> tuple[float, float]:
    """(reading a note's times, reading the whole record of a rendered note: read_facts, which
    reads the times too), per note."""
    import tempfile

    from obsidian_memory.capture.session_records import Prompt, Session
    from obsidian_memory.vault.notes.sessions import render_note

    session = Session(session_id="0123abcd-1111-2222-3333-444455556666", title="a session",
                      started_at="2026-03-05T09:00:00.000Z", ended_at="2026-03-05T09:40:00.000Z",
                      prompts=[Prompt("fix the tokenizer crash", "2026-03-05T09:00:00.000Z")])
    with tempfile.TemporaryDirectory() as vault:
        note = Path(vault, "note.md")
        note.write_text(render_note(session), encoding="utf-8")
        info = note.stat()
        stamp = (info.st_size, info.st_mtime_ns, info.st_ctime_ns)
        properties = vault_sessions.properties_of(note.read_text(encoding="utf-8"))
        times, whole = interleaved(lambda: [vault_sessions.note_times(properties) for _ in range(1000)],
                                   lambda: [vault_sessions.read_facts(vault, "note.md", stamp) for _ in range(1000)],
                                   rounds)
    return times / 1000, whole / 1000


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--vault", default=str(REPO.parent / "shared" / "eval" / "obsidian-help-en"))
    parser.add_argument("--texts", type=int, default=20_000)
    parser.add_argument("--rounds", type=int, default=7)
    args = parser.parse_args()
    with_nfc, without = nfc_cost(args.texts, args.rounds)
    print(f"search --sessions over {args.texts:,} texts: {with_nfc * 1000:.1f} ms with NFC, "
          f"{without * 1000:.1f} ms without ({with_nfc / without:.2f}x)")
    if Path(args.vault).is_dir():
        excluded, plain, notes, left = walk_cost(args.vault, args.rounds)
        print(f"index walk of {notes} notes: {excluded * 1000:.2f} ms with 2 Excluded files entries "
              f"({notes - left} left out), {plain * 1000:.2f} ms without ({excluded / plain:.2f}x)")
    else:
        print(f"index walk: skipped ({args.vault} is not there)")
    times, whole = times_cost(args.rounds)
    print(f"a session note's times read back: {times * 1e6:.1f} us of the {whole * 1e6:.1f} us its whole record "
          f"takes (read_facts: {times / whole:.0%}; a note is read once per change)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
