"""engine/audit/keys.py: a claim's reuse key covers what its audit reads, and no more of its value
group's sources than the rules read, so a re-audit after a claim joins a large group audits that claim
and gives the findings of a full audit."""
from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any, Iterator

import pytest
import yaml

from gpukb.engine.audit.blocks import reachable_reference
from gpukb.engine.audit.keys import reach
from gpukb.engine.audit.run import plan, run_audit
from gpukb.engine.service.state import GpuKB
from gpukb.engine.kb.synth import make_synthetic_kb

RULES = Path(__file__).resolve().parents[1] / "rules"
#: the only shapes in which a rule may read a group's sources (what audit_keys.group_view keeps of them)
SOURCES_READ = [r"not \((\w+)\.n_sources == 1 and (\w+)\.n_sources == 1 and \1\.sources == \2\.sources\)",
                r"g\.n_sources > 1 or (\w+)\.sources != g\.sources",      # g: the pair's own group (cpair a)
                # the same two tests written on the other group's fields (equal sources texts have equal
                # counts), so that durable_rules evaluates them in the join (engine/reasoning/lift.py)
                r"(\w+)\.n_sources != 1 or \1\.sources != (\w+)\.sources",
                r"(\w+)\.n_sources > 1 or \1\.sources != g\.sources"]


def _strings(x: Any) -> Iterator[str]:
    if isinstance(x, str):
        yield x
    elif isinstance(x, dict):
        for v in x.values():
            yield from _strings(v)
    elif isinstance(x, list):
        for v in x:
            yield from _strings(v)


def test_the_rules_read_a_groups_sources_only_as_one_or_several():
    """A group is keyed as of one source or several, and a group it is compared with by whether the two
    are of the same one source (audit_keys.group_view, partner_view): sound only while every rule reads
    ``sources``/``n_sources`` in one of the shapes above. A rule that needs more (how
    many sources, which ones) must be taught to group_view and this list first."""
    seen = 0
    for path in sorted(RULES.rglob("*.yaml")):
        doc = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
        for rule in doc.get("rules") or []:
            for text in _strings(rule):
                if "sources" not in text or text == rule.get("id"):
                    continue
                if isinstance(rule.get("description"), dict) and text in rule["description"].values():
                    continue
                rest = text
                if re.search(SOURCES_READ[1], text) or re.search(SOURCES_READ[3], text):
                    assert "a == g.gid" in json.dumps(rule.get("when")), rule["id"]
                for shape in SOURCES_READ:
                    rest, n = re.subn(shape, "", rest)
                    seen += n
                assert "sources" not in rest, (path.name, rule["id"], text)
    assert seen >= 5


def test_reach_asks_one_claim_per_reading(gpukb, synthetic_dir):
    """The reference facts of a unit asked claim by claim and one claim per distinct reading agree, on
    every unit of the bundled KB and of a synthetic one (where large units restate a few figures)."""
    for view in (gpukb.view(None), GpuKB(synthetic_dir).view(None)):
        for u in plan(view)[0]:
            claims = u.claims + u.context_claims
            assert [f.key for f in reach(view, claims)] == [f.key for f in reachable_reference(view, claims)]


@pytest.fixture(scope="module")
def synthetic_dir(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("synth-keys") / "kb"
    make_synthetic_kb(out, 2000, seed=5)      # enough claims per reference figure for groups of several sources
    return out


def _restating_source(src: Path, dst: Path, view, recs: dict[str, dict], n: int = 6) -> list[str]:
    """``dst``: the KB of ``src`` with a new source restating ``n`` figures that groups of several
    sources already state (each joins an existing large group); their claim ids."""
    shutil.copytree(src, dst)
    sizes: dict[str, list] = {}
    for c in view.claims:
        sizes.setdefault(recs[c.id]["gid"], []).append(c)
    big = sorted((g for g in sizes.values() if len({c.source for c in g}) > 2 and not g[0].qualifiers),
                 key=lambda g: -len(g))[:n]
    assert len(big) == n and len(big[0]) >= 5
    sid, lines, items, pos = "S900", [], [], 0
    for i, g in enumerate(big, 1):
        c = g[0]
        sentence = f"{c.quote} (restated {i})"
        items.append({"id": f"{sid}-C{i:04d}", "version": 1, "subject": c.subject, "attribute": c.attribute,
                      "value": c.value, **({"unit": c.unit} if c.unit else {}), "quote": sentence,
                      "span": [pos, pos + len(sentence)], "modality": c.modality, "gloss_en": sentence})
        lines.append(sentence)
        pos += len(sentence) + 1
    (dst / "sources" / f"{sid}.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    (dst / "claims" / f"{sid}.yaml").write_text(yaml.safe_dump({"source": sid, "claims": items}, allow_unicode=True,
                                                               sort_keys=False), encoding="utf-8")
    listed = yaml.safe_load((dst / "sources" / "sources.yaml").read_text(encoding="utf-8"))
    listed["sources"].append({"id": sid, "file": f"{sid}.txt", "title": "restating", "publisher": "test",
                              "published": None, "language": "en"})
    (dst / "sources" / "sources.yaml").write_text(yaml.safe_dump(listed, sort_keys=False), encoding="utf-8")
    vers = yaml.safe_load((dst / "versions.yaml").read_text(encoding="utf-8"))
    vers["releases"][0]["adds"]["sources"].append(sid)
    (dst / "versions.yaml").write_text(yaml.safe_dump(vers, allow_unicode=True, sort_keys=False), encoding="utf-8")
    return [x["id"] for x in items]


@pytest.mark.slow  # full audits of a synthetic KB or of every release compared (~6 s each)
@pytest.mark.parametrize("workers", [1, 2])
def test_a_claim_joining_a_large_group_reaudits_only_itself(synthetic_dir, tmp_path, workers):
    """Six claims of a new source each join a value group of several sources: the re-audit audits those
    six claims (a part of each unit) and reuses every other claim, its findings and statuses those of
    a full audit, in one process and on two worker processes."""
    before = GpuKB(synthetic_dir)
    bview = before.view(None)
    prev = run_audit(before, bview)
    new = _restating_source(synthetic_dir, tmp_path / "after", bview, plan(bview)[1])
    after = GpuKB(tmp_path / "after")
    view = after.view(None)
    inc = run_audit(after, view, previous=prev, workers=workers)
    full = run_audit(after, view)
    assert {k: v["status"] for k, v in inc.statuses.items()} == {k: v["status"] for k, v in full.statuses.items()}
    assert [json.dumps(f, sort_keys=True) for f in inc.findings] == [json.dumps(f, sort_keys=True) for f in full.findings]
    assert inc.corroboration == full.corroboration
    assert inc.run.claims_audited == len(new) and inc.run.claims_reused == len(view.claims) - len(new)
    assert all(inc.statuses[c]["status"] for c in new)


@pytest.mark.slow  # full audits of a synthetic KB or of every release compared (~6 s each)
def test_a_reaudit_reusing_every_claim_gives_the_same_result(gpukb):
    """Reused results are not changed by the merge that reads them (a premise is named once, with the
    status of this audit), on every release of the bundled KB."""
    for name in gpukb.kb.release_names():
        view = gpukb.view(name)
        first = run_audit(gpukb, view)
        before = [json.dumps(f, sort_keys=True) for f in first.findings]
        again = run_audit(gpukb, view, previous=first)
        assert again.run.claims_audited == 0 and again.run.claims_reused == len(view.claims)
        assert [json.dumps(f, sort_keys=True) for f in again.findings] == before
        assert [json.dumps(f, sort_keys=True) for f in first.findings] == before
        assert {k: v["status"] for k, v in again.statuses.items()} == {k: v["status"] for k, v in first.statuses.items()}
        assert [json.dumps(again.statuses[k], sort_keys=True) for k in sorted(again.statuses)] == \
            [json.dumps(first.statuses[k], sort_keys=True) for k in sorted(first.statuses)]
