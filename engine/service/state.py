"""The state every answer needs: one loaded KB, its compiled rules, the reasoner and the caches.

:class:`GpuKB` holds that state and nothing else of substance; each answer is a function of it in its own
module (``query``, ``ask``, ``catalog``, ``conclusions``, ``audit``, ``diff``), and the methods here only
name them for the CLI, the HTTP API and the MCP server, which all call the same ones.
"""
from __future__ import annotations

import contextlib
import pickle
import threading
from collections import OrderedDict
from pathlib import Path
from typing import Any, Iterator

from ..ask import answer as ask
from ..catalog import sources as catalog
from . import conclusions
from ..sizing import answer as query, run as sizing
from ..explain import diff as diff_mod
from ..ask import choice as ask_choice
from ..audit import gaps as audit_gaps
from ..ask import price as ask_price
from ..catalog import inventory
from .. import models
from ..models import scenario as scen
from ..audit import without as without_mod
from .checks import CheckMemory
from ..audit.result import audit_answer, claimreview
from ..audit.run import run_audit
from ..core.memory import collector_paused
from ..core import limits
from ..core.errors import BadInput, Issue
from ..kb.loader import load_kb
from ..kb.store import KB, ReleaseView
from ..kb.notes import in_lang
from ..reasoning.reasoner import Reasoner, StagedRun
from ..reasoning.rules import RuleSet
from ..audit.functions import load_rules_for
from ..core.paths import DEFAULT_KB, DEFAULT_RULES



class _Cache(OrderedDict):
    """The answers cache; clearing it also forgets what answers are computed from (the search points of
    :meth:`GpuKB.probe_totals`), so a cleared cache computes every answer afresh."""

    def __init__(self, *derived: dict) -> None:
        super().__init__()
        self.derived = derived

    def clear(self) -> None:
        super().clear()
        for d in self.derived:
            d.clear()


class GpuKB(CheckMemory):
    """A loaded, validated KB with its compiled rules; thread-safe for concurrent questions."""

    def __init__(self, kb_dir: str | Path = DEFAULT_KB, rules_dir: str | Path = DEFAULT_RULES,
                 cache_size: int = 512, include_pending: bool = False):
        self.kb_dir, self.rules_dir = Path(kb_dir), Path(rules_dir)
        self.include_pending = include_pending
        with collector_paused():           # a large KB is millions of objects that all stay
            self.kb: KB = load_kb(self.kb_dir, include_pending=include_pending)
        self.rules: RuleSet = load_rules_for(self.kb, self.rules_dir)
        self.reasoner = Reasoner(self.rules)
        self._question_reasoner: Reasoner | None = None
        self._ref_use: Any = None      # which other entities' reference records the question rules can match
        self._seeds: dict[str, list[dict]] = {}
        self._relevant: OrderedDict[tuple, list[dict]] = OrderedDict()   # (release, entities) -> seeds
        self._local = threading.local()          # this thread's open staged run (see :meth:`staged`)
        self._probes: OrderedDict[tuple, Any] = OrderedDict()   # (release, scenario) -> a search point's totals
        self._cache: OrderedDict[tuple, Any] = _Cache(self._probes)
        self._memo: dict[tuple, Any] = {}
        self._cache_size = cache_size
        self._lock = threading.RLock()
        self._audits: dict[str, Any] = {}
        self._source_labels: dict[str, without_mod.SourceLabels] = {}
        self._checks: OrderedDict[str, Any] = OrderedDict()     # recent checks, for explaining their findings
        self.progress: Any = None      # a progress(phase, done, total) callback for long runs (the CLI's bars)
        self.audit_workers = 1         # local processes an audit runs its batches on (gpukb audit --workers)
        self.audit_scheduler: str | None = None    # or a Dask scheduler's address (--scheduler)
        self.audit_keep_proofs = True  # False: a unit's proofs are recomputed when explained (a one-shot CLI audit)

    # -- releases ------------------------------------------------------------------------------
    def view(self, release: str | None = None) -> ReleaseView:
        return self.kb.release(release)

    def seeds(self, view: ReleaseView) -> list[dict]:
        with self._lock:
            if view.name not in self._seeds:
                self._seeds[view.name] = sizing.seed_records(view)
            return self._seeds[view.name]

    def relevant(self, view: ReleaseView, s: dict[str, Any]) -> list[dict]:
        """The reference records a scenario can use (:func:`sizing.relevant`), memoised per release and
        the scenario's entities, which are all it depends on. Callers must not change the list."""
        key = (view.name,) + tuple(s.get(k) for k in sizing.RELEVANT_KEYS)
        with self._lock:
            found = self._relevant.get(key)
            if found is not None:
                self._relevant.move_to_end(key)
                return found
        found = sizing.relevant(self.seeds(view), s, self._usable())
        with self._lock:
            self._relevant[key] = found
            while len(self._relevant) > 4096:
                self._relevant.popitem(last=False)
        return found

    def _usable(self):
        """:func:`sizing.reference_use` of the question rules (read once)."""
        with self._lock:
            if self._ref_use is None:
                self._ref_use = sizing.reference_use(self.question_reasoner.ruleset)
            return self._ref_use

    def cached(self, key: tuple, fn):
        """``fn()`` memoised under ``key`` (least recently used out first). A typed answer (a model, which
        is changed only into a copy: ``replace``, ``mapped``) is kept and shared as it is; callers of any
        other value get their own copy (the cache keeps a pickle, which copies a JSON-like value several
        times faster than deepcopy; the caller that computed it gets the value itself, pickled before
        anyone can change it)."""
        with self._lock:
            if key in self._cache:
                self._cache.move_to_end(key)
                found = self._cache[key]
                return found if isinstance(found, models.Model) else pickle.loads(found)
        value = fn()
        kept = value if isinstance(value, models.Model) else pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
        with self._lock:
            self._cache[key] = kept
            while len(self._cache) > self._cache_size:
                self._cache.popitem(last=False)
        return value

    def probe_totals(self, key: tuple, value: Any = sizing.MISSING) -> Any:
        """What the largest model's search remembered under ``key``: a search point's (need, capacity) in
        GB under (release, normalised scenario), or a configuration's result under ("max_params",
        release, configuration), see :func:`gpukb.engine.sizing.inverse.max_params`. Returns it (``sizing.MISSING`` when none),
        or, given ``value``, remembers it (least recently used out first)."""
        with self._lock:
            if value is sizing.MISSING:
                found = self._probes.get(key, sizing.MISSING)
                if found is not sizing.MISSING:
                    self._probes.move_to_end(key)
                return found
            self._probes[key] = value
            while len(self._probes) > 16384:
                self._probes.popitem(last=False)
            return value

    def memo(self, key: tuple, fn):
        """``fn()`` computed once per key and kept (never evicted): small read-only values every answer
        reads, such as a release's error bands. Callers must not change what they get."""
        with self._lock:
            if key in self._memo:
                return self._memo[key]
        value = fn()
        with self._lock:
            return self._memo.setdefault(key, value)

    # -- answers (each a function of this state, in its own module) -------------------------------
    @property
    def question_reasoner(self) -> Reasoner:
        """The reasoner of sizing answers: only the rules they need (:func:`sizing.question_rules`),
        compiled on first use (an audit worker never builds it)."""
        with self._lock:
            if self._question_reasoner is None:
                rules = sizing.question_rules(self.rules)
                self._question_reasoner = Reasoner(rules, mute=sizing.probe_mute(rules))
            return self._question_reasoner

    @contextlib.contextmanager
    def staged(self, view: ReleaseView) -> Iterator[StagedRun]:
        """One engine session for everything an answer evaluates in this thread (its scenario, then its
        variants and search steps, stage by stage): the reference facts are asserted once. Nested
        calls join the open session of the same release."""
        current = getattr(self._local, "run", None)
        if current is not None and current[0] == view.name:
            yield current[1]
            return
        with self.question_reasoner.staged() as run:
            self._local.run = (view.name, run)
            try:
                yield run
            finally:
                self._local.run = current

    def _engine(self, view: ReleaseView):
        current = getattr(self._local, "run", None)
        return current[1].add if current is not None and current[0] == view.name else None

    def run_scenario(self, s: dict[str, Any], notes: list[str], view: ReleaseView) -> sizing.SizingRun:
        """One engine run of a normalised scenario (the building block of every sizing answer)."""
        return self.run_scenarios([(s, notes)], view)[0]

    def run_scenarios(self, scenarios: list[tuple[dict[str, Any], list[str]]], view: ReleaseView,
                      purpose: str = "answer") -> list[sizing.SizingRun]:
        """Several normalised scenarios in one engine run (a question's variants: ``purpose`` "probe"),
        in the thread's staged session when one is open (:meth:`staged`)."""
        return sizing.run_many(self.question_reasoner, view, self.seeds(view), scenarios, purpose=purpose,
                               engine=self._engine(view), relevant_of=lambda s: self.relevant(view, s))

    def audit_result(self, release: str):
        """The audit of a release (computed once per release and engine)."""
        with self._lock:
            if release not in self._audits:
                with limits.shared_work():      # cached for every later request: never cut short by one
                    self._audits[release] = run_audit(self, self.view(release), workers=self.audit_workers,
                                                      scheduler=self.audit_scheduler, keep_proofs=self.audit_keep_proofs)
            return self._audits[release]

    def drop_audits(self) -> None:
        """Free the kept audits and their labels (a one-shot command whose answer is already built: the
        findings it prints stay referenced by the answer, the rest of a large audit is returned to the
        allocator before the answer is written)."""
        import gc
        with self._lock:
            self._audits.clear()
            self._source_labels.clear()
            self._cache.clear()
        gc.collect()

    def source_labels(self, release: str) -> without_mod.SourceLabels:
        """The source-level ATMS labels of a release's audit (computed once; an audit that dropped its
        proofs is run again with them)."""
        with self._lock:
            if release not in self._source_labels:
                res = self.audit_result(release)
                if res.derivation is None and not res.parts:
                    with limits.shared_work():
                        res = self._audits[release] = run_audit(self, self.view(release), workers=self.audit_workers,
                                                                scheduler=self.audit_scheduler, keep_proofs=True)
                self._source_labels[release] = without_mod.source_labels(res, self.view(release))
            return self._source_labels[release]

    def retracted(self, release: str, without: Any) -> tuple[Any, dict[str, Any] | None]:
        """The audit of a release without some sources (ids, repeated or comma-separated) and the
        ``without`` block of the answer; the audit itself and None when no source is removed."""
        sources = without_mod.parse_sources(without, self.kb.sources)
        if not sources:
            return self.audit_result(release), None
        sl = self.source_labels(release)         # first: it may run the audit again, with its proofs
        return without_mod.retract(self.audit_result(release), self.view(release), sl, sources)

    def query(self, body: dict[str, Any], without: Any = None) -> models.SizingAnswer:
        """The sizing answer of the API contract for a query body (flags in snake_case); ``without``:
        source ids whose claims are taken away (see :mod:`without`)."""
        return query.query(self, body, without)

    def ask(self, q: str, lang: str | None = None, kb_version: str | None = None) -> models.Asked:
        """Answer an English or Chinese question: a sizing answer, a fact answer, or what is missing (the
        model of its kind, see :data:`models.AskAnswer`)."""
        return ask.ask(self, q, lang, kb_version)

    def fact(self, subject: str, attribute: str, view: ReleaseView, lang: str = "en") -> models.FactAnswer:
        """A fact answer: the reference value, its citation, and the source claims for and against it."""
        return ask.fact(self, subject, attribute, view, lang, {"kind": "fact", "kb_version": view.name, "lang": lang})

    def explain(self, cid: str, fmt: str = "json", lang: str = "en") -> Any:
        """Why / why-not of a conclusion (Q- sizing id, A- finding id, or a fact id) in one format."""
        return conclusions.explain(self, cid, fmt, lang)

    def sources(self) -> models.SourceList:
        return catalog.sources(self)

    def source(self, sid: str, with_text: bool = True) -> models.SourceDetail | models.Source:
        return catalog.source(self, sid, with_text)

    def claims(self, source: str | None = None, kb_version: str | None = None) -> models.ClaimList:
        return catalog.claims(self, source, kb_version)

    def claim(self, cid: str, kb_version: str | None = None) -> models.ClaimDetail:
        return catalog.claim(self, cid, kb_version)

    def catalog(self, kind: str, provider: str | None = None, gpu: str | None = None,
                kb_version: str | None = None) -> models.GpuList | models.InstanceList | models.ModelList:
        """What the KB knows of a kind ("gpu", "instance" or "model"): every entry, instances of one
        provider or carrying one GPU when asked (see :mod:`inventory`)."""
        return inventory.listing(self, kind, provider, gpu, kb_version)

    def catalog_entry(self, kind: str, name: str, kb_version: str | None = None
                      ) -> models.GpuDetail | models.InstanceDetail | models.ModelDetail:
        """One GPU, instance size or model with every reference fact, its citation and the unknowns."""
        return inventory.entry(self, kind, name, kb_version)

    def cheapest(self, body: dict[str, Any], providers: Any = None, lang: str = "en") -> models.InstanceChoiceAnswer:
        """The instance sizes (of ``providers``, default all) that fit a query body, ranked by hourly list
        price within each currency; sizes without a price in the KB come after (see :mod:`ask_price`)."""
        if not isinstance(body, dict):
            raise BadInput("the query must be a JSON object", [Issue("expected an object")])
        if isinstance(providers, str):
            providers = [p for p in providers.split(",") if p.strip()]
        if providers is not None and not (isinstance(providers, list) and all(isinstance(p, str) for p in providers)):
            raise BadInput("providers must be a list of provider names", [Issue("expected a list of names", field="providers")])
        if lang not in ("en", "zh"):
            raise BadInput(f"unknown language {lang!r}", [Issue(f"unknown language {lang!r}", field="lang", allowed=["en", "zh"])])
        view = self.view(body.get("kb_version"))
        scenario = {k: v for k, v in body.items() if k != "kb_version"}
        hardware = [k for k in ("gpu", "instance", "family", "vram_gb", "gpus") if k in scenario]
        if hardware:
            raise BadInput("the cheapest instance is searched over every instance size: give no " + ", ".join(hardware),
                           [Issue("not allowed here: the search chooses the hardware", field=k) for k in hardware])
        scen.normalise({**scenario, "vram_gb": 80}, self.kb.vocab, view)      # the body's own checks
        return in_lang(ask_price.cheapest(self, scenario, providers, view, lang), lang)

    def vocabulary_label(self, what: str, key: str, lang: str = "en") -> str:
        """A label from the vocabulary for pages ("attribute", "entity" or an enum's name) in en or zh."""
        return catalog.vocabulary_label(self, what, key, lang)

    # -- audit, releases, validation ----------------------------------------------------------------
    def audit(self, source: str | None = None, kind: str | None = None, kb_version: str | None = None,
              fmt: str | None = None, without: Any = None) -> models.FindingList | models.ClaimReview:
        """The audit's findings and statuses (or ClaimReview); ``without``: source ids (a list or
        comma-separated) to answer as if they were removed, from the ATMS labels (see :mod:`without`)."""
        if fmt not in (None, "json", "claimreview"):
            raise BadInput(f"unknown format {fmt!r}", [Issue(f"unknown format {fmt!r}", field="format", allowed=["json", "claimreview"])])
        view = self.view(kb_version)
        res, block = self.retracted(view.name, without)
        if fmt == "claimreview":
            if source is not None and source not in self.kb.sources:
                raise BadInput(f"unknown source {source!r}", [Issue(f"unknown source {source!r}", field="source", allowed=sorted(self.kb.sources))])
            return claimreview(res, view, source)
        return audit_answer(res, view, source, kind,
                            without_mod.filtered(block, source, kind) if block is not None else None)

    def solve(self, body: dict[str, Any], target: str, lang: str = "en") -> models.InverseAnswer:
        """The largest batch, sequence length or model (``target``: batch, seq_len or params) that fits
        the rest of a query body; each bound checked links to its proof."""
        if target not in ask_choice.INVERSE_RANGES:
            raise BadInput(f"unknown target {target!r}", [Issue(f"unknown target {target!r}", field="target",
                                                                allowed=sorted(ask_choice.INVERSE_RANGES))])
        if not isinstance(body, dict):
            raise BadInput("the query must be a JSON object", [Issue("expected an object")])
        view = self.view(body.get("kb_version"))
        scenario = {k: v for k, v in body.items() if k not in ("kb_version", target)}
        if target == "params":
            scenario.pop("model", None)
        elif "model" not in scenario and "params" not in scenario:
            raise BadInput("name a model or give a parameter count", [Issue("missing model", field="model")])
        return in_lang(ask_choice.inverse(self, scenario, target, view, lang, {"kb_version": view.name}), lang)

    def audit_gaps(self, kb_version: str | None = None) -> models.AuditGaps:
        """The reference facts that would decide the most unverifiable claims (the curator's to-do list)."""
        view = self.view(kb_version)
        return audit_gaps.gaps(self.audit_result(view.name).statuses, view)

    def diff(self, a: str, b: str) -> models.Diff:
        return self.cached(("diff", a, b), lambda: diff_mod.diff(self, a, b))

    def watchlist(self) -> list[dict[str, Any]]:
        return diff_mod.load_watchlist(self.kb_dir / "watchlist.yaml")

    def validate(self, fill_spans: bool = False) -> dict[str, Any]:
        """Counts of what loaded (loading already validated everything); see :func:`validate_dirs`."""
        if fill_spans:
            return validate_dirs(self.kb_dir, self.rules_dir, fill_spans=True)
        return {"ok": True, "claims": sum(1 for f in self.kb.all_facts if f.tier == "claim"),
                "reference": sum(1 for f in self.kb.all_facts if f.tier == "reference"),
                "rules": len(self.rules.rules), "releases": len(self.kb.releases), "sources": len(self.kb.sources)}

    def versions(self) -> models.Versions:
        return catalog.versions(self)


def validate_dirs(kb_dir: str | Path = DEFAULT_KB, rules_dir: str | Path = DEFAULT_RULES,
                  fill_spans: bool = False) -> dict[str, Any]:
    """Validate a KB and rules directory without building an engine; with ``fill_spans`` write the
    spans of claims that have only a quote. Raises ValidationError listing every problem."""
    kb = load_kb(kb_dir, fill_spans=fill_spans)
    rules = load_rules_for(kb, rules_dir)
    return {"ok": True, "claims": sum(1 for f in kb.all_facts if f.tier == "claim"),
            "reference": sum(1 for f in kb.all_facts if f.tier == "reference"), "rules": len(rules.rules),
            "releases": len(kb.releases), "sources": len(kb.sources)}

