"""`obsidian_memory.py recall "PROMPT" [--cwd DIR] [--session-id ID] [--json]`: what the prompt hook
would inject for PROMPT typed in DIR, with the words it weighed, the candidate sessions and their
scores, and the decision with its reason."""
from __future__ import annotations

import json
import os
import sys


def add_arguments(parser) -> None:
    from obsidian_memory.cli.cliutil import existing_folder

    parser.add_argument("prompt", nargs="+", help="the prompt, as typed (several words are joined by spaces)")
    parser.add_argument("--cwd", metavar="DIR", type=existing_folder,
                        help="the folder the session runs in (default: the current one)")
    parser.add_argument("--session-id", metavar="ID",
                        help="a running session: what it was shown already is left out, as the hook does")
    parser.add_argument("--json", action="store_true", help="the decision and the injected text as JSON")


def run(args) -> int:
    from obsidian_memory.core import settings as settings_module
    from obsidian_memory.core.errors import UserError
    from obsidian_memory.context.recall import hook, seen
    from obsidian_memory.context.recall.render import render

    settings = settings_module.load()
    cwd = args.cwd or os.getcwd()
    prompt = " ".join(args.prompt)
    state = seen.load(settings, args.session_id) if args.session_id else None
    decision, evidence = hook.decide_here(settings, prompt, cwd, shown=state.shown if state else (),
                                          deadline=30.0)
    if decision is None:
        raise UserError(f"no session archive to search at {settings.archive}" if not os.path.isfile(settings.archive)
                        else f"the session archive {settings.archive} cannot be read (see the log)", code=1)
    text = render(decision, evidence) if decision.chosen else ""
    if args.json:
        sys.stdout.write(json.dumps({**decision.as_dict(), "mode": settings.prompt_recall, "injected": text},
                                    ensure_ascii=False, indent=2) + "\n")
        return 0
    sys.stdout.write(report(decision, text, settings.prompt_recall))
    return 0


def report(decision, text: str, mode: str) -> str:
    lines = [f"decision: {'inject' if text else 'nothing'} ({decision.reason})"]
    if mode == "off":
        lines.append("prompt_recall is off in config.yaml: the hook injects nothing")
    elif mode == "first":
        lines.append("prompt_recall is `first`: the hook looks at the first prompt of a session only")
    if decision.words:
        lines.append("words (sessions holding them, weight):")
        lines.append("  " + ", ".join(f"{w.text} {_held(w)} {w.weight:.2f}"
                                      f"{'' if w.informative else ' (common)'}" for w in decision.words))
    if decision.candidates:
        from obsidian_memory.context.recall.decide import OTHER_PLACE
        meaning = any(c.similarity is not None for c in decision.candidates)
        lines.append(f"best candidates (score = coverage, x{OTHER_PLACE} for another repository's session"
                     f"{'; then the cosine with the prompt' if meaning else ''}):")
        for c in decision.candidates[:5]:
            matched = ", ".join(f"{word} ({field})" for word, field in c.matched.items())
            similarity = f"{c.similarity:.2f}  " if c.similarity is not None else "      " if meaning else ""
            lines.append(f"  {c.score:.2f}  {c.coverage:.2f}  {similarity}{'here ' if c.same_place else 'other'}  "
                         f"{(c.started_at or '')[:10]}  {c.session_id[:8]}  {c.title[:60]}")
            lines.append(f"        matched: {matched}")
    if text:
        lines.append(f"\nwould inject ({len(text)} characters):\n{text.rstrip()}")
    return "\n".join(lines) + "\n"


def _held(word) -> str:
    """How many sessions hold the word: one count for a word of one term, each term's otherwise
    (an identifier's parts and compound: a session may hold the parts and not the whole)."""
    if len(word.terms) == 1:
        return str(next(iter(word.terms.values())))
    return "(" + " ".join(f"{term} {count}" for term, count in word.terms.items()) + ")"
