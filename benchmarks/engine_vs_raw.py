"""Engine (gpukb's reasoner with justifications) against raw durable_rules on the same rules and facts.

Both run the bundled sizing rules over the same scenarios and reference facts. The raw baseline lets
durable_rules chain by itself (actions assert derived facts directly) and records nothing; gpukb's
reasoner records every firing and its premises. Prints the median time per scenario and the ratio.
"""
from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from gpukb.engine.reasoning import expr, matcher

from gpukb.engine.models import scenario as scen

from gpukb.engine.sizing import run as sizing  # noqa: E402
from gpukb.engine.reasoning.durable_host import RawRuleset  # noqa: E402
from gpukb.engine.reasoning.rules import definition, fact_key  # noqa: E402
from gpukb.engine.service.state import GpuKB  # noqa: E402

BODIES = [
    {"params": 13e9, "method": "full", "gpu": "T4"},
    {"model": "llama-2-7b", "method": "qlora", "gpu": "T4"},
    {"model": "llama-2-70b", "method": "full", "gpu": "A100-80GB", "gpus": 16, "zero": 3},
    {"model": "llama-2-13b", "method": "inference", "gpu": "L4"},
    {"model": "qwen2.5-7b", "method": "lora", "instance": "GN7.20XLARGE320", "gradient_checkpointing": True},
]


def raw_deriver(ruleset, known: dict):
    rules = {f"r{i}": r for i, r in enumerate(ruleset.rules)}
    defaults = matcher.defaults_of(ruleset.types)

    def derive(rule_name, bindings):
        rule = rules[rule_name]
        env = {b[2:]: known.get(m.get("fk"), m) for b, m in bindings.items()}
        if not matcher.holds(rule, env, defaults):
            return []
        values = {k: expr.evaluate(node, env) for k, node in rule.derive.items()}
        fk = fact_key(rule.derive_type, values)
        fact = {"t": rule.derive_type, "fk": fk, **values}
        known[fk] = fact
        return [{k: v for k, v in fact.items() if isinstance(v, (str, int, float)) and not isinstance(v, bool)}]
    return derive


def main(repeat: int = 30) -> dict:
    kb = GpuKB()
    view = kb.view()
    seeds = kb.seeds(view)
    runs = []
    for i, body in enumerate(BODIES):
        s, notes = scen.normalise(body, kb.kb.vocab)
        rec = scen.record(s, f"b{i}")
        rec["has_arch"] = sizing.has_arch(view, s.get("model"))
        runs.append(sizing.relevant(seeds, s) + [rec])
    reasoner = kb.reasoner
    known: dict = {}
    raw = RawRuleset(definition(kb.rules), raw_deriver(kb.rules, known))
    for facts in runs:  # warm up both, and check they derive the same number of facts
        known.clear()
        known.update({f["fk"]: f for f in facts})
        raw.run(facts)
        d = reasoner.run(facts)
        assert set(known) == set(d.facts), (len(known), len(d.facts))
    t_engine, t_raw = [], []
    for _ in range(repeat):
        for facts in runs:
            t0 = time.perf_counter()
            reasoner.run(facts)
            t_engine.append(time.perf_counter() - t0)
            known.clear()
            known.update({f["fk"]: f for f in facts})
            t0 = time.perf_counter()
            raw.run(facts)
            t_raw.append(time.perf_counter() - t0)
    e, r = statistics.median(t_engine) * 1000, statistics.median(t_raw) * 1000
    return {"engine_ms": round(e, 3), "raw_ms": round(r, 3), "ratio": round(e / r, 3), "goal": 1.5,
            "scenarios": len(BODIES), "runs": repeat * len(BODIES)}


if __name__ == "__main__":
    res = main()
    print(f"engine vs raw durable_rules: engine {res['engine_ms']} ms, raw {res['raw_ms']} ms per scenario "
          f"(median of {res['runs']}); ratio {res['ratio']} (goal <= {res['goal']})")
