"""What counts as evidence of a revisit beyond the words a prompt shares with a session: a problem
said to be back or failing, in the languages users write in, and never a request for new work."""
from __future__ import annotations

import pytest
from hypothesis import given, strategies as st

from obsidian_memory.context.recall.decide import NEW_WORK_VERBS, Intent


@pytest.mark.parametrize("prompt", [
    "terraform state locked again, probably a cancelled pipeline",
    "how is he still getting escalations",
    "assembleRelease keeps failing bc the kotlin compile daemon runs out of memory",
    "java.lang.NoSuchMethodError at startup after the dependency bump",
    "deploy hung on migrate",
    "In der Rechnungs-PDF stehen wieder Fragezeichen statt Umlauten",
    "le build plante encore sur la CI",
    "生产上订单表的迁移又挂了，报外键约束错误",
    "プッシュ通知が届かないという問い合わせがまた来ました",
    "new terminal tabs are slow to open again",
    "这次又失败了",                      # "this time" of a return is no contrast
    "this is not a new problem, the deploy failed again",
])
def test_a_problem_said_to_be_back_or_failing_is_evidence(prompt):
    assert Intent(prompt).shows_a_revisit()


@pytest.mark.parametrize("prompt", [
    "broker 1 lagging after the rolling restart, pretty sure we've seen this before",
    "what jvm args did we set last time for the kotlin daemon",
    "how did we get the release build to keep the json adapters",
    "the export is slow like last time",
    "Hatten wir das nicht schon behoben? Umlaute in der Rechnung",
    "上次那个外键迁移的问题",
    "前回のプッシュ通知の件",
])
def test_a_problem_said_to_have_been_met_before_is_evidence(prompt):
    assert Intent(prompt).shows_a_revisit()


@pytest.mark.parametrize("prompt", [
    "Add a column for the last time a user logged in",
    "Implement the same thing as in billing for the shop",
    "show the last time each cron job succeeded",
    "发布之前要跑哪些测试",                # "before the release": no past meeting
    "at this time of night the sync is slow",
])
def test_words_of_time_that_meet_no_past_problem_are_none(prompt):
    assert not Intent(prompt).shows_a_revisit()


@pytest.mark.parametrize("prompt", [
    "plan the AlterField migration on invoices for tonight",
    "billing-db-2 needs OS patches next tuesday. plan a failover so billing stays up",
    "new flyway migration: add delivery_window column to orders",
    "Write a test that the Stripe webhook view rejects unknown event types",
    "给订单表加一个新的索引，按用户查询太慢",
])
def test_a_plan_or_a_request_for_new_work_is_none(prompt):
    assert not Intent(prompt).shows_a_revisit()


@pytest.mark.parametrize("prompt", [
    "I'd like to add a dark mode toggle to the settings screen",
    "I would like to write an export of the orders as CSV",
    "I’d like to add a dark mode toggle",              # typed with a curly apostrophe
    "we'd love to support Korean won on the invoices",
    "プッシュ通知をタップしたらそのルートの詳細画面が開くようにしたい",
    "検索結果から地図に飛べるようにしてほしい",
])
def test_a_wish_for_new_work_asks_for_new_work(prompt):
    assert Intent(prompt).asks_for_new_work


@pytest.mark.parametrize("prompt", [
    "I would like to know why the release build crashes",
    "like last time, the nightly export stopped at the one hour mark",
    "また通知が届かない。届くようにしたい",            # a wish of a problem said to be back
])
def test_a_wish_to_understand_or_of_a_problem_back_is_no_new_work(prompt):
    assert not Intent(prompt).asks_for_new_work


@pytest.mark.parametrize("prompt", ["OOMで落ちないようにしたい", "kotlin daemonのエラーが出ないようにしてほしい"])
def test_a_wish_that_a_failure_stops_is_evidence_not_new_work(prompt):
    # "so that it no longer crashes": the failure is the subject, not a new behaviour
    assert not Intent(prompt).asks_for_new_work and Intent(prompt).shows_a_revisit()


@pytest.mark.parametrize("prompt", [
    "broker 3 is misbehaving again but it's not the disk this time",
    "login on the shop broken again but differently: we land logged out",
    "createOrder fails after every inventory deploy. not a deadline thing",
    "sentry stopped receiving errors again. quota is at 12%, so not that",
    "Der Build ist wieder kaputt, diesmal im Linker",
    "le build plante encore, mais pas le compilateur cette fois",
    "迁移又失败了，这次不是外键的问题",
])
def test_a_failure_said_to_differ_from_the_one_met_before_is_none(prompt):
    assert not Intent(prompt).shows_a_revisit()


@given(st.sampled_from(sorted(NEW_WORK_VERBS | {"new"})), st.text(alphabet="bcdfghjklmnpqrstvwxz ,.", max_size=60))
def test_a_prompt_that_opens_with_new_work_and_says_nothing_of_the_past_is_never_evidence(verb, rest):
    assert not Intent(f"{verb.capitalize()} {rest} that fails with an error").shows_a_revisit()


@pytest.mark.parametrize("prompt", [
    "broker 3 is misbehaving again but it's not the disk this time",
    "gradle build fails again but it's not memory this time",
    "renovate PRs failing CI again, but not lockfile stuff this time",
    "login broken again but differently: we land logged out",
    "this time it's not the certificate",
    "this time it’s not the disk",                                   # a typographic apostrophe
    "it's not the disk, this time",
    "Der Build ist wieder kaputt, diesmal nicht der Linker",
    "diesmal ist es nicht der Linker",
    "l'export plante encore, mais pas les accents cette fois",
    "cette fois ce n'est pas le DNS",
    "迁移又失败了，不过这次不是外键",
])
def test_a_problem_said_outright_to_be_another_one_is_known_as_such(prompt):
    assert Intent(prompt).says_it_is_another_problem() and not Intent(prompt).shows_a_revisit()


@pytest.mark.parametrize("prompt", [
    "can you see what's eating the quota this time",                 # this time: this occurrence
    "maybe it's the other direction this time, can you check",
    "hydration error again, this time on the cart page",
    "not sure what changed, the kafka disk is full again",
    "not sure what broke this time",                                 # a negation of something else
    "the retry did not help this time, kafka lag is back",
    "the cache fix did not hold this time either",
    "still not fixed this time",
    "we fixed it differently last time, the OOM is back",            # differently: of the fix
    "dates render differently in Safari again",
    "ça ne marche pas non plus cette fois",
    "这次又失败了",
    "这次不是又超时了吧",                                               # "isn't it timing out again?"
])
def test_this_time_alone_says_no_other_problem(prompt):
    assert not Intent(prompt).says_it_is_another_problem()
