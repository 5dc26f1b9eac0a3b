"""Which text of a past session may be shown or injected: the one rule every reader asks
(SessionStart context, prompt recall, `search --sessions`, the MCP `search_sessions` tool).

A session's free text (its answers, compaction summaries, plan, open tasks, the commands and
errors it met, where it stopped) is written by the model, and the model writes what it read: a
web page, an MCP tool's answer, or (for a session learned from a vault note) whoever could write
that note. Shown to a later session, such text can steer it. So free text is shown only from a
session that is

- this machine's own (its archive recorded it from its transcript: `origin` "transcript"), and
- read no outside content (no WebFetch, WebSearch or MCP tool call in its main conversation).

Any other session is shown by what we wrote ourselves: its title, ids, repository, machine,
commits, pull requests, files and the user's own prompts. `session_text: all` in config.yaml
shows every session's free text (fenced and labelled as data, as always). See docs/security.md.
"""
from __future__ import annotations

OWN = "transcript"                       # sessions.origin of this machine's own sessions
OUTSIDE_TOOLS = frozenset({"WebFetch", "WebSearch"})
MCP_TOOL_PREFIX = "mcp__"                # Claude Code names an MCP tool mcp__<server>__<tool>

# What a session shows at each level of trust, by kind of text (recall evidence kinds, grep
# fields and the context's parts use the same words).
OWN_WORDS = frozenset({"title", "session_id", "project", "repository", "machine", "commit", "pull_request",
                       "file", "prompt"})
FREE_TEXT = frozenset({"answer", "summary", "todo", "plan", "command", "error", "stopped"})
EVERYTHING = OWN_WORDS | FREE_TEXT


def outside_tool(tools) -> str | None:
    """The first tool among `tools` (names, or a {name: uses} dict) that brings in text someone
    else wrote, or None."""
    for name in sorted(tools or ()):
        if isinstance(name, str) and (name in OUTSIDE_TOOLS or name.startswith(MCP_TOOL_PREFIX)):
            return name
    return None


class Shown:
    """What of one session may be shown: `shows(kind)`, and `withheld`, a short reason when free
    text is left out (None when everything is shown)."""

    __slots__ = ("kinds", "withheld")

    def __init__(self, kinds: frozenset, withheld: str | None):
        self.kinds, self.withheld = kinds, withheld

    def shows(self, kind: str) -> bool:
        return kind in self.kinds

    @property
    def free_text(self) -> bool:
        return self.withheld is None


def shown(origin: str | None, tools, *, show_all: bool = False) -> Shown:
    """What may be shown of a session of `origin` ('transcript': this machine's own; 'vault':
    learned from a note) whose main conversation used `tools`; `show_all`: the user opted in
    (`session_text: all`)."""
    if show_all:
        return Shown(EVERYTHING, None)
    if origin != OWN:
        return Shown(OWN_WORDS, "it was learned from a note in the vault")
    tool = outside_tool(tools)
    if tool is not None:
        return Shown(OWN_WORDS, f"it read outside content ({tool})")
    return Shown(EVERYTHING, None)


def show_all(settings) -> bool:
    """Whether the user opted in to every session's free text (`session_text: all`)."""
    return getattr(settings, "session_text", "own") == "all"


def for_sessions(settings, archive, session_ids) -> dict[str, Shown]:
    """{session id: Shown} of those of `session_ids` the archive holds (their origin and tools
    read in one query); a session it does not hold is not in the answer: show it nothing."""
    everything = show_all(settings)
    found = archive.sessions.provenance_of(list(dict.fromkeys(i for i in session_ids if i)))
    return {session_id: shown(origin, tools, show_all=everything) for session_id, (origin, tools) in found.items()}


NOTHING = Shown(frozenset(), "the archive does not hold it")


def of(table: dict, session_id: str) -> Shown:
    """The Shown of `session_id` in a for_sessions table (nothing for one it lacks)."""
    return table.get(session_id, NOTHING)
