"""`obsidian_memory.py hook <event>`: the entry point Claude Code runs.

The contract, whatever happens: stdin is read as UTF-8 bytes, stdout carries nothing but the
documented output (the SessionStart or UserPromptSubmit JSON object, or nothing), errors go to
the log file, and the exit status is 0 (exit 2 would block compaction on PreCompact, and erase the
prompt on UserPromptSubmit). No argparse on this path. SessionStart's background work (the
detached sweep, and noting which sessions the context listed) happens after its output is written;
SessionEnd's (the session's vector for prompt recall, with the semantic extra) after it archived.

Events: `session-start` (SessionStart), `user-prompt` (UserPromptSubmit: prompt recall) and
`archive` (SessionEnd, PreCompact, PostCompact, Stop; `archive --detached`: the same payload,
archived in the detached process a hook starts for a long transcript not read yet).
"""
from __future__ import annotations

import io
import sys

EVENTS = ("session-start", "user-prompt", "archive")


def main(argv: list[str]) -> int:
    event = argv[0] if argv else ""
    real_stdout = sys.stdout
    sys.stdout = io.StringIO()  # nothing a handler prints by accident may reach Claude Code
    output = None
    context = None              # what SessionStart injects, the sessions it lists, and why
    settings = payload = None
    try:
        payload = _read_payload()
        settings, problems = _settings()
        if _memory_off(payload, settings):
            return 0
        if problems:
            if event == "session-start":
                from obsidian_memory.context.session_start import config_broken_output
                output = config_broken_output(payload, problems)
        elif event == "session-start":
            from obsidian_memory.context.session_start import hook_output, session_start
            context = session_start(payload, settings)
            output = hook_output(context)
        elif event == "user-prompt":
            from obsidian_memory.context.recall.hook import user_prompt_output
            output = user_prompt_output(payload, settings)
        elif event == "archive":
            from obsidian_memory.capture.archiving import handle_hook
            if not handle_hook(payload, settings, detached="--detached" in argv[1:]):
                _after_session_end(payload, settings)   # (else the detached archive does it, once its row is there)
        else:
            _log(settings, f"hook: unknown event {event!r} (expected one of {', '.join(EVENTS)})")
    except BaseException as exc:  # the session must never be hurt, not even by Ctrl-C or SystemExit
        _log(settings, f"hook {event}: failed", exc)
        output = None
    finally:
        sys.stdout = real_stdout
    if output:
        try:
            sys.stdout.buffer.write(output.encode("utf-8"))
            sys.stdout.flush()
        except Exception:
            pass
    if event == "session-start" and settings is not None:
        _after_session_start(payload, settings, context)
    return 0


def _memory_off(payload, settings) -> bool:
    """A session started with OBSIDIAN_MEMORY=off: recorded as off, and nothing else happens."""
    from obsidian_memory.core import memory_off, settings as settings_module

    if not memory_off.requested():
        return False
    session_id = payload.get("session_id") if isinstance(payload, dict) else None
    try:
        home = settings.home if settings is not None else settings_module.home_dir(settings_module.claude_config_dir())
        memory_off.remember(home, session_id.strip() if isinstance(session_id, str) else None)
    except (OSError, settings_module.ConfigError) as exc:
        _log(settings, f"hook: memory is off for this session, and that could not be recorded: {exc}")
    return True


def _settings():
    """(the settings, None), or (None, the problems) when they cannot be used: then nothing is
    written anywhere but the log. Each problem is logged once, not on every hook run."""
    from obsidian_memory.core import logs, settings as settings_module
    try:
        settings = settings_module.load()
    except settings_module.ConfigError as exc:
        logs.log_once(settings_module.log_path(exc.config_dir or None), [f"hook: {p}" for p in exc.problems])
        return None, exc.problems
    _log_problems(settings)
    return settings, None


def _log_problems(settings) -> None:
    from obsidian_memory.core import logs
    logs.log_once(settings.log_path, [f"hook: {p}" for p in settings.problems])


def leaves_alone(raw: bytes) -> bool:
    """Whether `hook user-prompt`, given `raw` on stdin, would print nothing and write nothing but
    the log of the settings' problems (which this call keeps as the hook does): a later prompt of a
    session, by default. The plugin's launcher asks, to answer such a prompt in its own process.
    False whenever the hook has more to do: memory off (the hook records the session), settings
    that cannot be used (it logs why), a prompt it looks at or counts."""
    from obsidian_memory.context.recall.hook import prompt_at_hand
    from obsidian_memory.core import memory_off, settings as settings_module

    if memory_off.requested():
        return False
    try:
        settings = settings_module.load()
    except settings_module.ConfigError:
        return False
    _log_problems(settings)
    return prompt_at_hand(_payload(raw), settings) is None


def _after_session_start(payload, settings, context) -> None:
    """Background work (the sweep of sessions whose end hooks never fired) starts once the output
    is out (so that it does not compete with the context for the CPU), and prints nothing."""
    if not payload or payload.get("hook_event_name") not in (None, "SessionStart"):
        return
    real_stdout, sys.stdout = sys.stdout, io.StringIO()
    session_id = payload.get("session_id")
    session_id = session_id.strip() if isinstance(session_id, str) else None
    try:
        _note_listed_sessions(payload, settings, session_id, context)
    except BaseException as exc:
        _log(settings, "hook session-start: could not note the sessions listed", exc)
    if settings.auto_memory:
        try:
            from obsidian_memory.setup import auto_memory
            cwd = payload.get("cwd") if isinstance(payload.get("cwd"), str) else None
            if cwd and auto_memory.ensure(settings, cwd):
                _log(settings, f"hook session-start: Claude Code's auto memory of {cwd} goes into the vault "
                               "from the next session on")
        except BaseException as exc:
            _log(settings, "hook session-start: could not point the auto memory into the vault", exc)
    try:
        from obsidian_memory.cli.commands.sweep import start_in_background
        start_in_background(settings, session_id)
    except BaseException as exc:
        _log(settings, "hook session-start: could not start the sweep", exc)
    finally:
        sys.stdout = real_stdout


def _after_session_end(payload, settings) -> None:
    """With the semantic extra, the ended session's vector for prompt recall is made in the
    background (`embed --sessions`: the model loads there, never in a hook)."""
    if payload.get("hook_event_name") != "SessionEnd" or settings.prompt_recall == "off":
        return
    try:
        from obsidian_memory.cli.commands.embed import start_detached
        start_detached(settings, sessions=True)
    except Exception as exc:
        _log(settings, "hook archive: could not start embedding the session for recall", exc)


def _note_listed_sessions(payload, settings, session_id, context) -> None:
    """How the session started, which sessions the context listed (so that the prompt hook knows
    the first prompt and does not show them again), and what it injected and why (`injected`)."""
    if not session_id or context is None:
        return
    from obsidian_memory.context.recall import seen

    source = payload.get("source") if isinstance(payload.get("source"), str) else None
    seen.session_started(settings, session_id, source, context.listed, context.account)


def _read_payload() -> dict:
    try:
        raw = sys.stdin.buffer.read()
    except Exception:
        return {}
    return _payload(raw)


def _payload(raw: bytes) -> dict:
    if not raw.strip():
        return {}
    from obsidian_memory.core import json_light
    try:
        payload = json_light.loads(raw.decode("utf-8", errors="replace"))
    except ValueError:
        return {}
    return payload if isinstance(payload, dict) else {}


def _log(settings, message: str, exc: BaseException | None = None) -> None:
    from obsidian_memory.core import logs, settings as settings_module
    try:
        logs.log(settings.log_path if settings is not None else settings_module.log_path(), message, exc)
    except Exception:
        pass
