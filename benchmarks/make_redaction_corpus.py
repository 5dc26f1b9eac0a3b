"""Write the redaction corpus: tests/fixtures/redaction/{secrets,non_secrets}.txt.

Deterministic (seeded): run it again and the files come out byte-identical. The secrets have the
real formats but are obviously fake (FAKE / EXAMPLE / zeros inside them), so that no host's
secret scanner mistakes them for leaked credentials.

secrets.txt: records separated by header lines `### <kind> | <secret>`; the text below a header
(one or more lines) holds the secret in realistic surroundings. `<secret>` is what must be gone
after redaction.
non_secrets.txt: one look-alike per line; blank lines and lines starting with `## ` are comments.

    python benchmarks/make_redaction_corpus.py
"""
from __future__ import annotations

import base64
import hashlib
import json
import os
import random
import sys
import uuid

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "tests", "fixtures", "redaction")
ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
UPPER = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"
B64 = ALNUM + "+/"

SEED = 20260304
rng = random.Random(SEED)


def pick(alphabet: str, n: int) -> str:
    return "".join(rng.choice(alphabet) for _ in range(n))


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


# -- fake secrets of each kind ------------------------------------------------------------------

def aws_access_key() -> str:
    return rng.choice(["AKIA", "ASIA"]) + pick(UPPER, 9) + "EXAMPLE"


def aws_secret_key() -> str:
    return pick(B64, 30) + "EXAMPLEKEY"


def github_classic() -> str:
    return rng.choice(["ghp_", "gho_", "ghu_", "ghs_", "ghr_"]) + "FAKE" + pick(ALNUM, 32)


def github_fine_grained() -> str:
    return "github_pat_11FAKE" + pick(ALNUM, 17) + "_" + pick(ALNUM, 59)


def gitlab() -> str:
    return "glpat-FAKE" + pick(ALNUM + "-_", 16)


def openai() -> str:
    kind = rng.choice(["legacy", "proj", "svcacct"])
    if kind == "legacy":
        return "sk-FAKE" + pick(ALNUM, 20) + "T3BlbkFJ" + pick(ALNUM, 20)
    return f"sk-{kind}-FAKE" + pick(ALNUM + "-_", 60) + "T3BlbkFJ" + pick(ALNUM + "-_", 40)


def anthropic() -> str:
    return "sk-ant-" + rng.choice(["api03", "admin01"]) + "-FAKE" + pick(ALNUM + "-_", 86) + "AA"


def slack_token() -> str:
    return "xox" + rng.choice("bpaors") + "-000000000000-" + pick("0123456789", 13) + "-FAKE" + pick(ALNUM, 20)


def slack_webhook() -> str:
    return "https://hooks.slack.com/services/T00000000/B00000000/FAKE" + pick(ALNUM, 20)


def stripe() -> str:
    return rng.choice(["sk_live_", "rk_live_", "sk_test_", "rk_test_"]) + "FAKE" + pick(ALNUM, 24)


def google() -> str:
    return "AIza" + "FAKE" + pick(ALNUM + "-_", 31)


def jwt() -> str:
    header = b64url(json.dumps({"alg": rng.choice(["HS256", "RS256"]), "typ": "JWT"}).encode())
    payload = b64url(json.dumps({"sub": str(rng.randint(1000, 99999)), "name": "Fake User",
                                 "iat": 1700000000 + rng.randint(0, 10**6)}).encode())
    return f"{header}.{payload}.{b64url(rng.randbytes(32))}"


def pem(label: str) -> tuple[str, str]:
    lines = [base64.b64encode(rng.randbytes(48)).decode() for _ in range(rng.randint(4, 9))]
    block = f"-----BEGIN {label}-----\n" + "\n".join(lines) + f"\n-----END {label}-----"
    return block, lines[1]


def password() -> str:
    words = ["Fake", "Horse", "Battery", "Staple", "Otter", "Maple", "Comet", "Pixel"]
    return rng.choice(words) + rng.choice(["-", "_", ".", "!", "#", ""]) + rng.choice(words).lower() \
        + str(rng.randint(10, 9999)) + rng.choice(["", "!", "$", "%"])


def generic_token() -> str:
    return rng.choice(["", "tok_", "fake_", "FAKE"]) + pick(ALNUM, rng.randint(20, 40))


# -- surroundings --------------------------------------------------------------------------------

def secrets() -> list[tuple[str, str, str]]:
    cases: list[tuple[str, str, str]] = []

    def add(kind: str, secret: str, text: str) -> None:
        cases.append((kind, secret, text))

    for template in ["export AWS_ACCESS_KEY_ID={s}", "aws_access_key_id = {s}", '"AccessKeyId": "{s}",',
                     "AWS_ACCESS_KEY_ID={s} aws s3 ls s3://my-bucket", "the key {s} was rotated last week",
                     "docker run -e AWS_ACCESS_KEY_ID={s} app:latest", "[default]\naws_access_key_id={s}",
                     "Found credentials in env: {s}"]:
        s = aws_access_key()
        add("aws_access_key", s, template.format(s=s))
    for template in ["export AWS_SECRET_ACCESS_KEY={s}", "aws_secret_access_key = {s}",
                     '"SecretAccessKey": "{s}",', "AWS_SECRET_ACCESS_KEY: {s}", "aws_secret_key='{s}'",
                     "[default]\naws_access_key_id=AKIAIOSFODNN7EXAMPLE\naws_secret_access_key={s}"]:
        s = aws_secret_key()
        add("aws_secret_key", s, template.format(s=s))
    for template in ["export GITHUB_TOKEN={s}", "git clone https://{s}@github.com/acme/app.git",
                     "gh auth login --with-token <<< {s}", '{{"token": "{s}"}}', "GH_TOKEN={s} gh pr list",
                     "use this token: {s} for the CI", "Authorization: token {s}",
                     "  github-token: {s}", "echo {s} | docker login ghcr.io -u me --password-stdin",
                     "token={s}"]:
        s = github_classic()
        add("github_token", s, template.format(s=s))
    for template in ["export GITHUB_TOKEN={s}", "GITHUB_PAT={s}", "my fine-grained token is {s}",
                     '"github_token": "{s}"', "curl -H 'Authorization: Bearer {s}' https://api.github.com/user"]:
        s = github_fine_grained()
        add("github_token", s, template.format(s=s))
    for template in ["export GITLAB_TOKEN={s}", "git remote set-url origin https://oauth2:{s}@gitlab.com/g/p.git",
                     "curl --header \"PRIVATE-TOKEN: {s}\" https://gitlab.example.com/api/v4/projects",
                     "gitlab_token: {s}", "the CI uses {s}", "CI_JOB_TOKEN={s}"]:
        s = gitlab()
        add("gitlab_token", s, template.format(s=s))
    for template in ["export OPENAI_API_KEY={s}", "OPENAI_API_KEY={s}", 'client = OpenAI(api_key="{s}")',
                     "openai.api_key = '{s}'", '{{"openai": {{"key": "{s}"}}}}', "I tried {s} and it says 401",
                     "curl https://api.openai.com/v1/models -H \"Authorization: Bearer {s}\"",
                     "OPENAI_KEY: {s}"]:
        s = openai()
        add("openai_key", s, template.format(s=s))
    for template in ["export ANTHROPIC_API_KEY={s}", "ANTHROPIC_API_KEY={s} claude", "x-api-key: {s}",
                     'anthropic.Anthropic(api_key="{s}")', "key = {s}", '"apiKey": "{s}"',
                     "my anthropic key {s} stopped working"]:
        s = anthropic()
        add("anthropic_key", s, template.format(s=s))
    for template in ["SLACK_BOT_TOKEN={s}", "export SLACK_TOKEN={s}", 'slack = WebClient(token="{s}")',
                     "slack_token: {s}", "the bot token {s} is revoked", "curl -H 'Authorization: Bearer {s}' "
                     "https://slack.com/api/auth.test"]:
        s = slack_token()
        add("slack_token", s, template.format(s=s))
    for template in ["SLACK_WEBHOOK_URL={s}", "curl -X POST -d '{{\"text\":\"deploy done\"}}' {s}",
                     "webhook: {s}", '"url": "{s}"', "post to {s} when the build fails"]:
        s = slack_webhook()
        add("slack_webhook", s, template.format(s=s))
    for template in ["STRIPE_SECRET_KEY={s}", "stripe.api_key = \"{s}\"", "export STRIPE_KEY={s}",
                     "curl https://api.stripe.com/v1/charges -u {s}:", "stripe: {{ secret: '{s}' }}",
                     "the restricted key {s} only reads charges", "const stripe = require('stripe')('{s}');"]:
        s = stripe()
        add("stripe_key", s, template.format(s=s))
    for template in ["GOOGLE_API_KEY={s}", "https://maps.googleapis.com/maps/api/geocode/json?address=x&key={s}",
                     '"apiKey": "{s}",', "firebaseConfig = {{ apiKey: \"{s}\", authDomain: \"x.firebaseapp.com\" }}",
                     "gemini key {s}", "export GEMINI_API_KEY={s}"]:
        s = google()
        add("google_api_key", s, template.format(s=s))
    for template in ["Authorization: Bearer {s}", "token={s}", '{{"access_token": "{s}", "expires_in": 3600}}',
                     "curl -H \"Authorization: Bearer {s}\" localhost:4000/api", "the session cookie is {s}",
                     "document.cookie = 'jwt={s}'", "ID token: {s}", "decode this: {s}"]:
        s = jwt()
        add("jwt", s, template.format(s=s))
    for label, template in [("RSA PRIVATE KEY", "{s}"), ("PRIVATE KEY", "cat key.pem\n{s}"),
                            ("OPENSSH PRIVATE KEY", "here is my deploy key:\n{s}\nwhy is it rejected?"),
                            ("EC PRIVATE KEY", "{s}"), ("ENCRYPTED PRIVATE KEY", "key.pem contains:\n{s}"),
                            ("DSA PRIVATE KEY", "{s}"), ("PGP PRIVATE KEY BLOCK", "{s}"),
                            ("RSA PRIVATE KEY", '{{"private_key": "{j}"}}'),
                            ("OPENSSH PRIVATE KEY", "-----BEGIN RSA PUBLIC KEY----- is fine but\n{s}")]:
        block, line = pem(label)
        add("private_key", line, template.format(s=block, j=block.replace("\n", "\\n")))
    for scheme, template in [("postgres", "DATABASE_URL={u}"), ("postgresql", "psql {u}"),
                             ("mysql", "mysql_url = \"{u}\""), ("mongodb+srv", "MONGO_URI={u}"),
                             ("redis", "redis-cli -u {u} ping"), ("amqp", "broker_url: {u}"),
                             ("https", "git clone {u}"), ("ftp", "lftp {u}"), ("smtp", "EMAIL_URL={u}"),
                             ("postgres", '"url": "{u}"'), ("mssql", "connect to {u} please"),
                             ("https", "pip install --index-url {u} pkg")]:
        pw = password()
        user = rng.choice(["admin", "app", "deploy", "marco", "svc_ci", "root"])
        host = rng.choice(["db.internal.example.com", "localhost:5432", "10.0.0.5", "cluster0.fake.mongodb.net",
                           "repo.example.org/simple", "smtp.example.com:587"])
        add("url_password", pw, template.format(u=f"{scheme}://{user}:{pw}@{host}"))
    for key, template in [("DB_PASSWORD", "{k}={s}"), ("password", '{k} = "{s}"'), ("password", "{k}: {s}"),
                          ("POSTGRES_PASSWORD", "  {k}: {s}"), ("password", '"{k}": "{s}"'),
                          ("ADMIN_PASSWORD", "export {k}='{s}'"), ("passwd", "{k}={s}"),
                          ("db_pass", "{k}: \"{s}\""), ("password", "mysql --{k}={s} -u root"),
                          ("password", "{k} := \"{s}\""), ("MYSQL_ROOT_PASSWORD", "docker run -e {k}={s} mysql:8"),
                          ("smtp_password", "{k} = '{s}'"), ("PGPASSWORD", "{k}={s} psql -h db"),
                          ("passphrase", "{k}: {s}"), ("password", "--{k} {s}"),
                          ("redis_password", "config.{k} = \"{s}\""), ("Password", "<add key=\"x\" {k}=\"{s}\" />"),
                          ("password", "{{ {k}: '{s}', user: 'admin' }}")]:
        s = password()
        add("password", s, template.format(k=key, s=s))
    for template in ["the staging db password is {s}", "my old password was {s} but I changed it",
                     "machine api.heroku.com login me@example.com password {s}", '{{\\"password\\": \\"{s}\\"}}',
                     "pass: {s}", "db_pass={s}"]:
        s = password()
        add("password", s, template.format(s=s))
    for template in ["//registry.npmjs.org/:_authToken=npm_FAKE{r}", "export NPM_TOKEN=npm_FAKE{r}",
                     "npm_FAKE{r} is the publish token"]:
        s = "npm_FAKE" + pick(ALNUM, 32)
        add("npm_token", s, template.replace("npm_FAKE{r}", "{s}").format(s=s))
    for template in ["HF_TOKEN=hf_FAKE{r}", "huggingface-cli login --token hf_FAKE{r}", "use hf_FAKE{r} to download"]:
        s = "hf_FAKE" + pick(ALNUM, 30)
        add("huggingface_token", s, template.replace("hf_FAKE{r}", "{s}").format(s=s))
    for key, template in [("SECRET_KEY", "{k}={s}"), ("client_secret", '"{k}": "{s}"'),
                          ("JWT_SECRET", "export {k}={s}"), ("secret", "{k}: {s}"),
                          ("APP_SECRET", "{k}='{s}'"), ("webhook_secret", "{k} = \"{s}\""),
                          ("SECRET_KEY_BASE", "{k}={s}"), ("clientSecret", "{k}: '{s}',"),
                          ("session_secret", "{k}={s}"), ("secret", "--{k}={s}")]:
        s = generic_token()
        add("secret", s, template.format(k=key, s=s))
    for key, template in [("API_KEY", "{k}={s}"), ("api_key", '{k} = "{s}"'), ("apiKey", "{k}: '{s}'"),
                          ("x-api-key", "curl -H '{k}: {s}' https://api.example.com"),
                          ("api_key", "https://api.example.com/v1/items?{k}={s}&page=2"),
                          ("SENDGRID_API_KEY", "export {k}={s}"), ("apikey", '"{k}": "{s}"'),
                          ("access_key", "{k}: {s}"), ("MAILGUN_API_KEY", "{k}={s}"),
                          ("private_key", '{k} = "{s}"')]:
        s = generic_token()
        add("api_key", s, template.format(k=key, s=s))
    for key, template in [("TOKEN", "{k}={s}"), ("auth_token", '{k} = "{s}"'), ("access_token", '"{k}": "{s}"'),
                          ("NPM_TOKEN", "export {k}={s}"), ("refresh_token", "{k}: {s}"),
                          ("token", "curl 'https://example.com/api?{k}={s}'"), ("HF_TOKEN", "{k}={s} python train.py"),
                          ("botToken", "{k}: \"{s}\""), ("token", "--{k} {s}"), ("CF_API_TOKEN", "{k}: {s}"),
                          ("token", "{k} := \"{s}\"")]:
        s = generic_token()
        add("token", s, template.format(k=key, s=s))
    for template in ["Authorization: Bearer {s}", "curl -H \"Authorization: Bearer {s}\" https://api.example.com",
                     "headers: {{ Authorization: 'Bearer {s}' }}", "Authorization: Basic {b}"]:
        s = generic_token()
        b = base64.b64encode(f"admin:{password()}".encode()).decode()
        add("bearer_token", b if "{b}" in template else s, template.format(s=s, b=b))
    for template in ["my address is <private>{s}</private>, ship it there",
                     "<private>{s}</private>", "notes:\n<private>\n{s}\nsecond line\n</private>\ndone",
                     "call me on <PRIVATE>{s}</PRIVATE> tomorrow",
                     "the diagnosis: <private>{s}", "a <private>{s}</private> b <private>other</private> c"]:
        s = "FAKE " + pick("abcdefghij", 8) + " " + str(rng.randint(100, 999))
        add("private", s, template.format(s=s))
    return cases


# -- look-alikes -----------------------------------------------------------------------------------

CODE = """\
token = get_token()
password: str
secret_key = os.environ["SECRET_KEY"]
api_key = os.getenv("OPENAI_API_KEY")
self.token = token
headers = {"Authorization": f"Bearer {token}"}
const apiKey = process.env.API_KEY;
password_hash = bcrypt.hashpw(password.encode(), bcrypt.gensalt())
if not password:
def login(username: str, password: str) -> Session:
token_count = len(tokens)
response = client.messages.create(model=model, max_tokens=4096, messages=messages)
"max_tokens": 1024,
tokenizer = AutoTokenizer.from_pretrained("bert-base-uncased")
TOKEN_EXPIRY_SECONDS = 3600
password_reset_url = "/accounts/password/reset/"
secret_name: "prod/db/credentials"
DB_PASSWORD=${DB_PASSWORD}
password: ${{ secrets.DB_PASSWORD }}
API_KEY=<your-api-key>
token: "YOUR_TOKEN_HERE"
OPENAI_API_KEY=sk-...
password = "********"
docker login --password-stdin < token.txt
export GITHUB_TOKEN=$(gh auth token)
token = request.headers.get("Authorization")
password = input("Password: ")
echo "Enter password: "
Password: must be at least 12 characters long
"token_type": "Bearer",
"access_token": "<redacted>",
Authorization: Bearer $TOKEN
Authorization: Bearer <token>
payload = jwt.decode(token, key, algorithms=["HS256"])
secret = secrets.token_hex(32)
SECRET_KEY = get_random_secret_key()
private_key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
api_key: Optional[str] = None
password: SecretStr
token: string;
apiKey: string
var token = localStorage.getItem('token');
password => hash(password)
if password == confirm_password:
tokens: 1500
cd $(pwd)
export PWD=/home/marco/projects/spotter
"tokenizer": "gpt2",
secret_sauce: "extra garlic"
api_key_header = "X-API-Key"
csrf_token = request.cookies["csrftoken"]
github_token: ${{ secrets.GITHUB_TOKEN }}
"password": null,
PASSWORD_MIN_LENGTH = 12
auth_token_ttl: 3600
--token-file ~/.config/app/token
aws configure set aws_access_key_id $AWS_ACCESS_KEY_ID
ssh-keygen -t ed25519 -C "me@example.com"
password=secret
user.set_password(form.cleaned_data["password1"])
token = Token.objects.create(user=user)
if token is None: raise AuthError("missing token")
raise ValueError("api_key must be set")
assert token.startswith("ghp_")
re.compile(r"sk-[A-Za-z0-9]{48}")
expect(screen.getByLabelText('Password')).toBeInTheDocument()
<input type="password" name="password" autocomplete="current-password">
password_field = forms.CharField(widget=forms.PasswordInput)
{ token: token, user: user }
access_token = oauth.fetch_token(token_url, client_secret=client_secret)
client_secret=client_secret,
api_key=api_key,
"secret": false,
secretsmanager.get_secret_value(SecretId="prod/db")
aws secretsmanager get-secret-value --secret-id prod/app/db
kubectl create secret generic db-creds --from-env-file=.env
kubectl get secret db-creds -o jsonpath='{.data.password}'
password_confirmation: params[:password_confirmation]
validates :password, length: { minimum: 8 }
has_secure_password
@token = params[:token]
token := os.Getenv("TOKEN")
apiKey := cfg.APIKey
let token = env::var("TOKEN").expect("TOKEN not set");
String password = System.getenv("DB_PASSWORD");
private String apiKey;
public void setPassword(String password) { this.password = password; }
$password = $_POST['password'];
SELECT id, password_hash FROM users WHERE email = ?
ALTER TABLE users ADD COLUMN api_key_hash TEXT;
token_budget = context_budget - used_tokens
num_tokens = len(encoding.encode(text))
"input_tokens": 3, "output_tokens": 12
cache_creation_input_tokens: 13835
secret_santa_rules.md
tokens.extend(tokenize(line))
password_strength = zxcvbn(password)["score"]
maxTokens: 2048,
token_limit=8000
SECRET_PATH = BASE_DIR / "secrets"
refresh_token_rotation: true
auth_token_header: "X-Auth-Token"
pass
passed = run_tests()
test_password_reset_sends_email
export PASSWORD_STORE_DIR=~/.password-store
git config credential.helper store
npm config set //registry.npmjs.org/:_authToken ${NPM_TOKEN}
password: "{{ vault_db_password }}"
docker build --secret id=npmrc,src=$HOME/.npmrc .
compass = "north-by-northwest"
bypass_cache = True
"pass_rate": 0.93
pass: true
Password is incorrect.
the password is required for new accounts
the token was valid-for-24h only
machine github.com login marco password <token>
gh auth login --with-token < ~/.config/gh/token
--token $GITHUB_TOKEN
kubectl create secret generic db-creds --from-literal=username=admin
secret: {{ .Values.secretName }}
password_file: /run/secrets/db_password
token_url: https://oauth2.googleapis.com/token
API key: see 1Password entry "Staging API"
The secret is in Vault under kv/app.
<usage>total_tokens: 16512\\ntool_uses: 2\\nduration_ms: 32855</usage>
secret_key_base: ...\\n\\n\\n     code: {:ok, _view, html} = live(conn, \\"/projects\\")
api_key: "%(API_KEY)s"
"password": "",
token = ""
"""

PROSE = """\
I reset my password yesterday and the token expired, can you check the refresh flow?
The secret to fast tests is fewer subprocesses.
Tokens are counted per message; the budget is 6000 tokens.
Store the API key in the keychain, never in the repo.
Password: the field is optional for SSO users.
The token: a short string the server hands out after login.
Use `sk-learn-compatible` estimators for the pipeline.
The task-management-system-design doc is in docs/.
Rotate the AWS access key every 90 days (see the runbook).
Explain how JWTs are signed: header.payload.signature, each base64url.
ghp_ tokens are classic GitHub tokens; github_pat_ ones are fine-grained.
Keys that start with AKIA are long-lived, ASIA ones are temporary.
The private key never leaves the HSM.
-----BEGIN PUBLIC KEY----- blocks are fine to share.
Bearer authentication sends the token in the Authorization header.
Basic auth is base64 of user:password, which is not encryption.
Don't paste your password here.
the secret is out: we ship on Friday
My token budget ran out halfway through the refactor.
Rename api_key to apiKey in the TypeScript client.
The password reset email links to /reset?token=<token>.
Why does `password = password.strip()` break the login?
The secret manager caches values for five minutes.
We compare the token with hmac.compare_digest to avoid timing attacks.
Make the tokenizer handle emoji.
A passphrase is a longer password made of words.
Set the token TTL to one hour and the refresh TTL to a week.
Run `npm token list` to see your tokens.
The key rotation job failed at 03:00 UTC.
This is a secret-free commit.
private: true in package.json stops accidental publishing.
It said: "Invalid API key provided" when I ran the script.
How do I pass a secret to a GitHub Action?
The word token appears 1,024 times in the logs.
sk-proj keys belong to a project; sk-ant keys are Anthropic's.
Slack webhooks look like hooks.slack.com/services/...
AIza is the prefix of Google API keys.
xoxb tokens are Slack bot tokens.
The JWT library rejects alg none.
glpat- is GitLab's personal access token prefix.
"""

URLS = """\
https://github.com/acme/app/pull/123
https://user@example.com/path
ssh://git@github.com:22/acme/app.git
git@github.com:acme/app.git
postgres://localhost:5432/app
postgres://app@localhost:5432/app
http://localhost:8080/health
https://example.com/search?q=password+reset&page=2
https://docs.example.com/api#authentication
mailto:ops@example.com
https://example.com:8443/api/v1/tokens
redis://localhost:6379/0
postgres://user:${DB_PASSWORD}@db:5432/app
mysql://root:<password>@localhost/db
https://hooks.example.com/services/not-slack
https://slack.com/api/chat.postMessage
s3://my-bucket/path/to/object.tar.gz
file:///home/marco/projects/spotter/README.md
https://api.github.com/repos/acme/app/commits?per_page=100
https://www.googleapis.com/auth/drive.readonly
"""


def non_secrets() -> list[str]:
    cases: list[str] = []
    cases += [line for line in CODE.splitlines() if line.strip()]
    cases += [line for line in PROSE.splitlines() if line.strip()]
    cases += [line for line in URLS.splitlines() if line.strip()]
    for n in range(25):
        data = rng.randbytes(rng.randint(16, 64))
        cases.append(rng.choice([
            f"md5: {hashlib.md5(data).hexdigest()}",
            f"{hashlib.md5(data).hexdigest()}  dist/app.tar.gz",
            f"\"etag\": \"{hashlib.md5(data).hexdigest()}\"",
        ]))
        cases.append(rng.choice([
            f"sha1 {hashlib.sha1(data).hexdigest()}",
            f"{hashlib.sha1(data).hexdigest()} refs/heads/main",
        ]))
        cases.append(rng.choice([
            f"sha256:{hashlib.sha256(data).hexdigest()}",
            f"{hashlib.sha256(data).hexdigest()}  node-v20.11.0-linux-x64.tar.xz",
            f"docker pull python@sha256:{hashlib.sha256(data).hexdigest()}",
            f"checksum = \"{hashlib.sha256(data).hexdigest()}\"",
        ]))
        cases.append(f"sha512: {hashlib.sha512(data).hexdigest()}")
    for n in range(25):
        u = uuid.UUID(bytes=rng.randbytes(16), version=4)
        cases.append(rng.choice([
            f"session {u}", f"\"sessionId\": \"{u}\"", f"claude --resume {u}", f"request_id={u}",
            f"/home/marco/.claude/projects/-home-marco/{u}.jsonl", f"{u}",
        ]))
    for n in range(25):
        sha = hashlib.sha1(rng.randbytes(20)).hexdigest()
        cases.append(rng.choice([
            f"commit {sha}", f"{sha[:7]} fix: handle empty transcripts", f"git checkout {sha[:12]}",
            f"git revert {sha}", f"Merge: {sha[:7]} {hashlib.sha1(sha.encode()).hexdigest()[:7]}",
            f"https://github.com/acme/app/commit/{sha}",
        ]))
    for n in range(20):
        raw = rng.randbytes(rng.randint(60, 400))
        mime = rng.choice(["png", "jpeg", "gif", "webp", "svg+xml"])
        encoded = base64.b64encode(raw).decode()
        cases.append(rng.choice([
            f"data:image/{mime};base64,{encoded}",
            f"<img src=\"data:image/{mime};base64,{encoded}\">",
            f"background: url(data:image/{mime};base64,{encoded});",
            f"{{\"type\": \"image\", \"source\": {{\"type\": \"base64\", \"media_type\": \"image/{mime}\", \"data\": \"{encoded}\"}}}}",
        ]))
    for n in range(15):
        digest = base64.b64encode(hashlib.sha512(rng.randbytes(16)).digest()).decode()
        cases.append(rng.choice([
            f"\"integrity\": \"sha512-{digest}\"",
            f"<script src=\"app.js\" integrity=\"sha384-{digest[:64]}\" crossorigin=\"anonymous\"></script>",
        ]))
    for n in range(10):
        sig = base64.b64encode(rng.randbytes(rng.randint(100, 200))).decode()
        cases.append(rng.choice([f"\"signature\": \"{sig}\"", f"ssh-ed25519 {sig[:68]} me@laptop",
                                 f"ssh-rsa {sig} deploy@ci"]))
    for n in range(10):
        cases.append(rng.choice([
            f"arn:aws:iam::{rng.randint(10**11, 10**12 - 1)}:role/deploy",
            f"arn:aws:s3:::bucket-{pick('abcdefgh', 6)}/*",
            f"\"requestId\": \"req_011CY{pick(ALNUM, 17)}\"",
            f"\"id\": \"msg_01{pick(ALNUM, 22)}\"",
            f"\"tool_use_id\": \"toolu_01{pick(ALNUM, 22)}\"",
            f"color: #{pick('0123456789abcdef', 6)};",
            f"version 2.1.{rng.randint(0, 400)} ({pick('0123456789abcdef', 7)})",
        ]))
    return cases


def main(out: str = OUT) -> None:
    rng.seed(SEED)
    os.makedirs(out, exist_ok=True)
    records = secrets()
    with open(os.path.join(out, "secrets.txt"), "w", encoding="utf-8", newline="\n") as handle:
        handle.write("## Redaction corpus: fake secrets in real formats. Generated by "
                     "benchmarks/make_redaction_corpus.py.\n")
        for kind, secret, text in records:
            handle.write(f"### {kind} | {secret}\n{text}\n")
    looks = non_secrets()
    with open(os.path.join(out, "non_secrets.txt"), "w", encoding="utf-8", newline="\n") as handle:
        handle.write("## Redaction corpus: look-alikes that must stay untouched. Generated by "
                     "benchmarks/make_redaction_corpus.py.\n")
        for line in looks:
            handle.write(line + "\n")
    print(f"{len(records)} secrets, {len(looks)} look-alikes written to {out}")


if __name__ == "__main__":
    main(*sys.argv[1:2])
