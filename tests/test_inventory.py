"""Issue #32: what the KB knows (gpukb gpus|instances|models, /v1/gpus ..., the pages), names it does not
know said as such in ask, query, check and MCP, the cheapest instance by hourly price, and the reference
evaluation."""
from __future__ import annotations

import json

import pytest

from gpukb.engine.catalog import inventory
from gpukb.engine.kb import names


def test_the_lists_and_entries_of_the_api(client):
    gpus = client.get("/v1/gpus").get_json()["gpus"]
    assert {"T4", "A100-80GB", "H100-80GB"} <= {g["name"] for g in gpus}
    t4 = client.get("/v1/gpus/T4").get_json()
    assert t4["kind"] == "gpu" and t4["fact_count"] == len(t4["facts"]) > 10
    assert all(f["citation"] for f in t4["facts"])
    assert any(u["attribute"] == "bf16_tensor_tflops" and u["kind"] == "not_applicable" and u["reason"] for u in t4["unknowns"])
    assert "GN7.2XLARGE32" in t4["instances"]
    inst = client.get("/v1/instances?provider=tencent&gpu=T4").get_json()["instances"]
    assert inst and all(i["provider"] == "tencent" and "T4" in i["gpu"] for i in inst)
    gn7 = client.get("/v1/instances/GN7.2XLARGE32").get_json()
    assert gn7["prices"][0]["currency"] == "USD" and gn7["prices"][0]["region"] and gn7["prices"][0]["as_of"]
    assert client.get("/v1/models/llama-2-7b").get_json()["params"] > 6e9


@pytest.mark.parametrize("url, needle", [
    ("/v1/gpus/B300", "gpukb knows no GPU called B300; known ones are B100, B200"),
    ("/v1/instances/p9.48xlarge", "gpukb knows no instance called p9.48xlarge"),
    ("/v1/models/llama-9-70b", "gpukb knows no model called llama-9-70b; known ones are llama-2-70b"),
])
def test_an_unknown_name_is_a_404_naming_the_closest_ones(client, url, needle):
    r = client.get(url)
    body = r.get_json()
    assert r.status_code == 404 and needle in body["error"] and body["errors"][0]["allowed"]


def test_bad_filters_are_400s_that_say_what_is_allowed(client):
    r = client.get("/v1/instances?provider=oracle")
    assert r.status_code == 400 and r.get_json()["errors"][0]["allowed"] == ["alibaba", "aws", "azure", "gcp", "tencent"]
    r = client.get("/v1/instances?gpu=B300")
    assert r.status_code == 400 and "knows no GPU called B300" in r.get_json()["error"]


def test_query_names_an_unknown_gpu_with_the_closest_first(client):
    r = client.post("/v1/query", json={"params": 7e9, "gpu": "B300"})
    body = r.get_json()
    assert r.status_code == 400 and "gpukb knows no GPU called B300; known ones are B100, B200" in body["error"]
    assert body["errors"][0]["allowed"][:2] == ["B100", "B200"]


def test_ask_names_an_unknown_gpu_instead_of_a_generic_refusal(gpukb):
    a = gpukb.ask("can a B300 serve llama 70B in int4").to_json()
    # answered over the GPUs gpukb knows (kind gpu_choice, since no known GPU is named), the unknown one said first
    assert a["kind"] == "gpu_choice" and a["answer"].startswith("gpukb knows no GPU called B300; known ones are B100")
    assert a["unknown_names"][0]["kind"] == "gpu"
    a = gpukb.ask("what is the memory bandwidth of the X100").to_json()
    assert "gpukb knows no GPU called X100" in a["answer"]
    a = gpukb.ask("run llama-9-70b on a T4 in int4").to_json()
    assert a["kind"] == "sizing" and "gpukb knows no model called llama-9-70b" in a["answer"]


def test_no_unknown_name_is_seen_in_questions_about_known_things(gpukb):
    for q in ("why not T4 for 13B full fine-tune", "Does the T4 support BF16?", "7B QLoRA on an A10G with zero3 in fp16",
              "GN7.2XLARGE32 能跑 Qwen2.5-7B int4 推理吗", "Can I fully fine-tune Llama-2-7B on 4x A100-80GB with ZeRO-3?"):
        assert "unknown_names" not in gpukb.ask(q).to_json(), q


def test_check_says_which_product_it_does_not_know(gpukb):
    d = gpukb.check("The B300 has 288 GB of HBM3e memory. The T4 has 16 GB of memory.").to_json()
    assert any(x["reason"] == "gpukb knows no GPU called B300" and "B300" in x["quote"] for x in d["not_understood"])
    assert [c["subject"] for c in d["claims"]] == ["gpu:T4"]


def test_the_cheapest_instance_across_providers_with_price_currency_region_and_date(gpukb):
    a = gpukb.ask("the cheapest instance that serves a 70B model in int4 on AWS or Tencent").to_json()
    assert a["kind"] == "instance_choice" and a["ranking"] == "price" and set(a["providers"]) == {"aws", "tencent"}
    p = a["price"]
    assert a["choice"] and p["currency"] == "USD" and p["region"] and p["as_of"] and str(p["value"]) in a["answer"]
    priced = [o for o in a["ranked"] if o["prices"]]
    values = [o["prices"][0]["value"] for o in priced]
    assert values == sorted(values) and a["ranked"][:len(priced)] == priced        # priced first, cheapest first
    unpriced = a["ranked"][len(priced):]
    assert all(o["price_note"].startswith("the price is not published in the KB") for o in unpriced)
    assert all(o["verdict"] == "fits" for o in a["ranked"]) and all(o["verdict"] != "fits" for o in a["not_fitting"])


def test_prices_in_two_currencies_are_never_ranked_together(gpukb, monkeypatch):
    from gpukb.engine.ask import price as ask_price
    real = inventory.prices

    def fake(view, inst):
        out = real(view, inst)
        if inst.endswith("GN7.20XLARGE320"):
            return [{"value": 3.0, "currency": "CNY", "unit": "CNY/h", "region": "ap-beijing", "as_of": "2024-01-01"}]
        return out
    monkeypatch.setattr(inventory, "prices", fake)
    a = ask_price.cheapest(gpukb, {"params": 70e9, "method": "inference", "precision": "int4"}, ["tencent"], gpukb.view(), "en").to_json()
    assert a["choice"] is None and {o["prices"][0]["currency"] for o in a["cheapest"]} == {"USD", "CNY"}
    assert "never converts" in a["note"]["en"]


def test_post_cheapest_and_its_errors(client):
    r = client.post("/v1/cheapest", json={"model": "llama-2-7b", "method": "qlora", "providers": "tencent"})
    assert r.status_code == 200 and r.get_json()["choice"]
    assert client.post("/v1/cheapest", json={"params": "7B", "gpu": "T4"}).status_code == 400
    assert client.post("/v1/cheapest", json={"params": "7B", "providers": ["oracle"]}).status_code == 400
    assert client.post("/v1/cheapest", json={"params": "7B", "colour": "red"}).status_code == 400


def test_the_cli_commands(cli):
    code, out, _ = cli("gpus")
    assert code == 0 and "T4" in out and "Turing" in out
    code, out, _ = cli("instances", "--provider", "tencent", "--gpu", "T4", "--json")
    assert code == 0 and all(i["provider"] == "tencent" for i in json.loads(out)["instances"])
    code, out, _ = cli("models", "llama-2-7b")
    assert code == 0 and "params" in out
    code, out, err = cli("gpus", "B300")
    assert code == 2 and "gpukb knows no GPU called B300" in err
    code, out, _ = cli("query", "--cheapest", "--provider", "aws,tencent", "--params", "70B", "--method", "inference",
                       "--precision", "int4", "--json")
    assert code == 0 and json.loads(out)["ranking"] == "price"


def test_the_pages(client):
    assert client.get("/gpus").status_code == 200
    page = client.get("/gpus/T4").get_data(as_text=True)
    assert "NVIDIA Tesla T4" in page and "datasheet" in page
    assert client.get("/instances/GN7.2XLARGE32?lang=zh").status_code == 200
    r = client.get("/gpus/B300")
    assert r.status_code == 404 and "knows no GPU called B300" in r.get_data(as_text=True)


def test_unknown_mentions_ignore_precisions_sizes_and_stages():
    from gpukb.engine.kb.loader import load_kb
    from gpukb.engine.core.paths import DEFAULT_KB
    vocab = load_kb(DEFAULT_KB).vocab
    assert names.unknown_mentions("13B in fp16 with zero3 and int4, bf16 or tf32 at 4k", vocab) == []
    assert [m["text"] for m in names.unknown_mentions("MI300X or RTX 5090?", vocab)] == ["MI300X", "RTX 5090"]


def test_eval_reference_reports_agreement_missing_and_disagreements(gpukb):
    from gpukb.engine.evals.reference import evaluate, load_gold
    r = evaluate(gpukb, load_gold(gpukb.kb_dir / "gold" / "reference.yaml"))
    assert r["gold"] == r["agree"] + r["missing"] + r["disagree"]
    assert r["agreement"] >= 0.99, r["disagreements"]
    assert all(d["tier"] for d in r["disagreements"])
