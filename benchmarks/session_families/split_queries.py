#!/usr/bin/env python3
"""Take the written queries into the judged set, split once: run once, never again.

usage: python benchmarks/session_families/split_queries.py

Reads written_queries.json (the queries as written from descriptions.md only, before any session
existed) and written_queries_vague.json (the second batch, see README.md) and writes queries.json
beside it: each query untouched, its batch, its half and the folder it is asked from. Drawn with
random.Random(SEED) for the first batch (the second batch's folders with SEED + 1, so that the
first batch's draw stays as it was):
  - the half by session, within each family: two sessions of each family to dev (tune on it), two
    to test (report it); both queries of a session go to the same half;
  - the folder: the session's own repository for half of the queries, the home folder (no
    repository) for a quarter, another repository of the machine for a quarter (the agent's
    working folder is a hint, not the answer).
"""
from __future__ import annotations

import json
import random
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
SEED = 3303
REPOS = ("payments-api", "orders-service", "storefront-web", "admin-portal", "infra-k8s", "data-pipeline",
         "search-indexer", "mobile-android")
ABOUT = ("'Find the session where we fixed X' queries, written from descriptions.md only (one line per "
         "session); batch first: before the sessions were made; batch vague: after the first measurement, "
         "without the specifics (README.md). session: the one relevant session. split: dev/test by "
         "session, two of each family each (random.Random(%d), split_queries.py). asked_from: the folder the "
         "search runs in: own (the session's repository), home (no repository) or other (another "
         "repository); cwd: that folder's name (\"\" = home)." % SEED)


def own_repo(descriptions: str) -> dict[str, str]:
    """{session key: its repository} from the lines `- f01a `repo`, ...` of descriptions.md."""
    out = {}
    for line in descriptions.splitlines():
        if line.startswith("- f") and "`" in line:
            out[line[2:6]] = line.split("`")[1]
    return out


def main() -> int:
    written = json.loads((HERE / "written_queries.json").read_text(encoding="utf-8"))["queries"]
    vague = json.loads((HERE / "written_queries_vague.json").read_text(encoding="utf-8"))["queries"]
    repo_of = own_repo((HERE / "descriptions.md").read_text(encoding="utf-8"))
    rng = random.Random(SEED)
    half = {}
    for family in sorted({q["session"][:3] for q in written}):
        members = sorted({q["session"] for q in written if q["session"].startswith(family)})
        rng.shuffle(members)
        for n, key in enumerate(members):
            half[key] = "dev" if n < len(members) // 2 else "test"
    out = []
    for batch, queries, draw in (("first", written, rng), ("vague", vague, random.Random(SEED + 1))):
        places = (["own", "own", "home", "other"] * ((len(queries) + 3) // 4))[:len(queries)]
        draw.shuffle(places)
        for query, place in zip(queries, places):
            own = repo_of[query["session"]]
            other = draw.choice([r for r in REPOS if r != own]) if place != "own" else ""
            cwd = own if place == "own" else other if place == "other" else ""
            out.append({**query, "batch": batch, "split": half[query["session"]], "asked_from": place, "cwd": cwd})
    (HERE / "queries.json").write_text(json.dumps({"about": ABOUT, "queries": out}, indent=1) + "\n",
                                       encoding="utf-8")
    counts = {(s, p): sum(1 for q in out if q["split"] == s and q["asked_from"] == p)
              for s in ("dev", "test") for p in ("own", "home", "other")}
    print(f"{len(out)} queries: " + ", ".join(f"{s}/{p} {n}" for (s, p), n in counts.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
