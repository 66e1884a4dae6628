"""`explain` of a claim id that `check` printed (``X<digest>-C001``): the claim's strongest finding, over the
API, the pages and a new CLI process; an id the check does not hold is a 404 naming it."""
from __future__ import annotations

import json
import subprocess
import sys

TEXT = "The NVIDIA T4 has 32 GB of GDDR6 memory and a 70 W TDP."


def _claims(client) -> list[dict]:
    r = client.post("/v1/check", json={"text": TEXT})
    assert r.status_code == 200, r.get_json()
    return r.get_json()["claims"]


def test_a_checked_claim_is_explained_by_its_strongest_finding(client):
    claims = _claims(client)
    wrong = next(c for c in claims if c["status"] == "incorrect")
    r = client.get(f"/v1/conclusions/{wrong['id']}")
    assert r.status_code == 200, r.get_json()
    doc = r.get_json()
    assert doc["conclusion_id"] == wrong["id"] and doc["status"]["status"] == "incorrect"
    assert doc["findings"][0]["id"].startswith(f"A-{wrong['id']}-incorrect-")
    assert "R-T4-memory_gb" in json.dumps(doc["tree"])
    page = client.get(f"/conclusions/{wrong['id']}")
    assert page.status_code == 200 and "16 GB" in page.get_data(as_text=True)


def test_an_unknown_claim_of_a_checked_text_is_a_404(client, error_shape):
    sid = _claims(client)[0]["id"].split("-")[0]
    r = client.get(f"/v1/conclusions/{sid}-C999")
    error_shape(r.get_json(), 404)
    assert f"{sid}-C999" in r.get_json()["error"]


def test_a_new_cli_process_explains_a_claim_id_that_check_printed(tmp_path, subprocess_env):
    env = dict(subprocess_env, GPUKB_CHECK_STORE=str(tmp_path / "store"))
    run = [sys.executable, "-m", "gpukb.server.cli"]
    out = subprocess.run(run + ["check", TEXT, "--json"], capture_output=True, text=True, env=env, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    cid = next(c["id"] for c in json.loads(out.stdout)["claims"] if c["status"] == "incorrect")
    out = subprocess.run(run + ["explain", cid], capture_output=True, text=True, env=env, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.startswith("incorrect:") and "16 GB" in out.stdout
