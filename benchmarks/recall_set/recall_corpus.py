"""The archived sessions of the prompt-recall judged set: one developer's half year in seven
repositories (a Django payments service, a Kotlin Android app, infrastructure, a React storefront,
a data pipeline, a Rust CLI, dotfiles) and the home folder.

Written as the sessions would have gone: what was typed, the commands run and what they printed
(errors included), the edits, the commits, and the answer. Some problems come back in a later
session (a second session about the same trouble); some sessions share many words with another
one and are about something else (the near misses of prompts.json are built on them).
`recall_filler.py` adds the everyday sessions around them.
"""
from __future__ import annotations

from recall_transcripts import Spec, bash, commit, edit, read, say, turn, write

PAY, AND, INF, WEB, DATA, RS, DOT, HOME = (
    "payments-api", "trailmap-android", "infra", "storefront-web", "data-pipeline", "logfmt", "dotfiles", "")
ORD = "orders-service"

SESSIONS = [
    # ---------------------------------------------------------------- payments-api (Django, Celery, Postgres)
    Spec("pay-webhook-signature", PAY, "2026-06-03 09:12", "Stripe webhook signature failures after deploy", [
        turn("Stripe webhooks are all failing with 400 since this morning's deploy, can you look?",
             bash("kubectl logs deploy/payments-api --since=2h | grep -i webhook | tail -5",
                  "ERROR webhooks.views stripe.error.SignatureVerificationError: No signatures found matching the "
                  "expected signature for payload\nERROR webhooks.views stripe.error.SignatureVerificationError: No "
                  "signatures found matching the expected signature for payload"),
             read("payments/webhooks/views.py", "payload = json.dumps(request.data)\nevent = stripe.Webhook.construct_event(payload, sig, secret)"),
             say("The view re-serialises the parsed JSON instead of passing the raw body; since the deploy added "
                 "the JSONParser middleware the bytes differ and the HMAC no longer matches."),
             edit("payments/webhooks/views.py", "payload = json.dumps(request.data)", "payload = request.body"),
             bash("pytest payments/webhooks -q", "........\n8 passed in 1.91s"),
             commit("Verify Stripe webhook signatures against the raw request body", "4f1c2a9"),
             answer="Fixed: `stripe.Webhook.construct_event` must get the raw `request.body` bytes. The new JSON "
                    "middleware parsed and re-serialised the payload, so the signature check failed with "
                    "`SignatureVerificationError` for every event. Committed 4f1c2a9; replay the failed events from "
                    "the Stripe dashboard after the deploy."),
    ]),
    Spec("pay-double-charge", PAY, "2026-06-11 14:30", "Duplicate charges on client retries", [
        turn("A customer got charged twice for order 88213. Looks like the mobile app retried POST /charges after a timeout.",
             bash("psql $DATABASE_URL -c \"select id, order_id, amount, created_at from charges where order_id = 88213\"",
                  " id    | order_id | amount | created_at\n 41207 |    88213 |  59.00 | 2026-06-11 08:02:11\n 41208 |    88213 |  59.00 | 2026-06-11 08:02:14"),
             say("Two charges three seconds apart: the client sends an Idempotency-Key header but we ignore it."),
             write("payments/migrations/0031_charge_idempotency_key.py", "AddField('charge', 'idempotency_key', ...)"),
             edit("payments/charges/views.py", "charge = Charge.objects.create(**data)",
                  "charge, created = Charge.objects.get_or_create(idempotency_key=key, defaults=data)"),
             bash("pytest payments/charges -q -k idempotent",
                  "F.\nE   django.db.utils.IntegrityError: duplicate key value violates unique constraint "
                  "\"charges_idempotency_key_key\"\n1 failed, 1 passed", exit=1),
             say("Two concurrent retries race past get_or_create; catch the IntegrityError and return the stored charge."),
             edit("payments/charges/views.py", "get_or_create(", "create_or_fetch_by_key("),
             bash("pytest payments/charges -q", "..........\n10 passed in 2.40s"),
             commit("Honour Idempotency-Key on POST /charges: one charge per key, retries get the first", "9b2e771"),
             answer="The retry created a second charge because the Idempotency-Key header was ignored. Charges now "
                    "store the key with a unique constraint; a retry (even a concurrent one that hits the "
                    "IntegrityError) returns the first charge. Refund charge 41208 by hand."),
    ]),
    Spec("pay-celery-oom", PAY, "2026-06-24 08:45", "Celery workers OOM-killed overnight", [
        turn("celery workers keep dying every night around 2am, the invoices queue backs up",
             bash("kubectl describe pod payments-worker-7d9f -n payments | grep -A3 'Last State'",
                  "    Last State:     Terminated\n      Reason:       OOMKilled\n      Exit Code:    137"),
             bash("kubectl logs payments-worker-7d9f -n payments --previous | tail -3",
                  "[2026-06-24 02:03:11,402: ERROR/MainProcess] Process 'ForkPoolWorker-3' pid:88 exited with 'signal 9 (SIGKILL)'\n"
                  "celery.exceptions.WorkerLostError: Worker exited prematurely: signal 9 (SIGKILL) Job: 1442."),
             say("The nightly invoice batch renders PDFs with WeasyPrint; each child keeps ~30 MB after every PDF and "
                 "never returns it, so a child that renders hundreds of invoices grows past the 2 GiB limit."),
             edit("payments/celery.py", "app.conf.worker_prefetch_multiplier = 4",
                  "app.conf.worker_prefetch_multiplier = 1\napp.conf.worker_max_tasks_per_child = 200\n"
                  "app.conf.worker_max_memory_per_child = 400_000"),
             commit("Recycle celery workers after 200 tasks or 400 MB (WeasyPrint keeps memory per PDF)", "c03d5e1"),
             answer="The workers were OOMKilled (exit 137, `WorkerLostError ... signal 9`) by the invoice PDF batch: "
                    "WeasyPrint leaks ~30 MB per PDF in a long-lived child. Children now restart after 200 tasks or "
                    "400 MB, and prefetch is 1 so one worker does not hoard the batch."),
    ]),
    Spec("pay-migration-lock", PAY, "2026-07-02 17:20", "Migration 0042 hangs and times out on deploy", [
        turn("The deploy is stuck on migration 0042_invoice_tax_region, it just hangs and then times out",
             bash("python manage.py sqlmigrate invoices 0042",
                  "BEGIN;\nALTER TABLE \"invoices\" ADD COLUMN \"tax_region\" varchar(8) DEFAULT 'EU' NOT NULL;\n"
                  "UPDATE \"invoices\" SET \"tax_region\" = 'EU';\nCOMMIT;"),
             bash("python manage.py migrate invoices 0042",
                  "django.db.utils.OperationalError: canceling statement due to lock timeout\n"
                  "CONTEXT:  while rewriting table \"invoices\"", exit=1),
             say("The UPDATE of 40M rows holds an ACCESS EXCLUSIVE lock while the API keeps writing invoices. Split it: "
                 "add the column nullable, backfill in batches outside the migration transaction, then set NOT NULL."),
             write("invoices/migrations/0042_invoice_tax_region.py", "AddField(null=True)"),
             write("invoices/management/commands/backfill_tax_region.py", "batches of 5000 by id"),
             write("invoices/migrations/0043_tax_region_not_null.py", "AlterField(null=False)"),
             commit("Split 0042: nullable tax_region, batched backfill command, NOT NULL in 0043", "e8a1f02"),
             answer="0042 rewrote the whole invoices table inside one transaction and died on `canceling statement due "
                    "to lock timeout`. Now 0042 only adds a nullable column (instant), `manage.py backfill_tax_region` "
                    "fills it in batches of 5,000, and 0043 adds NOT NULL once it is done."),
    ]),
    Spec("pay-jpy-rounding", PAY, "2026-07-15 11:05", "Invoice totals off by one for JPY", [
        turn("Japanese customers see invoice totals that are 1 yen off from the checkout total",
             bash("pytest invoices/tests/test_totals.py -q",
                  "F\nE   AssertionError: Decimal('1000.50') != Decimal('1001')\nFAILED invoices/tests/test_totals.py::"
                  "test_jpy_total - AssertionError: Decimal('1000.50') != Decimal('1001')", exit=1),
             say("Totals are quantized to two places for every currency; JPY has no minor unit, checkout rounds half up to whole yen."),
             edit("invoices/money.py", "amount.quantize(Decimal('0.01'))",
                  "amount.quantize(Decimal(1).scaleb(-minor_units(currency)), rounding=ROUND_HALF_UP)"),
             bash("pytest invoices -q", "....................\n20 passed in 3.02s"),
             commit("Round invoice totals by the currency's minor units (JPY has none)", "1aa0c94"),
             answer="Totals were quantized to cents whatever the currency. `money.quantize` now uses the ISO 4217 "
                    "minor units (0 for JPY, KRW; 3 for KWD) with ROUND_HALF_UP like checkout."),
    ]),
    Spec("pay-partial-refunds", PAY, "2026-07-21 10:00", "Partial refunds endpoint", [
        turn("Add an endpoint for partial refunds: POST /charges/{id}/refunds with an amount, never more than what is left",
             write("payments/refunds/views.py", "class RefundCreate(APIView): ..."),
             write("payments/refunds/tests/test_partial.py", "def test_cannot_refund_more_than_left(): ..."),
             bash("pytest payments/refunds -q", "......\n6 passed in 1.20s"),
             commit("Add POST /charges/{id}/refunds for partial refunds, capped at the remaining amount", "7d4410b"),
             answer="Added `POST /charges/{id}/refunds` with `amount` (defaults to the rest). It locks the charge row, "
                    "refuses more than the remaining amount with 422, and calls Stripe's refund API with the charge's "
                    "idempotency key plus the refund number."),
    ]),
    Spec("pay-flaky-invoice-email", PAY, "2026-08-05 16:40", "Flaky test_invoice_email date", [
        turn("test_invoice_email fails in CI maybe one run in five, passes locally",
             bash("pytest invoices/tests/test_email.py -q -p no:randomly",
                  "F\nE   AssertionError: '2026-03-01' != '2026-02-28'\nFAILED invoices/tests/test_email.py::"
                  "test_invoice_email - AssertionError", exit=1),
             say("The test freezes time at 23:30 UTC on Feb 28 but the template formats the due date in the runner's "
                 "local zone; CI runners in Europe/Berlin cross midnight."),
             edit("invoices/tests/test_email.py", "@freeze_time('2026-02-28 23:30')", "@freeze_time('2026-02-28 23:30', tz_offset=0)"),
             edit("invoices/emails.py", "due.strftime('%Y-%m-%d')", "due.astimezone(customer_tz).strftime('%Y-%m-%d')"),
             commit("Format invoice due dates in the customer's zone; test frozen in UTC", "2c7be90"),
             answer="The flake was a time-zone bug: the email used the machine's local zone, so on runners east of UTC "
                    "the frozen 23:30 became the next day. The due date is now formatted in the customer's zone."),
    ]),
    Spec("pay-invoice-list-slow", PAY, "2026-08-19 09:30", "Slow /invoices list: N+1 queries", [
        turn("GET /invoices takes 4 seconds for customers with many invoices",
             bash("pytest invoices/tests/test_list.py -q --ds=settings.debug_sql | grep -c SELECT", "603"),
             say("603 queries for 200 invoices: line items and the customer are loaded per invoice."),
             edit("invoices/views.py", "Invoice.objects.filter(customer=c)",
                  "Invoice.objects.filter(customer=c).select_related('customer').prefetch_related('lines')"),
             bash("pytest invoices/tests/test_list.py -q --ds=settings.debug_sql | grep -c SELECT", "4"),
             commit("Invoices list: select_related customer, prefetch lines (603 -> 4 queries)", "5e9d3a7"),
             answer="It was an N+1: three queries per invoice. With select_related/prefetch_related the list takes "
                    "4 queries and ~120 ms for 200 invoices. Added a test that counts the queries."),
    ]),
    Spec("pay-stripe-connect", PAY, "2026-09-09 13:10", "Stripe Connect onboarding for marketplace sellers", [
        turn("Start the Stripe Connect onboarding for sellers: create express accounts and the account link redirect",
             write("payments/connect/views.py", "stripe.Account.create(type='express') ..."),
             write("payments/connect/urls.py", "path('connect/return/', ...)"),
             bash("pytest payments/connect -q", "....\n4 passed in 0.88s"),
             commit("Stripe Connect: express accounts and onboarding links for sellers", "ab61f3e"),
             answer="Sellers get an Express account on first visit and an account link; the return URL stores "
                    "`charges_enabled` and `payouts_enabled`. Webhooks for `account.updated` come next."),
    ]),
    Spec("pay-webhook-signature-2", PAY, "2026-10-14 10:20", "Webhook signature errors again: clock skew", [
        turn("We're getting SignatureVerificationError on some stripe webhooks again, only from the eu cluster",
             bash("kubectl logs -l app=payments-api -n payments --context eu --since=1h | grep Signature | head -2",
                  "stripe.error.SignatureVerificationError: Timestamp outside the tolerance zone\n"
                  "stripe.error.SignatureVerificationError: Timestamp outside the tolerance zone"),
             bash("kubectl debug node/eu-node-4 -it --image=busybox -- chroot /host chronyc tracking",
                  "Reference ID    : 00000000 ()\nStratum         : 0\nLeap status     : Not synchronised", exit=0),
             say("This time it is not the body: `Timestamp outside the tolerance zone`. eu-node-4's clock is 7 minutes "
                 "off because chrony lost its NTP servers after the firewall change."),
             bash("ansible-playbook -l eu-node-4 playbooks/chrony.yml", "PLAY RECAP eu-node-4 : ok=4 changed=1"),
             answer="Different cause from June's failures: the signature timestamp was outside Stripe's 5-minute "
                    "tolerance because eu-node-4 was not NTP-synchronised. Re-ran the chrony playbook; the node is in "
                    "sync and the errors stopped. Consider an alert on `node_timex_offset_seconds`."),
    ]),

    # ---------------------------------------------------------------- trailmap-android (Kotlin, Gradle)
    Spec("and-kotlin-daemon", AND, "2026-06-05 10:15", "Kotlin daemon crash during Gradle build", [
        turn("./gradlew assembleDebug keeps failing, something about the kotlin daemon",
             bash("./gradlew assembleDebug --stacktrace",
                  "> Task :app:compileDebugKotlin FAILED\ne: Could not connect to Kotlin compile daemon\n"
                  "The daemon has terminated unexpectedly on startup attempt #1 with error code: 0. The daemon process "
                  "output:\n    1. Kotlin compile daemon is ready\n"
                  "Exception in thread \"main\" java.lang.OutOfMemoryError: Metaspace", exit=1),
             read("gradle.properties", "org.gradle.jvmargs=-Xmx2g\nkotlin.code.style=official"),
             say("The Kotlin compile daemon inherits a small default heap and runs out of Metaspace since the Compose "
                 "upgrade added many generated classes."),
             edit("gradle.properties", "org.gradle.jvmargs=-Xmx2g",
                  "org.gradle.jvmargs=-Xmx4g -XX:MaxMetaspaceSize=1g\nkotlin.daemon.jvmargs=-Xmx3g -XX:MaxMetaspaceSize=1g"),
             bash("./gradlew --stop && ./gradlew assembleDebug", "BUILD SUCCESSFUL in 2m 41s\n96 actionable tasks: 96 executed"),
             commit("Give the Kotlin compile daemon 3 GB heap and 1 GB metaspace", "d41a0b3"),
             answer="The Kotlin compile daemon died with `OutOfMemoryError: Metaspace` (Gradle reported \"Could not "
                    "connect to Kotlin compile daemon\"). `kotlin.daemon.jvmargs=-Xmx3g -XX:MaxMetaspaceSize=1g` in "
                    "gradle.properties fixes it; run `./gradlew --stop` once so the old daemon goes away."),
    ]),
    Spec("and-r8-release-crash", AND, "2026-06-16 15:00", "Release build crashes on launch (R8 strips Moshi adapters)", [
        turn("The release APK crashes right at launch, debug is fine. Crashlytics has a ClassNotFoundException",
             bash("adb logcat -d | grep -A2 FATAL",
                  "E AndroidRuntime: FATAL EXCEPTION: main\nE AndroidRuntime: java.lang.RuntimeException: Failed to find "
                  "the generated JsonAdapter class for class com.trailmap.api.Route\nE AndroidRuntime: Caused by: "
                  "java.lang.ClassNotFoundException: com.trailmap.api.RouteJsonAdapter"),
             say("R8 removed the codegen adapters: they are only reached by reflection."),
             edit("app/proguard-rules.pro", "# app rules",
                  "-keep class com.trailmap.api.**JsonAdapter { <init>(...); }\n-keepnames @com.squareup.moshi.JsonClass class *"),
             bash("./gradlew assembleRelease && adb install -r app/build/outputs/apk/release/app-release.apk", "Success"),
             commit("Keep generated Moshi JsonAdapters from R8", "88e0f6c"),
             answer="R8 stripped the Moshi codegen `RouteJsonAdapter` (found only by reflection), so release builds "
                    "crashed with ClassNotFoundException. Added keep rules for `**JsonAdapter` and `@JsonClass` classes."),
    ]),
    Spec("and-duplicate-class", AND, "2026-07-01 09:40", "Duplicate class kotlin-stdlib-jdk8 after dependency bump", [
        turn("After renovate bumped the dependencies the build fails with Duplicate class errors",
             bash("./gradlew :app:checkDebugDuplicateClasses",
                  "Execution failed for task ':app:checkDebugDuplicateClasses'.\n> Duplicate class "
                  "kotlin.collections.jdk8.CollectionsJDK8Kt found in modules kotlin-stdlib-1.9.22 "
                  "(org.jetbrains.kotlin:kotlin-stdlib:1.9.22) and kotlin-stdlib-jdk8-1.7.10 "
                  "(org.jetbrains.kotlin:kotlin-stdlib-jdk8:1.7.10)", exit=1),
             say("An old library pulls kotlin-stdlib-jdk8 1.7.10; since 1.8 the jdk7/jdk8 classes live in kotlin-stdlib."),
             edit("app/build.gradle.kts", "dependencies {", "dependencies {\n    implementation(platform(\"org.jetbrains.kotlin:kotlin-bom:1.9.22\"))"),
             bash("./gradlew assembleDebug", "BUILD SUCCESSFUL in 1m 58s"),
             commit("Align Kotlin stdlib artifacts with the kotlin-bom (duplicate jdk8 classes)", "3fe2c11"),
             answer="The duplicate classes came from kotlin-stdlib-jdk8 1.7.10 next to kotlin-stdlib 1.9.22. Importing "
                    "the kotlin-bom aligns all stdlib artifacts to 1.9.22 and the duplicates go away."),
    ]),
    Spec("and-espresso-flaky", AND, "2026-07-10 11:20", "Flaky MapScreenTest on the CI emulator", [
        turn("MapScreenTest fails randomly on the CI emulator, NoMatchingViewException",
             bash("./gradlew connectedDebugAndroidTest -Pandroid.testInstrumentationRunnerArguments.class=com.trailmap.MapScreenTest",
                  "com.trailmap.MapScreenTest > showsRoutes FAILED\n    androidx.test.espresso.NoMatchingViewException: "
                  "No views in hierarchy found matching: with id: com.trailmap:id/route_list", exit=1),
             say("The route list appears after a network call and a fade-in animation; the test checks before either ends."),
             edit("app/src/androidTest/java/com/trailmap/MapScreenTest.kt", "onView(withId(R.id.route_list))",
                  "IdlingRegistry.getInstance().register(routesIdling)\nonView(withId(R.id.route_list))"),
             edit(".github/workflows/android.yml", "disable-animations: false", "disable-animations: true"),
             commit("MapScreenTest: wait for routes with an IdlingResource; no animations on CI", "6b7c9d0"),
             answer="The test raced the routes request and the fade-in. It now registers an IdlingResource around "
                    "the routes call and the CI emulator runs with animations off; 30 runs in a row passed."),
    ]),
    Spec("and-fgs-location", AND, "2026-08-07 14:05", "Android 14 crash: foreground service type location", [
        turn("Recording a hike crashes on Android 14 devices as soon as tracking starts",
             bash("adb logcat -d | grep -B1 -A3 SecurityException",
                  "E AndroidRuntime: java.lang.SecurityException: Starting FGS with type location callerApp=ProcessRecord"
                  "{com.trailmap} targetSDK=34 requires permissions: all of the permissions allOf=true "
                  "[android.permission.FOREGROUND_SERVICE_LOCATION] any of the permissions allOf=false "
                  "[android.permission.ACCESS_COARSE_LOCATION, android.permission.ACCESS_FINE_LOCATION]"),
             edit("app/src/main/AndroidManifest.xml", "<service android:name=\".tracking.TrackingService\"",
                  "<uses-permission android:name=\"android.permission.FOREGROUND_SERVICE_LOCATION\" />\n"
                  "<service android:name=\".tracking.TrackingService\" android:foregroundServiceType=\"location\""),
             commit("Declare FOREGROUND_SERVICE_LOCATION and the location service type (targetSdk 34)", "a90d2e4"),
             answer="With targetSdk 34 a location foreground service needs `FOREGROUND_SERVICE_LOCATION` and "
                    "`foregroundServiceType=\"location\"`, and must start after the location permission is granted. "
                    "Both are declared now; the service starts only once fine location is granted."),
    ]),
    Spec("and-compose-preview", AND, "2026-08-28 10:50", "Compose previews broken after Kotlin update", [
        turn("Compose previews don't render anymore in Android Studio, just a render problem",
             say("The preview shows `java.lang.NoSuchMethodError: 'void androidx.compose.runtime.ComposerKt."
                 "sourceInformationMarkerStart'`: the Compose compiler does not match Kotlin 1.9.22."),
             edit("app/build.gradle.kts", "kotlinCompilerExtensionVersion = \"1.5.3\"", "kotlinCompilerExtensionVersion = \"1.5.10\""),
             bash("./gradlew assembleDebug", "BUILD SUCCESSFUL in 2m 02s"),
             commit("Compose compiler 1.5.10 for Kotlin 1.9.22 (previews failed with NoSuchMethodError)", "f1e2d3c"),
             answer="Kotlin 1.9.22 needs Compose compiler 1.5.10; with 1.5.3 the previews failed with "
                    "NoSuchMethodError. Bumped it; previews render after a rebuild and Invalidate Caches."),
    ]),
    Spec("and-offline-tiles", AND, "2026-09-18 09:00", "Offline map tile caching", [
        turn("Let's add offline map tiles: users pick a region and we download tiles for zoom 10-15",
             write("app/src/main/java/com/trailmap/offline/TileDownloadWorker.kt", "class TileDownloadWorker ..."),
             write("app/src/main/java/com/trailmap/offline/TileDao.kt", "@Dao interface TileDao ..."),
             bash("./gradlew testDebugUnitTest", "BUILD SUCCESSFUL in 1m 12s"),
             commit("Offline regions: tile download worker and Room tile store", "0c4f5aa"),
             answer="Users can select a region; a WorkManager job downloads z10-15 tiles into Room (blobs keyed by "
                    "z/x/y), with a size estimate before starting and a 500 MB cap."),
    ]),
    Spec("and-kotlin-daemon-2", AND, "2026-10-02 16:25", "Kotlin daemon fails again after JDK 21 switch", [
        turn("the build on my new laptop dies with kotlin daemon errors, jdk 21",
             bash("./gradlew assembleDebug",
                  "e: Could not connect to Kotlin compile daemon\nException in thread \"main\" java.lang.OutOfMemoryError: "
                  "Metaspace\nThe daemon has terminated unexpectedly on startup attempt #2 with error code: 0", exit=1),
             bash("cat ~/.gradle/gradle.properties", "org.gradle.jvmargs=-Xmx1g\nkotlin.daemon.jvmargs=-Xmx1g"),
             say("Your user-level ~/.gradle/gradle.properties overrides the project's daemon settings with 1 GB."),
             bash("sed -i '/kotlin.daemon.jvmargs/d;/org.gradle.jvmargs/d' ~/.gradle/gradle.properties && ./gradlew --stop && ./gradlew assembleDebug",
                  "BUILD SUCCESSFUL in 3m 05s"),
             answer="Same Metaspace crash of the Kotlin compile daemon as in June, but caused by ~/.gradle/"
                    "gradle.properties on the new laptop, which overrode the project's `kotlin.daemon.jvmargs` with "
                    "-Xmx1g. Removed those lines; the project values (3 GB, 1 GB metaspace) apply again."),
    ]),
    Spec("and-signing", AND, "2026-10-20 11:30", "Release signing from CI secrets", [
        turn("Set up release signing so CI can build a signed bundle from the keystore secret",
             edit("app/build.gradle.kts", "buildTypes {", "signingConfigs { create(\"release\") { storeFile = file(System.getenv(\"KEYSTORE_PATH\")) } }\nbuildTypes {"),
             edit(".github/workflows/android.yml", "- run: ./gradlew bundleRelease",
                  "- run: echo \"$KEYSTORE_B64\" | base64 -d > release.jks\n- run: ./gradlew bundleRelease"),
             commit("Sign release bundles in CI from the KEYSTORE_B64 secret", "b3c8e21"),
             answer="CI decodes the `KEYSTORE_B64` secret to release.jks and signs `bundleRelease` with the passwords "
                    "from secrets; local builds without the variables stay unsigned."),
    ]),

    # ---------------------------------------------------------------- infra (Terraform, Kubernetes, Ansible, Postgres)
    Spec("inf-billing-db-lag", INF, "2026-06-09 07:55", "billing-db-2 replication lag", [
        turn("billing-db-2 is lagging, grafana shows the replica 6 minutes behind the primary",
             bash("psql -h billing-db-1 -c \"select client_addr, state, write_lag, flush_lag, replay_lag from pg_stat_replication\"",
                  " client_addr | state     | write_lag       | flush_lag       | replay_lag\n 10.4.2.12   | streaming "
                  "| 00:00:00.003    | 00:00:00.004    | 00:06:12.551"),
             bash("psql -h billing-db-2 -c \"select pid, now() - query_start as age, query from pg_stat_activity where state = 'active' order by age desc limit 1\"",
                  "  pid  |   age    | query\n 48211 | 01:47:03 | select ... from invoice_lines join ... (finance monthly report)"),
             say("WAL arrives in time (write/flush lag ms) but replay waits: the finance report has run on the replica for "
                 "1h47 and replay is paused on the conflicting cleanup; max_standby_streaming_delay is -1 (wait forever)."),
             edit("postgres/billing/replica.conf", "max_standby_streaming_delay = -1", "max_standby_streaming_delay = 30s\nhot_standby_feedback = off"),
             edit("terraform/dns.tf", "reports.billing -> billing-db-2", "reports.billing -> billing-db-3"),
             bash("ansible-playbook -l billing-db-2 playbooks/postgres.yml --tags config", "PLAY RECAP billing-db-2 : ok=6 changed=1"),
             commit("billing-db-2: cap standby delay at 30s; reports go to billing-db-3", "7a3e0d5"),
             answer="The lag was replay lag, not network: a 1h47 finance report on billing-db-2 blocked WAL replay "
                    "because max_standby_streaming_delay was -1. Now 30s (queries that block replay longer are "
                    "cancelled), and the reports DNS name points at billing-db-3. Lag is back under a second."),
    ]),
    Spec("inf-billing-db-3", INF, "2026-06-30 10:10", "Create billing-db-3 read replica for reports", [
        turn("Create billing-db-3 as a read replica for the finance reports, same size as billing-db-2",
             write("terraform/billing_db_3.tf", "module \"billing_db_3\" { source = \"./modules/pg-replica\" ... }"),
             bash("terraform plan -target=module.billing_db_3", "Plan: 6 to add, 0 to change, 0 to destroy."),
             bash("terraform apply -target=module.billing_db_3 -auto-approve", "Apply complete! Resources: 6 added, 0 changed, 0 destroyed."),
             bash("ansible-playbook -l billing-db-3 playbooks/postgres.yml", "PLAY RECAP billing-db-3 : ok=31 changed=24"),
             commit("Add billing-db-3 (read replica for finance reports)", "2d8f6b1"),
             answer="billing-db-3 is up as a streaming replica of billing-db-1 (r6i.2xlarge, 2 TB gp3), registered in "
                    "Grafana and the backup checks. Point the reports at it once it has caught up."),
    ]),
    Spec("inf-cert-renewal", INF, "2026-07-08 08:20", "cert-manager fails to renew api certificate", [
        turn("cert-manager didn't renew the certificate for api.example.com, it expires in 5 days",
             bash("kubectl describe challenge -n ingress | grep -A4 Reason",
                  "Reason:      Waiting for HTTP-01 challenge propagation: wrong status code '404', expected '200'"),
             bash("kubectl get ingress -A | grep acme", "ingress   cm-acme-http-solver-x7k2p   <none>   api.example.com"),
             say("The solver ingress has no ingressClassName; since the controller upgrade only ingresses with class nginx are served."),
             edit("k8s/cert-manager/cluster-issuer.yaml", "http01:\n        ingress: {}", "http01:\n        ingress:\n          ingressClassName: nginx"),
             bash("kubectl apply -f k8s/cert-manager/cluster-issuer.yaml && kubectl delete challenge -n ingress --all",
                  "clusterissuer.cert-manager.io/letsencrypt configured"),
             commit("ClusterIssuer: HTTP-01 solver ingresses use class nginx", "b6d1c44"),
             answer="The HTTP-01 challenge got 404 because the solver's ingress had no class and the upgraded "
                    "ingress-nginx ignores those. The ClusterIssuer now sets `ingressClassName: nginx`; the certificate "
                    "renewed within two minutes."),
    ]),
    Spec("inf-tf-state-lock", INF, "2026-07-22 18:05", "Terraform state lock stuck after cancelled CI run", [
        turn("terraform plan says the state is locked, but nobody is running anything",
             bash("terraform plan",
                  "Error: Error acquiring the state lock\n\nError message: ConditionalCheckFailedException: The conditional "
                  "request failed\nLock Info:\n  ID:        6f0c2e1a-93b5-8d1e-4c27-0a9b8e7d6c5f\n  Path:      "
                  "acme-tf-state/prod/terraform.tfstate\n  Who:       runner@gha-8812\n  Created:   2026-07-22 15:41:09 UTC", exit=1),
             say("The lock belongs to GitHub Actions run 8812, which was cancelled mid-apply; no job is running now."),
             bash("terraform force-unlock -force 6f0c2e1a-93b5-8d1e-4c27-0a9b8e7d6c5f", "Terraform state has been successfully unlocked!"),
             write("docs/runbooks/terraform-state-lock.md", "# Stuck state lock\n..."),
             commit("Runbook for stale Terraform state locks from cancelled CI runs", "c9a7e35"),
             answer="The DynamoDB lock was left by the cancelled CI run 8812. After checking that no runner was still "
                    "applying, `terraform force-unlock` released it. The runbook is in docs/runbooks; the workflow now "
                    "uses a concurrency group so a cancel waits for terraform to exit."),
    ]),
    Spec("inf-ingress-502", INF, "2026-08-12 13:45", "Intermittent 502 from nginx ingress on checkout", [
        turn("We see intermittent 502s on /checkout through the ingress, maybe 0.5% of requests",
             bash("kubectl logs -n ingress deploy/ingress-nginx-controller --since=30m | grep ' 502 ' | head -2",
                  "2026/08/12 13:31:02 [error] 41#41: *8812 upstream prematurely closed connection while reading response "
                  "header from upstream, client: 10.0.3.4, server: shop.example.com, request: \"POST /checkout HTTP/1.1\""),
             say("gunicorn's keep-alive timeout is 2 s and nginx keeps idle upstream connections for 60 s, so nginx reuses "
                 "connections gunicorn has just closed."),
             edit("k8s/storefront/deployment.yaml", "--keep-alive 2", "--keep-alive 75"),
             edit("k8s/ingress/configmap.yaml", "upstream-keepalive-timeout: \"60\"", "upstream-keepalive-timeout: \"60\"\n  # must stay below gunicorn --keep-alive"),
             commit("gunicorn keep-alive 75s, above nginx's upstream keepalive (502 on reused connections)", "4e0a9f8"),
             answer="The 502s were `upstream prematurely closed connection`: nginx reused keep-alive connections that "
                    "gunicorn had closed after 2 s. gunicorn now keeps them 75 s, longer than nginx's 60 s; no 502 in "
                    "the last hour."),
    ]),
    Spec("inf-disk-pressure", INF, "2026-09-01 06:40", "Pod evictions on pool-b: ephemeral storage", [
        turn("pods on node pool-b keep getting evicted this morning",
             bash("kubectl get events -A --field-selector reason=Evicted | tail -3",
                  "payments   Evicted   pod/payments-worker-5c   The node was low on resource: ephemeral-storage. Threshold "
                  "quantity: 10%, available: 7%. Container worker was using 14Gi, request is 0"),
             say("The workers write WeasyPrint temp files to the container filesystem and nothing requests ephemeral storage."),
             edit("k8s/payments/worker.yaml", "resources:", "resources:\n  requests:\n    ephemeral-storage: 2Gi\n  limits:\n    ephemeral-storage: 4Gi"),
             edit("terraform/node_pools.tf", "disk_size_gb = 50", "disk_size_gb = 100"),
             commit("pool-b: 100 GB disks; payments workers request ephemeral storage", "8c2b7e6"),
             answer="Evictions were ephemeral-storage pressure: the payments workers left 14 GiB of temp PDFs. They "
                    "now request 2 GiB / limit 4 GiB of ephemeral storage and clean their tmp dir; pool-b disks are "
                    "100 GB."),
    ]),
    Spec("inf-alert-noise", INF, "2026-09-16 09:15", "HighCPU alert paging at night", [
        turn("The HighCPU alert paged me 6 times last night for the batch nodes, make it less noisy",
             read("monitoring/alerts/node.yaml", "- alert: HighCPU\n  expr: node_cpu_busy > 0.9\n  for: 2m"),
             edit("monitoring/alerts/node.yaml", "for: 2m", "for: 15m\n  labels:\n    severity: ticket"),
             edit("monitoring/alertmanager.yaml", "routes:", "routes:\n  - matchers: [nodepool=\"batch\"]\n    receiver: ticket-queue"),
             commit("HighCPU: 15 minutes, tickets for the batch pool instead of pages", "e3f5a10"),
             answer="Batch nodes run hot by design between 01:00 and 04:00. HighCPU now needs 15 minutes and the "
                    "batch pool routes to the ticket queue instead of PagerDuty."),
    ]),
    Spec("inf-ansible-bastion", INF, "2026-10-06 15:50", "Ansible cannot reach the new bastion", [
        turn("ansible can't connect to the hosts behind the new bastion, permission denied",
             bash("ansible -m ping billing-db-1",
                  "billing-db-1 | UNREACHABLE! => {\"changed\": false, \"msg\": \"Failed to connect to the host via ssh: "
                  "ops@bastion-2: Permission denied (publickey).\", \"unreachable\": true}", exit=4),
             say("bastion-2 only accepts ed25519 keys and the ProxyJump uses the old RSA key from ansible.cfg."),
             edit("ansible.cfg", "-i ~/.ssh/ops_rsa", "-i ~/.ssh/ops_ed25519"),
             bash("ansible -m ping billing-db-1", "billing-db-1 | SUCCESS => {\"ping\": \"pong\"}"),
             commit("ansible: jump through bastion-2 with the ed25519 key", "1b9c4d7"),
             answer="bastion-2 refuses RSA keys; the ProxyJump in ansible.cfg still named ops_rsa. It now uses "
                    "ops_ed25519 and every host answers ping."),
    ]),
    Spec("inf-billing-db-lag-2", INF, "2026-11-04 08:10", "billing-db-2 lag again: autovacuum on invoice_lines", [
        turn("billing-db-2 replication lag alert is firing again, 90 seconds and climbing",
             bash("psql -h billing-db-1 -c \"select replay_lag from pg_stat_replication where client_addr = '10.4.2.12'\"",
                  " replay_lag\n 00:01:34.200"),
             bash("psql -h billing-db-1 -c \"select relname, phase from pg_stat_progress_vacuum join pg_class on relid = oid\"",
                  "   relname    |      phase\n invoice_lines | vacuuming indexes"),
             say("An aggressive anti-wraparound autovacuum on invoice_lines generates WAL faster than the replica's "
                 "single-threaded replay on its gp2 disk."),
             edit("terraform/billing_db.tf", "volume_type = \"gp2\"", "volume_type = \"gp3\"\n  iops = 12000"),
             commit("billing-db-2: gp3 with 12k IOPS so replay keeps up with vacuum WAL", "5f8e2c0"),
             answer="This lag came from WAL volume, not a blocking query: the anti-wraparound vacuum of invoice_lines "
                    "outran replay on billing-db-2's gp2 volume. Moved it to gp3 at 12k IOPS; lag is back to ~1 s."),
    ]),

    # ---------------------------------------------------------------- storefront-web (React, Vite, Jest, Playwright)
    Spec("web-hydration", WEB, "2026-06-12 11:00", "Hydration mismatch on product page dates", [
        turn("The product page logs hydration mismatch warnings in the console",
             bash("npm run dev -- --port 5174 & sleep 5; curl -s localhost:5174/p/1234 > /dev/null", ""),
             say("Console: `Warning: Text content did not match. Server: \"12/3/2026\" Client: \"3.12.2026\"`: the "
                 "delivery date is formatted with the server's en-US locale and the browser's de-DE."),
             edit("src/components/DeliveryDate.tsx", "date.toLocaleDateString()",
                  "formatDate(date, { locale: shopLocale, timeZone: 'Europe/Berlin' })"),
             commit("Format delivery dates with the shop locale on both server and client", "a1d7e33"),
             answer="The mismatch was the delivery date: `toLocaleDateString()` uses the server's locale during SSR and "
                    "the visitor's in the browser. It now formats with the shop's locale and zone on both sides."),
    ]),
    Spec("web-vite-hmr-proxy", WEB, "2026-06-26 09:35", "Vite HMR websocket fails behind docker nginx", [
        turn("Hot reload doesn't work when I run the dev server behind the docker compose nginx",
             say("The browser console shows `[vite] failed to connect to websocket (Error: WebSocket closed without opened.)`: "
                 "the client connects to port 5173 but only nginx's 8080 is published."),
             edit("vite.config.ts", "server: {", "server: {\n    hmr: { clientPort: 8080, path: '/__vite_hmr' },"),
             edit("docker/nginx.conf", "location / {", "location /__vite_hmr {\n    proxy_http_version 1.1;\n    proxy_set_header Upgrade $http_upgrade;\n    proxy_set_header Connection \"upgrade\";\n    proxy_pass http://web:5173;\n  }\n  location / {"),
             commit("Vite HMR through the compose nginx: clientPort 8080 and an upgrade location", "6c0e4b2"),
             answer="HMR connected to 5173, which compose does not publish. `server.hmr.clientPort = 8080` with a path "
                    "that nginx proxies with the Upgrade headers makes it work through the proxy."),
    ]),
    Spec("web-jest-esm", WEB, "2026-07-07 14:20", "Jest fails on lodash-es ESM imports", [
        turn("Jest started failing everywhere after I added lodash-es",
             bash("npx jest src/utils",
                  "FAIL src/utils/price.test.ts\n  ● Test suite failed to run\n    Jest encountered an unexpected token\n"
                  "    SyntaxError: Cannot use import statement outside a module\n      > 1 | import { debounce } from 'lodash-es';", exit=1),
             edit("jest.config.ts", "transformIgnorePatterns: ['/node_modules/']", "transformIgnorePatterns: ['/node_modules/(?!lodash-es)']"),
             bash("npx jest", "Tests:       212 passed, 212 total"),
             commit("jest: transform lodash-es (ESM only)", "d9e3f71"),
             answer="lodash-es ships only ES modules and Jest skipped transforming node_modules, hence `Cannot use "
                    "import statement outside a module`. transformIgnorePatterns now lets Babel transform lodash-es."),
    ]),
    Spec("web-bundle-size", WEB, "2026-07-29 10:30", "Bundle size regression of 300 KB", [
        turn("the main bundle grew by 300 KB since last week, size-limit is failing the PR checks",
             bash("npx vite-bundle-visualizer --json | jq '.[0:3]'", "[{\"name\":\"moment/locale\",\"size\":231022},{\"name\":\"lodash\",\"size\":71503}]"),
             say("A new import of moment pulls every locale, and `import _ from 'lodash'` pulls the whole library."),
             edit("src/pages/Orders.tsx", "import moment from 'moment'", "import { format } from 'date-fns'"),
             edit("src/utils/cart.ts", "import _ from 'lodash'", "import groupBy from 'lodash-es/groupBy'"),
             bash("npx size-limit", "  Size limit: 180 kB\n  Size:       171.2 kB gzipped"),
             commit("Drop moment and whole-lodash imports (-298 KB)", "72b1a0e"),
             answer="moment with all its locales (231 KB) and the whole of lodash (72 KB) came in through two imports. "
                    "Replaced with date-fns and a per-function lodash-es import; the bundle is back to 171 KB."),
    ]),
    Spec("web-csp-analytics", WEB, "2026-08-14 16:10", "CSP blocks the analytics inline script", [
        turn("After enabling the CSP header the analytics snippet doesn't load anymore",
             say("Console: `Refused to execute inline script because it violates the following Content Security Policy "
                 "directive: \"script-src 'self'\". Either the 'unsafe-inline' keyword, a hash, or a nonce is required`."),
             edit("server/csp.ts", "script-src 'self'", "script-src 'self' 'nonce-${nonce}' https://plausible.io"),
             edit("server/render.tsx", "<script>", "<script nonce={nonce}>"),
             commit("CSP: per-request nonce for the analytics snippet", "e0c7d58"),
             answer="The inline analytics snippet was blocked by `script-src 'self'`. Each response now gets a nonce "
                    "that the CSP header and the snippet's script tag share; plausible.io is allowed for the loader."),
    ]),
    Spec("web-i18n-missing", WEB, "2026-09-04 12:00", "Missing German translation keys", [
        turn("German users see raw keys like checkout.shipping.express_hint instead of text",
             bash("npx i18next-parser --fail-on-untranslated-strings", "[de] 14 missing keys: checkout.shipping.express_hint, ...", exit=1),
             write("scripts/check-i18n.ts", "fails CI when a key is missing in any locale"),
             edit("src/i18n.ts", "fallbackLng: false", "fallbackLng: 'en'"),
             commit("i18n: English fallback and a CI check for missing keys", "b4a2f90"),
             answer="14 keys were missing in de.json. English is the fallback now, and `npm run check:i18n` fails CI "
                    "when a locale lacks a key."),
    ]),
    Spec("web-playwright-checkout", WEB, "2026-09-25 17:30", "Playwright checkout test times out in CI", [
        turn("The playwright checkout e2e times out in CI waiting for the pay button",
             bash("npx playwright test e2e/checkout.spec.ts",
                  "  1) e2e/checkout.spec.ts:14:3 › pays with a card\n    TimeoutError: page.waitForSelector: Timeout "
                  "30000ms exceeded.\n    waiting for locator('[data-test=pay-button]') to be visible", exit=1),
             say("The CI environment has the new-checkout flag on, where the button is data-test=place-order."),
             edit("e2e/checkout.spec.ts", "[data-test=pay-button]", "getByRole('button', { name: /pay|place order/i })"),
             commit("checkout e2e: find the pay button by role (new-checkout flag renames it)", "3d9b8c6"),
             answer="The new-checkout flag is on in CI and renames the button, so the selector never matched. The test "
                    "finds it by role and name now, under both flag states."),
    ]),
    Spec("web-address-autocomplete", WEB, "2026-10-09 10:15", "Address autocomplete in checkout", [
        turn("Add address autocomplete to the checkout form using the places API",
             write("src/components/AddressAutocomplete.tsx", "export function AddressAutocomplete() { ... }"),
             bash("npx jest src/components/AddressAutocomplete", "Tests:       5 passed, 5 total"),
             commit("Checkout: address autocomplete (debounced places lookup)", "8a7f6e5"),
             answer="The street field suggests addresses after three characters (debounced 250 ms); picking one fills "
                    "street, postcode and city. The API key is read from PUBLIC_PLACES_KEY."),
    ]),

    # ---------------------------------------------------------------- data-pipeline (Airflow, Spark, dbt, S3)
    Spec("dp-dag-import-timeout", DATA, "2026-06-18 08:00", "Airflow DagBag import timeout for orders_daily", [
        turn("Airflow shows a broken DAG banner for orders_daily: import timeout",
             bash("airflow dags list-import-errors",
                  "filepath                              | error\n/opt/airflow/dags/orders_daily.py | "
                  "airflow.exceptions.AirflowTaskTimeout: DagBag import timeout for /opt/airflow/dags/orders_daily.py "
                  "after 30.0s."),
             read("dags/orders_daily.py", "REGIONS = [r[0] for r in PostgresHook('warehouse').get_records('select region from regions')]"),
             say("The DAG file queries the warehouse at import time; the scheduler parses it every 30 s and the query takes 40 s."),
             edit("dags/orders_daily.py", "REGIONS = [r[0] for r in PostgresHook", "REGIONS = Variable.get('order_regions', deserialize_json=True)  # was PostgresHook"),
             commit("orders_daily: regions from an Airflow Variable, no warehouse query at parse time", "0b3c7d2"),
             answer="The DAG ran a 40 s warehouse query at module level, so parsing hit the 30 s DagBag import timeout. "
                    "The regions come from the `order_regions` Variable now (refreshed by a small daily DAG)."),
    ]),
    Spec("dp-spark-skew", DATA, "2026-07-03 19:10", "Spark sessionize job executor OOM from skew", [
        turn("The sessionize spark job keeps failing, executors get killed for memory",
             bash("yarn logs -applicationId application_1719_0442 | grep -m2 -i killed",
                  "ExecutorLostFailure (executor 17 exited caused by one of the running tasks) Reason: Container killed by "
                  "YARN for exceeding memory limits. 14.2 GB of 14 GB physical memory used."),
             say("One task of the groupBy(user_id) stage holds 38% of the rows: anonymous events have user_id null."),
             edit("jobs/sessionize.py", ".groupBy('user_id')", ".withColumn('user_key', F.coalesce('user_id', F.concat(F.lit('anon-'), F.col('device_id'))))\n    .groupBy('user_key')"),
             commit("sessionize: key anonymous events by device, not one null user (executor OOM)", "6e1a9b4"),
             answer="The executor OOM was skew: all anonymous events share `user_id = null` and landed in one task. "
                    "Anonymous events are keyed by device id now; the largest task holds 0.4% of the rows and the job "
                    "finishes in 22 minutes."),
    ]),
    Spec("dp-parquet-schema", DATA, "2026-07-24 10:45", "Parquet schema mismatch reading events", [
        turn("Reading the events table fails with a parquet column conversion error for partitions after July 20",
             bash("spark-submit jobs/daily_kpis.py --date 2026-07-21",
                  "org.apache.spark.sql.execution.QueryExecutionException: Parquet column cannot be converted in file "
                  "s3://lake/events/dt=2026-07-21/part-0001.parquet. Column: [duration_ms], Expected: bigint, Found: INT32", exit=1),
             say("The ingestion service switched duration_ms to int32 on July 20; older files have int64."),
             edit("jobs/common/read.py", "spark.read.parquet(path)", "spark.read.schema(EVENTS_SCHEMA).parquet(path)"),
             edit("ingest/schema.py", "pa.int32()", "pa.int64()"),
             commit("events: duration_ms stays int64; readers use the declared schema", "a4d8e19"),
             answer="Files written since July 20 have duration_ms as INT32 while the table says bigint. Ingestion "
                    "writes int64 again, the July 20-24 partitions were rewritten, and readers pass the declared schema."),
    ]),
    Spec("dp-s3-slowdown", DATA, "2026-08-21 03:30", "S3 SlowDown errors in nightly export", [
        turn("the nightly export to s3 failed with SlowDown errors",
             bash("grep -m2 SlowDown logs/export-2026-08-21.log",
                  "botocore.exceptions.ClientError: An error occurred (SlowDown) when calling the PutObject operation "
                  "(reached max retries: 4): Please reduce your request rate."),
             say("64 writers put small files under one prefix `exports/2026-08-21/`; S3 allows ~3,500 PUT/s per prefix."),
             edit("jobs/export.py", "key = f'exports/{day}/{name}'", "key = f'exports/{day}/{shard:02d}/{name}'"),
             edit("jobs/common/s3.py", "Config(retries={'max_attempts': 4})", "Config(retries={'max_attempts': 10, 'mode': 'adaptive'})"),
             commit("export: 16 key prefixes per day and adaptive retries (S3 SlowDown)", "c7b0f31"),
             answer="S3 throttled PutObject with SlowDown because every file went under one prefix. Files spread over "
                    "16 shard prefixes now, and boto3 uses adaptive retries with 10 attempts."),
    ]),
    Spec("dp-dbt-duplicates", DATA, "2026-09-10 09:20", "Duplicate rows in dbt incremental fct_orders", [
        turn("dbt test unique_fct_orders_order_id fails, there are duplicate orders in fct_orders",
             bash("dbt test -s fct_orders",
                  "Failure in test unique_fct_orders_order_id (models/marts/schema.yml)\n  Got 1832 results, configured to fail if != 0", exit=1),
             read("models/marts/fct_orders.sql", "{{ config(materialized='incremental') }}\nselect ... where updated_at > (select max(updated_at) from {{ this }})"),
             say("Incremental without unique_key appends updated orders instead of merging them."),
             edit("models/marts/fct_orders.sql", "materialized='incremental'", "materialized='incremental', unique_key='order_id', incremental_strategy='merge'"),
             bash("dbt run -s fct_orders --full-refresh && dbt test -s fct_orders", "Completed successfully\nDone. PASS=4 WARN=0 ERROR=0"),
             commit("fct_orders: merge on order_id (updated orders were appended twice)", "d2e6a87"),
             answer="fct_orders had no unique_key, so every updated order was appended again: 1,832 duplicates. It "
                    "merges on order_id now; a full refresh cleaned the table and the uniqueness test passes."),
    ]),
    Spec("dp-dst-partition", DATA, "2026-10-27 07:30", "Missing daily partition on DST change", [
        turn("the daily_kpis partition for October 25 is missing and the dashboard shows a gap",
             bash("aws s3 ls s3://lake/kpis/ | tail -4", "PRE dt=2026-10-23/\nPRE dt=2026-10-24/\nPRE dt=2026-10-26/"),
             say("The DAG computes the partition date from local Europe/Berlin midnight minus 24 hours; on the 25-hour "
                 "DST day that lands on the 24th twice."),
             edit("dags/daily_kpis.py", "(midnight_local - timedelta(hours=24)).date()", "data_interval_start.in_timezone('Europe/Berlin').date()"),
             bash("airflow dags backfill daily_kpis -s 2026-10-25 -e 2026-10-25", "Backfill done."),
             commit("daily_kpis: partition date from data_interval_start (DST day was skipped)", "9f4c1b0"),
             answer="On the DST change day (25 hours) `midnight - 24h` gave the previous date again, so October 25 was "
                    "never written. The date comes from the DAG run's data interval now; the partition was backfilled."),
    ]),
    Spec("dp-quality-checks", DATA, "2026-11-06 11:00", "Data quality checks for customers", [
        turn("Add data quality checks for the customers table: no null emails, country codes valid",
             write("models/staging/customers.yml", "tests: not_null email, accepted_values country"),
             bash("dbt test -s stg_customers", "Done. PASS=5 WARN=1 ERROR=0"),
             commit("stg_customers: not_null email, ISO country codes, unique customer_id", "e5a0b7c"),
             answer="stg_customers has tests for not-null email, unique customer_id and ISO 3166 country codes; one "
                    "warning: 12 customers have country 'UK' (should be GB), left as a warning for now."),
    ]),

    # ---------------------------------------------------------------- logfmt (Rust CLI)
    Spec("rs-musl-openssl", RS, "2026-06-20 20:10", "musl cross-compile fails on openssl-sys", [
        turn("cross compiling logfmt for x86_64-unknown-linux-musl fails in the openssl build script",
             bash("cargo build --release --target x86_64-unknown-linux-musl",
                  "error: failed to run custom build command for `openssl-sys v0.9.93`\n  Could not find directory of "
                  "OpenSSL installation, and this `-sys` crate cannot proceed without this knowledge.", exit=101),
             say("Only reqwest needs OpenSSL, for TLS; rustls avoids the C dependency entirely."),
             edit("Cargo.toml", "reqwest = { version = \"0.12\", features = [\"json\"] }",
                  "reqwest = { version = \"0.12\", default-features = false, features = [\"json\", \"rustls-tls\"] }"),
             bash("cargo build --release --target x86_64-unknown-linux-musl", "Finished `release` profile [optimized] target(s) in 48.12s"),
             commit("reqwest with rustls: static musl builds without OpenSSL", "1f2e3d4"),
             answer="openssl-sys cannot find OpenSSL for the musl target. Switching reqwest to `rustls-tls` (no default "
                    "features) removes OpenSSL; the static musl binary builds and runs on Alpine."),
    ]),
    Spec("rs-windows-paths", RS, "2026-07-11 12:30", "Snapshot tests fail on Windows path separators", [
        turn("the insta snapshot tests fail on the windows CI runner",
             bash("cargo test", "---- snapshots::config_paths stdout ----\n-old snapshot\n+new results\n-config: ~/.config/logfmt/config.toml\n"
                  "+config: ~\\.config\\logfmt\\config.toml\ntest result: FAILED. 41 passed; 1 failed", exit=101),
             edit("tests/snapshots.rs", "insta::assert_snapshot!(out)", "insta::assert_snapshot!(out.replace('\\\\', \"/\"))"),
             commit("snapshots: normalise path separators (Windows)", "2a3b4c5"),
             answer="The snapshot printed backslashes on Windows. Paths are normalised to forward slashes before the "
                    "snapshot; the Windows job passes."),
    ]),
    Spec("rs-release-workflow", RS, "2026-08-02 10:00", "Release workflow with cargo-dist", [
        turn("Set up a release workflow: tag push builds binaries for linux, mac and windows and a homebrew formula",
             bash("cargo dist init --yes", "added [workspace.metadata.dist] to Cargo.toml\ncreated .github/workflows/release.yml"),
             commit("Release with cargo-dist: binaries for 5 targets and a Homebrew formula", "3b4c5d6"),
             answer="`cargo dist` builds linux (gnu, musl), macOS (x86_64, arm64) and Windows binaries on tag push, "
                    "attaches them with checksums to the GitHub release and updates the Homebrew tap."),
    ]),
    Spec("rs-utf8-panic", RS, "2026-09-13 22:15", "Panic on non-UTF-8 input (char boundary)", [
        turn("logfmt panics on some nginx logs with weird bytes",
             bash("printf 'msg=caf\\xe9 level=info\\n' | cargo run -q",
                  "thread 'main' panicked at src/parse.rs:88:23:\nbyte index 5 is not a char boundary; it is inside 'é' "
                  "(bytes 4..6) of `café level=info`", exit=101),
             say("The parser slices the line by byte offsets found in a lossy copy, then indexes the original."),
             edit("src/parse.rs", "let line = std::str::from_utf8(buf)?;", "let line = String::from_utf8_lossy(buf);"),
             write("tests/non_utf8.rs", "#[test] fn latin1_bytes_do_not_panic() { ... }"),
             commit("parse: slice the same lossy string we scanned (char boundary panic)", "4c5d6e7"),
             answer="The panic (`byte index 5 is not a char boundary`) came from scanning a lossy copy but slicing the "
                    "original bytes. The parser works on one lossy string now; invalid bytes show as U+FFFD."),
    ]),
    Spec("rs-clippy-180", RS, "2026-10-16 18:40", "Clippy warnings after Rust 1.80", [
        turn("CI fails on clippy after the toolchain bump to 1.80",
             bash("cargo clippy -- -D warnings",
                  "error: this `map_or` can be simplified\n  --> src/filter.rs:41:12\nerror: could not compile `logfmt` "
                  "(bin \"logfmt\") due to 3 previous errors", exit=101),
             edit("src/filter.rs", ".map_or(false, |v| v == want)", ".is_some_and(|v| v == want)"),
             bash("cargo clippy -- -D warnings", "Finished `dev` profile"),
             commit("clippy 1.80: is_some_and instead of map_or(false, ..)", "5d6e7f8"),
             answer="Three `unnecessary_map_or` lints from the new toolchain; replaced with `is_some_and`. Clippy is "
                    "clean with -D warnings."),
    ]),

    # ---------------------------------------------------------------- dotfiles and the home folder
    Spec("dot-zsh-slow", DOT, "2026-07-18 21:00", "zsh startup takes 2 seconds", [
        turn("my shell takes like 2 seconds to open a new tab, profile zshrc",
             bash("zsh -i -c 'zprof' | head -5",
                  "num  calls                time                       self            name\n 1)    1        1180.21  61.02%  "
                  "nvm_auto\n 2)    2         402.88  20.83%  compinit"),
             edit("zsh/zshrc", "source $NVM_DIR/nvm.sh", "nvm() { unset -f nvm; source $NVM_DIR/nvm.sh; nvm \"$@\" }  # lazy"),
             edit("zsh/zshrc", "compinit", "compinit -C  # rebuild the dump once a day"),
             commit("zshrc: lazy nvm and cached compinit (1.9 s -> 0.15 s)", "6e7f8a9"),
             answer="nvm.sh took 1.2 s and compinit 0.4 s. nvm loads on first use now and compinit uses its cached "
                    "dump; a new shell starts in 0.15 s."),
    ]),
    Spec("dot-tmux-clipboard", DOT, "2026-08-09 19:30", "tmux copy does not reach the system clipboard", [
        turn("copying text in tmux copy mode doesn't end up in the mac clipboard",
             edit("tmux/tmux.conf", "set -g mouse on", "set -g mouse on\nset -s set-clipboard on\n"
                  "bind -T copy-mode-vi y send -X copy-pipe-and-cancel 'pbcopy'"),
             bash("tmux source-file ~/.tmux.conf", ""),
             commit("tmux: copy-mode y pipes to pbcopy, OSC 52 on", "7f8a9b0"),
             answer="tmux kept the selection in its own buffer. `y` in copy mode now pipes to pbcopy and OSC 52 is on "
                    "for SSH sessions (iTerm2 needs 'Applications in terminal may access clipboard')."),
    ]),
    Spec("dot-nvim-pyright", DOT, "2026-09-28 20:45", "pyright LSP not starting in neovim", [
        turn("pyright doesn't start in neovim anymore, LspInfo says the client quit",
             bash("nvim --headless -c 'LspLog' -c q 2>&1 | tail -2",
                  "[ERROR][2026-09-28 20:44:10] .../vim/lsp/rpc.lua:734 \"rpc\" \"pyright-langserver\" \"stderr\" "
                  "\"/usr/bin/env: 'node': No such file or directory\"\nClient 1 quit with exit code 127 and signal 0"),
             say("Since nvm is lazy-loaded, node is not on PATH when neovim starts from the dock."),
             edit("nvim/lua/lsp.lua", "cmd = { 'pyright-langserver', '--stdio' }", "cmd = { vim.fn.expand('~/.nvm/versions/node/v20.11.1/bin/node'), pyright_js, '--stdio' }"),
             commit("nvim: start pyright with an explicit node (lazy nvm leaves none on PATH)", "8a9b0c1"),
             answer="pyright-langserver exited 127 because `node` was not on PATH: the lazy nvm loader from the zsh "
                    "change never runs for neovim. The LSP config now starts pyright with node's full path."),
    ]),
    Spec("home-disk-full", HOME, "2026-08-30 12:10", "Laptop disk full: docker and caches", [
        turn("my laptop disk is almost full, find what's eating the space",
             bash("du -sh ~/Library/Containers/com.docker.docker ~/.gradle ~/.cache ~/Library/Caches 2>/dev/null",
                  "78G\t/Users/dev/Library/Containers/com.docker.docker\n21G\t/Users/dev/.gradle\n9.4G\t/Users/dev/.cache\n6.1G\t/Users/dev/Library/Caches"),
             bash("docker system prune -a --volumes -f", "Total reclaimed space: 61.3GB"),
             bash("rm -rf ~/.gradle/caches/transforms-3 ~/.gradle/caches/build-cache-1", ""),
             answer="Docker's VM disk held 78 GB (old images and volumes): `docker system prune -a --volumes` freed "
                    "61 GB. The Gradle transform and build caches gave 17 GB more. 96 GB free now."),
    ]),
    Spec("home-ssh-agent", HOME, "2026-10-23 09:05", "SSH agent forgets keys after reboot", [
        turn("every reboot I have to ssh-add my keys again and git push asks for the passphrase",
             edit("/Users/dev/.ssh/config", "Host *", "Host *\n  AddKeysToAgent yes\n  UseKeychain yes\n  IdentityFile ~/.ssh/id_ed25519"),
             bash("ssh-add --apple-use-keychain ~/.ssh/id_ed25519", "Identity added: /Users/dev/.ssh/id_ed25519 (dev@laptop)"),
             answer="macOS's ssh-agent forgets keys at reboot unless the passphrase is in the Keychain. With "
                    "`UseKeychain yes` and `AddKeysToAgent yes` in ~/.ssh/config and one `ssh-add --apple-use-keychain`, "
                    "the key is loaded on first use after every reboot."),
    ]),

    # ================================================================ the second half year's sessions (held-out set)
    # ---------------------------------------------------------------- infra: hosts named by role and number
    Spec("inf-kafka-broker-3-disk", INF, "2026-11-09 06:20", "kafka-broker-03 out of disk: orders topic retention", [
        turn("kafka-broker-03 went down at 6am, producers on the orders topic are getting errors",
             bash("ssh kafka-broker-03 'journalctl -u kafka --since -1h | tail -3'",
                  "ERROR Error while appending records to orders.events-7 in dir /var/lib/kafka/data "
                  "(kafka.server.LogDirFailureChannel)\njava.io.IOException: No space left on device\n"
                  "ERROR Shutdown broker because all log dirs in /var/lib/kafka/data have failed (kafka.log.LogManager)"),
             bash("ssh kafka-broker-03 'df -h /var/lib/kafka; du -sh /var/lib/kafka/data/orders.events-*'",
                  "/dev/nvme1n1  500G  500G     0 100% /var/lib/kafka\n212G\t/var/lib/kafka/data/orders.events-7\n"
                  "198G\t/var/lib/kafka/data/orders.events-3"),
             say("orders.events has retention.ms=-1 (keep forever) since the topic was recreated by the migration "
                 "script; broker 3 leads the two biggest partitions."),
             bash("kafka-configs.sh --bootstrap-server kafka-broker-01:9092 --alter --entity-type topics "
                  "--entity-name orders.events --add-config retention.ms=604800000,retention.bytes=107374182400",
                  "Completed updating config for topic orders.events."),
             edit("k8s/kafka/topics.yaml", "retention.ms: -1", "retention.ms: 604800000  # 7 days\n    retention.bytes: 107374182400"),
             bash("ssh kafka-broker-03 'sudo systemctl start kafka'", ""),
             commit("orders.events: 7 days / 100 GiB retention (was keep forever, filled kafka-broker-03)", "3b8d1e4"),
             answer="kafka-broker-03 shut itself down with `No space left on device`: orders.events had no retention "
                    "(retention.ms=-1) since it was recreated, and broker 3 leads its two biggest partitions. The topic "
                    "keeps 7 days or 100 GiB per partition now (also in k8s/kafka/topics.yaml); the broker is back and "
                    "has caught up."),
    ]),
    Spec("inf-kafka-broker-1-urp", INF, "2026-11-18 14:10", "kafka-broker-01 under-replicated partitions after rolling restart", [
        turn("after the rolling restart kafka-broker-01 still shows 40 under replicated partitions, an hour later",
             bash("kafka-topics.sh --bootstrap-server kafka-broker-02:9092 --describe --under-replicated-partitions | head -3",
                  "Topic: orders.events Partition: 2 Leader: 2 Replicas: 1,2,3 Isr: 2,3\n"
                  "Topic: payments.ledger Partition: 0 Leader: 3 Replicas: 1,3,2 Isr: 3,2"),
             bash("ssh kafka-broker-01 'grep -c ReplicaFetcherThread /var/log/kafka/server.log; grep throttled /var/log/kafka/server.log | tail -1'",
                  "412\nINFO [ReplicaFetcher replicaId=1, leaderId=2, fetcherId=0] throttled at 10485760 bytes/sec"),
             say("A replication throttle of 10 MB/s from last month's reassignment was never removed, so broker 1 "
                 "catches up far slower than the producers write."),
             bash("kafka-configs.sh --bootstrap-server kafka-broker-02:9092 --alter --entity-type brokers --entity-default "
                  "--delete-config leader.replication.throttled.rate,follower.replication.throttled.rate",
                  "Completed updating default config for brokers in the cluster."),
             commit("runbook: remove replication throttles after a reassignment", "9c1f2a7"),
             answer="Broker 1's followers were held at 10 MB/s by a replication throttle left over from a partition "
                    "reassignment. Removed the throttle; the ISR was complete 6 minutes later. The reassignment "
                    "runbook now ends with removing the throttle."),
    ]),
    Spec("inf-es-data-04-breaker", INF, "2026-11-12 10:40", "es-data-04 circuit breaker trips: fielddata on the sku field", [
        turn("search is throwing 429s and es-data-04 is the one always in the errors",
             bash("curl -s es-data-04:9200/_nodes/es-data-04/stats/breaker | jq '.nodes[].breakers.parent'",
                  "{\"limit_size\": \"15.1gb\", \"estimated_size\": \"15.3gb\", \"tripped\": 18211}"),
             bash("curl -s 'es-data-04:9200/_cat/fielddata?v&fields=*' | sort -k5 -h | tail -2",
                  "id   host       node       field size\nx1   10.4.6.14  es-data-04 sku   9.8gb"),
             say("`CircuitBreakingException: [parent] Data too large` on es-data-04: someone sorts on `sku`, a text "
                 "field with fielddata=true, and es-data-04 holds the hot shards of products-v7."),
             edit("search/mappings/products-v8.json", "\"sku\": {\"type\": \"text\", \"fielddata\": true}",
                  "\"sku\": {\"type\": \"keyword\"}"),
             bash("curl -s -XPOST es-data-04:9200/_cache/clear?fielddata=true", "{\"_shards\":{\"total\":24,\"successful\":24}}"),
             commit("products-v8: sku as keyword (text+fielddata blew es-data-04's heap)", "2d7e9b3"),
             answer="es-data-04 tripped its parent circuit breaker (`Data too large`, 18k times) because sorting on "
                    "`sku` loaded 9.8 GB of fielddata. products-v8 maps sku as a keyword (doc values, no heap); the "
                    "reindex alias switch is pending. Cleared the fielddata cache as a stop-gap."),
    ]),
    Spec("inf-es-data-02-readonly", INF, "2026-11-26 08:05", "es-data-02 flood-stage watermark: indices read-only", [
        turn("indexing fails on es-data-02 with index read-only allow delete, what happened",
             bash("curl -s es-data-02:9200/_cat/allocation?v",
                  "shards disk.indices disk.used disk.avail disk.percent host      node\n  61   1.7tb     1.8tb     93gb   95 10.4.6.12 es-data-02"),
             say("95 % used: the flood-stage watermark set index.blocks.read_only_allow_delete on its indices. The "
                 "nightly snapshots left 600 GB of old translog on es-data-02."),
             bash("curl -s -XPUT es-data-02:9200/_all/_settings -H 'content-type: application/json' "
                  "-d '{\"index.blocks.read_only_allow_delete\": null}'", "{\"acknowledged\":true}"),
             edit("search/ilm/logs-policy.json", "\"max_age\": \"30d\"", "\"max_age\": \"14d\""),
             commit("logs ILM: delete after 14 days (es-data-02 hit the flood stage)", "6a0c4f1"),
             answer="es-data-02 reached 95 % disk, the flood-stage watermark, so Elasticsearch marked its indices "
                    "read-only (`FORBIDDEN/12/index read-only / allow delete`). Freed space by shortening the logs ILM "
                    "policy to 14 days and cleared the block."),
    ]),
    Spec("inf-vault-token-ttl", INF, "2026-11-03 09:30", "CI deploy denied by HashiCorp Vault: token TTL 768h expired", [
        turn("the deploy job in CI fails at the secrets step with permission denied, nothing changed on our side",
             bash("vault token lookup -format=json $CI_VAULT_TOKEN | jq .data.expire_time",
                  "Error looking up token: Error making API request.\n\nURL: POST https://vault.internal:8200/v1/auth/token/lookup\n"
                  "Code: 403. Errors:\n\n* permission denied", exit=2),
             say("The CI token was a periodic token created by hand on Oct 2 with the default max TTL of 768h (32 days): "
                 "it expired today. Switch CI to the AppRole login so each job gets its own short token."),
             write(".gitlab-ci/vault-login.sh", "vault write auth/approle/login role_id=$ROLE_ID secret_id=$SECRET_ID"),
             edit("terraform/vault.tf", "# ci token", "resource \"vault_approle_auth_backend_role\" \"ci_deploy\" { token_ttl = 1800 }"),
             commit("CI: log into Vault with AppRole per job instead of a hand-made 768h token", "4e2b8c6"),
             answer="The hand-made CI token hit Vault's max TTL (768h = 32 days) and every request got `Code: 403 ... "
                    "permission denied`. CI now logs in with the `ci_deploy` AppRole at the start of each job (30 min "
                    "token), so nothing expires under us again."),
    ]),
    Spec("inf-pagerduty-escalation", INF, "2026-11-16 11:00", "PagerDuty pages the old on-call: escalation policy", [
        turn("PagerDuty woke Tomas up last night but he left the rotation two weeks ago",
             bash("terraform state show pagerduty_escalation_policy.platform | grep -A2 rule",
                  "rule {\n  escalation_delay_in_minutes = 10\n  target { type = \"user_reference\" id = \"PTOMAS1\" }"),
             say("The second level of the escalation policy targets Tomas directly instead of the schedule, so he "
                 "gets every page nobody acks in 10 minutes."),
             edit("terraform/pagerduty.tf", "type = \"user_reference\"\n      id   = pagerduty_user.tomas.id",
                  "type = \"schedule_reference\"\n      id   = pagerduty_schedule.platform_secondary.id"),
             bash("terraform apply -target=pagerduty_escalation_policy.platform -auto-approve", "Apply complete! Resources: 0 added, 1 changed, 0 destroyed."),
             commit("pagerduty: level 2 escalates to the secondary schedule, not a person", "8f3d0a2"),
             answer="Level 2 of the platform escalation policy pointed at Tomas's user instead of the secondary "
                    "schedule, so unacknowledged pages went to him. It targets the schedule now."),
    ]),
    Spec("inf-nat-gateway-cost", INF, "2026-12-01 10:15", "NAT gateway data processing cost doubled: ECR pulls", [
        turn("the AWS bill for November is up 2400 dollars, Cost Explorer says NatGateway-Bytes",
             bash("aws ce get-cost-and-usage --time-period Start=2026-11-01,End=2026-12-01 --granularity MONTHLY "
                  "--metrics UnblendedCost --group-by Type=DIMENSION,Key=USAGE_TYPE | jq -r '.ResultsByTime[0].Groups[] | select(.Keys[0] | test(\"Nat\"))'",
                  "EUC1-NatGateway-Bytes  4188.20"),
             say("The new node pool pulls its images from ECR through the NAT gateway: 93 TB at $0.045/GB. A VPC "
                 "endpoint for ECR and the S3 gateway endpoint keep that traffic off the NAT."),
             edit("terraform/vpc.tf", "# endpoints", "resource \"aws_vpc_endpoint\" \"ecr_dkr\" { ... }\n"
                  "resource \"aws_vpc_endpoint\" \"s3\" { vpc_endpoint_type = \"Gateway\" }"),
             commit("vpc: ECR interface and S3 gateway endpoints (image pulls went through the NAT)", "1c9e7d0"),
             answer="NatGateway-Bytes doubled because every node pulled images from ECR through the NAT gateway. With "
                    "the ECR interface endpoints and the S3 gateway endpoint that traffic stays inside the VPC; expect "
                    "the NAT line to drop by about $2,000 a month."),
    ]),

    # ---------------------------------------------------------------- orders-service (Java, Spring Boot, Kafka, gRPC)
    Spec("ord-mapstruct-impl", ORD, "2026-11-02 10:05", "OrderMapperImpl not generated after the Lombok upgrade", [
        turn("build fails: cannot find symbol OrderMapperImpl since I bumped lombok",
             bash("./mvnw -q compile",
                  "[ERROR] /src/main/java/com/acme/orders/api/OrderController.java:[31,17] cannot find symbol\n"
                  "[ERROR]   symbol:   class OrderMapperImpl\n[ERROR]   location: package com.acme.orders.mapping", exit=1),
             read("pom.xml", "<annotationProcessorPaths><path>org.mapstruct:mapstruct-processor</path>"
                             "<path>org.projectlombok:lombok</path></annotationProcessorPaths>"),
             say("Since Lombok 1.18.16 MapStruct needs lombok-mapstruct-binding on the processor path, or MapStruct "
                 "runs before Lombok made the getters and gives up without an error of its own."),
             edit("pom.xml", "<path>org.projectlombok:lombok</path>",
                  "<path>org.projectlombok:lombok</path>\n<path>org.projectlombok:lombok-mapstruct-binding:0.2.0</path>"),
             bash("./mvnw -q compile && ls target/generated-sources/annotations/com/acme/orders/mapping",
                  "OrderMapperImpl.java\nLineItemMapperImpl.java"),
             commit("build: lombok-mapstruct-binding so MapStruct sees Lombok's accessors", "a41c7e2"),
             answer="MapStruct did not generate `OrderMapperImpl` because it ran before Lombok: the Lombok bump needs "
                    "`lombok-mapstruct-binding` on the annotation processor path. Added it; the mappers are generated "
                    "again under target/generated-sources."),
    ]),
    Spec("ord-protobuf-nosuchmethod", ORD, "2026-11-10 15:25", "NoSuchMethodError in generated protobuf classes: protoc vs runtime", [
        turn("orders-service crashes on startup with NoSuchMethodError in OrderEventOuterClass",
             bash("java -jar target/orders-service.jar 2>&1 | grep -m2 Error",
                  "java.lang.NoSuchMethodError: 'void com.google.protobuf.GeneratedMessageV3.makeExtensionsImmutable()'\n"
                  "\tat com.acme.orders.events.OrderEventOuterClass$OrderEvent.<init>(OrderEventOuterClass.java:88)"),
             bash("./mvnw dependency:tree -Dincludes=com.google.protobuf",
                  "[INFO] +- com.google.protobuf:protobuf-java:jar:4.28.2:compile\n[INFO] \\- io.grpc:grpc-protobuf:jar:1.60.0"),
             say("The classes were generated by protoc 3.21 (protobuf-maven-plugin pinned) but the runtime is now "
                 "protobuf-java 4.28 pulled in by the new gRPC BOM: generated code and runtime must match."),
             edit("pom.xml", "<protocArtifact>com.google.protobuf:protoc:3.21.12", "<protocArtifact>com.google.protobuf:protoc:4.28.2"),
             bash("./mvnw -q clean package -DskipTests && java -jar target/orders-service.jar --smoke", "smoke ok"),
             commit("protoc 4.28.2 to match protobuf-java from the gRPC BOM", "b72d9f1"),
             answer="`NoSuchMethodError ... GeneratedMessageV3.makeExtensionsImmutable` is the generated-code/runtime "
                    "mismatch: OrderEventOuterClass was generated by protoc 3.21 and ran on protobuf-java 4.28. protoc "
                    "is pinned to 4.28.2 now, matching the runtime; regenerated and it starts."),
    ]),
    Spec("ord-consumer-poll-interval", ORD, "2026-11-13 09:10", "Orders consumer leaves the group: max.poll.interval.ms exceeded", [
        turn("the order-fulfilment consumer keeps rebalancing and reprocessing the same orders",
             bash("kubectl logs deploy/orders-service --since=1h | grep -m2 -i 'poll'",
                  "WARN  o.a.k.c.c.i.ConsumerCoordinator - [Consumer clientId=fulfilment-0, groupId=fulfilment] consumer poll "
                  "timeout has expired. This means the time between subsequent calls to poll() was longer than the "
                  "configured max.poll.interval.ms, which typically implies that the poll loop is spending too much time "
                  "processing messages.\nINFO  Member fulfilment-0 sending LeaveGroup request to coordinator due to consumer poll timeout has expired."),
             say("max.poll.interval.ms is the default 300000 ms and a batch of 500 records calls the warehouse API "
                 "(~900 ms each), so one batch takes ~7.5 minutes."),
             edit("src/main/resources/application.yml", "max-poll-records: 500", "max-poll-records: 50"),
             commit("fulfilment consumer: 50 records per poll (500 x warehouse call > max.poll.interval.ms)", "c93e0a5"),
             answer="The consumer was kicked out of the group every ~5 minutes (max.poll.interval.ms = 300000) because "
                    "a batch of 500 orders took 7+ minutes to process, so the partitions were reassigned and redelivered. "
                    "50 records per poll keeps a batch under a minute."),
    ]),
    Spec("ord-hikari-pool", ORD, "2026-11-20 16:45", "orders p99 latency 1.9 s: Hikari pool exhausted", [
        turn("GET /orders p99 went from 120ms to 1900ms after yesterday's release",
             bash("kubectl logs deploy/orders-service --since=30m | grep -m1 HikariPool",
                  "WARN  com.zaxxer.hikari.pool.HikariPool - HikariPool-1 - Connection is not available, request timed out after 1874ms."),
             bash("curl -s localhost:8081/actuator/metrics/hikaricp.connections.pending | jq .measurements",
                  "[{\"statistic\": \"VALUE\", \"value\": 37}]"),
             say("The release added @Transactional on the controller, so each request holds its connection while it "
                 "calls the pricing service; 10 connections are not enough for that."),
             edit("src/main/java/com/acme/orders/api/OrderController.java", "@Transactional\npublic class OrderController",
                  "public class OrderController"),
             commit("orders API: no transaction around the pricing call (held Hikari connections)", "d04f1b8"),
             answer="Requests waited for a database connection (`HikariPool-1 - Connection is not available`, 37 "
                    "pending): the new class-level @Transactional held a connection during the remote pricing call. "
                    "Removed it; the transaction is only around the repository write. p99 is 130 ms again."),
    ]),
    Spec("ord-jackson-javatime", ORD, "2026-11-24 11:20", "Jackson cannot serialise LocalDateTime in the order response", [
        turn("GET /orders/{id} returns 500 since I added the promisedAt field",
             bash("curl -s localhost:8080/orders/1042 | jq .message",
                  "\"Type definition error: [simple type, class java.time.LocalDateTime]\""),
             bash("kubectl logs deploy/orders-service | grep -m1 InvalidDefinitionException",
                  "com.fasterxml.jackson.databind.exc.InvalidDefinitionException: Java 8 date/time type "
                  "`java.time.LocalDateTime` not supported by default: add Module "
                  "\"com.fasterxml.jackson.datatype:jackson-datatype-jsr310\" to enable handling"),
             say("Our own ObjectMapper bean replaces Spring Boot's, so the JavaTimeModule is not registered."),
             edit("src/main/java/com/acme/orders/config/JsonConfig.java", "new ObjectMapper()",
                  "JsonMapper.builder().addModule(new JavaTimeModule()).disable(WRITE_DATES_AS_TIMESTAMPS).build()"),
             commit("JsonConfig: register JavaTimeModule, ISO dates", "e15a2c9"),
             answer="Our custom ObjectMapper bean replaced Spring Boot's auto-configured one, which registers "
                    "jackson-datatype-jsr310. JsonConfig now adds JavaTimeModule and writes ISO-8601 strings, so "
                    "`promisedAt` serialises."),
    ]),
    Spec("ord-grpc-deadline", ORD, "2026-11-27 13:35", "gRPC DEADLINE_EXCEEDED on inventory reservations", [
        turn("order placement fails about 3% of the time with DEADLINE_EXCEEDED from the inventory service",
             bash("kubectl logs deploy/orders-service --since=1h | grep -c DEADLINE_EXCEEDED", "1288"),
             bash("grep -rn withDeadlineAfter src/main/java", "src/main/java/com/acme/orders/inventory/InventoryClient.java:44:"
                  "    .withDeadlineAfter(500, TimeUnit.MILLISECONDS)"),
             say("The reservation deadline is 500 ms but the inventory service's p99 for ReserveStock is 1.4 s when it "
                 "locks a hot SKU. And the call is retried without an idempotency token."),
             edit("src/main/java/com/acme/orders/inventory/InventoryClient.java", "withDeadlineAfter(500, TimeUnit.MILLISECONDS)",
                  "withDeadlineAfter(config.reserveDeadline().toMillis(), TimeUnit.MILLISECONDS)  // 2s"),
             commit("inventory client: 2 s ReserveStock deadline from config, reservation id as idempotency token", "f26b3d0"),
             answer="`io.grpc.StatusRuntimeException: DEADLINE_EXCEEDED` came from a 500 ms deadline on ReserveStock, "
                    "whose p99 is 1.4 s under contention. The deadline is 2 s (configurable) and retries carry the "
                    "reservation id so the inventory service does not reserve twice."),
    ]),
    Spec("ord-flyway-checksum", ORD, "2026-12-02 09:50", "Flyway checksum mismatch for V12 after editing an applied migration", [
        turn("staging won't start: flyway validate failed, migration checksum mismatch for version 12",
             bash("./mvnw -q flyway:validate -Dflyway.url=$STAGING_DB",
                  "ERROR: Validate failed: Migrations have failed validation\nMigration checksum mismatch for migration version 12\n"
                  "-> Applied to database : 1187323411\n-> Resolved locally    : -822131075", exit=1),
             say("V12__order_status_index.sql was edited after staging had applied it (a comment and a CONCURRENTLY). "
                 "Never edit an applied migration: revert the file, put the change in V13."),
             bash("git checkout HEAD~3 -- src/main/resources/db/migration/V12__order_status_index.sql", ""),
             write("src/main/resources/db/migration/V13__order_status_index_concurrently.sql",
                   "DROP INDEX IF EXISTS idx_order_status; CREATE INDEX CONCURRENTLY idx_order_status ..."),
             commit("Restore V12 as applied; the concurrent index rebuild goes in V13", "0a7c5e3"),
             answer="Flyway refused to start because V12 had been edited after staging applied it (checksums differ). "
                    "V12 is back to what was applied and the change is a new V13; no `flyway repair` needed."),
    ]),

    # ---------------------------------------------------------------- orders-service: sessions typed in Chinese
    Spec("ord-cn-fk-migration", ORD, "2026-11-06 03:40", "订单表迁移失败：外键约束冲突", [
        turn("生产环境执行订单表迁移脚本的时候报错了，外键约束冲突，帮我看一下",
             bash("psql $ORDERS_DB -f migrations/2026_11_06_split_order_items.sql",
                  "ERROR:  insert or update on table \"order_items\" violates foreign key constraint \"order_items_order_id_fkey\"\n"
                  "DETAIL:  Key (order_id)=(771204) is not present in table \"orders\".", exit=3),
             bash("psql $ORDERS_DB -c \"select count(*) from order_items_old i left join orders o on o.id = i.order_id where o.id is null\"",
                  " count\n-------\n   214"),
             say("旧表里有 214 条订单明细指向已经被归档删除的订单，所以新表加了外键以后插入失败。"
                 "先把这些孤儿数据移到 order_items_orphans，再做迁移。"),
             edit("migrations/2026_11_06_split_order_items.sql", "INSERT INTO order_items SELECT * FROM order_items_old;",
                  "INSERT INTO order_items_orphans SELECT i.* FROM order_items_old i LEFT JOIN orders o ON o.id = i.order_id WHERE o.id IS NULL;\n"
                  "INSERT INTO order_items SELECT i.* FROM order_items_old i JOIN orders o ON o.id = i.order_id;"),
             bash("psql $ORDERS_DB -f migrations/2026_11_06_split_order_items.sql", "INSERT 0 214\nINSERT 0 1820455"),
             commit("迁移：先移走孤儿订单明细（214 条）再加外键", "5b1d8e6"),
             answer="迁移失败是因为旧的 order_items 里有 214 条明细引用了已归档删除的订单，新表的外键 "
                    "order_items_order_id_fkey 不允许。脚本现在先把这些孤儿数据放进 order_items_orphans，"
                    "再迁移其余 1,820,455 条。迁移已在生产环境完成。"),
    ]),
    Spec("ord-cn-pdf-font", ORD, "2026-11-19 07:15", "报表 PDF 里的中文显示成方块", [
        turn("导出的月度报表 PDF 里中文全部显示成方块，英文正常",
             bash("pdffonts reports/monthly-2026-10.pdf",
                  "name                                 type              emb sub uni\nHelvetica                            Type 1            no  no  no"),
             say("报表用的是 OpenPDF 默认的 Helvetica，它没有中文字形，也没有嵌入字体。"
                 "需要把思源黑体（Noto Sans CJK SC）作为嵌入字体加载。"),
             write("src/main/resources/fonts/NotoSansCJKsc-Regular.otf", "(font)"),
             edit("src/main/java/com/acme/orders/reports/PdfReport.java", "FontFactory.getFont(FontFactory.HELVETICA)",
                  "FontFactory.getFont(\"fonts/NotoSansCJKsc-Regular.otf\", BaseFont.IDENTITY_H, BaseFont.EMBEDDED)"),
             bash("./mvnw -q test -Dtest=PdfReportTest", "Tests run: 4, Failures: 0"),
             commit("报表 PDF：嵌入 Noto Sans CJK 字体，中文不再显示为方块", "6c2e9f7"),
             answer="中文变成方块是因为 PDF 用的是不含中文字形、也没有嵌入的 Helvetica。现在报表嵌入 "
                    "Noto Sans CJK SC（IDENTITY_H 编码），中文和英文都正常显示，加了一个检查字体嵌入的测试。"),
    ]),

    # ---------------------------------------------------------------- trailmap-android: generated classes, Japanese
    Spec("and-hilt-ksp", AND, "2026-11-05 10:30", "Hilt_TrailmapApp missing after moving from kapt to KSP", [
        turn("after switching annotation processing from kapt to ksp the build says Hilt_TrailmapApp doesn't exist",
             bash("./gradlew :app:compileDebugKotlin",
                  "e: file:///app/src/main/java/com/trailmap/TrailmapApp.kt:9:28 Unresolved reference: Hilt_TrailmapApp\n"
                  "FAILURE: Build failed with an exception.", exit=1),
             read("app/build.gradle.kts", "ksp(\"com.google.dagger:hilt-compiler:2.48\")\nid(\"com.google.dagger.hilt.android\") version \"2.44\""),
             say("Hilt supports KSP from 2.48, but the Gradle plugin is still 2.44 and the Room/Moshi processors stay on "
                 "kapt; the plugin and the compiler must be the same version."),
             edit("gradle/libs.versions.toml", "hilt = \"2.44\"", "hilt = \"2.51.1\""),
             bash("./gradlew :app:assembleDebug", "BUILD SUCCESSFUL in 1m 12s"),
             commit("Hilt 2.51.1 for plugin and compiler (KSP needs >= 2.48 on both)", "7d3f0a8"),
             answer="`Unresolved reference: Hilt_TrailmapApp` meant Hilt's generated base class was never made: the "
                    "hilt-compiler ran under KSP but the Hilt Gradle plugin was 2.44. Both are 2.51.1 from the version "
                    "catalog now and the debug build passes."),
    ]),
    Spec("and-room-impl-release", AND, "2026-11-17 17:05", "Release build: AppDatabase_Impl does not exist", [
        turn("release APK crashes when opening the offline regions screen, debug is fine",
             bash("adb logcat -d | grep -m2 -A1 FATAL",
                  "E AndroidRuntime: FATAL EXCEPTION: main\nE AndroidRuntime: java.lang.RuntimeException: Cannot find "
                  "implementation for com.trailmap.data.AppDatabase. AppDatabase_Impl does not exist"),
             read("app/build.gradle.kts", "debugImplementation(libs.room.compiler)"),
             say("room-compiler was added as debugImplementation by the dependency bump PR instead of ksp(...), so the "
                 "release variant never generates AppDatabase_Impl (and R8 had nothing to keep)."),
             edit("app/build.gradle.kts", "debugImplementation(libs.room.compiler)", "ksp(libs.room.compiler)"),
             bash("./gradlew :app:assembleRelease && unzip -l app/build/outputs/apk/release/app-release.apk | grep -c AppDatabase_Impl",
                  "BUILD SUCCESSFUL in 3m 2s\n1"),
             commit("Room compiler via ksp for every variant (release lacked AppDatabase_Impl)", "8e4a1b9"),
             answer="The release build had no Room implementation class (`AppDatabase_Impl does not exist`) because "
                    "room-compiler was only on the debug configuration. It runs through KSP for all variants now; "
                    "the release APK contains AppDatabase_Impl and the offline regions screen opens."),
    ]),
    Spec("and-jp-push-permission", AND, "2026-11-23 12:00", "Android 13 でプッシュ通知が届かない", [
        turn("Android 13 以降の端末でプッシュ通知が届かないとユーザーから報告があった。原因を調べて",
             bash("adb shell dumpsys notification | grep -A2 com.trailmap",
                  "  AppSettings: com.trailmap (10231) importance=NONE userSet=false\n    POST_NOTIFICATIONS: denied"),
             say("Android 13 から通知は実行時パーミッション POST_NOTIFICATIONS が必要。アプリは targetSdk 34 なのに "
                 "一度もリクエストしていないので、新規インストールでは通知がオフのまま。"),
             edit("app/src/main/AndroidManifest.xml", "<uses-permission android:name=\"android.permission.INTERNET\"/>",
                  "<uses-permission android:name=\"android.permission.INTERNET\"/>\n<uses-permission android:name=\"android.permission.POST_NOTIFICATIONS\"/>"),
             write("app/src/main/java/com/trailmap/notify/NotificationPermission.kt", "rememberLauncherForActivityResult(RequestPermission())"),
             commit("Android 13+: POST_NOTIFICATIONS を宣言し、初回のルート保存時にリクエストする", "9f5b2c0"),
             answer="Android 13 (API 33) 以降では POST_NOTIFICATIONS を実行時に許可してもらう必要があり、"
                    "アプリはそれを宣言もリクエストもしていなかった。マニフェストに追加し、最初にルートを保存した"
                    "ときに許可ダイアログを出すようにした。FCM のトークン送信はそのまま。"),
    ]),

    # ---------------------------------------------------------------- storefront-web: products named by what they do, Japanese, German
    Spec("web-jp-ime-search", WEB, "2026-11-08 14:40", "日本語入力の変換中に検索が走る", [
        turn("検索ボックスで日本語を入力すると、変換を確定する前に検索が何度も走ってしまう",
             read("src/components/SearchBox.tsx", "onChange={(e) => search(e.target.value)}"),
             say("IME の変換中（compositionstart〜compositionend）も onChange が呼ばれるので、未確定の文字列で"
                 "検索 API を叩いている。isComposing の間は検索しないようにする。"),
             edit("src/components/SearchBox.tsx", "onChange={(e) => search(e.target.value)}",
                  "onChange={(e) => { if (!e.nativeEvent.isComposing) search(e.target.value) }}\n"
                  "onCompositionEnd={(e) => search(e.currentTarget.value)}"),
             bash("npx jest src/components/SearchBox", "PASS src/components/SearchBox.test.tsx\nTests: 5 passed"),
             commit("SearchBox: IME 変換中は検索しない（compositionend で検索）", "a06c3d1"),
             answer="IME で変換中の未確定文字列でも onChange が発火していたのが原因。isComposing の間は検索せず、"
                    "compositionend で確定した文字列だけ検索するようにした。検索 API の呼び出しは 1 語あたり "
                    "約 8 回から 1 回に減った。"),
    ]),
    Spec("web-sentry-quota", WEB, "2026-11-11 09:45", "Sentry quota burnt by ChunkLoadError after deploys", [
        turn("Sentry says we used 100% of the monthly error quota on the 11th, almost all ChunkLoadError",
             bash("sentry-cli issues list --project storefront --query 'is:unresolved' | head -3",
                  "STOREFRONT-2K1  ChunkLoadError: Loading chunk 8812 failed.  events: 412,884\n"
                  "STOREFRONT-2JZ  TypeError: Failed to fetch dynamically imported module  events: 61,020"),
             say("Every deploy deletes the old chunks, so open tabs fail to lazy-load a route. Keep the previous "
                 "build's assets for a day, reload once on a failed chunk, and drop these in beforeSend."),
             edit("src/sentry.ts", "Sentry.init({", "Sentry.init({\n  ignoreErrors: [/ChunkLoadError/, /dynamically imported module/],"),
             write("src/utils/lazyWithReload.ts", "reload the page once when a chunk fails to load"),
             commit("Sentry: drop chunk-load errors; reload once on a stale chunk; keep old assets 24 h", "b17d4e2"),
             answer="Almost all of the quota went to `ChunkLoadError` from tabs that were open across a deploy. The "
                    "CDN keeps the previous build's assets for 24 h, a failed lazy import reloads the page once, and "
                    "Sentry ignores these two errors. Asked Sentry support to reset the spike."),
    ]),
    Spec("web-renovate-lockfile", WEB, "2026-11-25 10:20", "Renovate PRs fail CI: pnpm lockfile not up to date", [
        turn("every renovate PR fails in CI with ERR_PNPM_OUTDATED_LOCKFILE",
             bash("gh run view 91834 --log-failed | tail -2",
                  " ERR_PNPM_OUTDATED_LOCKFILE  Cannot install with \"frozen-lockfile\" because pnpm-lock.yaml is not up to date "
                  "with package.json"),
             say("Renovate runs pnpm 8 and writes a lockfile v6; our packageManager field says pnpm 9 (lockfile v9), so CI "
                 "sees the lockfile as outdated. Pin Renovate to the packageManager version."),
             edit("renovate.json", "\"extends\": [\"config:recommended\"]",
                  "\"extends\": [\"config:recommended\"],\n  \"constraints\": {\"pnpm\": \"9.12.3\"},\n  \"postUpdateOptions\": [\"pnpmDedupe\"]"),
             commit("renovate: use pnpm 9.12.3 like packageManager (lockfile v9)", "c28e5f3"),
             answer="Renovate regenerated pnpm-lock.yaml with pnpm 8, CI installs with pnpm 9 in frozen mode and "
                    "rejects it (`ERR_PNPM_OUTDATED_LOCKFILE`). renovate.json pins pnpm 9.12.3; rebased the open PRs and "
                    "they pass."),
    ]),
    Spec("web-keycloak-redirect", WEB, "2026-11-30 15:00", "Keycloak rejects the login redirect after the domain move", [
        turn("login is broken on shop.acme.eu, keycloak shows Invalid parameter: redirect_uri",
             bash("curl -s 'https://auth.acme.eu/realms/shop/protocol/openid-connect/auth?client_id=storefront&redirect_uri="
                  "https%3A%2F%2Fshop.acme.eu%2Fauth%2Fcallback&response_type=code' | grep -o 'Invalid parameter: [a-z_]*'",
                  "Invalid parameter: redirect_uri"),
             say("The storefront client in Keycloak only allows https://shop.acme.com/*; the move to shop.acme.eu needs "
                 "the new origin in Valid Redirect URIs and Web Origins."),
             edit("infra/keycloak/realm-shop.json", "\"redirectUris\": [\"https://shop.acme.com/*\"]",
                  "\"redirectUris\": [\"https://shop.acme.com/*\", \"https://shop.acme.eu/*\"]"),
             commit("keycloak storefront client: allow shop.acme.eu redirects and origin", "d39f6a4"),
             answer="Keycloak answered `Invalid parameter: redirect_uri` because the storefront client allowed only "
                    "the old shop.acme.com domain. Added shop.acme.eu to Valid Redirect URIs and Web Origins in the realm "
                    "export and imported it; login works on both domains."),
    ]),
    Spec("web-de-pdf-umlauts", WEB, "2026-11-14 16:30", "Umlaute in der Rechnungs-PDF als Fragezeichen", [
        turn("In der Rechnungs-PDF aus dem Kundenkonto werden Umlaute als Fragezeichen angezeigt, z. B. 'M?nchen'",
             read("server/render/invoicePdf.ts", "doc.font('Helvetica').text(address.city)"),
             bash("node -e \"console.log(Buffer.from('München','latin1'))\"", "<Buffer 4d fc 6e 63 68 65 6e>"),
             say("Die Adresse kommt aus der Datenbank schon doppelt kodiert (latin1 gelesen), und pdfkit bekommt "
                 "dann Zeichen, die Helvetica nicht kennt. Den Treiber auf utf8mb4 stellen und eine eingebettete Schrift "
                 "nehmen."),
             edit("server/db.ts", "charset: 'latin1'", "charset: 'utf8mb4'"),
             edit("server/render/invoicePdf.ts", "doc.font('Helvetica')", "doc.font('fonts/Inter-Regular.ttf')"),
             commit("Rechnungs-PDF: utf8mb4-Verbindung und eingebettete Schrift (Umlaute)", "e40a7b5"),
             answer="Zwei Ursachen: die DB-Verbindung las die Adressen als latin1, und die PDF nutzte die "
                    "Standardschrift Helvetica ohne eingebettete Glyphen. Jetzt utf8mb4 und Inter eingebettet; "
                    "'München' erscheint korrekt."),
    ]),

    # ---------------------------------------------------------------- payments-api: durations vs the logged figures
    Spec("pay-gunicorn-timeout", PAY, "2026-11-07 13:15", "Invoice PDF download dies: gunicorn WORKER TIMEOUT", [
        turn("downloading big invoices as PDF fails with a 502, small ones work",
             bash("kubectl logs deploy/payments-api --since=1h | grep -m2 -E 'TIMEOUT|SIGKILL'",
                  "[2026-11-07 12:58:03 +0000] [1] [CRITICAL] WORKER TIMEOUT (pid:812)\n"
                  "[2026-11-07 12:58:04 +0000] [1] [ERROR] Worker (pid:812) was sent SIGKILL! Perhaps out of memory?"),
             read("gunicorn.conf.py", "timeout = 30\nworkers = 4\nworker_class = 'sync'"),
             say("An invoice with 3,000 lines takes ~45 s to render with WeasyPrint in the request; gunicorn kills a sync "
                 "worker after 30 s. Render it in the celery queue and serve the stored file."),
             write("invoices/tasks.py", "@shared_task def render_invoice_pdf(invoice_id): ..."),
             edit("invoices/views.py", "return pdf_response(render_pdf(invoice))", "return redirect_to_rendered_pdf(invoice)  # 202 while rendering"),
             commit("Invoice PDFs render in celery; the view serves the stored file (gunicorn 30 s timeout)", "f51b8c6"),
             answer="Big invoice PDFs took ~45 s to render inside the request and gunicorn's 30-second worker timeout "
                    "killed the worker (`WORKER TIMEOUT`, then a 502 from the ingress). The PDF is rendered by a celery "
                    "task now; the view returns 202 until it is stored, then the file."),
    ]),
    Spec("pay-redis-lock-expiry", PAY, "2026-11-21 10:40", "Payout job runs twice: Redis lock expires before the job ends", [
        turn("the nightly seller payout ran twice last night, two transfers for the same sellers",
             bash("kubectl logs cronjob/payouts --since=12h | grep -E 'lock|started|finished'",
                  "02:00:00 payouts started (lock payouts:nightly acquired, ttl=600)\n02:10:02 payouts started (lock payouts:nightly acquired, ttl=600)\n"
                  "02:14:51 payouts finished (812 transfers)\n02:24:40 payouts finished (812 transfers)"),
             say("The lock's TTL is 600 s; the payout run now takes ~15 minutes, so the second cron (the retry policy) "
                 "got the lock after 10 minutes. Extend the lock while the job runs, and make transfers idempotent per "
                 "seller and day."),
             edit("payments/payouts/job.py", "with redis_lock('payouts:nightly', ttl=600):",
                  "with redis_lock('payouts:nightly', ttl=600, auto_renewal=True):"),
             edit("payments/payouts/transfers.py", "stripe.Transfer.create(", "stripe.Transfer.create(idempotency_key=f'payout-{seller.id}-{day}', "),
             commit("payouts: renew the Redis lock while running; one transfer per seller and day", "0b6c9d1"),
             answer="The payout job's Redis lock expired after 600 s (10 min) while the run took ~15 min, so the retry "
                    "started a second run: 812 sellers were paid twice. The lock renews itself now and each transfer has "
                    "an idempotency key per seller and day. Reversed the 812 duplicate transfers."),
    ]),

    # ---------------------------------------------------------------- data-pipeline: durations, French
    Spec("dp-export-execution-timeout", DATA, "2026-11-04 05:20", "Finance export task killed by Airflow execution_timeout", [
        turn("the finance_export task failed again overnight, the log just says timeout",
             bash("airflow tasks logs finance_export export_ledger 2026-11-03 | tail -3",
                  "[2026-11-04 03:00:00,118] {taskinstance.py:2612} ERROR - Task failed with exception\n"
                  "airflow.exceptions.AirflowTaskTimeout: Timeout, PID: 4411\n"
                  "[2026-11-04 03:00:00,131] {taskinstance.py:1226} INFO - Marking task as UP_FOR_RETRY"),
             read("dags/finance_export.py", "execution_timeout=timedelta(seconds=3600)"),
             say("The ledger export grew past the 3600 s execution timeout: it reads the whole ledger each night. Make it "
                 "incremental by day and keep the timeout."),
             edit("jobs/export/ledger.py", "read_table('ledger')", "read_table('ledger', where=f\"day = '{ds}'\")"),
             commit("finance export: one day of ledger per run (the full read outgrew execution_timeout)", "1c7d0e2"),
             answer="Airflow killed export_ledger with `AirflowTaskTimeout` after its 3600-second execution_timeout: it "
                    "exported the whole ledger every night. It exports only the run's day now (4 minutes)."),
    ]),
    Spec("dp-fr-csv-excel", DATA, "2026-11-15 11:10", "Export CSV pour la compta : accents cassés dans Excel", [
        turn("L'export CSV pour la compta s'ouvre mal dans Excel : les accents sont cassés (« FranÃ§ois ») et tout est dans une seule colonne",
             bash("head -c 120 exports/compta-2026-10.csv | xxd | head -2",
                  "00000000: 6964 2c6e 6f6d 2c6d 6f6e 7461 6e74 0a31  id,nom,montant.1\n00000010: 2c46 7261 6ec3 a76f 6973 2c31 3230 2c35  ,Fran..ois,120,5"),
             say("Excel en français lit un CSV sans BOM comme du Windows-1252 et attend le point-virgule comme séparateur "
                 "(la virgule est le séparateur décimal). On écrit en utf-8-sig avec ';' pour ce fichier."),
             edit("jobs/export/compta.py", "df.to_csv(path, index=False)", "df.to_csv(path, index=False, sep=';', decimal=',', encoding='utf-8-sig')"),
             commit("export compta : UTF-8 avec BOM, séparateur ; et décimales à la virgule pour Excel", "2d8e1f3"),
             answer="Excel (paramètres régionaux français) ouvrait le fichier UTF-8 sans BOM en Windows-1252, d'où "
                    "« FranÃ§ois », et séparait sur ';'. L'export est maintenant en UTF-8 avec BOM, séparateur ';' et "
                    "virgule décimale ; il s'ouvre correctement par double-clic."),
    ]),

    # ---------------------------------------------------------------- logfmt, dotfiles: errors said differently
    Spec("rs-broken-pipe", RS, "2026-11-22 21:30", "logfmt panics on broken pipe when piped into head", [
        turn("logfmt panics when I pipe it into head: failed printing to stdout",
             bash("logfmt big.log | head -1",
                  "level=info msg=started\nthread 'main' panicked at library/std/src/io/stdio.rs:1118:9:\n"
                  "failed printing to stdout: Broken pipe (os error 32)", exit=101),
             say("println! panics on EPIPE. Write through a locked BufWriter and treat BrokenPipe as a normal end."),
             edit("src/output.rs", "println!(\"{}\", line);", "if let Err(e) = writeln!(out, \"{}\", line) { return quiet_on_broken_pipe(e); }"),
             bash("logfmt big.log | head -1; echo ${PIPESTATUS[0]}", "level=info msg=started\n0"),
             commit("output: a closed pipe ends the run quietly instead of panicking", "3e9f2a4"),
             answer="`println!` panics with `failed printing to stdout: Broken pipe` when the reader (head) exits. Output "
                    "goes through a buffered writer now and a broken pipe ends the program with status 0."),
    ]),
    Spec("dot-git-signing-1password", DOT, "2026-11-28 19:40", "git commit signing through 1Password's SSH agent fails", [
        turn("git commit fails with error: gpg failed to sign the data since I moved my keys into 1password",
             bash("git commit --allow-empty -m test",
                  "error: Couldn't load public key /Users/dev/.ssh/id_ed25519.pub: No such file or directory?\n\n"
                  "fatal: failed to write commit object", exit=128),
             say("gpg.format is ssh and user.signingkey points at a key file that moved into 1Password. Use 1Password's "
                 "op-ssh-sign as the signing program and the public key itself as the signing key."),
             edit("git/gitconfig", "signingkey = ~/.ssh/id_ed25519.pub",
                  "signingkey = ssh-ed25519 AAAAC3Nza...dev\n[gpg \"ssh\"]\n  program = /Applications/1Password.app/Contents/MacOS/op-ssh-sign"),
             commit("git: sign commits with op-ssh-sign (keys live in 1Password)", "4fa03b5"),
             answer="Signing used the key file ~/.ssh/id_ed25519.pub, which no longer exists since the keys moved into "
                    "1Password. gitconfig sets the public key inline and `gpg.ssh.program` to 1Password's op-ssh-sign; "
                    "commits are signed (\"Good signature\" in `git log --show-signature`)."),
    ]),
]
