"""Small transcripts written on the fly for the archive/notes/capture tests (helper B's)."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

from testkit import FIXTURES

REAL_2_1_332 = FIXTURES / "transcripts" / "claude-code-2.1.332" / "66135f19-817e-40c5-8de1-0814e4cbd6c0.jsonl"
REAL_2_1_332_ID = "66135f19-817e-40c5-8de1-0814e4cbd6c0"
HOOKS = FIXTURES / "hooks"


def session_id(n: int) -> str:
    return f"{n:08x}-bbbb-4ccc-8ddd-{n:012x}"


def write_transcript(path: Path, sid: str, prompts: list[str], *, cwd: str = "/work/demo",
                     start: str = "2026-03-04T09:00:00.000Z", summaries: list[str] = (),
                     title: str | None = None) -> Path:
    """A transcript in Claude Code's shape: one user line and one assistant line per prompt."""
    path.parent.mkdir(parents=True, exist_ok=True)
    lines, parent = [], None
    day, clock = start[:11], start[11:]
    hour, minute = int(clock[:2]), int(clock[3:5])

    def stamp(i: int) -> str:
        total = hour * 60 + minute + i
        return f"{day}{total // 60 % 24:02d}:{total % 60:02d}:00.000Z"

    def entry(kind: str, uuid: str, i: int, **extra) -> dict:
        nonlocal parent
        data = {"type": kind, "uuid": uuid, "parentUuid": parent, "sessionId": sid, "cwd": cwd,
                "gitBranch": "main", "version": "2.1.39", "userType": "external", "isSidechain": False,
                "timestamp": stamp(i), **extra}
        parent = uuid
        return data

    for i, text in enumerate(summaries):
        lines.append(entry("user", f"{sid}-s{i}", i, isCompactSummary=True, isVisibleInTranscriptOnly=True,
                           message={"role": "user", "content": "This session is being continued from a previous "
                                    "conversation that ran out of context. The conversation is summarized below:\n"
                                    + text}))
    for i, text in enumerate(prompts):
        lines.append(entry("user", f"{sid}-u{i}", len(summaries) + i, message={"role": "user", "content": text}))
        lines.append(entry("assistant", f"{sid}-a{i}", len(summaries) + i, message={
            "id": f"msg_{sid}_{i}", "role": "assistant", "model": "claude-test",
            "content": [{"type": "text", "text": f"answer {i}"},
                        {"type": "tool_use", "id": f"tu_{i}", "name": "Edit",
                         "input": {"file_path": f"{cwd}/src/file{i}.py", "old_string": "a", "new_string": "b"}}]}))
    if title:
        lines.append({"type": "custom-title", "customTitle": title, "sessionId": sid})
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return path


def copy_real(dest_projects: Path, slug: str = "-tmp-cc-e2e-home-work-e2e-repo") -> Path:
    """The real 2.1.332 transcript (with its subagents folder) laid out under <config>/projects."""
    folder = dest_projects / slug
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / REAL_2_1_332.name
    shutil.copy2(REAL_2_1_332, target)
    side = REAL_2_1_332.with_suffix("")
    if side.is_dir():
        shutil.copytree(side, folder / side.name, dirs_exist_ok=True)
    return target


def hook_payload(event: str, transcript: Path | None, **changes) -> dict:
    """A real hook payload recorded from Claude Code 2.1.332, pointed at `transcript`."""
    payload = json.loads((HOOKS / f"cc-2.1.332_{event}.json").read_text(encoding="utf-8"))
    if transcript is not None:
        payload["transcript_path"] = str(transcript)
    payload.update(changes)
    return payload
