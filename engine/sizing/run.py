"""Sizing answers: run the sizing rules on one scenario and assemble the contract's answer.

The rules compute everything (memory parts, capacity, verdict, minimum GPU count, communication,
compute, precision advice and recommendation candidates); this module only seeds the facts, reads the
derived ones back and evaluates each recommended change by running the same rules on the changed
scenario, so a recommendation says what it would achieve and what it costs.
"""
from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import Any, Callable

from ..kb import facts as factrec
from ..models import scenario as scen
from ..models.sizing import Memory
from ..kb.store import ReleaseView
from ..reasoning.reasoner import Derivation, Reasoner
from ..reasoning.rules import RuleSet

#: runs a list of facts to a fixpoint (``Reasoner.run`` or a question's ``StagedRun.add``); its keyword
#: ``shared`` takes the reference records asserted first (see ``StagedRun.add``)
Engine = Callable[..., Derivation]

#: what a memo answers for a key it does not hold (None is a value: a point the KB cannot size)
MISSING = object()

SIZING_KINDS = {"gpu", "family", "instance", "model", "precision", "optimizer", "concept", "technique"}
MEMORY_KEYS = ("weights", "gradients", "optimizer", "activations", "logits", "weight_copies", "comm_buffers", "overhead",
               "kv_cache")
#: memory parts a release or a method may not have: left out of the breakdown when not derived (the copies
#: and buckets also when they are zero)
OPTIONAL_KEYS = ("logits", "weight_copies", "comm_buffers")


@dataclass
class SizingRun:
    scenario: dict[str, Any]
    notes: list[str]
    qid: str
    derivation: Derivation
    release: str

    def _mine(self, ftype: str) -> list[dict[str, Any]]:
        """The derived facts of one type about this scenario (a run may hold several scenarios)."""
        return self.derivation.derived_of(ftype, self.qid)

    def one(self, ftype: str) -> dict[str, Any] | None:
        found = self._mine(ftype)
        if not found:
            return None
        # several facts of one type (e.g. two compute figures for two form factors): the smallest value
        return found[0] if len(found) == 1 else sorted(found, key=lambda f: json.dumps(f, sort_keys=True, default=str))[0]

    def all(self, ftype: str) -> list[dict[str, Any]]:
        return list(self._mine(ftype))


def question_rules(rules: RuleSet, group: str = "sizing") -> RuleSet:
    """The rules a question's sessions need: the ``group``'s rules and, transitively, every rule deriving a
    fact type they read. Today that is the sizing group alone: the audit's rules (half of the rule set)
    derive nothing a sizing rule reads, but in a question's session they fired on the reference facts
    every time (inherited GPU properties), a third of its matches."""
    chosen = {r.key: r for r in rules.rules if r.group == group}
    while True:
        reads = {p.type for r in chosen.values() for p in r.patterns}
        more = [r for r in rules.rules if r.key not in chosen and r.derive_type in reads]
        if not more:
            break
        chosen.update((r.key, r) for r in more)
    return RuleSet([r for r in rules.rules if r.key in chosen], rules.types, rules.root, rules.digest)


def _conjuncts(node: tuple) -> list[tuple]:
    if node[0] == "and":
        return _conjuncts(node[1]) + _conjuncts(node[2])
    return [node]


def answer_only_types(rules: RuleSet) -> frozenset[str]:
    """The fact types that only rules about an answer's own scenario read: every pattern of the type is
    tied, by ``qid`` equalities, to a scenario pattern that requires ``purpose == 'answer'`` (the
    recommendation rules reading verdicts, GPU counts, compute times), and no rule tests for their
    absence. Such a fact about a probe scenario can take part in no match."""
    blocked: set[str] = set()
    readers: dict[str, int] = {}
    tied: dict[str, int] = {}
    for rule in rules.rules:
        parent = {p.bind: p.bind for p in rule.patterns}

        def root(b: str) -> str:
            while parent[b] != b:
                b = parent[b]
            return b
        answer: set[str] = set()
        for p in rule.patterns:
            for c in p.conditions:
                for n in _conjuncts(c.node):
                    if n[0] != "cmp" or n[1] != "==":
                        continue
                    a, b = n[2], n[3]
                    for x, y in ((a, b), (b, a)):
                        if x == ("name", ("qid",)) and y[0] == "name" and len(y[1]) == 2 and y[1][1] == "qid" \
                                and y[1][0] in parent:
                            parent[root(p.bind)] = root(y[1][0])
                        if p.type == "scenario" and not p.absent and x == ("name", ("purpose",)) and y == ("lit", "answer"):
                            answer.add(p.bind)
        answer_roots = {root(b) for b in answer}
        for p in rule.patterns:
            if p.absent:
                blocked.add(p.type)
                continue
            readers[p.type] = readers.get(p.type, 0) + 1
            if p.type != "scenario" and root(p.bind) in answer_roots:
                tied[p.type] = tied.get(p.type, 0) + 1
    return frozenset(t for t, n in readers.items() if tied.get(t) == n and t not in blocked)


def probe_mute(rules: RuleSet) -> Callable[[dict[str, Any], dict[str, dict[str, Any]]], bool] | None:
    """For a question's sessions (see ``Reasoner(mute=...)``): whether a derived fact is one no rule can
    match because it is of an :func:`answer_only_types` type and about a scenario that is not an
    answer's (a recommendation's variant, a search point). A session holds one scenario record per
    ``qid`` (its key is ``scenario:<qid>``), so the scenario a fact is about is the one it names."""
    types = answer_only_types(rules)
    if not types:
        return None

    def mute(fact: dict[str, Any], known: dict[str, dict[str, Any]]) -> bool:
        if fact["t"] not in types:
            return False
        s = known.get(f"scenario:{fact.get('qid')}")
        return s is not None and s.get("purpose") != "answer"
    return mute


GENERIC_KINDS = {"precision", "optimizer", "concept", "technique"}
GPU_ATTRS = {"memory_gb", "usable_memory", "bf16_native", "fp16_tensor_tflops", "nvlink_bandwidth", "compute_capability"}


def seed_records(view: ReleaseView) -> list[dict[str, Any]]:
    """Reference records the sizing rules may need (cached per release by the caller)."""
    vocab = view.kb.vocab
    return [factrec.record(f, vocab) for f in view.reference if vocab.kind_of(f.subject) in SIZING_KINDS]


#: the scenario fields :func:`relevant` depends on
RELEVANT_KEYS = ("model", "gpu", "instance", "family")


def relevant(seeds: list[dict[str, Any]], s: dict[str, Any],
             usable: Callable[[dict[str, Any]], bool] | None = None) -> list[dict[str, Any]]:
    """The seeds one scenario can use: formulas, its own entities, its GPU's specs, other GPUs' memory.

    Leaving out the other models', instances' and GPUs' facts changes no derivation (every sizing rule
    joins them on the scenario's own entities; only the family recommendation looks at other GPUs,
    and only at their memory) and keeps a question fast. ``usable`` (:func:`reference_use` of the rules)
    also leaves out the other families' and GPUs' records that no pattern can match.
    """
    mine = {s.get(k) for k in RELEVANT_KEYS} - {None}
    hosts = {r["v0"] for r in seeds if r["subject"] in mine and r["attribute"] == "gpu" and r.get("v0")}
    mine |= hosts
    out = []
    for r in seeds:
        subj = r["subject"]
        kind = subj.split(":", 1)[0]
        if kind in GENERIC_KINDS or subj in mine:
            if kind != "gpu" or r["attribute"] in GPU_ATTRS:
                out.append(r)
        elif ((kind == "gpu" and r["attribute"] == "memory_gb") or (kind == "family" and r["attribute"] == "gpu")) \
                and (usable is None or usable(r)):
            out.append(r)
    return out


def reference_use(rules: RuleSet) -> Callable[[dict[str, Any]], bool]:
    """Whether some pattern of ``rules`` could match a reference record (``ref``) of an entity other than
    a scenario's own: a pattern (absent ones too) whose string literals the record meets, unless its
    subject must be a scenario's own entity (``subject == s.model``, ``s.gpu``, ``s.instance``,
    ``s.family`` of a scenario pattern) or one of listed subjects the record's is not (``subject ==
    'x'``, a guard's ``has(['x', ...], p.subject)``). Read from the rules as written, so a rule that
    names other subjects makes their records relevant again."""
    pats: list[tuple[dict[str, str], frozenset[str] | None, bool]] = []
    for rule in rules.rules:
        scen = {p.bind for p in rule.patterns if p.type == "scenario"}
        for p in rule.patterns:
            if p.type != "ref":
                continue
            lits: dict[str, str] = {}
            subjects: frozenset[str] | None = None
            own = False
            for n in [n for c in p.conditions for n in _conjuncts(c.node)]:
                if n[0] != "cmp" or n[1] != "==":
                    continue
                for a, b in ((n[2], n[3]), (n[3], n[2])):
                    if a[0] == "name" and len(a[1]) == 1 and b[0] == "lit" and isinstance(b[1], str):
                        lits[a[1][0]] = b[1]
                    elif a == ("name", ("subject",)) and b[0] == "name" and len(b[1]) == 2 and b[1][0] in scen \
                            and b[1][1] in RELEVANT_KEYS:
                        own = True
            for n in [n for g in rule.guard for n in _conjuncts(g.node)]:
                if n[0] == "call" and n[1] == "has" and len(n[2]) == 2 and n[2][1] == ("name", (p.bind, "subject")) \
                        and n[2][0][0] == "list" and all(x[0] == "lit" and isinstance(x[1], str) for x in n[2][0][1]):
                    listed = frozenset(x[1] for x in n[2][0][1])
                    subjects = listed if subjects is None else subjects & listed
            if "subject" in lits:
                subjects = frozenset({lits["subject"]}) if subjects is None else subjects & {lits["subject"]}
            pats.append((lits, subjects, own))

    def usable(r: dict[str, Any]) -> bool:
        for lits, subjects, own in pats:
            if own or (subjects is not None and r.get("subject") not in subjects):
                continue
            if any(isinstance(r.get(f), str) and r.get(f) != v for f, v in lits.items()):
                continue
            return True
        return False
    return usable


def has_arch(view: ReleaseView, model: str | None) -> int:
    if not model:
        return 0
    return int(all(view.ref(model, a) is not None for a in ("layers", "hidden_size", "heads")))


def run(reasoner: Reasoner, view: ReleaseView, seeds: list[dict[str, Any]], s: dict[str, Any],
        notes: list[str], engine: Engine | None = None) -> SizingRun:
    """Derive everything the sizing rules can say about one normalised scenario."""
    return run_many(reasoner, view, seeds, [(s, notes)], engine=engine)[0]


def run_many(reasoner: Reasoner, view: ReleaseView, seeds: list[dict[str, Any]],
             scenarios: list[tuple[dict[str, Any], list[str]]], purpose: str = "answer",
             engine: Engine | None = None, relevant_of: Callable[[dict[str, Any]], list[dict[str, Any]]] | None = None
             ) -> list[SizingRun]:
    """Several scenarios in one engine run (the rules key every derived fact by its scenario's id, so
    they do not mix): the reference facts are asserted once instead of once per scenario.

    ``purpose`` "probe" marks scenarios an answer only evaluates (a recommendation's variant, a step of
    a search), for which the rules derive no recommendations of their own. ``engine`` runs the facts
    (default: a fresh session of ``reasoner``; a question passes its staged run, which already holds the
    reference facts of its earlier stages); ``relevant_of`` memoises :func:`relevant`.
    """
    recs: dict[str, dict[str, Any]] = {}
    used: dict[str, dict[str, Any]] = {}
    runs = []
    for s, notes in scenarios:
        qid = "q" + hashlib.sha1(json.dumps([view.name, s], sort_keys=True, default=str).encode()).hexdigest()[:10]
        if qid not in recs:
            rec = scen.record(s, qid, purpose)
            rec["has_arch"] = has_arch(view, s.get("model"))
            recs[qid] = rec
            for r in (relevant_of(s) if relevant_of is not None else relevant(seeds, s)):
                used.setdefault(r["fk"], r)
        runs.append((s, notes, qid))
    if not runs:
        return []
    d = (engine or reasoner.run)(list(recs.values()), shared=list(used.values()))
    return [SizingRun(s, notes, qid, d, view.name) for s, notes, qid in runs]


def memory_breakdown(r: SizingRun) -> Memory:
    """The memory estimate of a run in GB: each part, the totals and the per-GPU figures."""
    parts = {p["component"]: p["gb"] for p in r.all("mem_part")}
    ms = r.one("model_states") or {}
    rt = r.one("runtime_mem") or {}
    pg = r.one("per_gpu") or {}
    out: dict[str, Any] = {"unit": "GB"}
    for k in MEMORY_KEYS:
        if k in OPTIONAL_KEYS and (k not in parts or (k != "logits" and not parts[k])):
            continue
        out[k] = _r(parts.get(k, 0.0 if k == "kv_cache" else None))
    out["model_states"] = _r(ms.get("gb"))
    out["total"] = _r(None if not ms or not rt else ms["gb"] + rt["gb"])
    out["per_gpu_model_states"] = _r(pg.get("model_states_gb"))
    out["per_gpu_total"] = _r(pg.get("total_gb"))
    al = r.one("allocated")
    if al is not None:
        out["per_gpu_allocated"] = _r(al["gb"])
    rs = r.one("reserved")
    if rs is not None:
        out["per_gpu_reserved"] = _r(rs["gb"])
    return Memory.build(out)


def _r(x: Any, nd: int = 3) -> Any:
    if isinstance(x, float):
        return round(x, nd)
    return x
