"""Forward chaining to a fixpoint over durable_rules, with every firing kept as a justification.

durable_rules finds the matches (the Rete work); gpukb evaluates guards and derived values with its own
expression language, names each derived fact by its content, and asserts it back, until no new fact
appears. A derived fact reached by several firings keeps all of them: each is one independent support.
"""
from __future__ import annotations

import logging
from collections import Counter, deque
from typing import Any, Callable, Iterable, Sequence

from . import expr, matcher
from ..core import limits
from .durable_host import CompiledRuleset
from .durable_text import EngineFault
from .expr_compile import all_hold, compile_node
from .match_stats import MatchStats
from .lift import bad_given, given_checks
from ..core.errors import EngineError, RuleError
from .rules import RuleSet, definition, fact_key

log = logging.getLogger("gpukb.rules")

DEFAULT_BUDGET = 50_000
#: shared given records whose declared-field checks are remembered (see ``Reasoner._checked``)
CHECKED_SHARED = 65536


class Firing:
    """One rule firing: the rule, the premise facts (in pattern order) and the fact it derived.

    ``values`` are the inputs its expressions read, e.g. ``(("s.params", 1.3e10),)``. The reasoner
    gives the match instead (``pending``: the bound facts and the names its derivation reads) and they
    are read when first asked for: only an explained conclusion's firings ever are, and facts are never
    changed once asserted, so the values are the same whenever they are read.
    """

    __slots__ = ("rule", "premises", "derived", "_values", "_pending")

    def __init__(self, rule: str, premises: tuple[str, ...], derived: str,
                 values: tuple[tuple[str, Any], ...] = (),
                 pending: tuple[dict[str, dict[str, Any]], list[tuple[str, ...]]] | None = None):
        self.rule = rule                # rule id@version
        self.premises = premises        # fact keys
        self.derived = derived          # fact key
        self._values = None if pending is not None else values
        self._pending = pending

    @property
    def values(self) -> tuple[tuple[str, Any], ...]:
        if self._values is None:
            env, reads = self._pending
            self._values = tuple(sorted((".".join(n), _json_safe(expr.evaluate(("name", n), env))) for n in reads))
            self._pending = None
        return self._values

    def __reduce__(self) -> tuple:       # pickled (to a worker process, a cache) with its values read
        return (Firing, (self.rule, self.premises, self.derived, self.values))

    def _key(self) -> tuple:
        return (self.rule, self.premises, self.derived, self.values)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Firing) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        return f"Firing(rule={self.rule!r}, premises={self.premises!r}, derived={self.derived!r}, values={self.values!r})"

    def as_dict(self) -> dict[str, Any]:
        return {"rule": self.rule, "premises": list(self.premises), "derived": self.derived,
                "values": {k: v for k, v in self.values}}


class Derivation:
    """The result of one run: every fact (given and derived) and every firing; ``supports`` (derived
    fact key → the firings that derived it) is indexed when first read."""

    def __init__(self, facts: dict[str, dict[str, Any]], firings: list[Firing], given: set[str],
                 supports: dict[str, list[Firing]] | None = None,
                 index: dict[tuple[str, Any], list[tuple[int, dict[str, Any]]]] | None = None):
        self.facts = facts
        self.firings = firings
        self.given = given
        self._supports = supports or None
        # (type, qid) -> (position, fact) of each derived fact, kept by a staged run as it derives; a
        # snapshot reads the entries before its own size (facts are only ever added)
        self._index = index
        self._size = len(facts)

    @property
    def supports(self) -> dict[str, list[Firing]]:
        if self._supports is None:
            self._supports = {}
            for f in self.firings:
                self._supports.setdefault(f.derived, []).append(f)
        return self._supports

    def derived_of(self, ftype: str, qid: Any) -> list[dict[str, Any]]:
        """The derived facts of one type and ``qid`` field, in the order they were derived."""
        if self._index is None:
            index: dict[tuple[str, Any], list[tuple[int, dict[str, Any]]]] = {}
            for i, (k, f) in enumerate(self.facts.items()):
                if k not in self.given:
                    index.setdefault((f["t"], f.get("qid")), []).append((i, f))
            self._index = index
        size = self._size
        return [f for i, f in self._index.get((ftype, qid), ()) if i < size]

    def derived(self, ftype: str | None = None) -> list[dict[str, Any]]:
        return [f for k, f in self.facts.items() if k not in self.given and (ftype is None or f["t"] == ftype)]

    def of_type(self, ftype: str) -> list[dict[str, Any]]:
        return [f for f in self.facts.values() if f["t"] == ftype]


class Reasoner:
    """Runs a :class:`RuleSet` over fact sets; compiles it into durable_rules once."""

    def __init__(self, ruleset: RuleSet, budget: int = DEFAULT_BUDGET,
                 mute: Callable[[dict[str, Any], dict[str, dict[str, Any]]], bool] | None = None):
        """``mute(fact, known)``: whether a derived fact is one no rule can match (given the facts known
        so far); such a fact is derived, kept and explained as any other but not sent to durable_rules."""
        self.ruleset = ruleset
        self.budget = budget
        self.mute = mute
        self.compiled = CompiledRuleset(definition(ruleset))
        #: durable_rules' matches by rule and what came of them, over every run of this reasoner
        self.stats = MatchStats()
        # the declarations the compiled conditions rely on, checked on every given fact (lift.py)
        self._given_checks = given_checks(ruleset.types)
        # shared records (a release's reference facts, asserted unchanged in every question's session)
        # that passed those checks, by key: checked once, not in every session
        self._checked: dict[str, dict[str, Any]] = {}
        self._by_name = {f"r{i}": r for i, r in enumerate(ruleset.rules)}
        self._defaults = matcher.defaults_of(ruleset.types)
        # the names each rule's derivation reads, recorded with every firing (computed once per rule)
        self._reads = {r.key: [n for node in r.derive.values() for n in expr.names(node)] for r in ruleset.rules}
        # what the firing loop needs of each durable rule, read once: the rule, its key, the bindings of
        # its premises (as durable names them, b_<bind>), whether gpukb must check conditions or a guard (matcher.holds) or absent patterns
        # (its guard and conditions, and its derived values, as closures: expr_compile)
        self._plan = {name: (r, r.key, tuple("b_" + p.bind for p in r.patterns if not p.absent), _checker(r, self._defaults),
                             matcher.Absent(r, {p.bind for p in r.patterns if not p.absent}, self._defaults)
                             if any(p.absent for p in r.patterns) else None,
                             tuple((field, compile_node(node)) for field, node in r.derive.items()), self._reads[r.key],
                             tuple(p.bind for p in r.patterns if not p.absent))
                      for name, r in self._by_name.items()}

    def run(self, facts: Iterable[dict[str, Any]], budget: int | None = None,
            progress: Callable[[str, int, int | None], None] | None = None,
            shared: Sequence[dict[str, Any]] = ()) -> Derivation:
        """Assert ``facts`` (each with ``t`` and a unique ``fk``) in a fresh session and chain to a fixpoint.
        ``progress(phase, done, total)`` hears how far the run is (for a progress bar on long runs);
        ``shared``: see :meth:`StagedRun.add`."""
        with self.staged() as run:
            return run.add(facts, budget, progress, snapshot=False, shared=shared)

    def staged(self) -> "StagedRun":
        """A session that facts are added to in stages, each chained to a fixpoint (close it, or use
        ``with``): a question's scenario, then its variants, reuse the reference facts asserted once."""
        return StagedRun(self)

    def _guarded(self, fn: Callable[[], Derivation]) -> Derivation:
        """``fn()`` with durable_rules' failures turned into EngineError naming the rule."""
        try:
            return fn()
        except EngineFault as exc:
            rule = self._by_name.get(exc.rule or "")
            where = f" in rule {rule.key} ({rule.file}:{rule.line})" if rule is not None else ""
            log.error("durable_rules failed%s: %s", where, exc)
            raise EngineError(f"the rule engine failed{where}; no partial answer is given: {exc}") from None
        except RuntimeError as exc:
            if isinstance(exc, RuleError):
                raise
            raise EngineError(f"the rule engine failed: {exc}") from None

    def _settle(self, session, work: deque, known, firings, counts, seen_matches, budget, by_type, report=None,
                index: dict | None = None, field_index: matcher.FieldIndex | None = None) -> None:
        steps = 0
        total = sum(counts.values())
        plan, mute = self._plan, self.mute
        debug = log.isEnabledFor(logging.DEBUG)
        n_match, n_repeat, n_reject, n_block = (self.stats.counts[k] for k in ("matches", "repeat", "rejected", "blocked"))
        n_fired = self.stats.counts["fired"]
        pending = session.pending       # the matches not drained yet (a list the session fills)
        while work:
            steps += 1
            if steps % 256 == 0:       # a request's or a smoke derivation's time limit (engine.core.limits)
                limits.check(_busiest(counts))
                if report is not None:
                    report("rule firings", sum(counts.values()), None)
            rname, bindings = work.popleft()
            rule, key, binds, check, absent, derive, reads, names = plan[rname]
            try:
                premises = tuple([bindings[b] for b in binds])
                sig = (key, premises)
                n_match[key] += 1
                if sig in seen_matches:
                    n_repeat[key] += 1
                    continue
                env = {n: known[fk] for n, fk in zip(names, premises)}   # not the member records (lift.py)
            except KeyError as exc:
                raise RuleError(f"rule {key}: matched an unknown fact {exc}") from None
            seen_matches.add(sig)
            if check is not None and not check(env):
                n_reject[key] += 1
                continue
            if absent is not None and absent.blocks(env, by_type, field_index):
                n_block[key] += 1
                continue
            try:
                values = {name: fn(env) for name, fn in derive}
            except expr.ExprError as exc:
                raise RuleError(f"rule {key} ({rule.file}:{rule.line}) failed on {', '.join(premises)}: {exc}") from None
            counts[key] += 1
            n_fired[key] += 1
            total += 1
            if total > budget:
                top, n = counts.most_common(1)[0]
                raise RuleError(f"firing budget of {budget} exhausted: rule {top} fired {n} times "
                                f"(last: {key} at {rule.file}:{rule.line}); is it deriving new facts forever?")
            fk = fact_key(rule.derive_type, values)
            firings.append(Firing(key, premises, fk, pending=(env, reads)))
            if debug:
                log.debug("fire %s on %s -> %s", key, ",".join(premises), fk)
            if fk in known:
                continue
            fact = {"t": rule.derive_type, "fk": fk, **values}
            if index is not None:
                index.setdefault((fact["t"], fact.get("qid")), []).append((len(known), fact))
            known[fk] = fact
            by_type.setdefault(fact["t"], []).append(fact)
            if mute is not None and mute(fact, known):
                continue
            session.assert_fact(fact)
            if pending:
                work.extend(session.drain_keys())


def _checker(rule: Any, defaults: dict[str, dict[str, None]]) -> Callable[[dict], bool] | None:
    """``matcher.holds`` for one rule with its conditions compiled (None when there is nothing to check):
    the conditions durable_rules could not compile, in each pattern's scope, then the guard; an
    evaluation error counts as false."""
    pats = [(p.bind, matcher.nulls_read(defaults.get(p.type, {}), [c.node for c in p.conditions if c.durable is None]),
             [compile_node(c.node) for c in p.conditions if c.durable is None]) for p in rule.patterns if not p.absent]
    pats = [x for x in pats if x[2]]
    guard = [compile_node(c.node) for c in rule.guard if c.durable is None]    # the rest durable_rules tests (lift.py)
    if not pats and not guard:
        return None

    def check(env: dict) -> bool:
        for bind, nulls, conds in pats:
            if not all_hold(conds, {**nulls, **env[bind], **env}):
                return False
        return all_hold(guard, env)
    return check


class StagedRun:
    """One durable_rules session of a :class:`Reasoner` that facts are added to in stages.

    Each :meth:`add` asserts the new facts (given facts first, so an absent pattern over them sees every
    one), chains to a fixpoint and returns the derivation so far. The host's lock is held only during an
    :meth:`add`, so a caller may do other work (and other sessions may run) between stages.
    """

    def __init__(self, reasoner: Reasoner):
        self.reasoner = reasoner
        self.session = reasoner.compiled.session()
        self.known: dict[str, dict[str, Any]] = {}
        self.firings: list[Firing] = []
        self.given: set[str] = set()
        self.counts: Counter[str] = Counter()
        self.seen_matches: set[tuple[str, tuple[str, ...]]] = set()
        self.by_type: dict[str, list[dict[str, Any]]] = {}
        self.index: dict[tuple[str, Any], list[tuple[int, dict[str, Any]]]] = {}   # see Derivation.derived_of
        self.field_index = matcher.FieldIndex()      # by_type by field value, for absent patterns

    def __enter__(self) -> "StagedRun":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        if not self.session.closed:
            self.session.delete()

    def add(self, facts: Iterable[dict[str, Any]], budget: int | None = None,
            progress: Callable[[str, int, int | None], None] | None = None, snapshot: bool = True,
            shared: Sequence[dict[str, Any]] = ()) -> Derivation:
        """Assert ``facts`` not asserted before and chain to a fixpoint; the derivation of every stage so
        far (a copy with ``snapshot``, so a later stage does not change what an earlier one returned).

        ``shared`` facts are asserted first, as if they led ``facts``: fact objects that many sessions
        assert unchanged (a release's reference records), whose text for durable_rules is kept."""
        limits.check()           # a request that ran out of time starts no new derivation
        n_shared = len(shared)
        facts = list(shared) + list(facts)
        # the budget scales with the input, so a large KB is not mistaken for a runaway rule
        if budget is None:
            budget = max(self.reasoner.budget, 100 * (len(self.given) + len(facts)))
        d = self.reasoner._guarded(lambda: self._add(facts, budget, progress, n_shared))
        if snapshot:
            return Derivation(dict(d.facts), list(d.firings), set(d.given), index=self.index)
        return d

    def _add(self, facts: list[dict[str, Any]], budget: int,
             report: Callable[[str, int, int | None], None] | None, n_shared: int = 0) -> Derivation:
        known, session = self.known, self.session
        checks, checked = self.reasoner._given_checks, self.reasoner._checked
        work: deque = deque()
        session.resume()
        pending = session.pending
        try:
            for i, f in enumerate(facts):
                if report is not None and i % 500 == 0:
                    report("asserting facts", i, len(facts))
                fk = f["fk"]
                if fk in known:
                    continue
                if checked.get(fk) is not f:
                    why = bad_given(f, checks[f["t"]]) if f["t"] in checks else None
                    if why is not None:
                        raise RuleError(f"given fact {fk} of type {f['t']}: {why} (rules/types.yaml)")
                    if i < n_shared and len(checked) < CHECKED_SHARED:
                        checked[fk] = f
                known[fk] = f
                self.given.add(fk)
                self.by_type.setdefault(f["t"], []).append(f)
                session.assert_fact(f, i < n_shared)
                if pending:
                    work.extend(session.drain_keys())
            if report is not None:
                report("asserting facts", len(facts), len(facts))
            self.reasoner._settle(session, work, known, self.firings, self.counts, self.seen_matches, budget,
                                  self.by_type, report, self.index, self.field_index)
            session.check()
        finally:
            session.pause()
        return Derivation(known, self.firings, self.given, index=self.index)


def _busiest(counts: Counter) -> str:
    if not counts:
        return "no rule had fired yet"
    top, n = counts.most_common(1)[0]
    return f"{sum(counts.values())} firings so far, most by {top} ({n})"


def _json_safe(v: Any) -> Any:
    if isinstance(v, (str, int, float, bool)) or v is None:
        return v
    if isinstance(v, (list, tuple)):
        return [_json_safe(x) for x in v]
    if isinstance(v, dict):
        return {k: _json_safe(x) for k, x in v.items() if k not in ("t",)}
    return str(v)

