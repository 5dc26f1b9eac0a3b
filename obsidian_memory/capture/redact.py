"""Remove secrets from text before anything is persisted.

Each secret becomes `[REDACTED:<kind>]`; text inside `<private>…</private>` is dropped with its
tags. Detection is by format (known token prefixes, PEM blocks, JWTs, `user:pass@` in URLs) and
by assignment (`password=…`, `"api_key": "…"`, `--token …`), where the key name is kept and only
a value that looks like a literal is replaced: `token = get_token()`, `password: str` or
`secret_key = os.environ[...]` are code, not secrets, and stay readable. Hex hashes, UUIDs, git
SHAs and base64 data have no secret prefix and are left alone.

Pure functions; only `re` at top level; every pattern is compiled once. Speed matters (every
archived session goes through here), so each pattern starts with a literal that Python's regex
engine can search for quickly, and case-insensitive key names are found in a lower-cased copy.

`rules` names the rules text is redacted under, so that the archive redacts again what it stored
under other rules (docs/security.md).
"""
from __future__ import annotations

import re

_PRIVATE = re.compile(r"<private>.*?(?:</private>|\Z)", re.I | re.S)
_PEM = re.compile(
    r"-----BEGIN[A-Z0-9 ]{0,30}PRIVATE KEY(?: BLOCK)?-----"
    r".*?(?:-----END[A-Z0-9 ]{0,30}PRIVATE KEY(?: BLOCK)?-----|\Z)", re.S)

# (kind, literal prefix, pattern starting with that literal). A pattern runs only when its
# literal occurs in the text; a match preceded by a token character is part of something else.
_TOKENS = [
    ("slack_webhook", "hooks.slack", r"https?://hooks\.slack(?:-gov)?\.com/(?:services|workflows|triggers)/[A-Za-z0-9_/\-]{8,}"),
    ("anthropic_key", "sk-ant-", r"sk-ant-[A-Za-z0-9_\-]{20,}"),
    ("openai_key", "sk-", r"sk-(?:proj|svcacct|admin)-[A-Za-z0-9_\-]{20,}"),
    ("openai_key", "sk-", r"sk-[A-Za-z0-9]{32,}(?![\w-])"),
    ("github_token", "github_pat_", r"github_pat_[A-Za-z0-9_]{40,}"),
    ("github_token", "gh", r"gh[pousr]_[A-Za-z0-9]{30,}(?!\w)"),
    ("gitlab_token", "gl", r"gl(?:pat|dt|rt|ptt|soat|cbt|ft|imt|agent)-[A-Za-z0-9_\-]{20,}"),
    ("slack_token", "xox", r"xox[abposr]-[A-Za-z0-9\-]{10,}"),
    ("slack_token", "xapp-", r"xapp-\d-[A-Za-z0-9\-]{10,}"),
    ("stripe_key", "k_live_", r"[sr]k_live_[A-Za-z0-9]{10,}"),
    ("stripe_key", "k_test_", r"[sr]k_test_[A-Za-z0-9]{10,}"),
    ("stripe_key", "whsec_", r"whsec_[A-Za-z0-9]{20,}"),
    ("google_api_key", "AIza", r"AIza[0-9A-Za-z_\-]{35}(?![\w-])"),
    ("aws_access_key", "AKIA", r"AKIA[A-Z0-9]{16}(?![A-Za-z0-9])"),
    ("aws_access_key", "ASIA", r"ASIA[A-Z0-9]{16}(?![A-Za-z0-9])"),
    ("aws_access_key", "ABIA", r"ABIA[A-Z0-9]{16}(?![A-Za-z0-9])"),
    ("aws_access_key", "ACCA", r"ACCA[A-Z0-9]{16}(?![A-Za-z0-9])"),
    ("npm_token", "npm_", r"npm_[A-Za-z0-9]{36}(?![A-Za-z0-9])"),
    ("huggingface_token", "hf_", r"hf_[A-Za-z0-9]{34,}(?![A-Za-z0-9])"),
    ("jwt", "eyJ", r"eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]*"),
]
_TOKEN_PATTERNS = [(kind, literal, re.compile(pattern)) for kind, literal, pattern in _TOKENS]
_TOKEN_CHAR = re.compile(r"[A-Za-z0-9]")

# ://user:password@host -> keep the scheme, the user and the host.
_URL_PASSWORD = re.compile(r"://(?P<user>[^\s:/@'\"<>]{1,100}):(?P<password>[^\s@/'\"<>]{1,200})(?=@[^\s@]+)")

# Key names are searched in a lower-cased copy of the text; the key is then the run of
# [\w.-] around the hit, and what follows it is matched against _TAIL in the original text.
_KEYWORD = re.compile(r"passw(?:or)?d|passphrase|pass|pwd|secret|token|api[_\-]?key|access[_\-]?key"
                      r"|private[_\-]?key|auth[_\-]?key|bearer|basic")
_KEY_CHARS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-"
_KEY_REST = re.compile(r"[\w.\-]*")
_TAIL = re.compile(
    r"(?P<kq>\\?[\"']?)"
    r"(?P<sep>[ \t]*(?::=|=>|=|:)[ \t]*|[ \t]+(?:is|was)[ \t]+|[ \t]+)"
    r"(?:(?P<vq>\\?[\"'`])(?P<qvalue>[^\"'`\n]*?)(?P=vq)|(?P<value>[^\s\"'`,;&\\]+))")
_BEARER_VALUE = re.compile(r"[ \t]+(?P<value>[A-Za-z0-9._~+/\-]{12,}=*)")
_SECRET_SUFFIXES = {"", "key", "_key", "-key", "_key_base", "_value", "_b64", "_base64", "_hex",
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
_SPACE = re.compile(r"\s")
_HAS_LETTER = re.compile(r"[A-Za-z]")
_MIXED = re.compile(r"^(?=.*\d)(?=.*[a-z])(?=.*[A-Z])")
MIN_SECRET_LENGTH = 6
MAX_KEY_LENGTH = 100
LONG_VALUE = 512   # longer than any code expression or placeholder: a blob after a secret key
MIN_PROSE_SECRET_LENGTH = 8
_FINGERPRINT: list[str] = []   # rules(): this module's, once read


def rules(redacting: bool) -> str:
    """The rules text stored now is redacted under: "off" (`redact: false`), or a fingerprint of
    this module, its patterns and the code that applies them (an edit of either is new rules)."""
    if not redacting:
        return "off"
    if not _FINGERPRINT:
        import hashlib

        try:
            with open(__file__, "rb") as source:
                text = source.read().replace(b"\r\n", b"\n")
        except OSError:   # installed without its source: the patterns are the rules
            text = repr((sorted(p.pattern for p in globals().values() if isinstance(p, re.Pattern)), _TOKENS)).encode()
        _FINGERPRINT.append("sha256:" + hashlib.sha256(text).hexdigest()[:16])
    return _FINGERPRINT[0]


def redact_text(text: str) -> str:
    """`text` with every secret replaced by `[REDACTED:<kind>]` and `<private>` parts dropped."""
    return _redact(text, None)


def redaction_counts(text: str) -> dict[str, int]:
    """How many secrets of each kind `redact_text` replaces in `text` (`private` parts too)."""
    counts: dict[str, int] = {}
    _redact(text, counts)
    return counts


def redact_session(session, *, archived=()):
    """A copy of `session` whose every text field went through `redact_text`. The transcript
    paths are locators, not content, and are kept as they are. `archived`: the (text, answer)
    of the session's prompts as the archive holds them, redacted; a prompt found there as it is
    at its position is kept as it is (redacting a redacted text changes nothing more): a growing
    session archived again redacts its new prompts, not all of them."""
    import copy

    from obsidian_memory.capture.session_records import Command, Commit, CompactSummary, Prompt, Subagent, Todo, ToolError

    redacted = copy.copy(session)
    redacted.title = redact_text(session.title or "")
    redacted.cwd = _maybe(session.cwd)
    redacted.cwds = [redact_text(c) for c in session.cwds]
    redacted.repo_root = _maybe(session.repo_root)
    redacted.git_branch = _maybe(session.git_branch)
    redacted.prompts = [p if i < len(archived) and (p.text, p.answer) == tuple(archived[i])
                        else Prompt(text=redact_text(p.text), timestamp=p.timestamp, uuid=p.uuid, answer=_maybe(p.answer))
                        for i, p in enumerate(session.prompts)]
    redacted.compact_summaries = [
        CompactSummary(text=redact_text(c.text), timestamp=c.timestamp, trigger=c.trigger, origin=c.origin)
        for c in session.compact_summaries]
    redacted.last_assistant_message = _maybe(session.last_assistant_message)
    redacted.files_touched = [redact_text(f) for f in session.files_touched]
    redacted.subagents = [Subagent(agent_id=s.agent_id, path=s.path, entry_count=s.entry_count,
                                   first_prompt=_maybe(s.first_prompt)) for s in session.subagents]
    redacted.todos = [Todo(redact_text(t.text), t.status) for t in session.todos]
    redacted.plan = _maybe(session.plan)
    redacted.commits = [Commit(redact_text(c.message), c.hash) for c in session.commits]
    redacted.pull_requests = [redact_text(url) for url in session.pull_requests]
    redacted.commands = [Command(redact_text(c.command), c.runs, c.failures) for c in session.commands]
    redacted.errors = [ToolError(e.tool, redact_text(e.text)) for e in session.errors]
    redacted.tools = dict(session.tools)
    redacted.models = list(session.models)
    return redacted


def _maybe(text):
    return redact_text(text) if text else text


def _redact(text: str, counts: dict | None) -> str:
    if not text:
        return text

    def mark(kind: str) -> str:
        if counts is not None:
            counts[kind] = counts.get(kind, 0) + 1
        return f"[REDACTED:{kind}]"

    if "<" in text:
        text = _PRIVATE.sub(lambda m: (mark("private"), "")[1], text)
    if "PRIVATE KEY" in text:
        text = _PEM.sub(lambda m: mark("private_key"), text)
    for kind, literal, pattern in _TOKEN_PATTERNS:
        if literal in text:
            text = pattern.sub(lambda m, kind=kind: _token(m, kind, mark), text)
    if "://" in text:
        text = _URL_PASSWORD.sub(lambda m: _url_password(m, mark), text)
    return _assignments(text, mark)


def _token(match, kind: str, mark) -> str:
    start = match.start()
    if start and _TOKEN_CHAR.match(match.string, start - 1):
        return match.group(0)   # e.g. "task-..." is not an OpenAI key
    return mark(kind)


def _url_password(match, mark) -> str:
    password = match.group("password")
    if password.startswith("[REDACTED") or _PLACEHOLDER.match(password):
        return match.group(0)
    return f"://{match.group('user')}:{mark('url_password')}"


def _assignments(text: str, mark) -> str:
    lowered = text.lower()
    if len(lowered) != len(text):   # a few Unicode letters lower-case to two characters
        lowered = "".join(ch.lower() if len(ch.lower()) == 1 else ch for ch in text)
    pieces, done, scanned = [], 0, 0
    for hit in _KEYWORD.finditer(lowered):
        if hit.start() < scanned:
            continue   # inside a key or a value already looked at
        start = hit.start()
        before = text[max(done, start - MAX_KEY_LENGTH):start]
        start -= len(before) - len(before.rstrip(_KEY_CHARS))
        end = _KEY_REST.match(text, hit.end()).end()
        scanned = end
        key = text[start:end]
        if hit.group(0) in ("bearer", "basic"):
            replaced = _bearer(text, end, key, mark)
        else:
            replaced = _assignment(text, end, key, mark)
        if replaced is None:
            continue
        value_start, value_end, marker = replaced
        pieces.append(text[done:value_start])
        pieces.append(marker)
        done = scanned = value_end
    if not pieces:
        return text
    pieces.append(text[done:])
    return "".join(pieces)


def _bearer(text: str, end: int, key: str, mark):
    if key.lower() not in ("bearer", "basic"):
        return None
    match = _BEARER_VALUE.match(text, end)
    if not match:
        return None
    value = match.group("value")
    if not (_HAS_DIGIT.search(value) and _HAS_LETTER.search(value)):
        return None
    return match.start("value"), match.end("value"), mark("bearer_token")


def _assignment(text: str, key_end: int, key: str, mark):
    """(value start, value end, marker) when `key` is followed by a literal secret, else None."""
    kind = _secret_kind(key)
    if kind is None:
        return None
    match = _TAIL.match(text, key_end)
    if not match:
        return None
    quoted = match.group("vq") is not None
    group = "qvalue" if quoted else "value"
    value = match.group(group)
    start = match.start(group)
    if not quoted:
        value = value.rstrip(")]}>.:")
    if value.endswith("\\"):
        value = value[:-1]
    if not _is_literal_secret(key, match.group("sep"), value, quoted):
        return None
    return start, start + len(value), mark(kind)


def _squash(text: str) -> str:
    return text.lower().replace("_", "").replace("-", "")


def _secret_kind(key: str) -> str | None:
    """The kind of secret a key name holds, or None when the name only mentions one
    (`token_count`, `password_reset_url`, `max_tokens`, `compass`)."""
    lowered = key.lower()
    hits = list(_KEYWORD.finditer(lowered))
    if not hits:
        return None
    last = hits[-1]
    word = last.group(0)
    if lowered[last.end():] not in _SECRET_SUFFIXES:
        return None
    if word == "pass" and last.start() and key[last.start() - 1] not in "_-.":
        return None   # bypass, compass
    if "secret" in lowered and ("aws" in lowered or word.startswith("access")):
        return "aws_secret_key"
    if word.startswith(("pass", "pwd")):
        return "password"
    if word in ("secret", "token"):
        return word
    if word in ("bearer", "basic"):
        return None
    return "api_key"


def _is_literal_secret(key: str, sep: str, value: str, quoted: bool) -> bool:
    """Whether `value` is a literal secret rather than code, a type, a path or a placeholder."""
    if len(value) < MIN_SECRET_LENGTH or value.startswith("[REDACTED"):
        return False
    bare_sep = sep.strip()
    spoken = bare_sep in ("is", "was") or not bare_sep
    if spoken:
        # prose ("the password is …") or a space ("--token …", .netrc "password …"): only
        # something that cannot be a word counts
        if not bare_sep and not key.startswith("-") and _squash(key) not in ("password", "passwd", "token"):
            return False
        if len(value) < MIN_PROSE_SECRET_LENGTH or not (_HAS_DIGIT.search(value) and _HAS_LETTER.search(value)):
            return False
        if not key.startswith("-") and not _MIXED.match(value):
            return False
    if len(value) > LONG_VALUE:
        return True
    if _SPACE.search(value) or "://" in value:
        return False
    if value.startswith(("/", "./", "../", "~/", "$")) or _PLACEHOLDER.match(value):
        return False
    if not _HAS_LETTER.search(value):
        return False   # numbers (max_tokens=4096), dates, punctuation
    squashed = _squash(value)
    if squashed.endswith(_squash(key)) or squashed.endswith(_squash(_KEYWORD.findall(key.lower())[-1])) \
            or squashed in _TYPE_NAMES:
        return False   # token=token, api_key: ApiKey, password: SecretStr
    if quoted or spoken:
        return True   # a spoken value already passed the stricter test above
    if "(" in value or "[" in value or _DOTTED.match(value):
        return False   # a call, an index or an attribute: code
    if _IDENTIFIER.match(value):
        # A bare word: in code a variable, in a .env or YAML file a literal. `KEY=value` and
        # `KEY: value` with an upper-case key are config; otherwise ask for a digit, which
        # variable names rarely have and secrets nearly always do.
        config_style = key.isupper() and (sep == "=" or bare_sep == ":")
        return config_style or bool(_HAS_DIGIT.search(value))
    return True
