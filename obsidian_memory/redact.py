"""Remove secrets from text before anything is persisted.

Each secret becomes `[REDACTED:<kind>]`; text inside `<private>…</private>` is dropped with its
tags. Detection is by format (known token prefixes, PEM blocks, JWTs, `user:pass@` in URLs) and
by assignment (`password=…`, `"api_key": "…"`, `--token …`), where the key name is kept and only
a value that looks like a literal is replaced: `token = get_token()`, `password: str` or
`secret_key = os.environ[...]` are code, not secrets, and stay readable. Hex hashes, UUIDs, git
SHAs and base64 data have no secret prefix and are left alone.

Pure functions; only `re` at top level; every pattern is compiled once.
"""
from __future__ import annotations

import re

_PRIVATE = re.compile(r"<private>.*?(?:</private>|\Z)", re.I | re.S)

_PEM = re.compile(
    r"-----BEGIN[A-Z0-9 ]{0,30}PRIVATE KEY(?: BLOCK)?-----"
    r".*?(?:-----END[A-Z0-9 ]{0,30}PRIVATE KEY(?: BLOCK)?-----|\Z)", re.S)

# (kind, pattern): the whole match is replaced. Order matters where prefixes overlap
# (sk-ant- before sk-). A token must not continue into more token characters on either side.
_TOKENS = [
    ("slack_webhook", r"https?://hooks\.slack(?:-gov)?\.com/(?:services|workflows|triggers)/[A-Za-z0-9_/\-]{8,}"),
    ("anthropic_key", r"(?<![\w-])sk-ant-[A-Za-z0-9_\-]{20,}"),
    ("openai_key", r"(?<![\w-])sk-(?:proj|svcacct|admin)-[A-Za-z0-9_\-]{20,}"),
    ("openai_key", r"(?<![\w-])sk-[A-Za-z0-9]{32,}(?![\w-])"),
    ("github_token", r"(?<![\w-])github_pat_[A-Za-z0-9_]{40,}"),
    ("github_token", r"(?<![\w-])gh[pousr]_[A-Za-z0-9]{30,}(?!\w)"),
    ("gitlab_token", r"(?<![\w-])gl(?:pat|dt|rt|ptt|soat|cbt|ft|imt|agent)-[A-Za-z0-9_\-]{20,}"),
    ("slack_token", r"(?<![\w-])xox[abposr]-[A-Za-z0-9\-]{10,}"),
    ("slack_token", r"(?<![\w-])xapp-\d-[A-Za-z0-9\-]{10,}"),
    ("stripe_key", r"(?<![\w-])(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{10,}"),
    ("stripe_key", r"(?<![\w-])whsec_[A-Za-z0-9]{20,}"),
    ("google_api_key", r"(?<![\w-])AIza[0-9A-Za-z_\-]{35}(?![\w-])"),
    ("aws_access_key", r"(?<![A-Za-z0-9])(?:AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}(?![A-Za-z0-9])"),
    ("jwt", r"(?<![\w-])eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]*"),
]
_TOKEN_PATTERNS = [(kind, re.compile(pattern)) for kind, pattern in _TOKENS]
# A cheap first look: most texts contain none of these, and then no token pattern runs.
_TOKEN_HINT = re.compile(r"hooks\.slack|sk-|gh[pousr]_|github_pat_|gl[a-z]{1,5}-|xox|xapp-|_live_|_test_"
                         r"|whsec_|AIza|AKIA|ASIA|ABIA|ACCA|eyJ")

# scheme://user:password@host -> keep scheme, user and host.
_URL_PASSWORD = re.compile(r"(?P<head>\b[a-zA-Z][a-zA-Z0-9+.\-]{1,20}://[^\s:/@'\"<>]{1,100}:)"
                           r"(?P<password>[^\s@/'\"<>]{1,200})(?=@[^\s@]+)")

_AWS_SECRET = re.compile(
    r"(?i)(?P<head>aws_?secret(?:_?access)?_?key(?:_?id)?[\"']?\s*(?::=|=>|=|:)\s*[\"']?)"
    r"(?P<value>[A-Za-z0-9/+]{40})(?![A-Za-z0-9/+])")

_BEARER = re.compile(r"(?i)(?P<head>\b(?:bearer|basic)\s+)(?P<value>[A-Za-z0-9._~+/\-]{12,}=*)")

# key <sep> value, where the key names a secret. The value is judged in _judge_assignment.
_KEYWORD = r"(?:passw(?:or)?d|passphrase|pwd|secret|token|api[_\-]?key|access[_\-]?key|private[_\-]?key|auth[_\-]?key)"
_ASSIGNMENT = re.compile(
    r"(?i)(?<![\w\-])(?P<key>[\w.\-]*?" + _KEYWORD + r"[\w.\-]*)"
    r"(?P<kq>\\?[\"']?)"
    r"(?P<sep>[ \t]*(?::=|=>|=|:)[ \t]*|[ \t]+(?=\S))"
    r"(?:(?P<vq>\\?[\"'`])(?P<qvalue>[^\"'`\n]*?)(?P=vq)|(?P<value>[^\s\"'`,;]+))")
_LAST_KEYWORD = re.compile(r"(?i)" + _KEYWORD)
_SECRET_SUFFIXES = {"", "s", "key", "_key", "-key", "_key_base", "_value", "_b64", "_base64", "_hex",
                    "_plain", "_raw"}
_PLACEHOLDER = re.compile(
    r"(?i)^(?:\$\{\{.*\}\}|\$\{?[\w.:\-]*\}?|\{\{.*\}\}|\{[\w.\-]*\}|<[^<>]*>|%\(?\w*\)?[sd]?|\[.*\]"
    r"|[*x.•…#?_\-]+|none|null|nil|true|false|undefined|required|optional|string|redacted|dummy"
    r"|changeme|change[_\-]me|example|placeholder|test|secret|password|token|(?:your|my|the)[_\-].*"
    r"|.*[_\-]here|xxx.*|.*xxxx.*|\*\*\*.*)$")
_TYPE_NAMES = {"str", "string", "bytes", "int", "bool", "boolean", "float", "number", "any", "unknown",
               "object", "dict", "list", "optional", "union", "secretstr", "secretbytes", "none", "text",
               "varchar", "char", "uuid", "integer"}
_IDENTIFIER = re.compile(r"^[A-Za-z_$][\w$]*$")
_DOTTED = re.compile(r"^[A-Za-z_$][\w$]*(?:(?:\.|::|->|\?\.)[A-Za-z_$][\w$]*)+$")
_HAS_DIGIT = re.compile(r"\d")
_HAS_LETTER = re.compile(r"[A-Za-z]")
MIN_SECRET_LENGTH = 6


def redact_text(text: str) -> str:
    """`text` with every secret replaced by `[REDACTED:<kind>]` and `<private>` parts dropped."""
    return _redact(text, None)


def redaction_counts(text: str) -> dict[str, int]:
    """How many secrets of each kind `redact_text` would replace in `text` (private parts too)."""
    counts: dict[str, int] = {}
    _redact(text, counts)
    return counts


def redact_session(session):
    """A copy of `session` whose every text field went through `redact_text`."""
    import copy

    from .model import CompactSummary, Prompt, Subagent

    redacted = copy.copy(session)
    redacted.title = redact_text(session.title or "")
    redacted.cwd = _maybe(session.cwd)
    redacted.cwds = [redact_text(c) for c in session.cwds]
    redacted.repo_root = _maybe(session.repo_root)
    redacted.transcript_path = _maybe(session.transcript_path)
    redacted.git_branch = _maybe(session.git_branch)
    redacted.prompts = [Prompt(text=redact_text(p.text), timestamp=p.timestamp, uuid=p.uuid)
                        for p in session.prompts]
    redacted.compact_summaries = [
        CompactSummary(text=redact_text(c.text), timestamp=c.timestamp, trigger=c.trigger, origin=c.origin)
        for c in session.compact_summaries]
    redacted.last_assistant_message = _maybe(session.last_assistant_message)
    redacted.files_touched = [redact_text(f) for f in session.files_touched]
    redacted.subagents = [Subagent(agent_id=s.agent_id, path=s.path, entry_count=s.entry_count,
                                   first_prompt=_maybe(s.first_prompt)) for s in session.subagents]
    redacted.tools = dict(session.tools)
    redacted.models = list(session.models)
    return redacted


def _maybe(text):
    return redact_text(text) if text else text


def _redact(text: str, counts: dict | None) -> str:
    if not text:
        return text

    def count(kind: str) -> None:
        if counts is not None:
            counts[kind] = counts.get(kind, 0) + 1

    def replace_with(kind: str):
        def replace(match) -> str:
            count(kind)
            return f"[REDACTED:{kind}]"
        return replace

    text = _PRIVATE.sub(lambda m: (count("private"), "")[1], text)
    if "PRIVATE KEY" in text:
        text = _PEM.sub(replace_with("private_key"), text)
    if _TOKEN_HINT.search(text):
        for kind, pattern in _TOKEN_PATTERNS:
            text = pattern.sub(replace_with(kind), text)
    if "://" in text:
        text = _URL_PASSWORD.sub(lambda m: _url_password(m, count), text)
    text = _AWS_SECRET.sub(lambda m: (count("aws_secret_key"), m.group("head") + "[REDACTED:aws_secret_key]")[1], text)
    text = _BEARER.sub(lambda m: _bearer(m, count), text)
    return _ASSIGNMENT.sub(lambda m: _assignment(m, count), text)


def _url_password(match, count) -> str:
    password = match.group("password")
    if password.startswith("[REDACTED") or _PLACEHOLDER.match(password):
        return match.group(0)
    count("url_password")
    return match.group("head") + "[REDACTED:url_password]"


def _bearer(match, count) -> str:
    value = match.group("value")
    if value.startswith("[REDACTED") or not (_HAS_DIGIT.search(value) and _HAS_LETTER.search(value)):
        return match.group(0)
    count("bearer_token")
    return match.group("head") + "[REDACTED:bearer_token]"


def _assignment(match, count) -> str:
    key = match.group("key")
    quoted = match.group("vq") is not None
    value = match.group("qvalue") if quoted else match.group("value")
    sep = match.group("sep")
    kind = _secret_kind(key)
    if kind is None or not _is_literal_secret(key, sep, value, quoted):
        return match.group(0)
    trailing = ""
    if not quoted:
        stripped = value.rstrip(")]}>.")
        trailing, value = value[len(stripped):], stripped
    if value.endswith("\\"):
        value, trailing = value[:-1], "\\" + trailing
    count(kind)
    start = match.start("qvalue") if quoted else match.start("value")
    end = start + len(value)
    whole = match.group(0)
    offset = match.start()
    return whole[: start - offset] + f"[REDACTED:{kind}]" + whole[end - offset:]


def _squash(text: str) -> str:
    return text.lower().replace("_", "").replace("-", "")


def _secret_kind(key: str) -> str | None:
    """The kind of secret a key name holds, or None when the name only mentions one
    (`token_count`, `password_reset_url`, `max_tokens`)."""
    last = None
    for last in _LAST_KEYWORD.finditer(key):
        pass
    if last is None:
        return None
    if key[last.end():].lower() not in _SECRET_SUFFIXES:
        return None
    word = last.group(0).lower()
    if word.startswith(("pass", "pwd")):
        return "password"
    if word == "secret":
        return "secret"
    if word == "token":
        return "token"
    return "api_key"


def _is_literal_secret(key: str, sep: str, value: str, quoted: bool) -> bool:
    """Whether `value` is a literal secret rather than code, a type, a path or a placeholder."""
    value = value.strip().rstrip("\\")
    if not quoted:
        value = value.rstrip(")]}>.,")
    if len(value) < MIN_SECRET_LENGTH or value.startswith("[REDACTED"):
        return False
    if not sep.strip() and not key.startswith("-"):
        return False   # "key value" with a space only counts for command-line flags
    if any(ch.isspace() for ch in value) or "://" in value:
        return False
    if value.startswith(("/", "./", "../", "~/", "$")) or _PLACEHOLDER.match(value):
        return False
    if not _HAS_LETTER.search(value):
        return False   # numbers (max_tokens=4096), dates, punctuation
    lowered = _squash(value)
    if lowered.endswith(_squash(key)) or lowered.endswith(_squash(_LAST_KEYWORD.findall(key)[-1])) \
            or lowered in _TYPE_NAMES:
        return False
    if quoted:
        return True
    if "(" in value or "[" in value or _DOTTED.match(value):
        return False   # a call, an index or an attribute: code
    if _IDENTIFIER.match(value):
        # A bare word: in code a variable, in a .env or YAML file a literal. `KEY=value` and
        # `KEY: value` with an upper-case key are config; otherwise ask for a digit, which
        # variable names rarely have and secrets nearly always do.
        config_style = key.isupper() and (sep == "=" or sep.strip() == ":")
        return config_style or bool(_HAS_DIGIT.search(value))
    return True
