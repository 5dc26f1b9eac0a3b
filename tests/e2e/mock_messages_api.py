#!/usr/bin/env python3
"""A scripted stand-in for the Anthropic Messages API, so that the real Claude Code CLI can run whole
sessions offline (ANTHROPIC_BASE_URL=http://127.0.0.1:PORT).

In a test:

    with MockMessagesAPI(steps=[tool_use("Bash", {"command": "ls"}), "Done."]) as api:
        run claude with ANTHROPIC_BASE_URL=api.base_url ...
        api.main_requests()[0].text()      # everything that reached the model in that request

From a shell: `mock_messages_api.py PORT REQUEST_LOG SCRIPT_JSON` (PORT 0 picks a free port and prints
it), where SCRIPT_JSON is a list of steps or {"steps": [...], "fallback": "...", "summary": "..."}.

Each conversation request ("main", the agent or a subagent asking for its next move) consumes the next
step. A step is a text string, one content block, a list of blocks, or (in Python) a callable taking
the `Request` and returning one of those. When the steps run out, the fallback text answers.
Side calls Claude Code makes on its own do not consume steps:
  - `count_tokens`: answered with a token count;
  - `compact`: the compaction-summary request (its last message asks for "a detailed summary of the
    conversation so far"): answered with the `summary` text;
  - `title`: a tool-less request whose system prompt asks for a title: answered with `title`.
Every request is kept in `requests` (and appended to REQUEST_LOG as one JSON line when given), so a
test can see exactly what reached the model: hook context, tool results, the skill list.
Answers are streamed as server-sent events when the request asks for a stream, else plain JSON.
"""
from __future__ import annotations

import http.server
import itertools
import json
import sys
import threading

COMPACT_MARKER = "detailed summary of the conversation so far"
DEFAULT_SUMMARY = "<analysis>Scripted.</analysis>\n<summary>1. Primary Request and Intent: scripted summary.</summary>"

_tool_ids = itertools.count(1)


def text(value: str) -> dict:
    return {"type": "text", "text": value}


def tool_use(name: str, tool_input: dict, tool_id: str | None = None) -> dict:
    return {"type": "tool_use", "id": tool_id or f"toolu_e2e_{next(_tool_ids):04d}", "name": name,
            "input": tool_input}


class Request:
    """One request as the server received it."""

    def __init__(self, path: str, body: dict, kind: str):
        self.path, self.body, self.kind = path, body, kind

    @property
    def messages(self) -> list:
        return self.body.get("messages") or []

    @property
    def tool_names(self) -> list[str]:
        return [tool.get("name", "") for tool in self.body.get("tools") or []]

    def system_text(self) -> str:
        return _flatten(self.body.get("system"))

    def text(self) -> str:
        """System prompt and every message, flattened to text (tool inputs and results included)."""
        return "\n".join([self.system_text(), *(_flatten(m.get("content")) for m in self.messages)])

    def last_user_text(self) -> str:
        users = [m for m in self.messages if m.get("role") == "user"]
        return _flatten(users[-1].get("content")) if users else ""

    def tool_results(self) -> list[dict]:
        """The tool_result blocks of this request, in order: {"tool_use_id", "content" (text), "is_error"}."""
        results = []
        for message in self.messages:
            content = message.get("content")
            for block in content if isinstance(content, list) else []:
                if isinstance(block, dict) and block.get("type") == "tool_result":
                    results.append({"tool_use_id": block.get("tool_use_id"),
                                    "content": _flatten(block.get("content")),
                                    "is_error": bool(block.get("is_error"))})
        return results

    def as_json(self) -> dict:
        return {"path": self.path, "kind": self.kind, "body": self.body}


def _flatten(value) -> str:
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return "\n".join(_flatten(item) for item in value)
    if isinstance(value, dict):
        if value.get("type") == "tool_use":
            return f"[tool_use {value.get('name')}] {json.dumps(value.get('input'), ensure_ascii=False)}"
        parts = [value[key] for key in ("text", "thinking") if isinstance(value.get(key), str)]
        if "content" in value:
            parts.append(_flatten(value["content"]))
        return "\n".join(parts)
    return str(value)


def classify(path: str, body: dict) -> str:
    if "count_tokens" in path:
        return "count_tokens"
    # The summary request ends with the instruction in the last user message (a system reminder may follow).
    users = [m for m in body.get("messages") or [] if isinstance(m, dict) and m.get("role") == "user"]
    if users and COMPACT_MARKER in _flatten(users[-1].get("content")):
        return "compact"
    if not body.get("tools") and "title" in _flatten(body.get("system")).lower():
        return "title"
    return "main"


class MockMessagesAPI:
    """The server. Start it (`start()` or `with`), point Claude Code at `base_url`, read `requests`."""

    def __init__(self, steps=None, fallback: str = "OK.", summary: str = DEFAULT_SUMMARY,
                 title: str = "Scripted session title", log_path: str | None = None, port: int = 0):
        self.requests: list[Request] = []
        self.summary, self.title = summary, title
        self._lock = threading.Lock()
        self._log_path = log_path
        self._port = port
        self._server = None
        self._thread = None
        self.script(steps or [], fallback)

    # -- script ------------------------------------------------------------------------
    def script(self, steps, fallback: str | None = None) -> "MockMessagesAPI":
        """Replace the steps (and optionally the fallback); the next main request takes steps[0]."""
        with self._lock:
            self._steps = list(steps)
            self._next = 0
            if fallback is not None:
                self.fallback = fallback
        return self

    @property
    def steps_left(self) -> int:
        return len(self._steps) - self._next

    def _answer_blocks(self, request: Request) -> list[dict]:
        if request.kind == "compact":
            return [text(self.summary)]
        if request.kind == "title":
            return [text(json.dumps({"title": self.title}))]
        with self._lock:
            step = self._steps[self._next] if self._next < len(self._steps) else self.fallback
            if self._next < len(self._steps):
                self._next += 1
        if callable(step):
            step = step(request)
        if isinstance(step, str):
            return [text(step)]
        return list(step) if isinstance(step, list) else [step]

    # -- requests ------------------------------------------------------------------------
    def by_kind(self, kind: str) -> list[Request]:
        with self._lock:
            return [r for r in self.requests if r.kind == kind]

    def main_requests(self) -> list[Request]:
        return self.by_kind("main")

    def all_text(self) -> str:
        with self._lock:
            return "\n".join(r.text() for r in self.requests)

    def clear_requests(self) -> None:
        with self._lock:
            self.requests.clear()

    def _record(self, path: str, body: dict) -> Request:
        request = Request(path, body, classify(path, body))
        with self._lock:
            self.requests.append(request)
            if self._log_path:
                with open(self._log_path, "a", encoding="utf-8") as log:
                    log.write(json.dumps(request.as_json(), ensure_ascii=False) + "\n")
        return request

    # -- server --------------------------------------------------------------------------
    @property
    def port(self) -> int:
        return self._server.server_address[1]

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> "MockMessagesAPI":
        self._server = http.server.ThreadingHTTPServer(("127.0.0.1", self._port), _handler_for(self))
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, name="mock-messages-api", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._server:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    def __enter__(self) -> "MockMessagesAPI":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()


def _sse(message_id: str, model: str, blocks: list[dict], stop_reason: str) -> bytes:
    events = [("message_start", {"type": "message_start", "message": {
        "id": message_id, "type": "message", "role": "assistant", "model": model, "content": [],
        "stop_reason": None, "stop_sequence": None, "usage": {"input_tokens": 10, "output_tokens": 1}}})]
    for index, block in enumerate(blocks):
        if block["type"] == "text":
            start, delta = {"type": "text", "text": ""}, {"type": "text_delta", "text": block["text"]}
        else:
            start = {"type": "tool_use", "id": block["id"], "name": block["name"], "input": {}}
            delta = {"type": "input_json_delta", "partial_json": json.dumps(block["input"])}
        events += [("content_block_start", {"type": "content_block_start", "index": index, "content_block": start}),
                   ("content_block_delta", {"type": "content_block_delta", "index": index, "delta": delta}),
                   ("content_block_stop", {"type": "content_block_stop", "index": index})]
    events += [("message_delta", {"type": "message_delta", "delta": {"stop_reason": stop_reason, "stop_sequence": None},
                                  "usage": {"output_tokens": 5}}),
               ("message_stop", {"type": "message_stop"})]
    return "".join(f"event: {name}\ndata: {json.dumps(data)}\n\n" for name, data in events).encode()


def _handler_for(api: MockMessagesAPI):
    message_ids = itertools.count(1)

    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def _reply(self, body: bytes, content_type: str) -> None:
            self.send_response(200)
            self.send_header("content-type", content_type)
            self.send_header("content-length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def do_GET(self):
            self._reply(b"{}", "application/json")

        def do_HEAD(self):
            self.send_response(200)
            self.send_header("content-length", "0")
            self.end_headers()

        def do_POST(self):
            raw = self.rfile.read(int(self.headers.get("content-length") or 0))
            try:
                body = json.loads(raw or b"{}")
            except ValueError:
                body = {}
            request = api._record(self.path, body if isinstance(body, dict) else {})
            if request.kind == "count_tokens":
                return self._reply(b'{"input_tokens": 10}', "application/json")
            if not self.path.split("?")[0].endswith("/messages"):
                return self._reply(b"{}", "application/json")
            blocks = api._answer_blocks(request)
            stop_reason = "tool_use" if any(b["type"] == "tool_use" for b in blocks) else "end_turn"
            model = body.get("model", "claude")
            message_id = f"msg_e2e_{next(message_ids):05d}"
            if body.get("stream"):
                return self._reply(_sse(message_id, model, blocks, stop_reason), "text/event-stream")
            self._reply(json.dumps({"id": message_id, "type": "message", "role": "assistant", "model": model,
                                    "content": blocks, "stop_reason": stop_reason, "stop_sequence": None,
                                    "usage": {"input_tokens": 10, "output_tokens": 5}}).encode(), "application/json")

        def log_message(self, *args):
            pass

    return Handler


def main(argv: list[str]) -> int:
    if len(argv) != 3:
        sys.stderr.write("usage: mock_messages_api.py PORT REQUEST_LOG SCRIPT_JSON\n")
        return 2
    with open(argv[2], encoding="utf-8") as handle:
        script = json.load(handle)
    options = {} if isinstance(script, list) else script
    steps = script if isinstance(script, list) else script.get("steps", [])
    api = MockMessagesAPI(steps, fallback=options.get("fallback", "OK."),
                          summary=options.get("summary", options.get("fallback", DEFAULT_SUMMARY)),
                          log_path=argv[1], port=int(argv[0])).start()
    print(api.port, flush=True)
    try:
        api._thread.join()
    except KeyboardInterrupt:
        api.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
