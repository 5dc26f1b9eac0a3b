"""The UserPromptSubmit hook: past sessions the prompt clearly revisits, or nothing.

`prompt_recall` in config.yaml says when it looks: `first` (default: the first typed prompt of a
session), `every` (every prompt; still only when confident, and never a session shown before in
the session), or `off`. Whatever happens it fails open: a locked, damaged or missing archive, or a
search that overruns DEADLINE_SECONDS, means no output (and a line in the log), never a delay
past the deadline or an error the user sees. With the semantic extra the prompt is embedded
only while that deadline is not past (context.recall.similarity); later, the words decide alone. A
session whose note in the vault is private (`privacy`) is never recalled, as the SessionStart
context never lists it.
"""
from __future__ import annotations

import os
import time

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping
    from typing import Any

    from obsidian_memory.archive import Archive
    from obsidian_memory.context.recall.decide import Decision
    from obsidian_memory.context.recall.seen import SessionState
    from obsidian_memory.core.settings import Settings

DEADLINE_SECONDS = 0.8       # of archive work; Claude Code waits for this hook before the model starts
BUSY_SECONDS = 0.2           # a writer holding the archive longer than this costs the recall


def user_prompt_output(payload: Mapping[str, Any], settings: Settings) -> str | None:
    """The hook's stdout: the documented JSON object, or None."""
    at_hand = prompt_at_hand(payload, settings)
    if at_hand is None:
        return None
    prompt, session_id, state = at_hand
    mode = settings.prompt_recall
    looking = mode == "every" or state.first_prompt_next
    text = ""
    if looking:
        cwd = _string(payload.get("cwd")) or os.getcwd()
        decision, evidence = decide_here(settings, prompt, cwd, shown=state.shown)
        if decision is not None and decision.chosen:
            from obsidian_memory.context.recall.render import render
            text = render(decision, evidence)
            if text:
                state.shown += [c.session_id for c in decision.chosen if c.session_id in text]
        state.record("UserPromptSubmit", _account(prompt, mode, decision, text))
    if session_id and (state.prompts == 0 or text):   # later prompts change nothing worth a write
        from obsidian_memory.context.recall import seen

        state.prompts += 1
        try:
            seen.save(settings, session_id, state)
        except OSError as exc:
            from obsidian_memory.core import logs
            logs.log_for(settings, f"user-prompt: session state not saved: {exc}")
    return hook_json(text) if text else None


def prompt_at_hand(payload: Mapping[str, Any], settings: Settings) -> tuple[str, str, SessionState] | None:
    """(the prompt, its session's id, the session's state) when the hook has work for it: a look
    for past sessions, or the count of the session's first prompt. None when it prints nothing and
    writes nothing: not a UserPromptSubmit, recall off, no prompt, or (with `first`) a session that
    had its first prompt already. The plugin's launcher asks too (cli.commands.hook.leaves_alone)."""
    if not payload or payload.get("hook_event_name") not in (None, "UserPromptSubmit"):
        return None
    mode = settings.prompt_recall
    prompt, session_id = _string(payload.get("prompt")), _string(payload.get("session_id"))
    if mode == "off" or not prompt:
        return None
    from obsidian_memory.context.recall import seen

    state = (seen.load(settings, session_id) if session_id else None) or seen.SessionState()
    if mode != "every" and not state.first_prompt_next and state.prompts:
        return None
    return prompt, session_id, state


ACCOUNT_PROMPT_CHARS = 300
ACCOUNT_CANDIDATES = 3


def _account(prompt: str, mode: str, decision: Decision | None, text: str) -> dict[str, Any]:
    """What the recall injected for a prompt and why: the rule's figures (the words and their
    weights, the best candidates' coverage and score, the reason)."""
    if decision is None:
        return {"prompt": prompt[:ACCOUNT_PROMPT_CHARS], "mode": mode, "reason": "the archive did not answer in time",
                "chars": 0, "text": ""}
    found = decision.as_dict()
    return {"prompt": prompt[:ACCOUNT_PROMPT_CHARS], "mode": mode, "reason": decision.reason,
            "words": found["words"], "candidates": found["candidates"][:ACCOUNT_CANDIDATES],
            "chosen": found["chosen"], "already_shown": found["already_shown"], "chars": len(text), "text": text}


def decide_here(settings: Settings, prompt: str, cwd: str, *, shown: Iterable[str] = (), deadline: float = DEADLINE_SECONDS
                ) -> tuple[Decision | None, dict[str, list[tuple[str, str]]]]:
    """(decision, evidence lines of the chosen sessions) for `prompt` typed in `cwd`; (None, {})
    when the archive cannot answer in time (logged)."""
    from obsidian_memory.core import fsutil, gitinfo, session_text
    from obsidian_memory.vault.privacy import note_is_private
    from obsidian_memory.context.recall.decide import PROMPT_CHARS, decide
    from obsidian_memory.context.recall.similarity import Similarity

    if not os.path.isfile(settings.archive):
        return None, {}
    _, repo_root = gitinfo.find_repo(cwd)
    stop_at = time.monotonic() + deadline
    try:
        from obsidian_memory.archive import open_archive
        with open_archive(settings.archive, readonly=True, busy_timeout=BUSY_SECONDS) as archive:
            archive.interrupt_after(stop_at)
            similar = Similarity.start(archive, prompt[:PROMPT_CHARS], stop_at)   # (the semantic extra)
            repo_id = gitinfo.repo_identity(cwd, known=archive.machines.known_repo_id) if repo_root else None
            decision = decide(archive, prompt, repo_root=repo_root, cwd=os.path.abspath(cwd), shown=shown,
                              repo_id=repo_id,
                              hidden=lambda note_path: note_is_private(settings, note_path), similar=similar)
            for candidate in decision.chosen:   # a note is named only while it is in the vault
                if candidate.note_path and not fsutil.note_present(settings.vault, candidate.note_path):
                    candidate.note_path = None
            showable = session_text.for_sessions(settings, archive, [c.session_id for c in decision.chosen])
            evidence = {c.session_id: [(kind, text) for kind, text in
                                       archive.recall.evidence(c.session_id) + _outcome(archive, c.session_id)
                                       if session_text.of(showable, c.session_id).shows(_TEXT_KIND.get(kind, kind))]
                        for c in decision.chosen}
            return decision, evidence
    except Exception as exc:   # locked, damaged, newer, interrupted at the deadline: no recall this time
        from obsidian_memory.core import logs
        logs.log_for(settings, f"user-prompt: no recall ({type(exc).__name__}: {exc})")
        return None, {}


# The kind of text (session_text's words) each outcome evidence kind of render is.
_TEXT_KIND = {"open_task": "todo"}


def _outcome(archive: Archive, session_id: str) -> list[tuple[str, str]]:
    """The session's evidence of what came of it (render.STOPPED, render.OPEN_TASK): the start of
    its last answer and its tasks not done."""
    from obsidian_memory.context.recall.render import OPEN_TASK, STOPPED, STOPPED_CHARS

    stopped = archive.sessions.where_it_stopped(session_id, answer_chars=STOPPED_CHARS * 2)
    rows = [(STOPPED, stopped.last_answer)] if stopped.last_answer else []
    return rows + [(OPEN_TASK, text) for text, _status in stopped.open_todos]


def hook_json(text: str) -> str:
    """The documented UserPromptSubmit output: exactly this shape, nothing else on stdout."""
    import json
    return json.dumps({"hookSpecificOutput": {"hookEventName": "UserPromptSubmit", "additionalContext": text}},
                      ensure_ascii=False)


def _string(value: object) -> str:
    return value.strip() if isinstance(value, str) else ""
