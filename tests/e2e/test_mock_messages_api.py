"""The scripted Messages-API server itself (fast, no Claude Code needed)."""
from __future__ import annotations

import json
import urllib.request

from mock_messages_api import COMPACT_MARKER, MockMessagesAPI, text, tool_use


def _post(api: MockMessagesAPI, body: dict, path: str = "/v1/messages?beta=true"):
    request = urllib.request.Request(api.base_url + path, data=json.dumps(body).encode(), method="POST",
                                     headers={"content-type": "application/json"})
    with urllib.request.urlopen(request, timeout=5) as response:
        return response.headers.get("content-type"), response.read().decode()


def _conversation(prompt: str) -> dict:
    return {"model": "m", "tools": [{"name": "Bash"}], "messages": [{"role": "user", "content": prompt}]}


def test_steps_are_answered_in_order_then_the_fallback():
    with MockMessagesAPI([tool_use("Bash", {"command": "ls"}, "toolu_a"), "second"], fallback="done") as api:
        answers = [json.loads(_post(api, _conversation("hi"))[1]) for _ in range(3)]
    assert answers[0]["content"][0]["name"] == "Bash" and answers[0]["stop_reason"] == "tool_use"
    assert answers[1]["content"] == [text("second")] and answers[1]["stop_reason"] == "end_turn"
    assert answers[2]["content"] == [text("done")]


def test_a_streamed_answer_carries_the_tool_input_as_json_delta():
    with MockMessagesAPI([tool_use("Bash", {"command": "echo hi"}, "toolu_b")]) as api:
        content_type, body = _post(api, {**_conversation("hi"), "stream": True})
    assert content_type == "text/event-stream"
    assert "event: message_stop" in body
    assert json.dumps(json.dumps({"command": "echo hi"})) in body


def test_side_calls_do_not_consume_steps():
    with MockMessagesAPI(["the step"], summary="<summary>S</summary>", title="T") as api:
        _post(api, {"messages": [{"role": "user", "content": "x"}]}, "/v1/messages/count_tokens")
        compact = {"model": "m", "tools": [{"name": "Bash"}], "messages": [
            {"role": "user", "content": [{"type": "text", "text": f"Your task is to create a {COMPACT_MARKER}."}]},
            {"role": "system", "content": "a reminder after the instruction"}]}
        summary = json.loads(_post(api, compact)[1])
        title = json.loads(_post(api, {"model": "m", "system": "Generate a short title", "messages": [
            {"role": "user", "content": "x"}]})[1])
        step = json.loads(_post(api, _conversation("hi"))[1])
        kinds = [r.kind for r in api.requests]
    assert kinds == ["count_tokens", "compact", "title", "main"]
    assert summary["content"] == [text("<summary>S</summary>")]
    assert json.loads(title["content"][0]["text"]) == {"title": "T"}
    assert step["content"] == [text("the step")]


def test_the_request_log_shows_what_reached_the_model(tmp_path):
    log = tmp_path / "requests.jsonl"
    body = {"model": "m", "tools": [{"name": "Bash"}], "system": [{"type": "text", "text": "SYSTEM"}],
            "messages": [{"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": "toolu_c", "content": [{"type": "text", "text": "RESULT"}]}]}]}
    with MockMessagesAPI(log_path=str(log)) as api:
        _post(api, body)
        request = api.main_requests()[0]
    assert request.tool_results() == [{"tool_use_id": "toolu_c", "content": "RESULT", "is_error": False}]
    assert "SYSTEM" in request.text() and "RESULT" in request.text()
    assert json.loads(log.read_text())["body"] == body


def test_a_callable_step_sees_the_request():
    with MockMessagesAPI([lambda request: f"you said {request.last_user_text()}"]) as api:
        answer = json.loads(_post(api, _conversation("ping"))[1])
    assert answer["content"] == [text("you said ping")]
