#!/usr/bin/env python3
"""Prompt recall, measured: is the right past session injected for a first prompt that revisits
it, and nothing for the others? And how long does the hook take?

usage: python benchmarks/prompt_recall.py [--split dev|test|both] [--show] [--sessions 10000]
                                          [--notes 20000] [--runs 30] [--no-latency] [--keep DIR]
                                          [--words-only] [--latency-only] [--baseline DIR]

Quality. A machine is built in a temporary folder (benchmarks/recall_set/recall_world.py): the judged
set's 53 sessions and 150 everyday ones, written as Claude Code transcripts and archived by the
real `import`. Each prompt of benchmarks/recall_set/prompts.json is decided as the hook decides it
(recall.decide with this machine's archive, from the prompt's repository). Per half (dev: tune on
it; test: report it) and overall:
  - revisits: the share whose injection holds a relevant session (target >= 90 %);
  - the others (chatter, unrelated tasks, near misses): the share with nothing injected (target
    >= 95 %);
  - precision: the share of injected sessions that are relevant.
`--show` prints every prompt's decision (the terms, the best candidates and their scores).

Two rules, each on the same archives: the words alone (an install without the semantic extra) and,
when the extra's model loads here (unless `--words-only`), the words and the meaning (every
archive's sessions embedded by the real `embed --sessions`, but for the thousands the archive
grows by: `embed_compared`; each prompt embedded as the hook embeds it).

Then the archive grows to `--sessions` sessions (everyday sessions of 1-8 prompts from the filler
templates, parsed from transcripts and upserted through the archive API: the same recall index; no
notes; with the extra, the grown sessions the prompts are compared with by meaning are embedded:
`embed_compared`) and the vault by `--notes` notes, and the same prompts are decided again.

Latency, on that machine: interleaved so that machine noise hits all alike, the bare starts and
the hook's whole process (`obsidian_memory.py hook user-prompt` fed a real UserPromptSubmit
payload), as installed (install.py's launcher and venv; and the plugin's, hooks/run_hook.py with the
venv its bootstrap makes), without the extra and with it (the venv
also reaching the extra's package, as `install.py --semantic` makes it), for a later prompt (the
words' prompt again in a session that had its first prompt: what most prompts are), and for a
first prompt (a fresh session each run) the words decide, one the meaning decides and an
unrelated one. Prints p50 and p95 and the ratios to the bare starts: the installed venv's
`python -I -c pass` (the interpreter as installed, whose site imports nothing: the target's
bare start) and `python -S -c pass`; and, for history, this Python's `python -c pass` (a
development venv's site imports its editable install's finder). Targets: as installed without
the extra <= 1.5x the bare start as installed; with the extra <= 150 ms p50, the model's load
included. `--baseline DIR` installs an older checkout beside this one (its launcher and package,
the same archive and vault) and times it in the same runs, with the ratio new / old;
`--latency-only` skips the quality figures and the curve (on a `--keep` machine: only the growth
it still lacks).
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SET = REPO / "benchmarks" / "recall_set"
sys.path[:0] = [str(REPO), str(SET)]

import recall_world as world_module  # noqa: E402
from obsidian_memory.core import gitinfo  # noqa: E402
from obsidian_memory.archive import open_archive  # noqa: E402
from obsidian_memory.context.recall import decide as decide_module  # noqa: E402
from obsidian_memory.context.recall.similarity import EMBED_BATCH, Similarity, embed_these  # noqa: E402
from obsidian_memory.search import semantic  # noqa: E402

PAYLOAD = REPO / "tests" / "fixtures" / "hooks" / "cc-2.1.332_UserPromptSubmit.json"


# The judged sets: `written` (first prompts written from one-line descriptions by a writer who saw
# nothing else: recall_set/README.md) is the one the decision is tuned (dev) and reported (test)
# on; `first` (the repository's first set) is printed for information; `blind` (a second writer's,
# written after the rule was final) is the held-out one (recall_set/README.md); `fresh` (a third writer's,
# written while the words alone's evidence rule was tuned), `fresh2` (a fourth writer's, written before the
# rule's next change), `fresh3`, `fresh4`, `fresh5` (a sixth, seventh and eighth writer's, each run once for
# a change after) and `fresh6` (a ninth writer's, kept for the next) are test only: no dev half.
SETS = {"written": "written_prompts.json", "first": "prompts.json", "blind": "blind_prompts.json",
        "fresh": "fresh_prompts.json", "fresh2": "fresh2_prompts.json", "failing": "failing_prompts.json",
        "fresh3": "fresh3_prompts.json", "fresh4": "fresh4_prompts.json",
        "fresh5": "fresh5_prompts.json", "fresh6": "fresh6_prompts.json"}
# the growth curve: archive sizes, and how many judged sessions each small archive holds
CURVE = (10, 30, 100, 1000, 10000)


def load_prompts(name: str = "written") -> list[dict]:
    return json.loads((SET / SETS[name]).read_text(encoding="utf-8"))["prompts"]


def revisits(p: dict, present: set[str] | None = None) -> bool:
    """Whether `p` revisits a session this archive holds (`present`: the judged keys it holds;
    None: all): a revisit of a session the archive lacks must get nothing, like a near miss."""
    return p["kind"] == "revisit" and (present is None or bool(set(p["relevant"]) & present))


# The rules compared: the words alone, and the words with the meaning (the semantic extra)
WORDS, MEANING = "words", "words+meaning"


def decide_all(world, prompts: list[dict], rule: str = WORDS) -> dict[str, list[str]]:
    """prompt id -> the session keys the hook would inject under `rule`."""
    keys = {spec.session_id: spec.key for spec in world.specs}
    out = {}
    with open_archive(str(world.config_dir / "session-archive.db"), readonly=True) as archive:
        for entry in prompts:
            cwd = world.cwd(entry["repo"])
            _, repo_root = gitinfo.find_repo(cwd)
            similar = (Similarity.start(archive, entry["prompt"][:decide_module.PROMPT_CHARS],
                                        time.monotonic() + 60)   # (the rule measured: latency below)
                       if rule == MEANING else None)
            if rule == MEANING and similar is None:
                raise SystemExit("the archive has no session vectors")
            decision = decide_module.decide(archive, entry["prompt"], repo_root=repo_root, cwd=cwd, similar=similar)
            entry["decision"] = decision
            out[entry["id"]] = [keys.get(c.session_id, c.session_id) for c in decision.chosen]
    return out


def embed_world(world) -> None:
    """The world's sessions embedded by the real `embed --sessions`."""
    done = world.run("embed", "--sessions")
    if done.returncode != 0:
        raise SystemExit(f"embed --sessions failed: {done.stderr.decode()[-500:]}")


def decided(world, prompts: list[dict], rules: list[str]) -> dict[str, dict[str, list[str]]]:
    """rule -> prompt id -> the session keys injected (the world's sessions embedded first for MEANING)."""
    if MEANING in rules:
        embed_world(world)
    return {rule: decide_all(world, prompts, rule) for rule in rules}


def measure(prompts: list[dict], injected: dict[str, list[str]], present: set[str] | None = None) -> dict:
    """Counts over `prompts` decided on one archive (`present`: its judged sessions; None: all)."""
    back = [p for p in prompts if revisits(p, present)]
    others = [p for p in prompts if not revisits(p, present)]
    found = sum(1 for p in back if set(injected[p["id"]]) & set(p["relevant"]))
    quiet = sum(1 for p in others if not injected[p["id"]])
    shown = [(key, p) for p in prompts for key in injected[p["id"]]]
    right = sum(1 for key, p in shown if key in p["relevant"])
    return {"revisits": len(back), "found": found, "others": len(others), "quiet": quiet,
            "injected": len(shown), "right": right}


def added(a: dict, b: dict) -> dict:
    return {k: a.get(k, 0) + b[k] for k in b}


def quality_line(name: str, m: dict) -> str:
    recall = m["found"] / m["revisits"] if m["revisits"] else 0.0
    silence = m["quiet"] / m["others"] if m["others"] else 0.0
    precision = m["right"] / m["injected"] if m["injected"] else 1.0
    return (f"{name:<6} {m['revisits']:>8} {recall:>18.1%} {m['others']:>7} {silence:>16.1%} "
            f"{precision:>9.1%}  ({m['injected']} injected)")


def print_quality(prompts: list[dict], injected: dict[str, list[str]], splits: list[str]) -> None:
    print(f"\n{'half':<6} {'revisits':>8} {'right one injected':>19} {'others':>7} {'nothing injected':>17} "
          f"{'precision':>10}")
    for name in splits + ["all"]:
        part = [p for p in prompts if name == "all" or p["split"] == name]
        print(quality_line(name, measure(part, injected)))
    print("targets: right one injected >= 90 %, nothing injected >= 95 %")


def small_archives(size: int, root: Path, prompts: list[dict], splits: list[str],
                   rules: list[str]) -> dict[str, dict[str, dict]]:
    """Quality at an archive of `size` sessions smaller than the judged set: the judged sessions in
    groups of size/2 (problems met twice kept together), each archived with as many everyday
    sessions, every prompt decided on each; a revisit of a session a group lacks must get nothing."""
    family_of = {spec.key: spec.key for spec in world_module.corpus.SESSIONS}
    for p in prompts:                       # sessions that are right for one prompt: one family
        for key in p["relevant"][1:]:
            family_of[key] = family_of[p["relevant"][0]]
    families: dict[str, list] = {}
    for spec in world_module.corpus.SESSIONS:
        families.setdefault(family_of[spec.key], []).append(spec)
    groups, group = [], []
    for family in families.values():
        if group and len(group) + len(family) > size // 2:
            groups.append(group)
            group = []
        group += family
    groups.append(group)
    totals = {rule: {name: {} for name in splits} for rule in rules}
    for n, judged in enumerate(groups):
        world = world_module.build(root / f"small-{size}-{n}", judged=judged, fillers=size - len(judged))
        present = {spec.key for spec in judged}
        for rule, injected in decided(world, prompts, rules).items():
            for name in splits:
                part = [p for p in prompts if p["split"] == name]
                totals[rule][name] = added(totals[rule][name], measure(part, injected, present))
    return totals


def print_curve(rows: list[tuple[int, dict[str, dict[str, dict]]]], splits: list[str], rules: list[str]) -> None:
    print("\ngrowth curve (the same prompts; at 10 and 30 sessions: the judged sessions in groups, every prompt on "
          "each group, a revisit of a session the group lacks counted with the others):")
    for rule in rules:
        print(f"\n{rule}:")
        print(f"{'sessions':>8} {'half':<6} {'revisits':>8} {'right one injected':>19} {'others':>7} "
              f"{'nothing injected':>17} {'precision':>10}")
        for size, totals in rows:
            for name in splits:
                print(f"{size:>8,} " + quality_line(name, totals[rule][name]))


def show(prompts: list[dict], injected: dict[str, list[str]], keys: dict[str, str]) -> None:
    for p in prompts:
        decision = p["decision"]
        got = injected[p["id"]]
        ok = (bool(set(got) & set(p["relevant"])) if p["kind"] == "revisit" else not got)
        print(f"\n{'ok ' if ok else 'BAD'} {p['id']} [{p['split']}] {p['prompt']!r}  (repo {p['repo'] or '~'})")
        print(f"    relevant {p['relevant']}  injected {got}  -- {decision.reason}")
        print("    words " + ", ".join(f"{w.text}:{min(w.terms.values())}:{w.weight:.2f}"
                                       f"{'' if w.informative else '(common)'}" for w in decision.words))
        for c in decision.candidates[:4]:
            similarity = "" if c.similarity is None else f"cos {c.similarity:.3f} "
            print(f"      {c.score:.2f} cov {c.coverage:.2f} {similarity}{'here ' if c.same_place else 'other'} "
                  f"{keys.get(c.session_id, c.session_id)[:28]:<28} {c.matched}")


# -- latency ------------------------------------------------------------------------------------

def grow(world, total: int) -> int:
    """Add everyday sessions of 1-8 prompts until the archive holds `total` (parsed from real
    transcripts and upserted through the archive API: the same recall index; no notes, which the
    hook never reads). Half are in the judged repositories, half in 200 others."""
    from obsidian_memory.capture import transcript
    from recall_transcripts import write_transcript

    with open_archive(str(world.config_dir / "session-archive.db")) as archive:
        have = archive.sessions.count()
        missing = total - have
        if missing <= 0:
            return have
        folder = world.root / "bulk"
        specs = world_module.filler.filler_specs(missing, seed=99 + have, max_turns=8)
        for n, spec in enumerate(specs, start=have):
            spec.key = f"bulk-{n}"
            path = write_transcript(spec, world.cwd(spec.repo), folder)
            session = transcript.parse(str(path), include_subagents=False)
            if n % 12 >= 6:
                session.repo_root = session.cwd = f"/work/other-{n % 200}"
            archive.sessions.upsert(session)
            path.unlink()
        return archive.sessions.count()


def embed_compared(world, prompts: list[dict]) -> int:
    """Embed the grown archive's sessions that `prompts` are compared with by meaning: those their
    words found (decide.fuse asks for no other), as `embed --sessions` embeds a session
    (similarity.embed_these). The decisions are those of a fully embedded archive, for the model's
    time on a few hundred sessions instead of thousands. Returns how many were embedded."""
    asked: set[str] = set()

    def record(session_ids: list[str]) -> dict[str, float]:
        asked.update(session_ids)
        return {}

    semantic.cap_threads(1)
    model = semantic.model_id()
    with open_archive(str(world.config_dir / "session-archive.db")) as archive:
        for entry in prompts:
            cwd = world.cwd(entry["repo"])
            decide_module.decide(archive, entry["prompt"], repo_root=gitinfo.find_repo(cwd)[1], cwd=cwd,
                                 similar=record)
        todo = sorted(asked - set(archive.recall_vectors.vectors(asked, model)))
        for start in range(0, len(todo), EMBED_BATCH):
            embed_these(archive, todo[start:start + EMBED_BATCH], model)
    return len(todo)


def make_vault(vault: Path, notes: int) -> None:
    """`notes` notes in 40 folders (the hook must never walk them)."""
    for n in range(notes):
        path = vault / f"area-{n % 40:02d}" / f"note {n:05d}.md"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"# Note {n}\n\nSome text about topic {n % 97} and [[note {(n * 7) % notes:05d}]].\n",
                        encoding="utf-8")


def timed(command: list[str], env: dict, stdin: bytes | None, cwd: str) -> tuple[float, float, bytes]:
    """(wall seconds, CPU seconds of the process and its threads, stdout) of one run."""
    import resource

    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(command, input=stdin, capture_output=True, env=env, cwd=cwd)
    elapsed = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0 or done.stderr:
        raise SystemExit(f"{command} failed with {done.returncode}: {done.stderr[-500:]!r}")
    return elapsed, after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime, done.stdout


def installed_command(home: Path, extra: bool = False, source: Path = REPO) -> list[str]:
    """The hook as settings.json runs it after install.py (base Python -S, the bin/ launcher, the
    venv: session_start.installed_hook makes them), in `home`, of the checkout `source`; `extra`:
    the venv reaches the semantic extra's package too (this Python's, as `install.py --semantic`
    installs it there)."""
    import shutil
    import sysconfig

    from session_start import installed_hook

    ours = home / ".claude" / "obsidian-memory"
    launcher = ours / "bin" / "obsidian_memory.py"
    if source != REPO:
        shutil.rmtree(home, ignore_errors=True)   # (a kept machine's may be of another checkout)
    elif launcher.exists() and not installed_from(ours, source):
        for folder in ("bin", "venv"):   # a kept machine's install of another checkout: its hook is not this one
            shutil.rmtree(ours / folder, ignore_errors=True)
    command = ([os.path.realpath(sys.executable), "-S", str(launcher), "hook", "session-start"] if launcher.exists()
               else installed_hook(home, source))
    if extra:
        (site,) = (home / ".claude" / "obsidian-memory" / "venv").glob("lib/python*/site-packages")
        (site / "semantic_extra.pth").write_text(sysconfig.get_paths()["purelib"] + "\n", encoding="utf-8")
    return command[:-1] + ["user-prompt"]


def installed_from(ours: Path, source: Path) -> bool:
    """Whether the install in `ours` (installed_hook's) is of the checkout `source`: its venv reaches
    that package, and its launcher is that checkout's."""
    from session_start import LAUNCHER_FILES

    pth = next(ours.glob("venv/lib/python*/site-packages/obsidian_memory.pth"), None)
    return pth is not None and pth.read_text(encoding="utf-8").strip() == str(source) \
        and all((ours / "bin" / name).is_file()
                and (ours / "bin" / name).read_bytes() == (source / "scripts" / name).read_bytes()
                for name in LAUNCHER_FILES)


# the prompts timed: (repository, prompt): one the words decide, one the meaning decides (at
# 10,000 sessions), one that gets nothing
TIMED = {"words": ("trailmap-android", "the kotlin daemon error is back"),
         "meaning": ("infra", "terraform state locked again, probably a cancelled pipeline. safe to force-unlock?"),
         "nothing": ("trailmap-android", "Add a dark theme toggle to the settings screen")}
# a later prompt: the words' prompt again in a session whose first prompt was in the warm-up round
LATER = "later"


def plain_python3(root: Path) -> str:
    """A `python3` whose site imports nothing, as most users' is (this machine's own may import
    much more at every start): an empty venv of this Python, in `root`."""
    python = root / "python3" / "bin" / "python"
    if not python.exists():
        subprocess.run([os.path.realpath(sys.executable), "-m", "venv", "--without-pip", str(python.parents[1])],
                       check=True)
    return str(python)


def plugin_command(data: Path, python3: str, source: Path = REPO) -> tuple[list[str], dict]:
    """The hook as Claude Code runs the plugin's (hooks/hooks.json: `python3 run_hook.py
    user-prompt`, which execs the venv's Python once its bootstrap is done, but answers a prompt
    that Python's hook would leave alone itself), of the checkout
    `source`, with its plugin data folder `data` (a venv stamped ready, as run_hook.py's bootstrap
    leaves it); (the command, the environment it adds)."""
    import shutil

    shutil.rmtree(data, ignore_errors=True)
    subprocess.run([os.path.realpath(sys.executable), "-m", "venv", "--without-pip", str(data / "venv")], check=True)
    (site,) = (data / "venv").glob("lib/python*/site-packages")
    (site / "obsidian_memory.pth").write_text(str(source) + "\n", encoding="utf-8")
    version = json.loads((source / ".claude-plugin" / "plugin.json").read_text(encoding="utf-8"))["version"]
    (data / "venv" / ".obsidian-memory-plugin").write_text(f"{source}\n{version}\n", encoding="utf-8")
    return [python3, str(source / "hooks" / "run_hook.py"), "user-prompt"], \
        {"CLAUDE_PLUGIN_DATA": str(data)}


def latency(world, runs: int, extra: bool, baseline: Path | None = None) -> None:
    payload = json.loads(PAYLOAD.read_text(encoding="utf-8"))
    env = dict(world.env, PYTHONPYCACHEPREFIX=str(world.root / "pycache"))
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env.pop("PYTHONPATH", None)   # (an install has none)
    clean = world.home / ".claude" / "obsidian-memory" / "venv" / "bin" / "python"
    base = os.path.realpath(sys.executable)
    python3 = plain_python3(world.root)
    installs = {"": (installed_command(world.home), {}), "plugin ": plugin_command(world.root / "plugin-data", python3)}
    if baseline is not None:
        installs["baseline "] = (installed_command(world.root / "home-baseline", source=baseline), {})
        installs["baseline plugin "] = plugin_command(world.root / "plugin-data-baseline", python3, baseline)
    commands = {"bare python": ([sys.executable, "-c", "pass"], None, {}),
                BARE_I: ([str(clean), "-I", "-c", "pass"], None, {}),
                BARE_S: ([base, "-S", "-c", "pass"], None, {}),
                BARE_SITE: ([python3, "-c", "pass"], None, {})}
    for label, (command, added) in sorted(installs.items(), key=lambda item: "plugin" in item[0]):
        for kind in (LATER, "words", "nothing") if not extra else (LATER, "words", "meaning", "nothing"):
            commands[f"{label}as installed, no extra: {kind}"] = (command, kind, added)
    if extra:
        with_extra = installed_command(world.root / "home-with-extra", extra=True)
        for kind in ("words", "meaning", "nothing"):
            commands[f"as installed, with the extra: {kind}"] = (with_extra, kind, {})
        commands["from the checkout, with the extra: meaning"] = ([sys.executable, str(world_module.CLI), "hook",
                                                                  "user-prompt"], "meaning", {"PYTHONPATH": str(REPO)})
    times: dict[str, list[float]] = {name: [] for name in commands}
    cpu: dict[str, list[float]] = {name: [] for name in commands}
    injected: dict[str, set[bool]] = {name: set() for name in commands}
    started = int(time.time())   # fresh session ids: a first prompt where one is meant, even on a kept machine
    for run in range(runs + 1):   # the first round warms bytecode and the page cache (and starts LATER's sessions)
        for number, (name, (command, kind, added)) in enumerate(commands.items()):
            stdin, cwd = None, str(world.root)
            if kind:
                repo, prompt = TIMED["words" if kind == LATER else kind]
                cwd = world.cwd(repo)
                session = f"bench-{started}-{number}" if kind == LATER else f"bench-{started}-{run}-{number}"
                stdin = json.dumps(dict(payload, cwd=cwd, prompt=prompt, session_id=session)).encode()
            elapsed, used, out = timed(command, dict(env, **added), stdin, cwd)
            if run:
                times[name].append(elapsed)
                cpu[name].append(used)
                injected[name].add(bool(out.strip()))
    p50 = {name: statistics.median(values) for name, values in times.items()}
    used = {name: statistics.median(values) for name, values in cpu.items()}
    print(f"\nhook latency, whole process, {runs} interleaved runs ({sys.executable}, Python "
          f"{sys.version.split()[0]}; CPU: user + system time of the process and its threads; `{LATER}`: the "
          f"words' prompt as a session's second; `plugin`: the plugin's launcher, hooks/run_hook.py):")
    for name, values in times.items():
        values.sort()
        p95 = values[min(len(values) - 1, int(round(0.95 * (len(values) - 1))))]
        more = ""
        if commands[name][1]:
            more = (f"   / -I {p50[name] / p50[BARE_I]:.2f}x (CPU {used[name] / used[BARE_I]:.2f}x)"
                    f"   / -S {p50[name] / p50[BARE_S]:.2f}x   / bare {p50[name] / p50['bare python']:.2f}x"
                    f"   injected: {'/'.join('yes' if i else 'no' for i in sorted(injected[name], reverse=True))}")
            if not name.startswith("baseline") and f"baseline {name}" in p50:
                more += (f"   / baseline {p50[name] / p50[f'baseline {name}']:.2f}x"
                         f" (CPU {used[name] / used[f'baseline {name}']:.2f}x)")
        print(f"  {name:<50} p50 {p50[name] * 1000:6.1f} ms   p95 {p95 * 1000:6.1f} ms   CPU {used[name] * 1000:6.1f} ms"
              f"{more}")
    print(f"(-I: `{BARE_I}`, the interpreter the hook runs as installed; -S: `{BARE_S}`; bare: this Python's "
          f"`python -c pass`; the plugin's launcher starts as `{BARE_SITE}`, then hands over to the venv's, "
          f"but for a later prompt)")
    print("targets: as installed without the extra <= 1.5x a bare start as installed (-I); with the extra <= 150 ms "
          "p50 (the model's load included). (`no extra` with the archive holding vectors: the package is absent)")


BARE_I = "bare: installed venv's python -I -c pass"
BARE_S = "bare: python -S -c pass"
BARE_SITE = "bare: python3 -c pass (a site that imports nothing)"


def in_process(world, runs: int = 30) -> None:
    print(f"\nin-process decision by the words, median of {runs}:")
    with open_archive(str(world.config_dir / "session-archive.db"), readonly=True) as archive:
        for repo, prompt in TIMED.values():
            cwd = world.cwd(repo)
            _, repo_root = gitinfo.find_repo(cwd)
            values = []
            for _ in range(runs):
                started = time.perf_counter()
                decide_module.decide(archive, prompt, repo_root=repo_root, cwd=cwd)
                values.append(time.perf_counter() - started)
            print(f"  {prompt!r}: {statistics.median(values) * 1000:.1f} ms")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--split", choices=("dev", "test", "both"), default="both")
    parser.add_argument("--set", choices=tuple(SETS), default="written", help="the judged set (default: written)")
    parser.add_argument("--show", action="store_true", help="print every prompt's decision")
    parser.add_argument("--keep", metavar="DIR", help="build the machine in DIR (reused when it exists)")
    parser.add_argument("--fillers", type=int, default=150, metavar="N",
                        help="everyday sessions around the judged ones (default 150)")
    parser.add_argument("--sessions", type=int, default=10000, help="archive size for the latency runs")
    parser.add_argument("--notes", type=int, default=20000, help="vault size for the latency runs")
    parser.add_argument("--runs", type=int, default=30, help="latency runs per command")
    parser.add_argument("--no-curve", action="store_true", help="no growth curve (and no latency)")
    parser.add_argument("--no-latency", action="store_true", help="quality only")
    parser.add_argument("--words-only", action="store_true", help="the words alone, even with the extra installed")
    parser.add_argument("--latency-only", action="store_true", help="no quality figures and no curve: the latency")
    parser.add_argument("--baseline", metavar="DIR", type=Path,
                        help="an older checkout (e.g. `git worktree add /tmp/main-ref main`) installed beside this one "
                             "and timed in the same runs")
    args = parser.parse_args()
    splits = ["dev", "test"] if args.split == "both" else [args.split]
    ready, why = (False, "--words-only") if args.words_only else semantic.available()
    rules = [WORDS, MEANING] if ready else [WORDS]
    if not ready:
        print(f"the words alone (the semantic extra: {why})")
    prompts = [p for p in load_prompts(args.set) if p["split"] in splits]
    other = [p for p in load_prompts("first" if args.set == "written" else "written") if p["split"] in splits]
    with tempfile.TemporaryDirectory(prefix="om-bench-recall-") as tmp:
        root = Path(args.keep) if args.keep else Path(tmp)
        started = time.perf_counter()
        if args.keep and (root / "home" / ".claude" / "session-archive.db").exists():
            world = world_module.World(root, world_module.environment(root),
                                       world_module.corpus.SESSIONS + world_module.filler.filler_specs(args.fillers))
        else:
            world = world_module.build(root, fillers=args.fillers)
        if args.latency_only:
            if MEANING in rules:
                embed_world(world)
            return time_the_hook(world, args, rules)
        keys = {spec.session_id: spec.key for spec in world.specs}
        results = decided(world, prompts, rules)
        print(f"machine with {len(world.specs)} archived sessions ready in {time.perf_counter() - started:.1f} s")
        if args.show:
            show(prompts, results[rules[-1]], keys)
        others = decided(world, other, rules)
        for rule in rules:
            print(f"\n{rule}: the {args.set} set ({len(prompts)} prompts), {len(world.specs)} archived sessions:")
            print_quality(prompts, results[rule], splits)
            print(f"{rule}: for information, the {'first' if args.set == 'written' else 'written'} set "
                  f"({len(other)} prompts):")
            print_quality(other, others[rule], splits)
        if args.no_curve:
            return 0
        rows = []
        with tempfile.TemporaryDirectory(prefix="om-bench-recall-small-") as small:
            for size in (n for n in CURVE if n < len(world_module.corpus.SESSIONS)):
                rows.append((size, small_archives(size, Path(small), prompts, splits, rules)))
            size = max(n for n in CURVE if n < len(world.specs))
            snug = world_module.build(Path(small) / "snug", fillers=size - len(world_module.corpus.SESSIONS))
            rows.append((size, {rule: per_split(prompts, injected, splits)
                                for rule, injected in decided(snug, prompts, rules).items()}))
        rows.append((len(world.specs), {rule: per_split(prompts, results[rule], splits) for rule in rules}))
        started = time.perf_counter()
        timed_prompts = [{"repo": repo, "prompt": prompt} for repo, prompt in TIMED.values()]
        embedded = []
        for size in (n for n in CURVE if n > len(world.specs) and n <= max(args.sessions, len(world.specs))):
            grow(world, size)
            if MEANING in rules:
                embedded.append(f"{embed_compared(world, prompts + timed_prompts)} at {size:,}")
            rows.append((size, {rule: per_split(prompts, decide_all(world, prompts, rule), splits) for rule in rules}))
        print(f"(archives grown in {time.perf_counter() - started:.0f} s"
              f"{'; sessions compared with by meaning embedded: ' + ', '.join(embedded) if embedded else ''})")
        print_curve(rows, splits, rules)
        if args.no_latency:
            return 0
        return time_the_hook(world, args, rules)


def time_the_hook(world, args: argparse.Namespace, rules: list[str]) -> int:
    """The latency, on the machine grown to `--sessions` sessions and `--notes` more notes."""
    size = grow(world, args.sessions)
    if MEANING in rules:
        embed_compared(world, [{"repo": repo, "prompt": prompt} for repo, prompt in TIMED.values()])
    if not any((world.vault / "area-00").glob("*.md")):
        make_vault(world.vault, args.notes)
    archive_mb = (world.config_dir / "session-archive.db").stat().st_size / 2**20
    print(f"\narchive of {size:,} sessions ({archive_mb:.0f} MB), vault of {args.notes:,} more notes")
    in_process(world)
    latency(world, args.runs, extra=MEANING in rules, baseline=args.baseline.resolve() if args.baseline else None)
    return 0


def per_split(prompts: list[dict], injected: dict[str, list[str]], splits: list[str]) -> dict[str, dict]:
    return {name: measure([p for p in prompts if p["split"] == name], injected) for name in splits}


if __name__ == "__main__":
    sys.exit(main())
