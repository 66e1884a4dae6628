"""Cloud instance sizes that were missing (issue #32, release 2026.12.32): AWS G6's 4- and 8-GPU sizes, every G6e
size and the Gr6 family, Google Cloud's A3 High 1g/2g/4g and A3 Mega machine types, and the prices of Azure's H100
v5 sizes. Each figure is cited to the provider's own page and names the dated machine copy it was read from
(Karpenter's files generated from the EC2 API and the AWS Price List API; a third-party copy of Google's machine
types and Billing Catalog SKUs; the Azure Karpenter provider's table from the Azure Retail Prices API), at medium
confidence; the sizes are listed by ``gpukb instances`` and ranked by ``ask`` with their prices."""
from __future__ import annotations

import re
from urllib.parse import urlparse

import pytest

from gpukb.engine.catalog import inventory
from gpukb.engine.kb.interval import Interval

RELEASE = "2026.12.32"
AWS_NEW = ["g6.12xlarge", "g6.24xlarge", "g6.48xlarge", "g6e.xlarge", "g6e.2xlarge", "g6e.4xlarge", "g6e.8xlarge",
           "g6e.16xlarge", "g6e.12xlarge", "g6e.24xlarge", "g6e.48xlarge", "gr6.4xlarge", "gr6.8xlarge"]
GCP_NEW = ["a3-highgpu-1g", "a3-highgpu-2g", "a3-highgpu-4g", "a3-megagpu-8g"]
AZURE_PRICED = {"Standard_NC40ads_H100_v5": 6.98, "Standard_NC80adis_H100_v5": 13.96, "Standard_ND96isr_H100_v5": 98.32}
AWS_ATTRS = {"family", "gpu", "gpu_count", "vcpu", "host_memory_gb", "network_bandwidth", "local_storage",
             "gpu_memory_total_gb", "price_hourly_usd"}
GCP_ATTRS = {"family", "gpu", "gpu_count", "vcpu", "host_memory_gb", "local_storage", "price_hourly_usd"}
HOSTS = {"aws": "aws.amazon.com", "gcp": "cloud.google.com", "azure": "azure.microsoft.com"}
#: the dated copies the figures were read from (repository and commit named in each citation)
COPIES = {"aws": ("aws/karpenter-provider-aws", ("692ccdd0629e488300821443f0fa0bc3c3e08047",
                                                 "7f27b4e85d3157418ab84eb04a3c91da7cb8fbba",
                                                 "6fc13b5236fd04fd16ff3f9dc7490d0813994099")),
          "gcp": ("Cyclenerd/google-cloud-pricing-cost-calculator", ("fd66b26ff84fee5cdd94f341ea89206e76c06b99",)),
          "azure": ("Azure/karpenter-provider-azure", ("2b431da153a6a92b705c18046512c60b1631b682",))}


@pytest.fixture(scope="module")
def view(gpukb):
    return gpukb.view()


def _ref(view, name, attribute):
    f = view.ref(f"instance:{name}", attribute)
    assert f is not None, f"{name} has no {attribute}"
    return f


def _own(view, name):
    return {f.attribute for f in view.reference if f.subject == f"instance:{name}"}


# -- the facts and their citations ---------------------------------------------------------------------------

@pytest.mark.parametrize("name, gpu, count, vcpu, mem_gib", [
    ("g6.12xlarge", "gpu:L4", 4, 48, 192),
    ("g6.48xlarge", "gpu:L4", 8, 192, 768),
    ("g6e.xlarge", "gpu:L40S", 1, 4, 32),
    ("g6e.12xlarge", "gpu:L40S", 4, 48, 384),
    ("g6e.24xlarge", "gpu:L40S", 4, 96, 768),
    ("g6e.48xlarge", "gpu:L40S", 8, 192, 1536),
    ("gr6.8xlarge", "gpu:L4", 1, 32, 256),
])
def test_a_new_aws_size_has_its_gpus_cpus_and_memory(view, name, gpu, count, vcpu, mem_gib):
    assert _ref(view, name, "gpu").value == [gpu]
    assert _ref(view, name, "gpu_count").value == count
    assert _ref(view, name, "vcpu").value == vcpu
    mem = _ref(view, name, "host_memory_gb")
    assert mem.value == mem_gib and mem.unit == "GiB"
    per = 22888 if gpu == "gpu:L4" else 45776                  # MiB per GPU, as the EC2 API gives it
    total = _ref(view, name, "gpu_memory_total_gb")
    assert total.value == count * per and total.unit == "MiB"
    assert isinstance(total.norm, Interval) and total.norm.point() == pytest.approx(count * (24 if per == 22888 else 48), rel=1e-3)


@pytest.mark.parametrize("name, value", [
    ("g6e.xlarge", ">= 2.5"), ("g6e.2xlarge", ">= 5"), ("gr6.4xlarge", ">= 10"),     # baseline: a lower bound
    ("g6e.8xlarge", 25), ("g6e.16xlarge", 35), ("g6.48xlarge", 100), ("g6e.48xlarge", 400),
])
def test_network_bandwidth_is_the_baseline_and_a_lower_bound_below_8xlarge(view, name, value):
    f = _ref(view, name, "network_bandwidth")
    assert f.value == value and f.unit == "Gbps" and "baseline" in f.note


@pytest.mark.parametrize("name, value, region, as_of", [
    ("g6.xlarge", 0.8048, "us-east-1", "2026-07-20"),
    ("g6.48xlarge", 13.3504, "us-east-1", "2026-07-20"),
    ("g6e.xlarge", 1.861, "us-east-1", "2026-07-20"),
    ("g6e.48xlarge", 30.13118, "us-east-1", "2026-07-20"),
    ("gr6.4xlarge", 1.5392, "us-east-1", "2026-07-20"),
    ("a3-highgpu-1g", 11.06125, "us-central1", "2026-07-30"),
    ("a3-highgpu-8g", 88.49, "us-central1", "2026-07-30"),
    ("a3-megagpu-8g", 92.93759, "us-east4", "2026-07-30"),
    ("Standard_NC40ads_H100_v5", 6.98, "eastus", "2026-06-18"),
    ("Standard_ND96isr_H100_v5", 98.32, "eastus", "2026-06-18"),
])
def test_a_new_price_states_region_date_and_the_providers_page(view, name, value, region, as_of):
    f = _ref(view, name, "price_hourly_usd")
    assert f.value == pytest.approx(value) and f.unit == "USD/h"
    assert f.qualifiers == {"region": region, "as_of": as_of}
    provider = inventory.provider_of(view, f.subject)
    host = urlparse(re.findall(r"https?://[^\s,;)]+", f.citation)[0]).hostname
    assert host == HOSTS[provider] or host.endswith("." + HOSTS[provider])
    assert f.confidence == "medium" and f.since == RELEASE and as_of in f.note


def test_every_new_fact_cites_the_providers_page_and_the_dated_copy_it_was_read_from(gpukb, view):
    new = [f for f in view.reference if f.since == RELEASE and f.subject.startswith(("instance:", "family:"))]
    assert len(new) >= 160
    for f in new:
        provider = inventory.provider_of(view, f.subject) if f.subject.startswith("instance:") else "aws"
        assert provider in HOSTS, f.id
        urls = re.findall(r"https?://[^\s,;)]+", f.citation or "")
        assert urls and any(urlparse(u).hostname.endswith(h) for u in urls for h in ("amazon.com", "google.com",
                                                                                     "microsoft.com")), f.id
        if f.confidence == "medium":            # read from a machine copy: it names the copy, its commit and date
            repo, commits = COPIES[provider]
            assert repo in f.citation and any(c in f.citation for c in commits), f.id
            assert re.search(r"20\d\d-\d\d-\d\d", f.citation), f.id
        else:           # a family's GPU (AWS's CloudFormation reference) or an A3 type's series (Google's page)
            assert f.confidence == "high" and f.attribute in ("gpu", "vendor", "in_catalog", "family"), f.id


def test_each_new_size_has_every_figure_and_no_price_left_unknown(gpukb, view):
    for name in AWS_NEW:
        assert _own(view, name) == AWS_ATTRS, name
    for name in GCP_NEW:
        assert _own(view, name) == GCP_ATTRS, name
    priced = AWS_NEW + ["g6.xlarge", "g6.2xlarge", "g6.4xlarge", "g6.8xlarge", "g6.16xlarge"] + GCP_NEW + \
        ["a3-highgpu-8g"] + list(AZURE_PRICED)
    for name in priced:
        assert inventory.prices(view, f"instance:{name}"), name
        assert not [u for u in gpukb.kb.unknowns if u.subject == f"instance:{name}"
                    and u.attribute in inventory.PRICE_ATTRIBUTES], name
    a3 = _ref(view, "a3-highgpu-1g", "local_storage")
    assert a3.value == "750 GB Local SSD (bundled)" and "automatically added" in a3.note


def test_the_new_sizes_join_the_kb_in_their_release(gpukb):
    before, now = gpukb.view("2026.12.31"), gpukb.view(RELEASE)
    for name in ("g6e.xlarge", "g6.12xlarge", "gr6.4xlarge", "a3-highgpu-1g"):
        assert before.ref(f"instance:{name}", "gpu_count") is None and now.ref(f"instance:{name}", "gpu_count")
    for name in ("g6.xlarge", "a3-highgpu-8g", "Standard_ND96isr_H100_v5"):
        assert not inventory.prices(before, f"instance:{name}") and inventory.prices(now, f"instance:{name}")
    assert before.ref("family:aws-g6e", "note").value.startswith("No stored AWS page")
    assert now.ref("family:aws-g6e", "note").value.startswith("G6e sizes:")


# -- listed and asked ----------------------------------------------------------------------------------------

def test_instances_lists_every_g6e_size_with_its_price(cli):
    d = cli.json("instances", "--provider", "aws", "--gpu", "l40s", "--json")
    got = {i["name"]: i for i in d["instances"]}
    assert set(got) == {n for n in AWS_NEW if n.startswith("g6e.")}
    assert all(i["provider"] == "aws" and i["gpu"] == ["L40S"] for i in got.values())
    assert got["g6e.xlarge"]["prices"][0]["value"] == 1.861
    assert got["g6e.48xlarge"]["prices"][0]["region"] == "us-east-1"
    assert got["g6e.48xlarge"]["prices"][0]["as_of"] == "2026-07-20"
    code, out, _ = cli("instances", "--provider", "aws", "--gpu", "L40S")
    assert code == 0 and "g6e.12xlarge" in out and "10.4926 USD/h (us-east-1, 2026-07-20)" in out
    assert "8 instance sizes" in out


def test_instances_lists_the_g6_gr6_and_a3_sizes(cli):
    l4 = {i["name"] for i in cli.json("instances", "--provider", "aws", "--gpu", "L4", "--json")["instances"]}
    assert {"g6.12xlarge", "g6.24xlarge", "g6.48xlarge", "gr6.4xlarge", "gr6.8xlarge"} <= l4
    a3 = {i["name"]: i for i in cli.json("instances", "--provider", "gcp", "--gpu", "H100-80GB", "--json")["instances"]}
    assert set(GCP_NEW) | {"a3-highgpu-8g"} <= set(a3)
    assert all(a3[n]["prices"] for n in GCP_NEW)
    one = cli.json("instances", "g6e.24xlarge", "--json")
    assert one["prices"][0]["value"] == pytest.approx(15.06559)
    assert {f["attribute"] for f in one["facts"]} >= AWS_ATTRS


def test_the_cheapest_aws_size_for_70b_in_int4_considers_g6e(gpukb):
    a = gpukb.ask("cheapest instance on AWS that serves a 70B model in int4").to_json()
    assert a["kind"] == "instance_choice" and a["providers"] == ["aws"] and a["ranking"] == "price"
    ranked = {o["instance"]: o for o in a["ranked"]}
    assert {"g6e.xlarge", "g6e.12xlarge", "g6e.48xlarge", "g6.12xlarge", "g6.48xlarge"} <= set(ranked)
    assert all(ranked[n]["prices"] for n in ranked)                   # every AWS size that fits is priced
    # a 70B model in 4 bits (35 GB of weights) fits one 48 GB L40S, and g6e.xlarge is its cheapest carrier
    assert a["choice"] == "g6e.xlarge" and a["price"]["value"] == 1.861 and a["price"]["as_of"] == "2026-07-20"
    assert "g6e.xlarge" in a["answer"] and "1.861 USD/h (us-east-1, as of 2026-07-20)" in a["answer"]
    # one 24 GB L4 cannot hold the weights: the one-L4 G6 and Gr6 sizes do not fit
    assert not {"g6.xlarge", "g6.16xlarge", "gr6.8xlarge"} & set(ranked)
    old = gpukb.ask("cheapest instance on AWS that serves a 70B model in int4", kb_version="2026.12.31").to_json()
    assert "g6e.xlarge" not in {o["instance"] for o in old["ranked"]} and old["choice"] != "g6e.xlarge"


def test_a_statement_about_a_new_size_is_checked_against_its_facts(gpukb):
    from tests._engine import checked
    got = {(c["subject"], c["attribute"]): c["status"]
           for c in checked(gpukb, "The g6e.12xlarge has 4 L40S GPUs and 48 vCPUs.")}
    assert got.get(("instance:g6e.12xlarge", "gpu_count")) == "supported"
    bad = {(c["subject"], c["attribute"]): c["status"]
           for c in checked(gpukb, "The g6e.12xlarge has 8 L40S GPUs.")}
    assert bad.get(("instance:g6e.12xlarge", "gpu_count")) in {"incorrect", "overstated"}
