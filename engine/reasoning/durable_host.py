"""The one module that talks to durable_rules.

durable_rules keeps rulesets in a process-global host that is not thread-safe, and it has sharp edges
(see ../shared/DESIGN.md): reserved ``id``/``sid`` keys, an exception on asserting a fact twice, errors
inside actions that vanish, and a crash when batches are asserted against joins. This wrapper hides all
of that behind :class:`CompiledRuleset`:

* every compiled ruleset gets a unique name in one shared host, and every call holds one lock;
* facts are asserted one at a time (never ``assert_facts``);
* actions only record the match; the caller computes derived facts outside durable_rules and asserts
  them back, so no exception can be swallowed inside an action;
* each run uses its own ``sid`` and deletes it afterwards, so runs never see each other's facts.

Every use of durable_rules is kept in this one module (including the direct driver of its C core and
the benchmark baseline).
"""
from __future__ import annotations

import itertools
import logging
import threading
from typing import Any, Callable

from . import jsontext
from .durable_facts import MemberIndex, PatternFilter, scalar_projection, condition_fields
from .durable_text import EngineFault, _ACTION, ErrorLog, Message, match_dict, match_keys

#: the marker gpukb's patch adds (patches/durable-rules-2.0.28.patch); any other build is refused
PATCH_LABEL = "gpukb-durable-rules-2.0.28-memfix-1"


class EngineMissing(ImportError):
    """gpukb's patched rule engine is not importable: the message says how to install it."""


def _import_engine():
    """gpukb's own build of durable-rules (``gpukb._durable``, built into the wheel), never a stock one."""
    how = ("reinstall gpukb with gcc, patch and the Python headers present (Debian: apt-get install gcc "
           "patch python3-dev), e.g. `pip install --force-reinstall .` in a checkout or `make venv`: gpukb's "
           "build compiles durable-rules 2.0.28 with gpukb's patch into the package")
    try:
        from gpukb import _durable
        from gpukb._durable import engine
    except ImportError as e:
        raise EngineMissing(f"gpukb's rule engine (gpukb._durable) does not import ({e}); {how}") from None
    label = getattr(_durable, "GPUKB_PATCHED", None)
    if label != PATCH_LABEL:
        raise EngineMissing(f"{_durable.__file__} is not gpukb's patched build of durable-rules "
                            f"(marker {label!r}, expected {PATCH_LABEL!r}); {how}")
    return engine


_durable_engine = _import_engine()

#: durable_rules' C extension, as its own Python layer imports it (see :func:`_assert_and_record`)
_C = _durable_engine.durable_rules_engine

log = logging.getLogger("gpukb.durable")

_LOCK = threading.RLock()
_HOST: _durable_engine.Host | None = None
_NAMES = itertools.count(1)
_SIDS = itertools.count(1)


#: json.dumps(x, ensure_ascii=False) without building an encoder per call (the same text)
_ENCODE = jsontext.encoder()

# the result codes of the C core's assert_fact (durable/engine.py Ruleset._handle_result)
_NOT_HANDLED, _OBSERVED, _DEFERRED = 1, 2, 3

_ERRORS = ErrorLog()
logging.getLogger(_durable_engine.logger.name).addHandler(_ERRORS)


# the exceptions callers may need to recognise, re-exported so nobody else imports durable
MessageObserved = _durable_engine.MessageObservedException
MessageNotHandled = _durable_engine.MessageNotHandledException

#: ids a fact is offered under before durable_rules' refusal is an error (see Session.assert_fact)
ID_ATTEMPTS = 8
#: facts whose JSON text a compiled ruleset keeps for reuse across sessions (Session.assert_fact)
REUSED_TEXTS = 65536


def lock() -> threading.RLock:
    """The lock that serialises every use of the durable_rules host."""
    return _LOCK


class _Host(_durable_engine.Host):
    """durable_rules' host without its two background threads.

    The stock host re-arms timer threads forever that call ``dispatch()`` and ``dispatch_timers()`` on
    every ruleset every 0.2 s, outside any lock: they can start a pending action of a session that the
    main thread is asserting into (the C engine is not thread-safe), so a match may run on the wrong
    thread, land after the session was drained, or be lost. gpukb runs every action synchronously inside
    ``assert_fact`` and uses neither timers nor queued messages, so it needs neither thread.
    """

    def _run(self) -> None:
        log.debug("durable_rules host without background dispatch threads")


def _host() -> _durable_engine.Host:
    global _HOST
    if _HOST is None:
        _HOST = _Host()
    return _HOST


PRIME_TYPE = "$gpukb_prime"


def _with_prime_rule(defs: dict[str, dict]) -> dict[str, dict]:
    """Add the private rule :func:`_prime` fires (no gpukb fact has this type)."""
    return {**defs, "prime": {"all": [{"b_prime": {"t": PRIME_TYPE}}], "run": lambda c: None}}


def _prime(name: str) -> None:
    """Run and delete one session of a new ruleset in which an action fires, before any real session.

    In durable_rules 2.0.28, deleting the state of a sid that holds facts but in which no action ever
    ran corrupts the heap (SIGSEGV or 'free(): invalid pointer') unless a session of the same ruleset
    whose action ran was deleted before. A question whose facts fire no rule is such a session, so
    every ruleset is primed once when it is registered (tests/test_durable_host.py reproduces the crash
    in a subprocess).
    """
    _host().assert_fact(name, {"t": PRIME_TYPE, "sid": "$prime"})
    _host().delete_state(name, "$prime")


class CompiledRuleset:
    """A ruleset registered once in the shared host; :meth:`session` opens an isolated run."""

    def __init__(self, definition: dict[str, dict], prefix: str = "gpukb"):
        with _LOCK:
            self.name = f"{prefix}_{next(_NAMES)}"
            # the matches since the last drain: the C core's texts, or (name, bindings) from the Python layer
            self._matches: list[str | tuple[str, dict[str, dict]]] = []
            defs = {}
            for rule_name, rule in definition.items():
                rule = dict(rule)
                rule["run"] = self._recorder(rule_name)
                defs[rule_name] = rule
            self.fields = condition_fields(definition)
            self.filter = PatternFilter(definition)
            self.members = MemberIndex(definition)     # the list items some pattern joins on
            # fact key -> (the fact, its projection, the projection's JSON text without the closing
            # brace, the key's JSON text) for facts asserted in many sessions (a release's reference
            # records); the projection is None for a record no pattern can match
            self._texts: dict[str, tuple[dict[str, Any], dict[str, Any] | None, str, str]] = {}
            _host().register_rulesets({self.name: _with_prime_rule(defs)})
            _prime(self.name)
            self._handle = _host().get_ruleset(self.name)._handle
            log.debug("registered ruleset %s with %d rules", self.name, len(defs))

    def _recorder(self, rule_name: str) -> Callable:
        matches = self._matches

        def action(c):  # runs inside durable_rules: must not raise
            try:
                matches.append((rule_name, {k: v for k, v in c._m.items()}))
            except Exception as exc:  # pragma: no cover - defensive
                matches.append((rule_name, {"$error": str(exc)}))
        return action

    def session(self) -> "Session":
        return Session(self)

    def _assert_and_record(self, msg: dict[str, Any]) -> int:
        """Assert one message and record the matches it completes, driving the C core directly.

        This is what ``Host.assert_fact`` does (durable/engine.py: ``Ruleset.assert_fact``,
        ``do_actions``, ``_flush_actions``) minus the Python machinery gpukb's recorder actions do not
        need: no ``Closure`` per match (two ``datetime.now()`` calls each), and the state text the core
        hands out is handed back to ``update_state`` as it came instead of being parsed and re-serialised.
        The calls into the core, their order and their arguments are the same, so matching is unchanged;
        it was 3/4 of the time of a fact's round trip. Each match is kept as the core's text and decoded
        when drained (:meth:`Session.drain_keys` reads only the fact keys). Returns the core's result code (``_OBSERVED``,
        ``_NOT_HANDLED`` where ``Host.assert_fact`` raises); whatever else the core raises propagates.
        """
        handle = self._handle
        code, state = _C.assert_fact(handle, msg.text if type(msg) is Message else _ENCODE(msg))
        if code in (_NOT_HANDLED, _OBSERVED):
            return code
        if code == _DEFERRED:
            state = 0
        started = _C.start_action_for_state(handle, state)
        if not started:
            return code
        state_text, pending = started
        matches = self._matches
        while pending:
            if not pending.startswith('{"prime":'):
                matches.append(pending)
            _C.update_state(handle, state_text)
            pending = _C.complete_and_start_action(handle, state)
        return code


class Session:
    """One isolated run: its own sid; facts asserted one by one; matches drained by the caller."""

    def __init__(self, compiled: CompiledRuleset):
        self.compiled = compiled
        self.sid = f"q{next(_SIDS)}"
        self._sid_text = '"sid": ' + _ENCODE(self.sid) + ', "id": '     # see assert_fact
        self.closed = False
        self._asserted: set[str] = set()

    def __enter__(self) -> "Session":
        self.resume()
        return self

    def __exit__(self, *exc) -> None:
        try:
            self.delete()
        finally:
            self.pause()

    def resume(self) -> None:
        """Take the host's lock to assert into this session (a session may be resumed several times:
        a question adds its scenarios stage by stage, and other sessions may run in between)."""
        _LOCK.acquire()
        self.compiled._matches.clear()
        _ERRORS.records.clear()

    def pause(self) -> None:
        """Release the lock; the session's facts stay in durable_rules until :meth:`delete`."""
        self.compiled._matches.clear()
        _LOCK.release()

    def delete(self) -> None:
        """Drop this session's facts from durable_rules (call with the lock held, or via ``with``)."""
        with _LOCK:
            try:
                _host().delete_state(self.compiled.name, self.sid)
            except Exception:  # a sid that never got a fact has no state to delete
                pass
            self.closed = True

    def assert_fact(self, fact: dict[str, Any], reused: bool = False) -> bool:
        """Assert one fact; False when a fact with its key (``fk``) is already there. ``reused``: the
        same fact object is asserted in many sessions (never changed), so its text is kept and reused.

        durable_rules files a message under a 32-bit FNV hash of its id and takes a second id with
        the same hash for the first one, dropping it silently as "already observed" (state.c,
        storeMessage/GET_FIRST compare the hashes only): in a session of 100,000 facts about one pair
        of ids collides. So every fact is sent with its key as id, and a fact refused as observed
        although its key is new is sent again under a salted id until durable_rules takes it.
        """
        fk = str(fact.get("fk"))
        if fk in self._asserted:
            return False
        compiled = self.compiled
        known = None
        if reused:
            # a reused record's text, or None when no pattern can match it, is computed once
            known = compiled._texts.get(fk)
            if known is None or known[0] is not fact:
                if compiled.filter.may_match(fact):
                    proj = scalar_projection(fact, compiled.fields)
                    text = _ENCODE(proj)
                    known = (fact, proj, text[:-1] + ", " if len(text) > 2 else "{", _ENCODE(fk))
                else:
                    known = (fact, None, "", "")
                if len(compiled._texts) < REUSED_TEXTS:
                    compiled._texts[fk] = known
            proj = known[1]
        else:
            proj = scalar_projection(fact, compiled.fields) if compiled.filter.may_match(fact) else None
        if proj is None:
            self._asserted.add(fk)               # no pattern can match it: durable_rules would only file it
            return True
        sid = self.sid
        for attempt in range(ID_ATTEMPTS):
            mid = fk if attempt == 0 else f"{fk}~{attempt}"
            if known is not None:
                # {**projection, "sid": sid, "id": id} with the text _ENCODE writes for it
                msg = Message(proj, known[2] + self._sid_text + (known[3] if attempt == 0 else _ENCODE(mid)) + "}")
            else:
                msg = proj                      # a fresh projection: ours to extend
            msg["sid"], msg["id"] = sid, mid
            try:
                code = compiled._assert_and_record(msg)
            except Exception as exc:  # the C core refuses the message (error codes such as 204, 311)
                raise EngineFault(f"durable_rules refused fact {fk!r} of type {fact.get('t')!r}: {exc}",
                                  self._last_rule()) from None
            if code == _OBSERVED:
                log.debug("durable_rules took the id of fact %r for another's (hash collision); retrying", fk)
                continue
            # _NOT_HANDLED: no rule looks at this fact; it is still known to gpukb
            self._asserted.add(fk)
            self._raise_logged(f"asserting fact {fk!r}")
            for member in compiled.members.records(fact, reused):
                self.assert_fact(member, reused)
            return True
        raise EngineFault(f"durable_rules refused fact {fk!r} under {ID_ATTEMPTS} different ids", self._last_rule())

    def _last_rule(self) -> str | None:
        if not self.compiled._matches:
            return None
        last = self.compiled._matches[-1]
        if isinstance(last, str):
            head = _ACTION.match(last)
            return head.group(1) if head is not None else None
        return last[0]

    def _raise_logged(self, during: str) -> None:
        if _ERRORS.records:
            first = _ERRORS.records[0]
            n = len(_ERRORS.records)
            _ERRORS.records.clear()
            raise EngineFault(f"durable_rules logged an error while {during}: {first}"
                              + (f" (and {n - 1} more)" if n > 1 else ""), self._last_rule())
        for match in self.compiled._matches:
            if not isinstance(match, str) and "$error" in match[1]:
                raise EngineFault(f"recording a match failed: {match[1]['$error']}", match[0])

    def check(self) -> None:
        """Raise if durable_rules logged an error or recorded an exception in this session's state."""
        self._raise_logged("running")
        try:
            state = _host().get_state(self.compiled.name, self.sid)
        except Exception:
            return  # no state: nothing was asserted
        if isinstance(state, dict) and state.get("exception"):
            raise EngineFault(f"durable_rules action failed: {state['exception']}", self._last_rule())

    def drain(self) -> list[tuple[str, dict[str, dict]]]:
        """The matches recorded since the last drain: (durable rule name, binding → fact)."""
        out = [match_dict(m) if isinstance(m, str) else m for m in self.compiled._matches]
        self.compiled._matches.clear()
        return out

    @property
    def pending(self) -> list:
        """The matches recorded and not drained yet (the list itself: empty when there is nothing to drain)."""
        return self.compiled._matches

    def drain_keys(self) -> list[tuple[str, dict[str, str]]]:
        """The matches recorded since the last drain: (durable rule name, binding → fact key ``fk``)."""
        out = [match_keys(m) if isinstance(m, str) else (m[0], {k: v["fk"] for k, v in m[1].items()})
               for m in self.compiled._matches]
        self.compiled._matches.clear()
        return out


class RawRuleset:
    """A baseline for benchmarks: the same ruleset driven the plain durable_rules way.

    Each action computes what its rule derives (``derive(rule_name, bindings)`` returns new fact dicts
    or nothing) and asserts it from inside the action with ``c.assert_fact``, letting durable_rules
    chain by itself. Nothing is recorded: no firings, no premises, no provenance. Member records
    (durable_facts.MemberIndex) are sent for the given facts only, not for those the actions assert.
    """

    def __init__(self, definition: dict[str, dict], derive: Callable[[str, dict], list[dict]], prefix: str = "raw"):
        with _LOCK:
            self.name, self.definition = f"{prefix}_{next(_NAMES)}", definition
            defs = {}
            for rule_name, rule in definition.items():
                rule = dict(rule)
                rule["run"] = self._action(rule_name, derive)
                defs[rule_name] = rule
            _host().register_rulesets({self.name: _with_prime_rule(defs)})
            _prime(self.name)

    @staticmethod
    def _action(rule_name: str, derive: Callable) -> Callable:
        def action(c):
            for fact in derive(rule_name, c._m) or ():
                try:
                    c.assert_fact(fact)
                except (MessageObserved, MessageNotHandled):
                    pass
        return action

    def run(self, facts: list[dict[str, Any]]) -> int:
        """Assert the facts one by one under a fresh sid; returns the number of facts in the end state."""
        sid = f"raw{next(_SIDS)}"
        with _LOCK:
            try:
                members = MemberIndex(self.definition)
                for f in [x for fact in facts for x in [fact, *members.records(fact)]]:
                    msg = scalar_projection(f)
                    msg["sid"] = sid
                    try:
                        _host().assert_fact(self.name, msg)
                    except (MessageObserved, MessageNotHandled):
                        pass
                return len(_host().get_facts(self.name, sid))
            finally:
                try:
                    _host().delete_state(self.name, sid)
                except Exception:
                    pass
