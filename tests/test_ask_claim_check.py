"""/v1/ask routes a question that asks whether a statement is true to a check of that statement (issue 31,
"Ask routes claims to check"): the answer is the statement's status, evidence and correction. Questions
written for these tests."""
from __future__ import annotations

import pytest

from gpukb.engine.ask.claimcheck import statement_of


@pytest.mark.parametrize("question,statement", [
    ("Is it true that the L4 has 48 GB of memory?", "the L4 has 48 GB of memory"),
    ("Is the claim that the A30 has 24 GB of HBM2 correct?", "the A30 has 24 GB of HBM2"),
    ("A blog says the V100 has 80 GB of memory, right?", "the V100 has 80 GB of memory"),
    ("听说 L40S 的显存是 48GB，是真的吗？", "L40S 的显存是 48GB"),
    ("某文章称 A800 的显存带宽为 3.35TB/s，对吗？", "A800 的显存带宽为 3.35TB/s"),
    ("一位博主说 H20 有 96GB 显存，这种说法对吗？", "H20 有 96GB 显存"),
])
def test_the_statement_is_the_question_without_its_asking_words(gpukb, question, statement):
    assert statement_of(question, gpukb.kb.vocab) == statement


@pytest.mark.parametrize("question", ["Does the L4 support FP8?", "为什么说 T4 不适合训练？", "How much memory does the A30 have?",
                                      "Can an A10 fine-tune a 7B model with LoRA?"])
def test_a_plain_question_is_no_check(gpukb, question):
    assert statement_of(question, gpukb.kb.vocab) is None


@pytest.mark.parametrize("question,status,lang", [
    ("Is it true that the L4 has 48 GB of memory?", ("incorrect",), "en"),
    ("某文章称 A800 的显存带宽为 3.35TB/s，对吗？", ("incorrect", "misattributed"), "zh"),
    ("Is the claim that the L40S has 48 GB of memory correct?", ("supported",), "en"),
])
def test_a_checked_statement_is_answered_with_its_status_and_correction(gpukb, question, status, lang):
    a = gpukb.ask(question).to_json()
    assert a["kind"] == "claim_check" and a["lang"] == lang, a
    got = [c["status"] for c in a["check"]["claims"]]
    assert set(got) & set(status), got
    wrong = [c for c in a["check"]["claims"] if c["status"] in ("incorrect", "misattributed")]
    for c in wrong:
        assert c["correction"][lang] and c["correction"][lang] in a["answer"], a["answer"]


def test_a_statement_gpukb_cannot_read_falls_back_to_the_question(gpukb):
    a = gpukb.ask("Is it true that the weather is nice today?").to_json()
    assert a["kind"] != "claim_check"


def test_the_api_and_the_cli_give_the_claim_check(client):
    r = client.get("/v1/ask", query_string={"q": "Is it true that the L4 has 48 GB of memory?"})
    assert r.status_code == 200 and r.get_json()["kind"] == "claim_check", r.get_json()
    page = client.get("/", query_string={"q": "Is it true that the L4 has 48 GB of memory?"})
    assert page.status_code == 200 and "claim-check-answer" in page.get_data(as_text=True)
