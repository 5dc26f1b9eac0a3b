"""Redaction quality and speed, measured on the corpus in tests/fixtures/redaction/.

Recall: the share of fake secrets that are gone after `redact_text` (the secret string no longer
appears). False-positive rate: the share of look-alikes (hashes, UUIDs, git SHAs, base64 images,
code, prose) that `redact_text` changed at all. Speed: `redact_text` over the largest fixture
transcript read as one text (a worst case: the archive only redacts prompts, summaries and the
last message), and over the texts of that parsed session.

    .venv/bin/python benchmarks/redaction.py
"""
from __future__ import annotations

import glob
import os
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
CORPUS = os.path.join(ROOT, "tests", "fixtures", "redaction")
LARGEST = os.path.join(os.path.dirname(ROOT), "shared", "fixtures", "transcripts", "projects", "*",
                       "4d5611e5-*.jsonl")

from obsidian_memory.capture.redact import redact_session, redact_text  # noqa: E402


def load_secrets(path: str = os.path.join(CORPUS, "secrets.txt")) -> list[tuple[str, str, str]]:
    """(kind, secret, text) records: a `### kind | secret` header, then the text lines."""
    records, header, lines = [], None, []
    with open(path, encoding="utf-8") as handle:
        for line in handle.read().split("\n"):
            if line.startswith("### "):
                if header:
                    records.append((*header, "\n".join(lines).rstrip("\n")))
                kind, _, secret = line[4:].partition(" | ")
                header, lines = (kind.strip(), secret), []
            elif header:
                lines.append(line)
    if header:
        records.append((*header, "\n".join(lines).rstrip("\n")))
    return records


def load_non_secrets(path: str = os.path.join(CORPUS, "non_secrets.txt")) -> list[str]:
    with open(path, encoding="utf-8") as handle:
        return [line for line in handle.read().split("\n") if line.strip() and not line.startswith("## ")]


def measure() -> dict:
    """Per kind and overall: found / total for secrets; changed / total for look-alikes."""
    by_kind: dict[str, list[int]] = {}
    missed = []
    for kind, secret, text in load_secrets():
        found = secret not in redact_text(text)
        stats = by_kind.setdefault(kind, [0, 0])
        stats[0] += found
        stats[1] += 1
        if not found:
            missed.append((kind, text))
    looks = load_non_secrets()
    flagged = [(line, out) for line, out in ((line, redact_text(line)) for line in looks) if out != line]
    found = sum(s[0] for s in by_kind.values())
    total = sum(s[1] for s in by_kind.values())
    return {"by_kind": by_kind, "recall": found / total, "secrets": total, "missed": missed,
            "non_secrets": len(looks), "false_positives": flagged, "fp_rate": len(flagged) / len(looks)}


def speed() -> None:
    paths = glob.glob(LARGEST)
    if not paths:
        print("speed: skipped (the 3 MB fixture transcript in ../shared is absent)")
        return
    from obsidian_memory.capture.transcript import parse

    path = paths[0]
    with open(path, "rb") as handle:
        text = handle.read().decode("utf-8", "replace")
    runs = 5
    start = time.perf_counter()
    for _ in range(runs):
        redact_text(text)
    whole = (time.perf_counter() - start) / runs
    session = parse(path)
    start = time.perf_counter()
    for _ in range(runs):
        redact_session(session)
    per_session = (time.perf_counter() - start) / runs
    size = len(text.encode("utf-8"))
    print(f"speed: redact_text over the whole {size / 1e6:.1f} MB transcript: {whole * 1000:.0f} ms "
          f"({size / whole / 1e6:.0f} MB/s)")
    print(f"speed: redact_session on that parsed session ({len(session.prompts)} prompts, "
          f"{len(session.compact_summaries)} summaries): {per_session * 1000:.2f} ms")


def main() -> int:
    result = measure()
    print(f"{'kind':<16} {'found':>6} {'total':>6} {'recall':>7}")
    for kind, (found, total) in sorted(result["by_kind"].items()):
        print(f"{kind:<16} {found:>6} {total:>6} {found / total:>7.3f}")
    print(f"{'overall':<16} {round(result['recall'] * result['secrets']):>6} {result['secrets']:>6} "
          f"{result['recall']:>7.3f}")
    print(f"false positives: {len(result['false_positives'])} of {result['non_secrets']} look-alikes "
          f"({result['fp_rate']:.2%})")
    for kind, text in result["missed"]:
        print(f"  missed {kind}: {text[:120]!r}")
    for line, out in result["false_positives"]:
        print(f"  flagged: {line[:100]!r} -> {out[:100]!r}")
    speed()
    return 0


if __name__ == "__main__":
    sys.exit(main())
