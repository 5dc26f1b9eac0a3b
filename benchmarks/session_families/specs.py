"""The forty sessions: what the user typed, what the model answered, which tools it called.

Each session is a `Spec`: the repository it runs in, the first prompt, the files the repository
holds before it starts (`files`: scripts beginning with `#!` are made executable), what the tools
that are not installed here print (`stubs`: a command of that name prints the output of the first
entry whose text is in its arguments, and exits with its status), and the model's scripted turns
(`steps`, as tests/e2e/mock_messages_api.py takes them). Read and Edit paths starting `@/` are in the
session's repository. The tool calls run for real in the client: reads, edits, greps, git commits.
Written after queries.json, from descriptions.md, without looking at the queries.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from mock_messages_api import tool_use

REMOTES = {
    "payments-api": "git@github.com:acme/payments-api.git",
    "orders-service": "git@github.com:acme/orders-service.git",
    "storefront-web": "git@github.com:acme/storefront-web.git",
    "admin-portal": "git@github.com:acme/admin-portal.git",
    "infra-k8s": "git@gitlab.com:acme-ops/infra-k8s.git",
    "data-pipeline": "git@github.com:acme/data-pipeline.git",
    "search-indexer": "git@github.com:acme/search-indexer.git",
    "mobile-android": "git@github.com:acme/mobile-android.git",
}


@dataclass
class Spec:
    key: str
    repo: str
    title: str
    prompt: str
    steps: list
    files: dict = field(default_factory=dict)
    stubs: dict = field(default_factory=dict)


def sh(command: str, description: str = "") -> dict:
    return tool_use("Bash", {"command": command, "description": description or command[:60]})


def read(path: str) -> dict:
    return tool_use("Read", {"file_path": "@/" + path})


def edit(path: str, old: str, new: str) -> dict:
    return tool_use("Edit", {"file_path": "@/" + path, "old_string": old, "new_string": new})


def say(text: str, then: dict | None = None):
    return [{"type": "text", "text": text}, then] if then else text


def commit(message: str, *paths: str) -> dict:
    return sh(f"git add {' '.join(paths)} && git commit -m {quote(message)}", "Commit the fix")


def quote(text: str) -> str:
    return "'" + text.replace("'", "'\\''") + "'"


SPECS: list[Spec] = []


def session(**fields) -> None:
    SPECS.append(Spec(**fields))


# ---------------------------------------------------------------------------------------------- F01
GRADLE_PROPS = "org.gradle.jvmargs=-Xmx2g -Dfile.encoding=UTF-8\norg.gradle.parallel=true\nandroid.useAndroidX=true\nkotlin.code.style=official\n"

session(key="f01a", repo="mobile-android", title="Fix Kotlin daemon crash on CI",
        prompt="the android build on ci-runner-03 keeps failing with 'Could not connect to kotlin daemon', can you look? log is in ci-logs/assemble-1187.txt",
        files={"gradle.properties": GRADLE_PROPS,
               "ci-logs/assemble-1187.txt": "> Task :app:compileReleaseKotlin\ne: Daemon compilation failed: Could not connect to kotlin daemon\njava.lang.OutOfMemoryError: Metaspace\n\tat java.base/java.lang.ClassLoader.defineClass1(Native Method)\nKotlin compile daemon 1.9.22 exited\nrunner: ci-runner-03  gradle: 8.5  kotlin: 1.9.22\nFAILURE: Build failed with an exception.\n"},
        steps=[sh("grep -n -i 'error\\|exception\\|daemon\\|runner' ci-logs/assemble-1187.txt", "Find the failure in the CI log"),
               say("The daemon is dying with `OutOfMemoryError: Metaspace`, not a network problem. Let me check what memory the Kotlin daemon gets.", read("gradle.properties")),
               say("There is no `kotlin.daemon.jvmargs`, so the Kotlin daemon inherits a small default and its metaspace is unbounded by our settings but capped by the runner's default. I'll give it an explicit heap and metaspace.",
                   edit("gradle.properties", "kotlin.code.style=official\n", "kotlin.code.style=official\nkotlin.daemon.jvmargs=-Xmx3g -XX:MaxMetaspaceSize=1g\n")),
               commit("ci: give the Kotlin daemon 3g heap and 1g metaspace (ci-runner-03 OOM)", "gradle.properties"),
               "Cause: the Kotlin compile daemon (1.9.22) on ci-runner-03 ran out of Metaspace while compiling the release variant, so Gradle reported it could not connect to the daemon. Fix: `kotlin.daemon.jvmargs=-Xmx3g -XX:MaxMetaspaceSize=1g` in gradle.properties, committed. Re-run job 1187 to confirm."])

session(key="f01b", repo="orders-service", title="Kotlin daemon fails after JDK change",
        prompt="since I upgraded java on my mac gradle says the kotlin daemon has terminated unexpectedly every time I build orders-service. ./gradlew build reproduces it",
        files={"gradle.properties": "org.gradle.jvmargs=-Xmx2g\nkotlin.incremental=true\n",
               "gradlew": "#!/bin/sh\necho '> Task :compileKotlin FAILED'\necho 'e: The daemon has terminated unexpectedly on startup attempt #1 with error code: 0'\necho 'Kotlin: 2.0.0; daemon JVM: /Library/Java/JavaVirtualMachines/temurin-17.jdk (stale run file)'\necho 'Gradle JVM: /Library/Java/JavaVirtualMachines/temurin-21.jdk'\nexit 1\n"},
        stubs={"java": [("-version", "openjdk version \"21.0.2\" 2024-01-16\nOpenJDK Runtime Environment Temurin-21.0.2+13", 0)]},
        steps=[sh("./gradlew build", "Reproduce the build failure"),
               sh("java -version && ls ~/Library/Application\\ Support/kotlin/daemon 2>/dev/null | head", "Check the JDK and daemon run files"),
               say("The Gradle JVM is now Temurin 21 but the Kotlin daemon that Gradle tries to reuse was started from Temurin 17: its run file is stale. I'll stop the daemons and pin the JDK Gradle uses so this does not depend on whatever JAVA_HOME the shell has.", read("gradle.properties")),
               edit("gradle.properties", "kotlin.incremental=true\n", "kotlin.incremental=true\norg.gradle.java.home=/Library/Java/JavaVirtualMachines/temurin-21.jdk/Contents/Home\n"),
               sh("./gradlew --stop; rm -rf ~/Library/Application\\ Support/kotlin/daemon/*; echo stopped", "Stop daemons and clear stale run files"),
               commit("build: pin the Gradle JDK to Temurin 21", "gradle.properties"),
               "The Kotlin 2.0.0 daemon died because it was started from JDK 17 and Gradle now runs on JDK 21 after your upgrade: the leftover daemon run files pointed at the old JVM. I stopped all daemons, cleared the stale run files, and pinned `org.gradle.java.home` to Temurin 21 in gradle.properties so the daemon and Gradle always agree."])

session(key="f01c", repo="mobile-android", title="Kotlin daemon startup failure on GitHub Actions",
        prompt="github actions android job: 'Failed connecting to the daemon in 4 retries'. works locally. workflow is .github/workflows/android.yml",
        files={".github/workflows/android.yml": "name: android\non: [push]\njobs:\n  build:\n    runs-on: ubuntu-latest\n    steps:\n      - uses: actions/checkout@v4\n      - uses: actions/setup-java@v4\n        with:\n          java-version: '17'\n      - run: ./gradlew assembleDebug\n",
               "ci-logs/actions-run-5521.txt": "Run ./gradlew assembleDebug\nFailed connecting to the daemon in 4 retries\nCould not create run file /tmp/kotlin-daemon.2024-11-02.log: No space left on device\nFilesystem      Size  Used Avail Use% Mounted on\n/dev/root        84G   84G     0 100% /tmp\n"},
        steps=[sh("cat ci-logs/actions-run-5521.txt", "Read the failing run's log"),
               say("The daemon cannot write its run and log files because /tmp is at 100 % on the runner. Two changes: free space before the build, and on CI compile in-process so no daemon is needed at all.", read(".github/workflows/android.yml")),
               edit(".github/workflows/android.yml", "      - run: ./gradlew assembleDebug\n",
                    "      - name: Free /tmp\n        run: sudo rm -rf /tmp/* || true\n      - run: ./gradlew assembleDebug -Pkotlin.compiler.execution.strategy=in-process\n"),
               commit("ci: clean /tmp and compile Kotlin in-process on Actions", ".github/workflows/android.yml"),
               "On the hosted runner /tmp was full (No space left on device), so the Kotlin daemon could not create its run file and Gradle gave up after 4 retries. The workflow now clears /tmp first and passes `kotlin.compiler.execution.strategy=in-process`, so CI does not depend on the daemon."])

session(key="f01d", repo="orders-service", title="Jenkins build: Kotlin daemon killed",
        prompt="jenkins job orders-service-main fails on build-agent-7: 'Kotlin daemon has been killed'. other agents are fine",
        files={"Jenkinsfile": "pipeline {\n  agent { docker { image 'gradle:8.5-jdk17'; label 'build-agent-7'; args '--memory=2g' } }\n  stages { stage('build') { steps { sh './gradlew build' } } }\n}\n",
               "gradle.properties": "org.gradle.jvmargs=-Xmx2g\nkotlin.daemon.jvmargs=-Xmx2g\n"},
        stubs={"ssh": [("dmesg", "[81231.44] Memory cgroup out of memory: Killed process 41877 (java) total-vm:5821344kB\n[81231.44] oom_kill_process: container 7f3a build-agent-7 memory limit 2048M", 0)]},
        steps=[sh("ssh build-agent-7 'dmesg | tail -5'", "Check the agent's kernel log"),
               say("The kernel OOM killer killed the java process: the container is limited to 2 GB while Gradle and the Kotlin 1.8.20 daemon each ask for -Xmx2g.", read("gradle.properties")),
               edit("gradle.properties", "org.gradle.jvmargs=-Xmx2g\nkotlin.daemon.jvmargs=-Xmx2g\n", "org.gradle.jvmargs=-Xmx1g\nkotlin.daemon.jvmargs=-Xmx768m\n"),
               read("Jenkinsfile"),
               edit("Jenkinsfile", "args '--memory=2g'", "args '--memory=4g'"),
               commit("ci: fit Gradle and Kotlin daemons in build-agent-7's container (4g limit, smaller heaps)", "gradle.properties", "Jenkinsfile"),
               "build-agent-7 runs the build in a Docker container capped at 2 GB, and the Gradle daemon and Kotlin daemon were both configured with -Xmx2g, so the cgroup OOM killer killed the Kotlin daemon. Heaps are now 1g and 768m and the container limit in the Jenkinsfile is 4g."])

# ---------------------------------------------------------------------------------------------- F02
session(key="f02a", repo="payments-api", title="Debug prepared statement errors through PgBouncer",
        prompt="prod errors in payments-api: psycopg.errors.InvalidSqlStatementName: prepared statement \"_pg3_0\" does not exist. started after the psycopg 3 upgrade",
        files={"payments/settings/prod.py": "DATABASES = {\n    'default': {\n        'ENGINE': 'django.db.backends.postgresql',\n        'HOST': 'pgb-prod-1.internal',\n        'PORT': 6432,\n        'NAME': 'payments',\n        'OPTIONS': {},\n    }\n}\n",
               "deploy/pgbouncer.ini": "[pgbouncer]\npool_mode = transaction\nlisten_port = 6432\nmax_client_conn = 800\n"},
        steps=[sh("grep -rn 'HOST\\|OPTIONS' payments/settings/prod.py; grep pool_mode deploy/pgbouncer.ini", "Check DB host and pooling mode"),
               say("Django connects to pgb-prod-1 on 6432, which runs `pool_mode = transaction`. psycopg 3 prepares statements server-side after 5 executions (`prepare_threshold`), and in transaction pooling the next transaction may land on another server connection where `_pg3_0` was never prepared.", read("payments/settings/prod.py")),
               edit("payments/settings/prod.py", "'OPTIONS': {},", "'OPTIONS': {'prepare_threshold': None},  # pgbouncer transaction pooling"),
               commit("db: disable psycopg server-side prepares behind pgbouncer", "payments/settings/prod.py"),
               "The errors come from psycopg 3's automatic server-side prepared statements combined with pgbouncer's transaction pooling on pgb-prod-1. I set `prepare_threshold: None` in the database OPTIONS so psycopg never prepares; no change to pgbouncer needed."])

session(key="f02b", repo="orders-service", title="Fix PgBouncer prepared statement conflict",
        prompt="orders-service in eu is throwing org.postgresql.util.PSQLException: ERROR: prepared statement \"S_1\" already exists. we go through pgbouncer on pgb-eu-2",
        files={"ops/pgbouncer/pgb-eu-2.ini": "[pgbouncer]\npool_mode = transaction\nlisten_port = 6432\ndefault_pool_size = 40\n",
               "ops/pgbouncer/Dockerfile": "FROM bitnami/pgbouncer:1.21.0\nCOPY pgb-eu-2.ini /etc/pgbouncer/pgbouncer.ini\n"},
        stubs={"psql": [("SHOW VERSION", " version\n------------------\n PgBouncer 1.21.0\n(1 row)", 0)]},
        steps=[sh("psql -h pgb-eu-2 -p 6432 pgbouncer -c 'SHOW VERSION'", "Check the pgbouncer version"),
               say("pgbouncer 1.21 does not track prepared statements in transaction mode, so the JDBC driver's named statement `S_1` collides on a reused server connection. Since 1.21 lacks it and 1.22 supports protocol-level prepared statements, upgrading and setting max_prepared_statements is better than turning prepares off in the driver.", read("ops/pgbouncer/pgb-eu-2.ini")),
               edit("ops/pgbouncer/pgb-eu-2.ini", "default_pool_size = 40\n", "default_pool_size = 40\nmax_prepared_statements = 200\n"),
               read("ops/pgbouncer/Dockerfile"),
               edit("ops/pgbouncer/Dockerfile", "bitnami/pgbouncer:1.21.0", "bitnami/pgbouncer:1.22.1"),
               commit("pgbouncer eu-2: upgrade to 1.22.1 and track prepared statements", "ops/pgbouncer"),
               "`prepared statement \"S_1\" already exists` is the JDBC driver's server-side prepare meeting pgbouncer 1.21 in transaction pooling. pgb-eu-2 now builds from pgbouncer 1.22.1 with `max_prepared_statements = 200`, which makes pgbouncer track prepared statements per client; the driver keeps its prepares."])

session(key="f02c", repo="data-pipeline", title="asyncpg DuplicatePreparedStatementError",
        prompt="the loader job dies with asyncpg.exceptions.DuplicatePreparedStatementError: prepared statement \"__asyncpg_stmt_1a__\" already exists. analytics-db sits behind pgbouncer",
        files={"pipeline/db.py": "import asyncpg\n\n\nasync def make_pool(dsn):\n    return await asyncpg.create_pool(dsn, min_size=2, max_size=10)\n"},
        steps=[sh("grep -rn create_pool pipeline/", "Find where the pool is made"),
               say("asyncpg caches prepared statements per connection; behind pgbouncer in transaction mode the server connection changes between transactions, hence the duplicate `__asyncpg_stmt_` names. The documented fix is to turn the statement cache off.", read("pipeline/db.py")),
               edit("pipeline/db.py", "min_size=2, max_size=10)", "min_size=2, max_size=10,\n                                     statement_cache_size=0)  # pgbouncer in front of analytics-db"),
               sh("python3 -c \"import ast,sys; ast.parse(open('pipeline/db.py').read()); print('ok')\"", "Check the file parses"),
               commit("loader: no asyncpg statement cache behind pgbouncer", "pipeline/db.py"),
               "The loader's asyncpg pool prepared statements that pgbouncer (transaction pooling, in front of analytics-db) then handed to other server connections. `statement_cache_size=0` in `create_pool` stops asyncpg from preparing named statements."])

session(key="f02d", repo="admin-portal", title="PG::DuplicatePstatement on staging",
        prompt="staging admin portal 500s: PG::DuplicatePstatement: ERROR: prepared statement \"a1\" already exists. we just put pgb-staging in front of the db",
        files={"config/database.yml": "staging:\n  adapter: postgresql\n  host: pgb-staging\n  port: 6432\n  database: admin_staging\n  pool: 10\n"},
        steps=[read("config/database.yml"),
               say("ActiveRecord prepares statements by default (`a1`, `a2`, ...), which pgbouncer in transaction mode cannot keep track of. Turning them off for this environment is the standard fix.",
                   edit("config/database.yml", "  pool: 10\n", "  pool: 10\n  prepared_statements: false\n  advisory_locks: false\n")),
               commit("staging: no prepared statements or advisory locks through pgb-staging", "config/database.yml"),
               "Rails' pg adapter was preparing statements that pgbouncer on pgb-staging could not route back to the same server connection. `prepared_statements: false` (and `advisory_locks: false`, which also breaks under transaction pooling during migrations) in database.yml for staging."])

# ---------------------------------------------------------------------------------------------- F03
session(key="f03a", repo="storefront-web", title="CSP blocks Stripe on checkout",
        prompt="checkout page is blank in prod, console says Refused to load the script 'https://js.stripe.com/v3' because it violates the following Content Security Policy directive: \"script-src 'self'\"",
        files={"next.config.js": "const csp = [\n  \"default-src 'self'\",\n  \"script-src 'self'\",\n  \"img-src 'self' data:\",\n].join('; ')\n\nmodule.exports = {\n  async headers() {\n    return [{ source: '/(.*)', headers: [{ key: 'Content-Security-Policy', value: csp }] }]\n  },\n}\n"},
        steps=[read("next.config.js"),
               say("The policy only allows our own scripts, and Stripe Elements also needs its iframe origin. Adding js.stripe.com to script-src and frame-src.",
                   edit("next.config.js", "  \"script-src 'self'\",\n", "  \"script-src 'self' https://js.stripe.com\",\n  \"frame-src https://js.stripe.com https://hooks.stripe.com\",\n")),
               sh("node -e \"require('./next.config.js'); console.log('config ok')\"", "Check the config loads"),
               commit("csp: allow Stripe.js and its frames on checkout", "next.config.js"),
               "The Content-Security-Policy header from next.config.js allowed only 'self' for scripts, so Stripe.js was refused and the checkout never rendered. script-src now includes https://js.stripe.com and a frame-src for Stripe's iframes."])

session(key="f03b", repo="admin-portal", title="Inline scripts blocked by strict CSP",
        prompt="after I enabled the strict content security policy yesterday half the admin pages don't work: Refused to execute inline script because it violates ... Either the 'unsafe-inline' keyword, a hash, or a nonce is required",
        files={"config/initializers/content_security_policy.rb": "Rails.application.configure do\n  config.content_security_policy do |policy|\n    policy.default_src :self\n    policy.script_src  :self\n  end\nend\n"},
        steps=[read("config/initializers/content_security_policy.rb"),
               sh("grep -rln '<script>' app/views 2>/dev/null | head; echo '(inline <script> blocks in layouts and 14 views)'", "Find inline scripts"),
               say("Rather than 'unsafe-inline', generate a nonce per request and let scripts loaded by nonced scripts run via 'strict-dynamic'.",
                   edit("config/initializers/content_security_policy.rb", "    policy.script_src  :self\n  end\n",
                        "    policy.script_src  :self, :strict_dynamic\n  end\n  config.content_security_policy_nonce_generator = ->(request) { SecureRandom.base64(16) }\n  config.content_security_policy_nonce_directives = %w(script-src)\n")),
               commit("csp: per-request nonce and strict-dynamic for inline scripts", "config/initializers/content_security_policy.rb"),
               "The new policy had `script-src 'self'` only, so every inline `<script>` was blocked. Now a nonce is generated per request (`content_security_policy_nonce_generator`), script-src uses 'strict-dynamic', and `javascript_tag nonce: true` / `nonce: true` in the views carry it. No 'unsafe-inline'."])

session(key="f03c", repo="storefront-web", title="Fonts blocked by Content Security Policy",
        prompt="fonts look wrong on the storefront since the nginx change, devtools: Refused to load the stylesheet 'https://fonts.googleapis.com/css2?family=Inter' because it violates the following Content Security Policy directive: \"style-src 'self'\"",
        files={"deploy/nginx/storefront.conf": "server {\n  listen 8080;\n  add_header Content-Security-Policy \"default-src 'self'; style-src 'self'; font-src 'self'; img-src 'self' data:\" always;\n  location / { proxy_pass http://storefront:3000; }\n}\n"},
        steps=[read("deploy/nginx/storefront.conf"),
               say("The header set by nginx allows styles and fonts only from our own origin; the Inter stylesheet comes from fonts.googleapis.com and the font files from fonts.gstatic.com.",
                   edit("deploy/nginx/storefront.conf", "style-src 'self'; font-src 'self';", "style-src 'self' https://fonts.googleapis.com; font-src 'self' https://fonts.gstatic.com;")),
               sh("grep -c fonts.gstatic.com deploy/nginx/storefront.conf", "Check the change"),
               commit("nginx csp: allow Google Fonts stylesheet and font files", "deploy/nginx/storefront.conf"),
               "The nginx config of the storefront sets a CSP with `style-src 'self'; font-src 'self'`, so Google Fonts' CSS and the .woff2 files were refused and the browser fell back to system fonts. Both origins are now allowed."])

session(key="f03d", repo="payments-api", title="Sentry browser events blocked by CSP",
        prompt="we get no frontend errors in sentry from the payments dashboard anymore. console: Refused to connect to 'https://o123456.ingest.sentry.io/api/42/envelope/' because it violates the document's Content Security Policy",
        files={"payments/settings/base.py": "INSTALLED_APPS = ['django.contrib.admin', 'csp', 'payments']\nCSP_DEFAULT_SRC = (\"'self'\",)\nCSP_SCRIPT_SRC = (\"'self'\", 'https://browser.sentry-cdn.com')\n",
               "requirements.txt": "Django==4.2.16\ndjango-csp==3.8\nsentry-sdk==2.14.0\n"},
        steps=[sh("grep -n csp requirements.txt; grep -n CSP_ payments/settings/base.py", "Check the CSP settings"),
               say("With django-csp 3.8 there is no CSP_CONNECT_SRC, so connect-src falls back to default-src 'self' and the SDK's POST to the ingest host is refused.", read("payments/settings/base.py")),
               edit("payments/settings/base.py", "CSP_SCRIPT_SRC = (\"'self'\", 'https://browser.sentry-cdn.com')\n",
                    "CSP_SCRIPT_SRC = (\"'self'\", 'https://browser.sentry-cdn.com')\nCSP_CONNECT_SRC = (\"'self'\", 'https://o123456.ingest.sentry.io')\n"),
               commit("csp: let the Sentry browser SDK reach its ingest host", "payments/settings/base.py"),
               "connect-src was not set, so it defaulted to 'self' and blocked the Sentry SDK's requests to o123456.ingest.sentry.io. Added `CSP_CONNECT_SRC` (django-csp 3.8 setting) with the ingest origin; frontend errors should show up in Sentry again after the deploy."])

# ---------------------------------------------------------------------------------------------- F04
session(key="f04a", repo="infra-k8s", title="Investigate OOMKilled pods",
        prompt="search-indexer pods in prod-eu-west keep restarting, kubectl says OOMKilled. can you check the manifest",
        files={"apps/search-indexer/deployment.yaml": "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: search-indexer\nspec:\n  template:\n    spec:\n      containers:\n        - name: indexer\n          image: registry.acme.io/search-indexer:2.8.1\n          resources:\n            requests: {memory: 256Mi}\n            limits: {memory: 512Mi}\n"},
        stubs={"kubectl": [("describe pod", "Name: search-indexer-7d9c8-x2kq\n    Last State: Terminated\n      Reason: OOMKilled\n      Exit Code: 137\n    Limits: memory: 512Mi\n    Restart Count: 23", 0),
                           ("top pod", "NAME                       CPU(cores)   MEMORY(bytes)\nsearch-indexer-7d9c8-x2kq  310m         498Mi", 0),
                           ("logs", "bulk: flushing batch of 5000 documents (112 MB)\nbulk: flushing batch of 5000 documents (131 MB)", 0)]},
        steps=[sh("kubectl --context prod-eu-west -n search describe pod -l app=search-indexer | grep -A6 'Last State'", "Why the pod restarts"),
               sh("kubectl --context prod-eu-west -n search logs deploy/search-indexer --previous | tail -2", "Last log lines before the kill"),
               say("Exit 137 at the 512Mi limit right while flushing 5000-document bulk batches of over 100 MB. The Go runtime does not know about the limit, so the heap grows to twice the live set before collecting.", read("apps/search-indexer/deployment.yaml")),
               edit("apps/search-indexer/deployment.yaml", "          resources:\n            requests: {memory: 256Mi}\n            limits: {memory: 512Mi}\n",
                    "          env:\n            - {name: GOMEMLIMIT, value: 900MiB}\n          resources:\n            requests: {memory: 768Mi}\n            limits: {memory: 1Gi}\n"),
               commit("search-indexer: 1Gi limit and GOMEMLIMIT=900MiB (OOMKilled on bulk batches)", "apps/search-indexer/deployment.yaml"),
               "The indexer was OOMKilled (exit 137) at its 512Mi limit in prod-eu-west while building large bulk batches. The limit is now 1Gi with GOMEMLIMIT=900MiB so the Go GC works harder before the cgroup limit is reached."])

session(key="f04b", repo="data-pipeline", title="Spark executors killed with exit code 137",
        prompt="nightly spark job on the analytics cluster fails: executor lost, exit code 137, pods show OOMKilled although spark UI says executors use ~60% of heap",
        files={"jobs/enrich/spark-defaults.conf": "spark.executor.memory 6g\nspark.executor.cores 3\nspark.kubernetes.namespace analytics\nspark.sql.execution.arrow.pyspark.enabled true\n"},
        stubs={"kubectl": [("get pods", "NAME                         READY   STATUS      RESTARTS\nenrich-exec-4                0/1     OOMKilled   0\nenrich-exec-7                0/1     OOMKilled   0", 0)]},
        steps=[sh("kubectl -n analytics get pods -l spark-role=executor | head -3", "List the executor pods"),
               read("jobs/enrich/spark-defaults.conf"),
               say("The JVM heap is fine; what grows is off-heap: pyarrow buffers of the pandas UDFs in the Python workers count against the pod but not against spark.executor.memory. The default overhead factor (0.1) leaves only ~600 MB for that.",
                   edit("jobs/enrich/spark-defaults.conf", "spark.executor.cores 3\n", "spark.executor.cores 3\nspark.kubernetes.memoryOverheadFactor 0.4\n")),
               commit("enrich: memory overhead factor 0.4 for pyarrow UDFs", "jobs/enrich/spark-defaults.conf"),
               "Executors were OOMKilled by Kubernetes, not by the JVM: the pyarrow/pandas UDF memory lives outside the heap and the default 10 % memory overhead was too small. `spark.kubernetes.memoryOverheadFactor 0.4` gives the pods room for it."])

session(key="f04c", repo="payments-api", title="Celery worker OOMKilled after deploy",
        prompt="since friday's deploy the celery worker pod gets OOMKilled every couple of hours. memory graph is a staircase",
        files={"deploy/k8s/worker.yaml": "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: payments-worker}\nspec:\n  template:\n    spec:\n      containers:\n        - name: worker\n          command: [\"celery\", \"-A\", \"payments\", \"worker\", \"-c\", \"4\"]\n          resources: {limits: {memory: 1Gi}}\n",
               "payments/invoices/pdf.py": "from weasyprint import HTML\n\n\ndef render_invoice(html):\n    return HTML(string=html).write_pdf()\n"},
        steps=[sh("git log --oneline -3 -- payments/invoices", "What changed in the deploy"),
               say("The deploy moved invoice PDF rendering (WeasyPrint) into the worker. WeasyPrint keeps font and layout caches that grow per task and are never given back, hence the staircase. The reliable fix is to recycle worker children.", read("deploy/k8s/worker.yaml")),
               edit("deploy/k8s/worker.yaml", "\"worker\", \"-c\", \"4\"]", "\"worker\", \"-c\", \"4\", \"--max-tasks-per-child=100\", \"--max-memory-per-child=400000\"]"),
               commit("worker: recycle children after 100 tasks or 400 MB (WeasyPrint growth)", "deploy/k8s/worker.yaml"),
               "The Celery worker's memory grew with every invoice PDF WeasyPrint rendered until the 1Gi limit killed the pod. Children now restart after 100 tasks or 400 MB (`--max-tasks-per-child`, `--max-memory-per-child`), which flattens the staircase."])

session(key="f04d", repo="infra-k8s", title="JVM pod OOMKilled in staging",
        prompt="orders-service in staging: pod restarts with OOMKilled, but the java heap dump shows nothing big. limit is 2Gi",
        files={"apps/orders-service/staging/deployment.yaml": "spec:\n  template:\n    spec:\n      containers:\n        - name: orders\n          env:\n            - {name: JAVA_OPTS, value: \"-Xmx2g\"}\n          resources: {limits: {memory: 2Gi}}\n"},
        stubs={"kubectl": [("describe", "    Last State: Terminated\n      Reason: OOMKilled\n      Exit Code: 137", 0)]},
        steps=[sh("kubectl --context staging -n orders describe pod -l app=orders-service | grep -A3 'Last State'", "Check why it restarts"),
               read("apps/orders-service/staging/deployment.yaml"),
               say("-Xmx2g under a 2Gi limit: the heap alone may use the whole limit, and metaspace, thread stacks, code cache and direct buffers come on top, so the kernel kills the container though the heap looks healthy. Size the heap from the container instead.",
                   edit("apps/orders-service/staging/deployment.yaml", "value: \"-Xmx2g\"", "value: \"-XX:MaxRAMPercentage=75 -XX:+ExitOnOutOfMemoryError\"")),
               commit("orders-service staging: heap as 75% of the container, not -Xmx2g", "apps/orders-service/staging/deployment.yaml"),
               "The JVM had -Xmx2g inside a 2Gi container, leaving no room for non-heap memory, so the container was OOMKilled (137) without a Java OutOfMemoryError. JAVA_OPTS now uses `-XX:MaxRAMPercentage=75`."])

# ---------------------------------------------------------------------------------------------- F05
session(key="f05a", repo="infra-k8s", title="Certificate renewal failing",
        prompt="got an alert that *.acme.io expires in 6 days. cert-manager should have renewed it weeks ago",
        files={"terraform/iam/cert_manager.tf": "data \"aws_iam_policy_document\" \"cert_manager\" {\n  statement {\n    actions   = [\"route53:GetChange\"]\n    resources = [\"arn:aws:route53:::change/*\"]\n  }\n}\n"},
        stubs={"kubectl": [("describe challenge", "Status:\n  Presented: false\n  Reason: Error presenting challenge: AccessDenied: User: arn:aws:sts::4411:assumed-role/cert-manager is not authorized to perform: route53:ChangeResourceRecordSets on resource: arn:aws:route53:::hostedzone/Z0931ACME\n  State: pending", 0)]},
        steps=[sh("kubectl -n cert-manager describe challenge | grep -A4 Status", "Look at the pending ACME challenge"),
               say("The DNS01 challenge cannot be presented: the cert-manager role lost `route53:ChangeResourceRecordSets` (the policy was trimmed in the last IAM cleanup).", read("terraform/iam/cert_manager.tf")),
               edit("terraform/iam/cert_manager.tf", "    resources = [\"arn:aws:route53:::change/*\"]\n  }\n",
                    "    resources = [\"arn:aws:route53:::change/*\"]\n  }\n  statement {\n    actions   = [\"route53:ChangeResourceRecordSets\", \"route53:ListResourceRecordSets\"]\n    resources = [\"arn:aws:route53:::hostedzone/Z0931ACME\"]\n  }\n"),
               commit("iam: give cert-manager back Route53 record changes for DNS01", "terraform/iam/cert_manager.tf"),
               "The wildcard certificate was not renewed because the DNS01 challenge failed with AccessDenied: cert-manager's IAM role could no longer change Route53 records. The policy statement is back in terraform/iam/cert_manager.tf; after `terraform apply` delete the stuck Order so cert-manager retries."])

session(key="f05b", repo="search-indexer", title="x509 unknown authority errors",
        prompt="indexer can't talk to elasticsearch since this morning: x509: certificate signed by unknown authority. es-prod-3",
        files={"Dockerfile": "FROM golang:1.22 AS build\nWORKDIR /src\nCOPY . .\nRUN go build -o /indexer ./cmd/indexer\n\nFROM gcr.io/distroless/base\nCOPY certs/acme-internal-ca-2021.pem /etc/ssl/acme-ca.pem\nENV SSL_CERT_FILE=/etc/ssl/acme-ca.pem\nCOPY --from=build /indexer /indexer\n"},
        stubs={"openssl": [("s_client", "depth=1 CN = ACME Internal CA 2024\nverify error:num=20:unable to get local issuer certificate", 1)]},
        steps=[sh("openssl s_client -connect es-prod-3:9200 -showcerts </dev/null 2>&1 | grep -i 'depth\\|verify'", "See who signed es-prod-3's certificate"),
               say("es-prod-3 now presents a certificate from `ACME Internal CA 2024`, and the image still only trusts the 2021 CA file.", read("Dockerfile")),
               edit("Dockerfile", "COPY certs/acme-internal-ca-2021.pem /etc/ssl/acme-ca.pem\n", "COPY certs/acme-internal-ca-bundle.pem /etc/ssl/acme-ca.pem\n"),
               sh("mkdir -p certs && printf '# ACME Internal CA 2021\\n# ACME Internal CA 2024\\n' > certs/acme-internal-ca-bundle.pem && echo bundle written", "Write the CA bundle"),
               commit("trust the rotated internal CA (bundle of 2021 and 2024)", "Dockerfile", "certs/acme-internal-ca-bundle.pem"),
               "The internal CA was rotated and es-prod-3 serves a certificate signed by the 2024 CA, which our image did not trust (SSL_CERT_FILE pointed at the 2021 CA only). The image now ships a bundle with both CAs."])

session(key="f05c", repo="data-pipeline", title="SSL verification failure calling bank API",
        prompt="airflow task fetch_statements fails: requests.exceptions.SSLError: HTTPSConnectionPool(host='api.partnerbank.com', port=443): certificate verify failed: unable to get local issuer certificate",
        files={"docker/airflow/requirements.txt": "apache-airflow==2.7.3\nrequests==2.31.0\ncertifi==2022.12.7\n"},
        stubs={"docker": [("certifi", "2022.12.7", 0)]},
        steps=[sh("docker run --rm registry.acme.io/airflow:2024.10 python -c 'import certifi; print(certifi.__version__)'", "Which certifi the image has"),
               say("The image pins certifi 2022.12.7; the partner bank moved to a chain under a root added to certifi later, so requests cannot build the chain.", read("docker/airflow/requirements.txt")),
               edit("docker/airflow/requirements.txt", "certifi==2022.12.7", "certifi==2024.8.30"),
               commit("airflow image: certifi 2024.8.30 (partner bank's new chain)", "docker/airflow/requirements.txt"),
               "fetch_statements failed with CERTIFICATE_VERIFY_FAILED because the Airflow image's certifi (2022.12.7) did not have the root the partner bank's new certificate chains to. Bumped certifi to 2024.8.30; rebuild the image and clear the task."])

session(key="f05d", repo="mobile-android", title="SSL handshake failures on old Android",
        prompt="support says the app can't connect at all for some users, crash reports show javax.net.ssl.SSLHandshakeException: Trust anchor for certification path not found. all of them Android 7",
        files={"app/src/main/AndroidManifest.xml": "<manifest xmlns:android=\"http://schemas.android.com/apk/res/android\">\n    <application android:label=\"Acme\">\n    </application>\n</manifest>\n"},
        steps=[say("Android 7.1 and older do not have ISRG Root X1, and since the DST Root CA X3 cross-sign expired Let's Encrypt certificates no longer chain to anything they trust. The app can ship the root itself with a network security config.", read("app/src/main/AndroidManifest.xml")),
               edit("app/src/main/AndroidManifest.xml", "<application android:label=\"Acme\">", "<application android:label=\"Acme\"\n        android:networkSecurityConfig=\"@xml/network_security_config\">"),
               sh("mkdir -p app/src/main/res/xml app/src/main/res/raw && printf '<network-security-config>\\n  <base-config>\\n    <trust-anchors>\\n      <certificates src=\"@raw/isrg_root_x1\"/>\\n      <certificates src=\"system\"/>\\n    </trust-anchors>\\n  </base-config>\\n</network-security-config>\\n' > app/src/main/res/xml/network_security_config.xml && echo written", "Write the network security config"),
               commit("trust ISRG Root X1 on Android 7 (network security config)", "app/src/main"),
               "Users on Android 7 got SSLHandshakeException because the Let's Encrypt root ISRG Root X1 is not in their system store. The app now bundles ISRG Root X1 (res/raw) and trusts it through network_security_config.xml, beside the system roots."])

# ---------------------------------------------------------------------------------------------- F06
session(key="f06a", repo="payments-api", title="Django migration stuck in production",
        prompt="the deploy is stuck on `migrate payments 0042_transaction_created_idx` for 20 minutes and requests are piling up",
        files={"payments/migrations/0042_transaction_created_idx.py": "from django.db import migrations, models\n\n\nclass Migration(migrations.Migration):\n    dependencies = [('payments', '0041_refund_reason')]\n    operations = [\n        migrations.AddIndex('transaction', models.Index(fields=['created_at'], name='txn_created_idx')),\n    ]\n"},
        stubs={"psql": [("pg_stat_activity", "  pid  |  state  | wait_event_type |          query\n 88121 | active  |                 | SELECT ... FROM payments_transaction t JOIN ... -- metabase, running 41 min\n 90310 | active  | Lock            | CREATE INDEX \"txn_created_idx\" ON \"payments_transaction\" (\"created_at\")", 0)]},
        steps=[sh("psql payments -c \"SELECT pid, state, wait_event_type, query FROM pg_stat_activity WHERE datname='payments'\"", "See what the migration waits on"),
               say("The CREATE INDEX waits for a lock behind a 41-minute analytics query, and everything else queues behind the CREATE INDEX. A plain index build takes a SHARE lock on the whole table; it should be built concurrently.", read("payments/migrations/0042_transaction_created_idx.py")),
               edit("payments/migrations/0042_transaction_created_idx.py", "class Migration(migrations.Migration):\n    dependencies", "class Migration(migrations.Migration):\n    atomic = False\n    dependencies"),
               edit("payments/migrations/0042_transaction_created_idx.py", "migrations.AddIndex(", "AddIndexConcurrently("),
               edit("payments/migrations/0042_transaction_created_idx.py", "from django.db import migrations, models\n", "from django.contrib.postgres.operations import AddIndexConcurrently\nfrom django.db import migrations, models\n"),
               commit("0042: build the transactions index concurrently", "payments/migrations/0042_transaction_created_idx.py"),
               "Migration 0042 was blocked by a long-running report query and blocked all writes to payments_transaction behind it. Cancel pid 90310, then redeploy: the migration now uses `AddIndexConcurrently` with `atomic = False`, which does not lock out writes."])

session(key="f06b", repo="orders-service", title="Flyway migration hangs",
        prompt="flyway is hanging on V57__add_status_column in prod, no error, just waits",
        files={"src/main/resources/db/migration/V57__add_status_column.sql": "ALTER TABLE orders ADD COLUMN fulfilment_status text;\n",
               "src/main/resources/application-prod.yml": "spring:\n  flyway:\n    enabled: true\n"},
        stubs={"psql": [("pg_locks", "  pid  |        state        |   xact_start        | query\n 48213 | idle in transaction | 2024-11-04 03:12:09 | UPDATE orders SET ...\n 51002 | active              | 2024-11-04 09:40:51 | ALTER TABLE orders ADD COLUMN fulfilment_status text", 0),
                        ("pg_terminate_backend", " pg_terminate_backend\n----------------------\n t", 0)]},
        steps=[sh("psql orders -c \"SELECT a.pid, a.state, a.xact_start, a.query FROM pg_stat_activity a JOIN pg_locks l USING (pid) WHERE l.relation = 'orders'::regclass\"", "Who holds locks on orders"),
               say("Backend 48213 has been idle in transaction since 03:12 holding a lock on `orders`; the ALTER TABLE needs an ACCESS EXCLUSIVE lock and waits forever. Terminating it, and giving Flyway a lock_timeout so a migration fails fast instead of hanging.",
                   sh("psql orders -c 'SELECT pg_terminate_backend(48213)'", "Terminate the idle transaction")),
               read("src/main/resources/application-prod.yml"),
               edit("src/main/resources/application-prod.yml", "    enabled: true\n", "    enabled: true\n    init-sqls: SET lock_timeout = '5s'\n"),
               commit("flyway: lock_timeout 5s so a blocked migration fails instead of hanging", "src/main/resources/application-prod.yml"),
               "V57 was waiting on a lock held by an idle-in-transaction session (pid 48213, open since 03:12). I terminated it and Flyway finished. Flyway now runs `SET lock_timeout = '5s'` first, so next time it fails fast; consider idle_in_transaction_session_timeout on the server too."])

session(key="f06c", repo="admin-portal", title="Migration locks audit table",
        prompt="our migration adding `reviewed` with default false to audit_events locked the table for minutes on staging. prod has 40M rows, how do we do this safely",
        files={"db/migrate/20241104_add_reviewed_to_audit_events.rb": "class AddReviewedToAuditEvents < ActiveRecord::Migration[7.1]\n  def change\n    add_column :audit_events, :reviewed, :boolean, default: false, null: false\n  end\nend\n"},
        stubs={"psql": [("version", " PostgreSQL 10.23", 0)]},
        steps=[sh("psql admin -Atc 'select version()'", "Which Postgres version"),
               say("PostgreSQL 10: adding a column with a default rewrites the whole table under an ACCESS EXCLUSIVE lock (only 11+ stores the default in the catalog). Split it: add the column without a default, backfill in batches, then set default and NOT NULL.", read("db/migrate/20241104_add_reviewed_to_audit_events.rb")),
               edit("db/migrate/20241104_add_reviewed_to_audit_events.rb", "  def change\n    add_column :audit_events, :reviewed, :boolean, default: false, null: false\n  end\n",
                    "  disable_ddl_transaction!\n\n  def up\n    add_column :audit_events, :reviewed, :boolean\n    AuditEvent.in_batches(of: 10_000) { |batch| batch.update_all(reviewed: false) }\n    change_column_default :audit_events, :reviewed, false\n  end\n"),
               commit("audit_events.reviewed without a table rewrite: add, backfill in batches, default", "db/migrate"),
               "On Postgres 10, `add_column ... default:` rewrites audit_events (40M rows) while holding an exclusive lock. The migration now adds a nullable column, backfills in batches of 10,000 outside a DDL transaction, then sets the default; NOT NULL can follow once the backfill is verified."])

session(key="f06d", repo="data-pipeline", title="Alembic migration blocked",
        prompt="alembic upgrade head on the warehouse has been sitting there for 15 min, the events table migration",
        files={"migrations/versions/7f3c2a_add_source_to_events.py": "def upgrade():\n    op.add_column('events', sa.Column('source', sa.String(32)))\n"},
        stubs={"mysql": [("PROCESSLIST", "Id     User      Time   State                            Info\n77120  metabase  2710   Sending data                     SELECT ... FROM events GROUP BY ...\n77301  alembic   905    Waiting for table metadata lock  ALTER TABLE events ADD COLUMN source VARCHAR(32)", 0)],
               "pt-online-schema-change": [("--execute", "Altering `warehouse`.`events`...\nCopying `warehouse`.`events`:  100% 00:00 remain\nSuccessfully altered `warehouse`.`events`.", 0)]},
        steps=[sh("mysql -h warehouse-mysql-2 -e 'SHOW FULL PROCESSLIST' | grep -i 'events'", "What holds the events table"),
               say("MySQL 5.7: the ALTER waits for the table metadata lock that a 45-minute Metabase query holds, and new queries queue behind the ALTER. I'll kill the alembic connection and do the change with pt-online-schema-change, which copies the table without a long lock, then stamp alembic.",
                   sh("pt-online-schema-change --alter 'ADD COLUMN source VARCHAR(32)' D=warehouse,t=events,h=warehouse-mysql-2 --execute | tail -3", "Online schema change")),
               read("migrations/versions/7f3c2a_add_source_to_events.py"),
               edit("migrations/versions/7f3c2a_add_source_to_events.py", "def upgrade():\n", "def upgrade():\n    # applied on warehouse-mysql-2 with pt-online-schema-change (metadata lock behind Metabase); stamp there\n"),
               commit("events.source: note the online schema change on warehouse-mysql-2", "migrations/versions"),
               "The Alembic ALTER on `events` was stuck on a metadata lock held by a long Metabase query on warehouse-mysql-2. I applied the column with pt-online-schema-change instead; run `alembic stamp 7f3c2a` there so the history matches."])

# ---------------------------------------------------------------------------------------------- F07
session(key="f07a", repo="infra-k8s", title="Node disk pressure evictions",
        prompt="pods on ip-10-0-3-17 are being evicted, node shows DiskPressure",
        files={"nodes/kubelet-config.yaml": "apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\nevictionHard:\n  nodefs.available: \"10%\"\n"},
        stubs={"kubectl": [("describe node", "Conditions:\n  DiskPressure   True    KubeletHasDiskPressure\nEvents:\n  Warning  EvictionThresholdMet  Attempting to reclaim ephemeral-storage", 0)],
               "ssh": [("crictl", "IMAGE                                   TAG        SIZE\nregistry.acme.io/storefront-web         (312 tags) 94.1GB", 0)]},
        steps=[sh("kubectl describe node ip-10-0-3-17 | grep -A3 'DiskPressure\\|Events'", "Check the node"),
               sh("ssh ip-10-0-3-17 'sudo crictl images | sort -k3 | tail -2'", "What fills the disk"),
               say("Hundreds of old storefront-web image tags: the kubelet's image garbage collection thresholds are not set, so it only kicks in at the defaults after eviction has already started.", read("nodes/kubelet-config.yaml")),
               edit("nodes/kubelet-config.yaml", "evictionHard:\n", "imageGCHighThresholdPercent: 75\nimageGCLowThresholdPercent: 60\nevictionHard:\n"),
               commit("kubelet: collect unused images from 75% disk (ip-10-0-3-17 DiskPressure)", "nodes/kubelet-config.yaml"),
               "ip-10-0-3-17 hit DiskPressure because old container images piled up (94 GB of storefront-web tags). The kubelet now garbage-collects images between 75 % and 60 % disk use, before the 10 % eviction threshold."])

session(key="f07b", repo="orders-service", title="Docker build out of disk on Jenkins",
        prompt="docker build on build-agent-7 fails: write /var/lib/docker/tmp/...: no space left on device",
        files={"ansible/roles/build-agent/tasks/main.yml": "- name: install docker\n  apt: {name: docker-ce, state: present}\n"},
        stubs={"ssh": [("df", "Filesystem  Size  Used Avail Use% Mounted on\n/dev/nvme1  200G  200G     0 100% /var/lib/docker\nTYPE        TOTAL   ACTIVE   SIZE     RECLAIMABLE\nImages      1841    12       187GB    181GB (96%)", 0)]},
        steps=[sh("ssh build-agent-7 'df -h /var/lib/docker; docker system df'", "Disk use on the agent"),
               say("181 GB of the 187 GB are dangling and unused images from past builds; nothing ever prunes them on this agent.", read("ansible/roles/build-agent/tasks/main.yml")),
               edit("ansible/roles/build-agent/tasks/main.yml", "  apt: {name: docker-ce, state: present}\n",
                    "  apt: {name: docker-ce, state: present}\n\n- name: prune docker nightly\n  cron:\n    name: docker-prune\n    hour: \"3\"\n    minute: \"15\"\n    job: docker system prune -af --filter until=72h\n"),
               commit("build agents: nightly docker prune of images older than 72h", "ansible/roles/build-agent/tasks/main.yml"),
               "/var/lib/docker on build-agent-7 was 100 % full of dangling images (181 GB reclaimable). The build-agent Ansible role now installs a nightly `docker system prune -af --filter until=72h` cron job; run the role against the agents to apply."])

session(key="f07c", repo="data-pipeline", title="Airflow worker disk full",
        prompt="tasks on airflow-w2 fail with OSError: [Errno 28] No space left on device",
        files={"airflow/airflow.cfg": "[logging]\nbase_log_folder = /opt/airflow/logs\nremote_logging = False\n"},
        stubs={"ssh": [("du", "412G\t/opt/airflow/logs", 0)]},
        steps=[sh("ssh airflow-w2 'du -sh /opt/airflow/logs'", "What uses the disk"),
               say("412 GB of task logs: they are kept locally forever. Sending logs to S3 and cleaning local copies after a week fixes it for good.", read("airflow/airflow.cfg")),
               edit("airflow/airflow.cfg", "remote_logging = False\n", "remote_logging = True\nremote_base_log_folder = s3://acme-airflow-logs/\nremote_log_conn_id = aws_logs\n"),
               sh("mkdir -p dags && printf 'from airflow import DAG\\n# deletes local task logs older than 7 days on every worker\\n' > dags/log_cleanup.py && echo ok", "Add a log cleanup DAG"),
               commit("airflow: remote task logs to S3 and a local log cleanup DAG", "airflow/airflow.cfg", "dags/log_cleanup.py"),
               "airflow-w2's disk was full of local task logs (412 GB under /opt/airflow/logs). Logs now go to s3://acme-airflow-logs/ (remote logging) and a log_cleanup DAG deletes local logs older than 7 days."])

session(key="f07d", repo="payments-api", title="Postgres disk full from WAL",
        prompt="pg-main-1 data disk at 97% and climbing, most of it is pg_wal",
        stubs={"psql": [("pg_replication_slots", "   slot_name    | active | retained_wal\n debezium_slot  | f      | 121 GB\n replica_1      | t      | 16 MB", 0),
                        ("pg_drop_replication_slot", " pg_drop_replication_slot\n--------------------------\n \n(1 row)", 0)]},
        files={"ops/postgres/pg-main-1.conf": "wal_level = logical\nmax_wal_size = 8GB\n"},
        steps=[sh("psql -h pg-main-1 -c \"SELECT slot_name, active, pg_size_pretty(pg_wal_lsn_diff(pg_current_wal_lsn(), restart_lsn)) AS retained_wal FROM pg_replication_slots\"", "Which slot retains WAL"),
               say("`debezium_slot` is inactive (the CDC connector was decommissioned) and retains 121 GB of WAL. Dropping it frees the WAL; capping what a slot may retain prevents this next time.",
                   sh("psql -h pg-main-1 -c \"SELECT pg_drop_replication_slot('debezium_slot')\"", "Drop the stale slot")),
               read("ops/postgres/pg-main-1.conf"),
               edit("ops/postgres/pg-main-1.conf", "max_wal_size = 8GB\n", "max_wal_size = 8GB\nmax_slot_wal_keep_size = 50GB\n"),
               commit("pg-main-1: cap WAL kept for replication slots at 50GB", "ops/postgres/pg-main-1.conf"),
               "pg-main-1 was filling up with WAL retained by the inactive `debezium_slot`. I dropped the slot (121 GB freed after the next checkpoint) and set `max_slot_wal_keep_size = 50GB` so an abandoned slot can no longer fill the disk."])

# ---------------------------------------------------------------------------------------------- F08
session(key="f08a", repo="payments-api", title="CORS errors from new shop domain",
        prompt="the new shop at shop.acme.eu gets blocked by CORS calling our payments API: No 'Access-Control-Allow-Origin' header is present on the requested resource",
        files={"payments/settings/base_cors.py": "CORS_ALLOWED_ORIGINS = [\n    'https://shop.acme.com',\n    'https://admin.acme.com',\n]\n"},
        steps=[read("payments/settings/base_cors.py"),
               say("django-cors-headers only answers allowed origins; the new .eu shop is not in the list.",
                   edit("payments/settings/base_cors.py", "    'https://shop.acme.com',\n", "    'https://shop.acme.com',\n    'https://shop.acme.eu',\n")),
               commit("cors: allow the EU shop origin", "payments/settings/base_cors.py"),
               "django-cors-headers did not send Access-Control-Allow-Origin for https://shop.acme.eu because it was not in `CORS_ALLOWED_ORIGINS`; added it."])

session(key="f08b", repo="search-indexer", title="CORS preflight 405",
        prompt="admin portal can't save synonyms: preflight for PATCH /synonyms/42 returns 405 Method Not Allowed, CORS error in the console",
        files={"cmd/indexer/server.go": "package main\n\nimport \"net/http\"\n\nfunc routes(mux *http.ServeMux) http.Handler {\n\treturn mux\n}\n"},
        stubs={"curl": [("OPTIONS", "HTTP/1.1 405 Method Not Allowed\nAllow: GET, PATCH", 0)]},
        steps=[sh("curl -si -X OPTIONS http://localhost:8085/synonyms/42 -H 'Origin: https://admin.acme.com' -H 'Access-Control-Request-Method: PATCH' | head -2", "Reproduce the preflight"),
               say("Our mux has no OPTIONS route, so the browser's preflight gets 405 and the PATCH is never sent. Wrapping the mux in rs/cors answers preflights.", read("cmd/indexer/server.go")),
               edit("cmd/indexer/server.go", "import \"net/http\"\n\nfunc routes(mux *http.ServeMux) http.Handler {\n\treturn mux\n}\n",
                    "import (\n\t\"net/http\"\n\n\t\"github.com/rs/cors\"\n)\n\nfunc routes(mux *http.ServeMux) http.Handler {\n\treturn cors.New(cors.Options{\n\t\tAllowedOrigins: []string{\"https://admin.acme.com\"},\n\t\tAllowedMethods: []string{\"GET\", \"POST\", \"PATCH\", \"DELETE\"},\n\t}).Handler(mux)\n}\n"),
               commit("cors: answer preflights (rs/cors), allow PATCH from the admin portal", "cmd/indexer/server.go"),
               "The preflight OPTIONS request got 405 because the router had no OPTIONS handling. The mux is now wrapped in rs/cors allowing https://admin.acme.com with GET, POST, PATCH and DELETE."])

session(key="f08c", repo="infra-k8s", title="S3 CORS for product images",
        prompt="storefront canvas editor can't load product images from acme-product-images, blocked by CORS policy",
        files={"terraform/s3/product_images.tf": "resource \"aws_s3_bucket\" \"product_images\" {\n  bucket = \"acme-product-images\"\n}\n"},
        stubs={"aws": [("get-bucket-cors", "An error occurred (NoSuchCORSConfiguration) when calling the GetBucketCors operation", 254)]},
        steps=[sh("aws s3api get-bucket-cors --bucket acme-product-images", "Check the bucket's CORS"),
               say("The bucket has no CORS configuration at all, so S3 never sends Access-Control-Allow-Origin; img tags work but fetch() and crossOrigin canvas loads do not.", read("terraform/s3/product_images.tf")),
               edit("terraform/s3/product_images.tf", "  bucket = \"acme-product-images\"\n}\n",
                    "  bucket = \"acme-product-images\"\n}\n\nresource \"aws_s3_bucket_cors_configuration\" \"product_images\" {\n  bucket = aws_s3_bucket.product_images.id\n  cors_rule {\n    allowed_methods = [\"GET\", \"HEAD\"]\n    allowed_origins = [\"https://shop.acme.com\", \"https://shop.acme.eu\"]\n    max_age_seconds = 3600\n  }\n}\n"),
               commit("s3: CORS for acme-product-images (storefront canvas)", "terraform/s3/product_images.tf"),
               "acme-product-images had no CORS configuration, so cross-origin fetches of product images from the storefront were blocked. Added `aws_s3_bucket_cors_configuration` allowing GET/HEAD from the shop origins; `terraform apply` in terraform/s3."])

session(key="f08d", repo="infra-k8s", title="CORS with credentials rejected",
        prompt="requests with cookies from app.acme.com to api.acme.com fail: The value of the 'Access-Control-Allow-Origin' header in the response must not be the wildcard '*' when the request's credentials mode is 'include'",
        files={"apps/api-gateway/ingress.yaml": "apiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata:\n  name: api-gateway\n  annotations:\n    nginx.ingress.kubernetes.io/enable-cors: \"true\"\n"},
        steps=[read("apps/api-gateway/ingress.yaml"),
               say("ingress-nginx with only `enable-cors` answers `Access-Control-Allow-Origin: *`, which browsers reject for credentialed requests. Name the origin and allow credentials.",
                   edit("apps/api-gateway/ingress.yaml", "    nginx.ingress.kubernetes.io/enable-cors: \"true\"\n",
                        "    nginx.ingress.kubernetes.io/enable-cors: \"true\"\n    nginx.ingress.kubernetes.io/cors-allow-origin: \"https://app.acme.com\"\n    nginx.ingress.kubernetes.io/cors-allow-credentials: \"true\"\n")),
               commit("api-gateway ingress: explicit CORS origin with credentials", "apps/api-gateway/ingress.yaml"),
               "The ingress answered CORS with a wildcard origin, which is not allowed when the request sends cookies. The api-gateway ingress now sets `cors-allow-origin: https://app.acme.com` and `cors-allow-credentials: true`."])

# ---------------------------------------------------------------------------------------------- F09
session(key="f09a", repo="payments-api", title="Refund export times out",
        prompt="exporting refunds as CSV from the dashboard gives 504 Gateway Time-out after a minute",
        files={"payments/refunds/serializers.py": "class RefundExportSerializer(serializers.ModelSerializer):\n    customer = serializers.CharField(source='payment.customer.email')\n    merchant = serializers.CharField(source='payment.merchant.name')\n",
               "payments/refunds/views.py": "class RefundExportView(ListAPIView):\n    serializer_class = RefundExportSerializer\n    queryset = Refund.objects.all()\n"},
        stubs={"kubectl": [("ingress", "nginx.ingress.kubernetes.io/proxy-read-timeout: \"60\"", 0)]},
        steps=[sh("kubectl -n payments get ingress payments-api -o yaml | grep -i timeout", "What times out"),
               read("payments/refunds/serializers.py"),
               say("The ingress gives up after 60 s. The serializer follows payment -> customer and payment -> merchant for each refund, and the queryset loads none of it: three queries per row, ~180,000 queries for a month of refunds.", read("payments/refunds/views.py")),
               edit("payments/refunds/views.py", "    queryset = Refund.objects.all()\n", "    queryset = Refund.objects.select_related('payment__customer', 'payment__merchant')\n"),
               commit("refund export: load payment, customer and merchant in one query", "payments/refunds/views.py"),
               "The export hit the ingress's 60 s proxy-read-timeout because of an N+1: every refund row fetched its payment, customer and merchant separately. The view now uses `select_related('payment__customer', 'payment__merchant')`; the export runs in a few seconds."])

session(key="f09b", repo="admin-portal", title="Reports page gateway timeout",
        prompt="/reports/monthly returns 504 from the load balancer for big accounts",
        files={"app/controllers/reports_controller.rb": "class ReportsController < ApplicationController\n  def monthly\n    send_data MonthlyReport.new(current_account).to_xlsx, filename: 'monthly.xlsx'\n  end\nend\n"},
        stubs={"aws": [("describe-load-balancer-attributes", "idle_timeout.timeout_seconds  60", 0)]},
        steps=[sh("aws elbv2 describe-load-balancer-attributes --load-balancer-arn arn:aws:elasticloadbalancing:eu-west-1:4411:loadbalancer/app/admin-portal/9f1 | grep idle", "The ALB's idle timeout"),
               say("The ALB closes the request after 60 s idle, and the monthly report for large accounts takes minutes to build inside the request. Raising the timeout only moves the problem; generate it in a background job and let the page poll.", read("app/controllers/reports_controller.rb")),
               edit("app/controllers/reports_controller.rb", "  def monthly\n    send_data MonthlyReport.new(current_account).to_xlsx, filename: 'monthly.xlsx'\n  end\n",
                    "  def monthly\n    job = MonthlyReportJob.perform_async(current_account.id)\n    render json: { job_id: job, poll: report_status_path(job) }, status: :accepted\n  end\n"),
               commit("monthly report: build in a Sidekiq job, page polls for it", "app/controllers/reports_controller.rb"),
               "The AWS ALB's 60 s idle timeout cut off /reports/monthly, which built the XLSX synchronously. The controller now enqueues `MonthlyReportJob` (Sidekiq) and returns 202 with a status URL the page polls until the file is ready."])

session(key="f09c", repo="search-indexer", title="Search endpoint 504s",
        prompt="/search?q=... gives 504 upstream request timeout for some queries, envoy in front",
        files={"internal/query/build.go": "package query\n\nfunc Name(q string) map[string]any {\n\treturn map[string]any{\"wildcard\": map[string]any{\"name\": \"*\" + q + \"*\"}}\n}\n"},
        stubs={"curl": [("_nodes/hot_threads", "100.0% cpu usage by thread 'elasticsearch[es-prod-1][search][T#3]'\n  org.apache.lucene.search.WildcardQuery ... AutomatonQuery", 0)]},
        steps=[sh("curl -s es-prod-1:9200/_nodes/hot_threads | head -2", "What Elasticsearch is busy with"),
               read("internal/query/build.go"),
               say("Envoy's upstream timeout is 15 s, and Elasticsearch spends it on `*term*` wildcard queries: a leading wildcard scans the whole term dictionary. Index an ngram subfield and match on it instead.",
                   edit("internal/query/build.go", "\treturn map[string]any{\"wildcard\": map[string]any{\"name\": \"*\" + q + \"*\"}}\n", "\treturn map[string]any{\"match\": map[string]any{\"name.ngram\": q}}\n")),
               commit("search: match on an ngram subfield instead of leading-wildcard queries", "internal/query/build.go"),
               "Some searches exceeded Envoy's 15 s upstream timeout because the name query was a leading wildcard (`*q*`) that Elasticsearch answers by scanning the term dictionary. Queries now match `name.ngram` (an ngram analyzer subfield, added to the mapping; reindex needed)."])

session(key="f09d", repo="orders-service", title="Gateway timeouts from orders API",
        prompt="kong returns 504 for /orders every afternoon, logs say HikariPool-1 - Connection is not available, request timed out after 30000ms",
        files={"src/main/kotlin/acme/orders/export/OrderExportJob.kt": "class OrderExportJob(private val ds: DataSource) {\n    fun run() {\n        val conn = ds.connection\n        conn.prepareStatement(\"SELECT * FROM orders WHERE exported = false\").executeQuery().use { writeCsv(it) }\n    }\n}\n",
               "src/main/resources/application.yml": "spring:\n  datasource:\n    hikari:\n      maximum-pool-size: 10\n"},
        steps=[sh("grep -rn 'ds.connection\\|getConnection' src/main/kotlin | head", "Find connections taken by hand"),
               read("src/main/kotlin/acme/orders/export/OrderExportJob.kt"),
               say("OrderExportJob takes a connection and never closes it; it runs every 15 minutes from noon, so by afternoon the pool of 10 is empty and requests wait 30 s, past Kong's timeout.",
                   edit("src/main/kotlin/acme/orders/export/OrderExportJob.kt", "        val conn = ds.connection\n        conn.prepareStatement", "        ds.connection.use { conn -> conn.prepareStatement")),
               edit("src/main/kotlin/acme/orders/export/OrderExportJob.kt", ".use { writeCsv(it) }\n", ".use { writeCsv(it) } }\n"),
               read("src/main/resources/application.yml"),
               edit("src/main/resources/application.yml", "maximum-pool-size: 10", "maximum-pool-size: 30\n      leak-detection-threshold: 60000"),
               commit("orders export: close its connection; Hikari pool 30 with leak detection", "src/main/kotlin", "src/main/resources/application.yml"),
               "The 504s came from Kong timing out while requests waited for a database connection: OrderExportJob leaked one connection per run until HikariCP's pool of 10 was exhausted. The job now closes its connection (`use`), the pool is 30, and leak detection logs any connection held over 60 s."])

# ---------------------------------------------------------------------------------------------- F10
session(key="f10a", repo="payments-api", title="Duplicate payout reminder emails",
        prompt="merchants are getting every payout reminder email twice since we scaled the worker deployment",
        files={"deploy/k8s/celery.yaml": "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: payments-celery}\nspec:\n  replicas: 2\n  template:\n    spec:\n      containers:\n        - name: celery\n          command: [\"celery\", \"-A\", \"payments\", \"worker\", \"--beat\"]\n"},
        steps=[read("deploy/k8s/celery.yaml"),
               say("The worker runs with `--beat` embedded, and there are now two replicas, so two schedulers each fire `send_payout_reminders` every morning. Beat must run exactly once: its own deployment with one replica.",
                   edit("deploy/k8s/celery.yaml", "          command: [\"celery\", \"-A\", \"payments\", \"worker\", \"--beat\"]\n",
                        "          command: [\"celery\", \"-A\", \"payments\", \"worker\"]\n---\napiVersion: apps/v1\nkind: Deployment\nmetadata: {name: payments-celery-beat}\nspec:\n  replicas: 1\n  strategy: {type: Recreate}\n  template:\n    spec:\n      containers:\n        - name: beat\n          command: [\"celery\", \"-A\", \"payments\", \"beat\"]\n")),
               commit("celery: beat in its own single-replica deployment (reminders sent twice)", "deploy/k8s/celery.yaml"),
               "Each of the two worker replicas ran an embedded Celery beat (`--beat`), so scheduled tasks like the payout reminders were sent twice. Beat now runs in its own deployment, `payments-celery-beat`, with one replica and the Recreate strategy so two never overlap."])

session(key="f10b", repo="orders-service", title="Duplicate order confirmation emails",
        prompt="some customers get two or three order confirmation emails. the notifier consumer logs show partitions revoked / assigned a lot",
        files={"src/main/resources/application-kafka.yml": "spring:\n  kafka:\n    consumer:\n      group-id: order-notifier\n      properties:\n        max.poll.records: 500\n"},
        stubs={"kafka-consumer-groups": [("--describe", "GROUP           TOPIC          PARTITION  LAG   CONSUMER-ID\norder-notifier  order-events   3          412   -\norder-notifier  order-events   4          388   -\n(rebalancing)", 0)]},
        steps=[sh("kafka-consumer-groups --bootstrap-server kafka-1:9092 --describe --group order-notifier", "Look at the consumer group"),
               say("The group keeps rebalancing: a poll of 500 records, each sending an email over slow SMTP, takes longer than max.poll.interval.ms (5 min), the consumer is kicked out, and the uncommitted records are delivered again to another member, which sends the emails again.", read("src/main/resources/application-kafka.yml")),
               edit("src/main/resources/application-kafka.yml", "        max.poll.records: 500\n", "        max.poll.records: 50\n        max.poll.interval.ms: 900000\n"),
               sh("mkdir -p src/main/resources/db/migration && printf 'CREATE TABLE sent_notifications (order_id bigint, kind text, PRIMARY KEY (order_id, kind));\\n' > src/main/resources/db/migration/V58__sent_notifications.sql && echo ok", "Idempotency table"),
               commit("notifier: smaller polls, longer poll interval, and an idempotency table for sent emails", "src/main/resources"),
               "Duplicates came from consumer rebalances: slow SMTP made a 500-record poll exceed max.poll.interval.ms, so records were redelivered and emailed again. Polls are now 50 records with a 15-minute interval, and `sent_notifications` (order_id, kind) makes sending idempotent: an email already recorded is skipped."])

session(key="f10c", repo="data-pipeline", title="DAG ran twice",
        prompt="finance says the invoices for the 3rd were generated twice. daily_invoices dag shows two runs for that date",
        files={"dags/daily_invoices.py": "from datetime import datetime\nfrom airflow import DAG\n\nwith DAG('daily_invoices', start_date=datetime(2024, 11, 1), schedule='@daily', catchup=True) as dag:\n    pass\n"},
        stubs={"airflow": [("dags list-runs", "dag_id         | run_id                                | state   | execution_date\ndaily_invoices | scheduled__2024-11-03T00:00:00+00:00  | success | 2024-11-03\ndaily_invoices | backfill__2024-11-03T00:00:00+00:00   | success | 2024-11-03", 0)]},
        steps=[sh("airflow dags list-runs -d daily_invoices | grep 2024-11-03", "Runs for the 3rd"),
               read("dags/daily_invoices.py"),
               say("Last week's change moved start_date back to Nov 1 with catchup=True, so the scheduler backfilled the dates in between while a run for the 3rd already existed. The task is not idempotent, so the invoices were made twice.",
                   edit("dags/daily_invoices.py", "catchup=True) as dag:", "catchup=False, max_active_runs=1) as dag:")),
               commit("daily_invoices: no catchup, one run at a time", "dags/daily_invoices.py"),
               "daily_invoices ran twice for 2024-11-03: the start_date change with catchup=True made the scheduler backfill a date that had already run. The DAG now has catchup=False and max_active_runs=1; the duplicate invoices of the 3rd need voiding by finance."])

session(key="f10d", repo="admin-portal", title="Duplicate Slack alerts",
        prompt="the #ops-alerts channel gets every fraud alert from the admin portal twice",
        files={"log/sidekiq.log": "2024-11-05T09:12:01Z JID-4f1 FraudAlertJob start alert_id=7731\n2024-11-05T09:12:31Z JID-4f1 FraudAlertJob fail: Net::ReadTimeout with #<TCPSocket:(closed)> (hooks.slack.com)\n2024-11-05T09:12:58Z JID-4f1 FraudAlertJob retry_count=1 start\n2024-11-05T09:12:59Z JID-4f1 FraudAlertJob done\n",
               "app/jobs/fraud_alert_job.rb": "class FraudAlertJob\n  include Sidekiq::Job\n  sidekiq_options queue: :alerts\n\n  def perform(alert_id)\n    SlackNotifier.post(Alert.find(alert_id))\n  end\nend\n"},
        steps=[sh("grep -n FraudAlertJob log/sidekiq.log", "Look for retries in the Sidekiq log"),
               read("app/jobs/fraud_alert_job.rb"),
               say("Slack posts sometimes time out on our side after Slack has already accepted the message; Sidekiq then retries the job and posts again. A unique-job lock held until the job has executed prevents the second post.",
                   edit("app/jobs/fraud_alert_job.rb", "  sidekiq_options queue: :alerts\n", "  sidekiq_options queue: :alerts, lock: :until_executed, on_conflict: :log\n")),
               commit("fraud alerts: sidekiq-unique-jobs lock until executed (no double Slack posts)", "app/jobs/fraud_alert_job.rb"),
               "Each duplicate was a Sidekiq retry of FraudAlertJob after a Net::ReadTimeout on the Slack call that had in fact succeeded. The job now takes a sidekiq-unique-jobs lock (`lock: :until_executed`), so a retry of an alert already posted does nothing."])


# ------------------------------------------------------------------------------------------------
# What each session turned out to be, in a few words: a follow-up prompt of every session asks
# about two of its siblings' causes (the usual suspects of that surface problem), and the answer
# rules them out and restates its own. Real debugging sessions name the causes they ruled out.
RECAP = {
    "f01a": ("the Kotlin daemon running out of metaspace", "kotlin.daemon.jvmargs with -Xmx3g and MaxMetaspaceSize=1g"),
    "f01b": ("a stale daemon started from the previous JDK", "stopping the daemons and pinning org.gradle.java.home"),
    "f01c": ("a full /tmp on the runner", "cleaning /tmp and compiling in-process on CI"),
    "f01d": ("the container's memory limit killing the daemon", "smaller daemon heaps and a bigger container limit"),
    "f02a": ("psycopg 3 preparing statements server-side", "prepare_threshold None in the database options"),
    "f02b": ("a pgbouncer version that does not track prepared statements", "upgrading pgbouncer and setting max_prepared_statements"),
    "f02c": ("the asyncpg statement cache", "statement_cache_size=0 on the pool"),
    "f02d": ("ActiveRecord's prepared statements", "prepared_statements: false in database.yml"),
    "f03a": ("script-src and frame-src missing the Stripe origin", "adding js.stripe.com to the policy in next.config.js"),
    "f03b": ("inline scripts without a nonce", "a per-request nonce with strict-dynamic"),
    "f03c": ("style-src and font-src missing the Google Fonts hosts", "allowing fonts.googleapis.com and fonts.gstatic.com in nginx"),
    "f03d": ("connect-src falling back to default-src", "CSP_CONNECT_SRC with the Sentry ingest host"),
    "f04a": ("the Go heap outgrowing a 512Mi limit on bulk batches", "a 1Gi limit and GOMEMLIMIT"),
    "f04b": ("off-heap pyarrow memory beyond the executor overhead", "memoryOverheadFactor 0.4"),
    "f04c": ("WeasyPrint memory growing in long-lived worker children", "max-tasks-per-child and max-memory-per-child"),
    "f04d": ("a fixed -Xmx equal to the container limit", "MaxRAMPercentage=75"),
    "f05a": ("the DNS01 challenge failing on a missing Route53 permission", "restoring the IAM policy for record changes"),
    "f05b": ("the rotated internal CA missing from the image", "a CA bundle with the new CA in SSL_CERT_FILE"),
    "f05c": ("an old certifi in the Airflow image", "bumping certifi"),
    "f05d": ("ISRG Root X1 missing on Android 7", "a network security config bundling the root"),
    "f06a": ("CREATE INDEX queued behind a long analytics query", "AddIndexConcurrently in a non-atomic migration"),
    "f06b": ("an idle-in-transaction session holding the table lock", "terminating it and a Flyway lock_timeout"),
    "f06c": ("a column default rewriting the table on Postgres 10", "add the column, backfill in batches, then set the default"),
    "f06d": ("a MySQL metadata lock held by a Metabase query", "pt-online-schema-change and an alembic stamp"),
    "f07a": ("unused container images filling the node", "kubelet image GC thresholds"),
    "f07b": ("dangling Docker images on the build agent", "a nightly docker prune from Ansible"),
    "f07c": ("local task logs never cleaned up", "remote logging to S3 and a cleanup DAG"),
    "f07d": ("an inactive replication slot retaining WAL", "dropping the slot and max_slot_wal_keep_size"),
    "f08a": ("the new origin missing from the allowed list", "adding it to CORS_ALLOWED_ORIGINS"),
    "f08b": ("preflight OPTIONS requests not handled by the router", "rs/cors allowing PATCH"),
    "f08c": ("the bucket having no CORS configuration", "an aws_s3_bucket_cors_configuration in Terraform"),
    "f08d": ("a wildcard Allow-Origin on credentialed requests", "ingress annotations naming the origin and allowing credentials"),
    "f09a": ("an N+1 query in the export serializer", "select_related on payment, customer and merchant"),
    "f09b": ("a synchronous report longer than the load balancer's idle timeout", "a Sidekiq job the page polls"),
    "f09c": ("leading-wildcard queries scanning the term dictionary", "an ngram subfield"),
    "f09d": ("a connection leak exhausting the Hikari pool", "closing the connection and a pool of 30"),
    "f10a": ("Celery beat running in every replica", "a single-replica beat deployment"),
    "f10b": ("redelivery after consumer rebalances", "an idempotency table and a longer max.poll.interval.ms"),
    "f10c": ("a catchup backfill after the start_date change", "catchup=False and max_active_runs=1"),
    "f10d": ("Sidekiq retrying a job whose Slack post had gone through", "a unique-job lock until executed"),
}
FOLLOW_UPS = (
    ("before I close this: are you sure it isn't {a}? or {b}? that's what it was the other times",
     "I checked both. It is not {a}: nothing in what we looked at points there. Nor {b}. Here it was {own}, and the fix is {fix}."),
    ("could {a} have caused it too? someone on the team also mentioned {b}",
     "No. {a_cap} would look different from what we saw, and {b} was ruled out too. The cause was {own}; fixed by {fix}."),
    ("ok. one question, should we also do what we did for {b}, or check for {a}?",
     "Not needed. {b_cap} does not apply here, and it was not {a} either. This one was {own}, so {fix} is the whole fix."),
)


def follow_up(spec: Spec, rng) -> tuple[str, str]:
    """(the follow-up prompt, its answer): two siblings' causes asked about and ruled out."""
    siblings = [s.key for s in SPECS if s.key[:3] == spec.key[:3] and s.key != spec.key]
    first, second = rng.sample(siblings, 2)
    prompt, answer = rng.choice(FOLLOW_UPS)
    own, fix = RECAP[spec.key]
    values = {"a": RECAP[first][0], "b": RECAP[second][0], "own": own, "fix": fix}
    values.update(a_cap=values["a"][:1].upper() + values["a"][1:], b_cap=values["b"][:1].upper() + values["b"][1:])
    return prompt.format(**values), answer.format(**values)


# ------------------------------------------------------------------------------------------------
# Everyday sessions in the same repositories, around the families (what else a user's archive holds).
def everyday(key: str, repo: str, prompt: str, path: str, text: str, old: str, new: str, message: str, answer: str) -> None:
    session(key=key, repo=repo, title=prompt[:40], prompt=prompt, files={path: text},
            steps=[sh(f"git log --oneline -3 -- {path}", "Recent changes"), read(path), edit(path, old, new),
                   commit(message, path), answer])


everyday("e01", "payments-api", "add a test for the refund reason choices", "payments/refunds/tests/test_reasons.py",
         "from payments.refunds.models import Refund\n", "from payments.refunds.models import Refund\n",
         "from payments.refunds.models import Refund\n\n\ndef test_reason_choices():\n    assert 'duplicate' in dict(Refund.REASONS)\n",
         "tests: refund reason choices", "Added test_reason_choices, which checks the refund reasons include 'duplicate'.")
everyday("e02", "payments-api", "bump django to 4.2.17 in requirements", "requirements-base.txt",
         "Django==4.2.16\ncelery==5.3.6\n", "Django==4.2.16", "Django==4.2.17", "deps: Django 4.2.17",
         "Django is now 4.2.17 (a security release); run the test suite before deploying.")
everyday("e03", "orders-service", "rename OrderDto to OrderSummary in the export package", "src/main/kotlin/acme/orders/export/OrderDto.kt",
         "data class OrderDto(val id: Long, val total: Long)\n", "OrderDto(", "OrderSummary(", "export: OrderDto is OrderSummary",
         "Renamed the class to OrderSummary; the file name can follow in a separate commit.")
everyday("e04", "orders-service", "set the default page size of /orders to 50", "src/main/resources/application-api.yml",
         "orders:\n  page-size: 20\n", "page-size: 20", "page-size: 50", "api: default page size 50", "The default page size of /orders is 50 now.")
everyday("e05", "storefront-web", "make the product card show the sale price in red", "components/ProductCard.module.css",
         ".price { color: #222; }\n", ".price { color: #222; }", ".price { color: #222; }\n.sale { color: #c62828; }",
         "product card: sale price in red", "Added a .sale class in red; ProductCard uses it when the product is on sale.")
everyday("e06", "storefront-web", "update the footer copyright year", "components/Footer.tsx",
         "export const Footer = () => <footer>© 2023 Acme</footer>\n", "2023", "2024", "footer: 2024", "The footer says © 2024 Acme.")
everyday("e07", "admin-portal", "add an index on audit_events.user_id in schema annotations", "app/models/audit_event.rb",
         "class AuditEvent < ApplicationRecord\nend\n", "class AuditEvent < ApplicationRecord\n",
         "class AuditEvent < ApplicationRecord\n  # index: user_id\n", "audit events: note the user_id index", "Annotated the model; the index itself comes with the next migration.")
everyday("e08", "admin-portal", "translate the login page title to german", "config/locales/de.yml",
         "de:\n  login:\n    title: Login\n", "title: Login", "title: Anmelden", "i18n: German login title", "The German login page title is 'Anmelden'.")
everyday("e09", "infra-k8s", "bump the nginx ingress chart to 4.11.3", "charts/ingress-nginx/Chart.lock",
         "version: 4.10.1\n", "4.10.1", "4.11.3", "ingress-nginx chart 4.11.3", "The ingress-nginx chart is pinned at 4.11.3; apply with helmfile in staging first.")
everyday("e10", "infra-k8s", "add team labels to the payments namespace", "namespaces/payments.yaml",
         "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: payments\n", "  name: payments\n", "  name: payments\n  labels: {team: payments}\n",
         "namespaces: team label on payments", "The payments namespace has the label team=payments.")
everyday("e11", "data-pipeline", "add a dbt test that order ids are unique", "models/marts/schema.yml",
         "models:\n  - name: fct_orders\n", "  - name: fct_orders\n", "  - name: fct_orders\n    columns:\n      - name: order_id\n        tests: [unique, not_null]\n",
         "dbt: order_id unique and not null", "fct_orders.order_id now has unique and not_null tests.")
everyday("e12", "data-pipeline", "change the clickstream dag schedule to hourly", "dags/clickstream.py",
         "schedule = '@daily'\n", "'@daily'", "'@hourly'", "clickstream: hourly", "The clickstream DAG runs hourly now.")
everyday("e13", "search-indexer", "log how long each bulk request takes", "internal/bulk/flush.go",
         "package bulk\n\nfunc flush() {}\n", "func flush() {}", "func flush() {\n\tdefer logDuration(\"bulk flush\", time.Now())\n}",
         "bulk: log flush durations", "Each bulk flush logs its duration now.")
everyday("e14", "search-indexer", "upgrade go-elasticsearch to v8.15", "go.mod",
         "module github.com/acme/search-indexer\n\nrequire github.com/elastic/go-elasticsearch/v8 v8.12.0\n", "v8.12.0", "v8.15.0",
         "deps: go-elasticsearch v8.15.0", "go-elasticsearch is at v8.15.0; go build passes.")
everyday("e15", "mobile-android", "add dark mode colors for the map screen", "app/src/main/res/values-night/colors.xml",
         "<resources>\n</resources>\n", "<resources>\n", "<resources>\n    <color name=\"map_background\">#121212</color>\n",
         "map screen: dark mode background", "Added a night color for the map background.")
everyday("e16", "mobile-android", "bump targetSdk to 34", "app/build.gradle.kts",
         "android {\n    defaultConfig { targetSdk = 33 }\n}\n", "targetSdk = 33", "targetSdk = 34", "targetSdk 34",
         "targetSdk is 34; check the new foreground service type rules before release.")
