"""Secret redaction: each kind of secret, the look-alikes that must survive, and the corpus gate."""
from __future__ import annotations

import filecmp
import importlib.util
import subprocess
import sys

import pytest

from testkit import FIXTURES, REPO
from obsidian_memory.capture.session_records import CompactSummary, Prompt, Session, Subagent
from obsidian_memory.capture.redact import redact_session, redact_text, redaction_counts


def _load_benchmark():
    spec = importlib.util.spec_from_file_location("redaction_benchmark", REPO / "benchmarks" / "redaction.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# -- each kind, in its surroundings -----------------------------------------------------------

@pytest.mark.parametrize("text, expected", [
    ("export AWS_ACCESS_KEY_ID=AKIAIOSFODNN7EXAMPLE", "export AWS_ACCESS_KEY_ID=[REDACTED:aws_access_key]"),
    ("aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
     "aws_secret_access_key = [REDACTED:aws_secret_key]"),
    ("GITHUB_TOKEN=ghp_FAKEaBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789", "GITHUB_TOKEN=[REDACTED:github_token]"),
    ("token github_pat_11FAKE0000000000000000_abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456 ok",
     "token [REDACTED:github_token] ok"),
    ("git remote set-url origin https://oauth2:glpat-FAKE0000000000000000@gitlab.com/g/p.git",
     "git remote set-url origin https://oauth2:[REDACTED:gitlab_token]@gitlab.com/g/p.git"),
    ('client = OpenAI(api_key="sk-proj-FAKEabcdefghijklmnopqrstuvwxyz0123456789")',
     'client = OpenAI(api_key="[REDACTED:openai_key]")'),
    ("key sk-FAKE0000000000000000T3BlbkFJ0000000000000000 here", "key [REDACTED:openai_key] here"),
    ("ANTHROPIC_API_KEY=sk-ant-api03-FAKEFAKEFAKEFAKEFAKEFAKEFAKE-abcdAA claude",
     "ANTHROPIC_API_KEY=[REDACTED:anthropic_key] claude"),
    ("SLACK_BOT_TOKEN=xoxb-000000000000-0000000000000-FAKEabcdefghijklmnopqrst",
     "SLACK_BOT_TOKEN=[REDACTED:slack_token]"),
    ("post to https://hooks.slack.com/services/T00000000/B00000000/FAKEXXXXXXXXXXXXXXXXXXXX now",
     "post to [REDACTED:slack_webhook] now"),
    ("stripe.api_key = 'sk_live_FAKE000000000000000000000'", "stripe.api_key = '[REDACTED:stripe_key]'"),
    ("rk_test_FAKE0000000000000000", "[REDACTED:stripe_key]"),
    ("GOOGLE_API_KEY=AIzaFAKE0000000000000000000000000000000", "GOOGLE_API_KEY=[REDACTED:google_api_key]"),
    ("Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.c2lnbmF0dXJlLWZha2UtZmFrZQ",
     "Authorization: Bearer [REDACTED:jwt]"),
    ("DATABASE_URL=postgres://admin:Fake-Pass-2024@db.example.com:5432/app",
     "DATABASE_URL=postgres://admin:[REDACTED:url_password]@db.example.com:5432/app"),
    ('password = "hunter2!x"', 'password = "[REDACTED:password]"'),
    ('{"password": "Tr0ub4dor&3"}', '{"password": "[REDACTED:password]"}'),
    ('{\\"password\\": \\"Tr0ub4dor&3\\"}', '{\\"password\\": \\"[REDACTED:password]\\"}'),
    ("DB_PASSWORD=supersecret", "DB_PASSWORD=[REDACTED:password]"),
    ("  POSTGRES_PASSWORD: Fake-Otter-77", "  POSTGRES_PASSWORD: [REDACTED:password]"),
    ("SECRET_KEY_BASE=aGVsbG8gd29ybGQgdGhpcyBpcyBhIGZha2U", "SECRET_KEY_BASE=[REDACTED:secret]"),
    ("curl 'https://api.example.com/v1?api_key=FAKE0123456789abcdef&page=2'",
     "curl 'https://api.example.com/v1?api_key=[REDACTED:api_key]&page=2'"),
    ("token := \"tok_FAKE0123456789abcdef\"", "token := \"[REDACTED:token]\""),
    ("gh --token FAKE0123456789abcdef", "gh --token [REDACTED:token]"),
    ("the staging password is Comet.comet9717$", "the staging password is [REDACTED:password]"),
    ("machine example.com login me password Fake-horse123", "machine example.com login me password [REDACTED:password]"),
    ("Authorization: Bearer FAKEbearer0123456789abcdef", "Authorization: Bearer [REDACTED:bearer_token]"),
    ("//registry.npmjs.org/:_authToken=npm_FAKE00000000000000000000000000000000",
     "//registry.npmjs.org/:_authToken=[REDACTED:npm_token]"),
])
def test_secrets_are_replaced_by_their_kind(text, expected):
    assert redact_text(text) == expected


def test_a_pem_private_key_block_is_replaced_whole():
    block = ("-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAFAKEFAKEFAKE\nFAKEFAKEFAKEFAKE0000\n"
             "-----END RSA PRIVATE KEY-----")
    assert redact_text(f"cat id_rsa\n{block}\nwhy rejected?") == "cat id_rsa\n[REDACTED:private_key]\nwhy rejected?"


def test_an_unterminated_private_key_is_redacted_to_the_end():
    text = "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAAFAKE\n(pasted only half)"
    assert redact_text(text) == "[REDACTED:private_key]"


def test_private_parts_are_dropped_with_their_tags():
    assert redact_text("ship to <private>12 Fake Street</private>, thanks") == "ship to , thanks"
    assert redact_text("a <PRIVATE>x</PRIVATE> b <private>\ny\n</private> c") == "a  b  c"
    assert redact_text("diagnosis: <private>never closed, all of it goes") == "diagnosis: "


def test_redaction_counts_by_kind():
    text = ("AKIAIOSFODNN7EXAMPLE and AKIAIOSFODNN8EXAMPLE, password=Fake-Pass-99 "
            "<private>x</private>")
    assert redaction_counts(text) == {"aws_access_key": 2, "password": 1, "private": 1}
    assert redaction_counts("nothing to see") == {}


# -- look-alikes stay readable ----------------------------------------------------------------

@pytest.mark.parametrize("text", [
    "token = get_token()",
    "password: str",
    'secret_key = os.environ["SECRET_KEY"]',
    "api_key=api_key,",
    "max_tokens=4096",
    "tokens: list[str] = []",
    "const apiKey = process.env.API_KEY;",
    "password: ${{ secrets.DB_PASSWORD }}",
    "API_KEY=<your-api-key>",
    "export PWD=/home/marco/projects",
    '"token_type": "bearer"',
    "Authorization: Bearer $TOKEN",
    "postgres://user:${DB_PASSWORD}@db:5432/app",
    "ssh://git@github.com:22/acme/app.git",
    "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
    "commit 9fceb02d0ae598e95dc970b74767f19372d61af8",
    "claude --resume 4d5611e5-241a-462a-8d15-5122611a9569",
    "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==",
    "Use sk-learn-compatible estimators; see the task-management-system-design doc.",
    "compass = \"north-by-northwest\"",
    "the password is required for new accounts",
    "<usage>total_tokens: 16512\\ntool_uses: 2</usage>",
    "I reset my password yesterday and the token expired.",
])
def test_look_alikes_are_left_alone(text):
    assert redact_text(text) == text


def test_empty_text_stays_empty():
    assert redact_text("") == ""
    assert redaction_counts("") == {}


def test_non_ascii_text_around_a_secret_is_kept():
    text = "İstanbul ünïcödé password=Fake-Pass-99 ✓ straße"
    assert redact_text(text) == "İstanbul ünïcödé password=[REDACTED:password] ✓ straße"


# -- sessions ---------------------------------------------------------------------------------

def test_redact_session_redacts_every_text_field_and_leaves_the_original_alone():
    secret = "ghp_FAKEaBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789"
    session = Session(
        session_id="s1", transcript_path="/t/s1.jsonl", title=f"use {secret}", cwd=f"/w/{secret}",
        cwds=[f"/w/{secret}"], repo_root=f"/w/{secret}", git_branch=f"b-{secret}",
        prompts=[Prompt(text=f"token is {secret}", timestamp="t", uuid="u")],
        compact_summaries=[CompactSummary(text=f"summary {secret}", trigger="auto")],
        last_assistant_message=f"done {secret} <private>hidden</private>",
        files_touched=[f"/w/{secret}.txt"],
        subagents=[Subagent(agent_id="a", path="/t/a.jsonl", entry_count=3, first_prompt=f"do {secret}")],
        tools={"Bash": 2}, models=["m"])
    redacted = redact_session(session)
    dumped = str(redacted.to_dict())
    assert secret not in dumped and "hidden" not in dumped
    assert redacted.prompts[0].text == "token is [REDACTED:github_token]"
    assert (redacted.prompts[0].timestamp, redacted.prompts[0].uuid) == ("t", "u")
    assert redacted.compact_summaries[0].trigger == "auto"
    assert redacted.last_assistant_message == "done [REDACTED:github_token] "
    assert redacted.subagents[0].entry_count == 3 and redacted.transcript_path == "/t/s1.jsonl"
    assert redacted.tools == {"Bash": 2}
    assert secret in session.prompts[0].text and secret in session.title   # the input is untouched


def test_a_grown_session_redacts_only_its_new_prompts_with_the_same_result():
    """The archive's redacted prompts stand for the prompts found there as they are; a prompt that
    changed since (or was never archived) is redacted, a secret in it included."""
    bench = _load_benchmark()
    secrets = [text for _, _, text in bench.load_secrets()][:40]
    prompts = [Prompt(text=f"step {i}: {secrets[i % len(secrets)] if i % 3 == 0 else 'plain words'}",
                      timestamp="t", uuid=f"u{i}", answer=f"answer {i} {secrets[-1 - i % 7] if i % 4 == 0 else ''}")
               for i in range(60)]
    whole = redact_session(Session(session_id="s", prompts=prompts))
    archived = [(p.text, p.answer) for p in whole.prompts[:50]]
    archived[7] = ("an older text of prompt 7", None)
    grown = redact_session(Session(session_id="s", prompts=prompts), archived=archived)
    assert [(p.text, p.answer) for p in grown.prompts] == [(p.text, p.answer) for p in whole.prompts]
    assert sum(1 for p in whole.prompts if "[REDACTED:" in p.text + (p.answer or "")) > 10


# -- the corpus (targets: recall >= 0.95, false positives <= 1%) --------------------------------

def test_corpus_is_large_enough_and_covers_every_kind():
    bench = _load_benchmark()
    records = bench.load_secrets()
    looks = bench.load_non_secrets()
    assert len(records) >= 120 and len(looks) >= 300
    kinds = {kind for kind, _, _ in records}
    assert {"aws_access_key", "aws_secret_key", "github_token", "gitlab_token", "openai_key", "anthropic_key",
            "slack_token", "slack_webhook", "stripe_key", "google_api_key", "jwt", "private_key",
            "url_password", "password", "secret", "token", "api_key", "private"} <= kinds
    assert all(secret and secret in text for _, secret, text in records)


def test_corpus_recall_and_false_positive_rate():
    result = _load_benchmark().measure()
    assert result["recall"] >= 0.95, result["missed"]
    assert result["fp_rate"] <= 0.01, result["false_positives"]
    for kind, (found, total) in result["by_kind"].items():
        assert found / total >= 0.8, kind


def test_corpus_files_are_what_the_generator_writes(tmp_path):
    subprocess.run([sys.executable, str(REPO / "benchmarks" / "make_redaction_corpus.py"), str(tmp_path)],
                   check=True, capture_output=True)
    for name in ("secrets.txt", "non_secrets.txt"):
        assert filecmp.cmp(tmp_path / name, FIXTURES / "redaction" / name, shallow=False), name


def test_redacting_twice_changes_nothing_more():
    bench = _load_benchmark()
    for _, _, text in bench.load_secrets():
        once = redact_text(text)
        assert redact_text(once) == once, text


def test_a_huge_value_after_a_secret_key_is_redacted_whole():
    text = "token=" + "a1" * 100_000 + " next"
    assert redact_text(text) == "token=[REDACTED:token] next"
