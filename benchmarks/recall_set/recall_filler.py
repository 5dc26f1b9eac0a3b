"""Everyday sessions around the judged ones: tests, renames, upgrades, refactors, reviews,
explanations, in the same repositories and with their vocabulary (modules, tools, services).

They are what makes a first prompt hard to place: most of an archive is routine work that shares
words with any new prompt. Drawn from templates with a fixed seed (the same sessions every run);
`filler_specs(n)` gives n of them, and `benchmarks/prompt_recall.py --sessions` uses many more for
the latency figures.
"""
from __future__ import annotations

import random

from recall_transcripts import Spec, bash, commit, edit, read, turn, write

# repository -> (test command, modules, dependencies, topics)
REPOS = {
    "payments-api": ("pytest -q", ["payments/charges", "payments/refunds", "invoices/views", "invoices/money",
                                   "payments/webhooks", "customers/models", "payments/celery", "invoices/pdf"],
                     ["Django", "celery", "stripe", "djangorestframework", "psycopg"],
                     ["local setup", "API authentication", "deploying", "environment variables"]),
    "trailmap-android": ("./gradlew testDebugUnitTest", ["RouteRepository", "MapViewModel", "TrackingService",
                                                         "SettingsScreen", "ElevationChart", "OfflineRegionDao"],
                         ["Compose BOM", "Room", "Retrofit", "Moshi", "WorkManager"],
                         ["building", "release process", "architecture", "map styles"]),
    "infra": ("terraform validate", ["modules/pg-replica", "modules/eks", "k8s/ingress", "monitoring/alerts",
                                     "playbooks/postgres.yml", "terraform/dns.tf"],
              ["AWS provider", "helm provider", "ingress-nginx chart", "cert-manager chart"],
              ["on-call", "network layout", "backups", "access requests"]),
    "storefront-web": ("npx jest", ["src/components/ProductCard", "src/pages/Checkout", "src/utils/cart",
                                    "src/hooks/useSession", "server/render", "src/i18n"],
                       ["React", "Vite", "react-router", "TanStack Query", "Playwright"],
                       ["local development", "feature flags", "deployment", "design tokens"]),
    "data-pipeline": ("pytest -q tests", ["dags/orders_daily", "jobs/sessionize", "jobs/export", "models/marts",
                                          "jobs/common/read", "dags/daily_kpis"],
                      ["apache-airflow", "pyspark", "dbt-core", "boto3"],
                      ["backfills", "data contracts", "the warehouse schema", "cost monitoring"]),
    "logfmt": ("cargo test", ["src/parse.rs", "src/filter.rs", "src/output.rs", "src/config.rs", "src/main.rs"],
               ["clap", "serde", "reqwest", "insta"],
               ["installation", "the filter syntax", "output formats", "contributing"]),
    "orders-service": ("./mvnw -q test", ["OrderController", "OrderMapper", "InventoryClient", "FulfilmentConsumer",
                                          "PdfReport", "JsonConfig"],
                       ["Spring Boot", "spring-kafka", "grpc-java", "MapStruct", "Flyway"],
                       ["local setup", "the event schema", "deploying", "observability"]),
}

_NAMES = ["total", "handler", "client", "result", "payload", "config", "state", "items", "value", "record"]
_NEW_NAMES = ["amount", "processor", "api_client", "outcome", "body", "settings", "store", "entries", "price", "row"]


def _tests(rng, repo, test_command, module):
    base = module.rsplit("/", 1)[-1]
    count = rng.randint(3, 9)
    return (f"Add unit tests for {module}", f"Tests for {base}",
            [write(f"tests/test_{base.lower()}.py", f"{count} tests"),
             bash(test_command, f"{'.' * count}\n{count} passed in {rng.uniform(0.3, 4):.2f}s")],
            f"Add tests for {base}",
            f"Added {count} tests for {module}: the happy path, empty input and the error cases. All pass.")


def _rename(rng, repo, test_command, module):
    old, new = rng.choice(list(zip(_NAMES, _NEW_NAMES)))
    return (f"rename {old} to {new} in {module}, it's confusing", f"Rename {old} to {new} in {module}",
            [edit(module, old, new), bash(test_command, "all tests passed")],
            f"Rename {old} to {new} in {module}",
            f"Renamed `{old}` to `{new}` in {module} and its callers ({rng.randint(3, 14)} places). Tests pass.")


def _upgrade(rng, repo, test_command, dependency):
    version = f"{rng.randint(1, 9)}.{rng.randint(0, 30)}.{rng.randint(0, 9)}"
    return (f"Bump {dependency} to {version} and fix whatever breaks", f"Upgrade {dependency} to {version}",
            [bash(f"update {dependency} {version}", f"updated {dependency} to {version}"),
             bash(test_command, "all tests passed")],
            f"Upgrade {dependency} to {version}",
            f"{dependency} is on {version}. One deprecation warning left (renamed option); nothing broke.")


def _explain(rng, repo, test_command, module):
    return (f"Explain how {module} works, I need to change it next week", f"How {module} works",
            [read(module, "...")],
            None,
            f"{module} has three parts: input validation, the core function, and persistence. Start from the public "
            f"function at the top; the rest are helpers. The tricky bit is the retry around the external call.")


def _refactor(rng, repo, test_command, module):
    return (f"Refactor {module}: the main function is 200 lines, split it up", f"Refactor {module}",
            [edit(module, "def main", "def main  # split"), bash(test_command, "all tests passed")],
            f"Split {module} into smaller functions",
            f"Split the long function in {module} into four helpers with names that say what they do. No behaviour "
            f"change; tests pass.")


def _docs(rng, repo, test_command, topic):
    return (f"Update the README section about {topic}", f"README: {topic}",
            [edit("README.md", f"## {topic}", f"## {topic} (updated)")],
            f"README: update {topic}",
            f"Rewrote the README section on {topic}: current commands, one example, and a note on the common mistake.")


def _review(rng, repo, test_command, module):
    return ("Review my changes on this branch before I open the PR", "Review of branch changes",
            [bash("git diff main --stat", f" {module} | {rng.randint(10, 90)} ++++--\n 1 file changed")],
            None,
            f"The change to {module} looks right. Two suggestions: a test for the empty case, and a clearer name for "
            f"the flag. Nothing blocking.")


def _logging(rng, repo, test_command, module):
    return (f"Add structured logging to {module}", f"Structured logging in {module}",
            [edit(module, "print(", "log.info(")],
            f"Structured logging in {module}",
            f"{module} logs with the shared logger now, one event per step with ids as fields instead of prints.")


_TEMPLATES = [(_tests, 1), (_rename, 1), (_upgrade, 2), (_explain, 1), (_refactor, 1), (_docs, 3), (_review, 1),
              (_logging, 1)]


def filler_specs(count: int, seed: int = 17, *, max_turns: int = 1) -> list[Spec]:
    """`count` everyday sessions, each of 1 to `max_turns` turns in one repository."""
    rng = random.Random(seed)
    specs = []
    repos = list(REPOS)
    for n in range(count):
        repo = repos[n % len(repos)]
        test_command, modules, dependencies, topics = REPOS[repo]
        turns, title = [], ""
        for _ in range(rng.randint(1, max_turns) if max_turns > 1 else 1):
            template, pool = rng.choice(_TEMPLATES)
            subject = rng.choice({1: modules, 2: dependencies, 3: topics}[pool])
            prompt, heading, steps, message, answer = template(rng, repo, test_command, subject)
            if message:
                steps = [*steps, commit(message, f"{rng.getrandbits(28):07x}")]
            turns.append(turn(prompt, *steps, answer=answer))
            title = title or heading
        month, day = 6 + rng.randint(0, 5), rng.randint(1, 28)
        start = f"2026-{month:02d}-{day:02d} {rng.randint(8, 20):02d}:{rng.randint(0, 59):02d}"
        specs.append(Spec(f"filler-{n}", repo, start, title, turns))
    return specs
