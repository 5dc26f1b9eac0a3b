"""What a session note shows of a session, within the note's size caps.

The archive keeps everything; the note stays readable and at most NOTE_BUDGET characters however
long the session runs. A long session's note shows PROMPTS_SHOWN of its prompts (the first, the
most recent and the most telling: the ones with the most distinct words), each under its own
number, a gap saying how many are not shown; compaction summaries likewise (SUMMARIES_SHOWN, the
most recent). Lists are capped by count (LIST_CAPS; failed commands are kept first), each shown
with how many more the archive holds. The session's last answer is shown in full (up to
LAST_ANSWER_CHARS). The other long texts (prompts, answers, compaction summaries, the approved
plan) share what is left of NOTE_BUDGET: each kind has a ceiling, a floor and a weight, and one cap
`c` is found so that every text shows at most `min(ceiling, max(floor, weight * c))` characters
and all of them together fit (short texts give their unused share to the long ones); when even
the floors do not fit, they shrink alike down to MIN_FLOOR. A shortened text ends with a visible
mark saying how long it really was. `view(session, whole=True)` shows everything uncut (`show
--all`).

Pure: builds the template's variables from a model.Session; no I/O.
"""
from __future__ import annotations

import re

NOTE_BUDGET = 60_000             # characters of a note, all parts rendered from the transcript
MIN_TEXT_BUDGET = 10_000         # the texts' share, however long the lists are
FRAME_CHARS = 2_500              # frontmatter, headings, labels, resume command
TEXT_FRAME_CHARS = 50            # around each text: its fence, label, number, the shortening mark
LIST_CAPS = {"todos": 30, "commits": 25, "pull_requests": 20, "commands": 40, "errors": 20, "files": 100,
             "tools": 40, "subagents": 30}
PROMPTS_SHOWN = 40               # of a longer session: the first, RECENT_PROMPTS_SHOWN last, the most telling
RECENT_PROMPTS_SHOWN = 20
TELLING_WORDS = 60               # distinct words that make a prompt as telling as any longer one
SUMMARIES_SHOWN = 5              # the most recent compaction summaries
COMMAND_CHARS = 120
ERROR_CHARS = 160
COMMIT_BODY_CHARS = 120
MIN_FLOOR = 100                  # a text's floor when even the floors do not fit
LAST_ANSWER_START = 500          # the Outcome's "where it stopped"
LAST_ANSWER_CHARS = 12_000       # the session's last answer is shown in full up to this, before any other text
# kind: (ceiling, floor, weight)
TEXT_KINDS = {
    "prompt": (4_000, 200, 2),
    "answer": (2_500, 300, 2),
    "summary": (16_000, 1_500, 6),
    "plan": (6_000, 1_000, 4),
}
TODO_LABELS = {"completed": "done", "in_progress": "in progress", "pending": "open"}
_URL = re.compile(r"https?://[^\s<>()\[\]`\\]+")
_TRAILER = re.compile(r"^\W*(?:Co-Authored-By|Signed-off-by|Reviewed-by|Change-Id|Generated with)\b.*$", re.I | re.M)
_GITHUB_PR = re.compile(r"https?://[^/]+/([^/]+/[^/]+)/pulls?/(\d+)$")
_GITLAB_MR = re.compile(r"https?://[^/]+/(.+?)/-/merge_requests/(\d+)$")


def view(session, *, whole: bool = False) -> dict:
    """The template variables of the session's parts, capped (`whole`: everything, uncut)."""
    lists = _lists(session, whole=whole)
    shown_prompts = range(len(session.prompts)) if whole else chosen_prompts(session)
    summaries = session.compact_summaries if whole else session.compact_summaries[-SUMMARIES_SHOWN:]
    owner = _last_answer_owner(session)
    texts = _text_lengths(session, shown_prompts, summaries, owner)
    last = session.last_assistant_message
    budget = max(MIN_TEXT_BUDGET, NOTE_BUDGET - FRAME_CHARS - _list_chars(lists) - TEXT_FRAME_CHARS * len(texts)
                 - min(len(last or ""), LAST_ANSWER_CHARS))
    cap = (lambda kind: None) if whole else caps_for(texts, budget)
    prompts, previous = [], -1
    for index in shown_prompts:
        prompt = session.prompts[index]
        limit = LAST_ANSWER_CHARS if index == owner and not whole else cap("answer")
        prompts.append({"number": index + 1, "skipped_before": index - previous - 1,
                        "text": shortened(prompt.text, cap("prompt")),
                        "answer": shortened(prompt.answer, limit) if prompt.answer else None})
        previous = index
    return {
        "duration_minutes": round(session.duration_seconds / 60) if session.duration_seconds else None,
        "outcome": _outcome(session, lists, cap),
        "prompt_views": prompts,
        "prompts_hidden": len(session.prompts) - len(prompts),
        "last_answer": (shortened(last, None if whole else LAST_ANSWER_CHARS)
                        if last and (owner is None or owner not in shown_prompts) else None),
        "summary_texts": [shortened(s.text, cap("summary")) for s in summaries],
        "summaries_hidden": len(session.compact_summaries) - len(summaries),
        "commands": lists["commands"],
        "commands_more": len(session.commands) - len(lists["commands"]),
        "errors": lists["errors"],
        "errors_more": len(session.errors) - len(lists["errors"]),
        "files": lists["files"],
        "files_more": len(session.files_touched) - len(lists["files"]),
        "tools": lists["tools"],
        "tools_more": len(session.tools) - len(lists["tools"]),
        "subagents": lists["subagents"],
        "subagents_more": len(session.subagents) - len(lists["subagents"]),
    }


def chosen_prompts(session) -> list[int]:
    """The indexes (in order) of the prompts a note shows: all of them up to PROMPTS_SHOWN; of a
    longer session the first, the RECENT_PROMPTS_SHOWN last, the one holding the last answer, and
    the most telling of the rest (most distinct words up to TELLING_WORDS, the later first): a
    request that says what to do, not "go on" or a bare command."""
    count = len(session.prompts)
    if count <= PROMPTS_SHOWN:
        return list(range(count))
    chosen = {0, *range(count - RECENT_PROMPTS_SHOWN, count)}
    owner = _last_answer_owner(session)
    if owner is not None:
        chosen.add(owner)
    middle = [i for i in range(1, count - RECENT_PROMPTS_SHOWN) if i not in chosen]
    middle.sort(key=lambda i: (-_telling(session.prompts[i].text), -i))
    chosen.update(middle[:max(0, PROMPTS_SHOWN - len(chosen))])
    return sorted(chosen)


def _telling(text: str) -> int:
    if text.startswith(("/", "!")):
        return 0
    return min(TELLING_WORDS, len(set(text[:TELLING_WORDS * 10].lower().split())))   # (bounded: 10,000 prompts)


# -- the long texts ---------------------------------------------------------------------------

def caps_for(texts: list[tuple[str, int]], budget: int):
    """`cap(kind)`: how many characters a text of that kind may show so that the texts (kind,
    length) fit in `budget` (or come as close as MIN_FLOOR allows)."""
    def shown(c: float, scale: float = 1.0) -> int:
        return sum(min(length, _limit(kind, c, scale)) for kind, length in texts)

    if shown(float("inf")) <= budget:
        return lambda kind: TEXT_KINDS[kind][0]
    if shown(0) > budget:   # the floors alone are too much: they shrink alike
        scale = _search(lambda x: shown(0, x) <= budget, 0.0, 1.0)
        return lambda kind: _limit(kind, 0, scale)
    c = _search(lambda x: shown(x) <= budget, 0.0, float(max(ceiling for ceiling, _, _ in TEXT_KINDS.values())))
    return lambda kind: _limit(kind, c)


def _search(fits, low: float, high: float) -> float:
    """The largest x in [low, high] (within 1/2^40 of it) for which fits(x), monotone decreasing."""
    for _ in range(40):
        middle = (low + high) / 2
        if fits(middle):
            low = middle
        else:
            high = middle
    return low


def _limit(kind: str, c: float, scale: float = 1.0) -> int:
    ceiling, floor, weight = TEXT_KINDS[kind]
    return int(min(ceiling, max(max(MIN_FLOOR, floor * scale), weight * c)))


def _text_lengths(session, shown_prompts, summaries, owner) -> list[tuple[str, int]]:
    """(kind, length) of the texts shown that share the budget: all but the session's last answer."""
    prompts = [(i, session.prompts[i]) for i in shown_prompts]
    texts = [("prompt", len(p.text)) for _, p in prompts]
    texts += [("answer", len(p.answer)) for i, p in prompts if p.answer and i != owner]
    texts += [("summary", len(s.text)) for s in summaries]
    if session.plan:
        texts.append(("plan", len(session.plan)))
    return texts


def _last_answer_owner(session) -> int | None:
    """The index of the prompt whose answer is the session's last answer (shown in full there)."""
    last = session.last_assistant_message
    if not last:
        return None
    for index in range(len(session.prompts) - 1, -1, -1):
        if session.prompts[index].answer == last:
            return index
    return None


def shortened(text: str | None, limit: int | None) -> str | None:
    """`text`, or its start and a visible mark saying how long it really was (None: no limit)."""
    if text is None or limit is None or len(text) <= limit:
        return text
    return f"{text[:limit].rstrip()}\n… [shortened, {len(text):,} chars]"


def text_start(text: str, limit: int = LAST_ANSWER_START) -> str:
    """The start of `text`, cut after a line or a word, with "…" when cut."""
    if len(text) <= limit:
        return text
    cut = text[:limit]
    for boundary in ("\n", " "):
        at = cut.rfind(boundary)
        if at > limit // 2:
            return cut[:at].rstrip() + " …"
    return cut + "…"


# -- the lists --------------------------------------------------------------------------------

def _lists(session, *, whole: bool = False) -> dict:
    caps = {kind: None for kind in LIST_CAPS} if whole else LIST_CAPS
    return {
        "todos": [{"status": TODO_LABELS.get(t.status, "open"), "text": t.text}
                  for t in session.todos[:caps["todos"]]],
        "commits": [_commit(c) for c in session.commits[:caps["commits"]]],
        "pull_requests": [_pull_request(url) for url in session.pull_requests[:caps["pull_requests"]]],
        "commands": [{"command": _one_line(c.command, COMMAND_CHARS), "mark": _command_mark(c)}
                     for c in _chosen_commands(session.commands, caps["commands"])],
        "errors": [{"tool": e.tool, "text": _one_line(e.text, ERROR_CHARS)}
                   for e in session.errors[:caps["errors"]]],
        "files": session.files_touched[:caps["files"]],
        "tools": sorted(session.tools.items(), key=lambda item: (-item[1], item[0]))[:caps["tools"]],
        "subagents": session.subagents[:caps["subagents"]],
    }


def _list_chars(lists: dict) -> int:
    total = 0
    for items in lists.values():
        for item in items:
            total += 16 + sum(len(str(v or "")) for v in _shown_values(item))
    return total


def _shown_values(item) -> list:
    """What the note shows of a list item: a dict's values, a (tool, count) pair, a subagent's id
    and first prompt."""
    if isinstance(item, dict):
        return list(item.values())
    if isinstance(item, tuple):
        return list(item)
    return [getattr(item, "agent_id", item), getattr(item, "first_prompt", "")]


def _chosen_commands(commands: list, cap: int | None) -> list:
    """At most `cap` (None: all), the failed ones first, in the order they first ran."""
    if cap is None or len(commands) <= cap:
        return list(commands)
    ranked = sorted(range(len(commands)), key=lambda i: (commands[i].failures == 0, i))[:cap]
    return [commands[i] for i in sorted(ranked)]


def _command_mark(command) -> str:
    if command.failures and command.failures >= command.runs:
        return "failed" if command.runs == 1 else f"failed all {command.runs} runs"
    if command.failures:
        return f"failed {command.failures} of {command.runs} runs"
    return f"ran {command.runs}×" if command.runs > 1 else ""


def _commit(commit) -> dict:
    subject, _, body = (commit.message or "").strip().partition("\n")
    body = _TRAILER.sub("", body)
    return {"hash": commit.hash, "subject": subject.strip(), "body": _one_line(body, COMMIT_BODY_CHARS)}


def _pull_request(url: str) -> dict:
    """{"url": a URL safe in a Markdown link, or None; "label": what to show}."""
    url = url.strip()
    if not _URL.fullmatch(url):
        return {"url": None, "label": url}
    for pattern, mark in ((_GITHUB_PR, "#"), (_GITLAB_MR, "!")):
        match = pattern.match(url)
        if match:
            return {"url": url, "label": f"{match.group(1)}{mark}{match.group(2)}"}
    return {"url": url, "label": url}


def _outcome(session, lists: dict, cap) -> dict | None:
    last = session.last_assistant_message
    outcome = {
        "last_answer": text_start(last) if last else None,
        "todos": lists["todos"],
        "todos_done": sum(1 for t in session.todos if t.status == "completed"),
        "todos_total": len(session.todos),
        "todos_more": len(session.todos) - len(lists["todos"]),
        "plan": shortened(session.plan, cap("plan")) if session.plan else None,
        "commits": lists["commits"],
        "commits_more": len(session.commits) - len(lists["commits"]),
        "pull_requests": lists["pull_requests"],
    }
    if not any((outcome["last_answer"], outcome["todos"], outcome["plan"], outcome["commits"],
                outcome["pull_requests"])):
        return None
    return outcome


def _one_line(text: str, limit: int) -> str:
    line = " ".join((text or "").split())
    return line if len(line) <= limit else line[:limit - 1].rstrip() + "…"
