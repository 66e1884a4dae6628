"""Tests of engine.durable_host, the only module that talks to durable_rules, and of the pitfalls it hides.

Crashes of the C core (segmentation faults, aborts, SIGFPE) would take pytest down with them, so every
scenario that can crash runs in a subprocess.
"""
from __future__ import annotations

import ast
import io
import json
import math
import logging
import os
import re
import signal
import subprocess
import sys
import textwrap
import threading
import tokenize
from pathlib import Path

import pytest

from gpukb.engine.reasoning import durable_facts, durable_host, durable_text
from gpukb.engine.reasoning.rules import definition, load_rules

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = Path(__file__).parent / "fixtures"
HOST = ROOT / "engine" / "reasoning" / "durable_host.py"
BATCH_CALLS = {"assert_facts", "post_batch", "post_events", "retract_facts"}


def run_script(code: str, timeout: int = 60) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(ROOT), PYTHONFAULTHANDLER="")
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=timeout)


def describe(proc: subprocess.CompletedProcess) -> str:
    sig = ""
    if proc.returncode < 0:
        sig = f" (killed by {signal.Signals(-proc.returncode).name})"
    return f"exit {proc.returncode}{sig}\nstdout: {proc.stdout[-800:]}\nstderr: {proc.stderr[-800:]}"


# --------------------------------------------------------------------------------------------------
# static checks


def test_only_durable_host_imports_durable():
    pattern = re.compile(r"^\s*(from|import)\s+(durable\b|gpukb\._durable\b|gpukb import _durable\b)", re.M)
    offenders = []
    for folder in ("engine", "server"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            if pattern.search(path.read_text(encoding="utf-8")) and path != HOST:
                offenders.append(str(path.relative_to(ROOT)))
    assert offenders == []
    assert pattern.search(HOST.read_text(encoding="utf-8"))


def _code_without_strings_and_comments(source: str) -> str:
    out = []
    for tok in tokenize.generate_tokens(io.StringIO(source).readline):
        if tok.type not in (tokenize.STRING, tokenize.COMMENT):
            out.append(tok.string)
    return " ".join(out)


def test_durable_host_never_calls_the_batch_apis():
    source = HOST.read_text(encoding="utf-8")
    called = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call):
            f = node.func
            name = f.attr if isinstance(f, ast.Attribute) else getattr(f, "id", None)
            called.add(name)
        if isinstance(node, ast.Attribute) and node.attr in BATCH_CALLS:
            called.add(node.attr)      # also a bound method passed around without a call
    assert not (called & BATCH_CALLS)
    assert "assert_fact" in called     # one fact at a time
    # and no mention at all outside strings and comments (getattr tricks, aliases ...)
    code = _code_without_strings_and_comments(source)
    for name in BATCH_CALLS:
        assert name not in code


# --------------------------------------------------------------------------------------------------
# subprocess regressions


def test_many_facts_into_a_two_pattern_join_in_a_subprocess():
    proc = run_script(f"""
        import json
        from gpukb.engine.reasoning.rules import load_rules, definition
        from gpukb.engine.reasoning.reasoner import Reasoner
        from gpukb.engine.reasoning.durable_host import CompiledRuleset

        # through the reasoner: a chain of 40 edges, path = edge join path (two patterns)
        r = Reasoner(load_rules({str(FIXTURES / 'rules_paths')!r}))
        n = 40
        d = r.run([{{"t": "edge", "fk": f"E{{i}}", "a": i, "b": i + 1}} for i in range(n)])
        paths = {{(f["a"], f["b"]) for f in d.derived("path")}}

        # straight through durable_host: 300 paths and 300 edges, asserted one at a time
        c = CompiledRuleset(definition(load_rules({str(FIXTURES / 'rules_paths')!r})))
        with c.session() as s:
            for i in range(300):
                s.assert_fact({{"t": "path", "fk": f"P{{i}}", "a": i, "b": i + 1}})
                s.assert_fact({{"t": "edge", "fk": f"F{{i}}", "a": i + 1, "b": i + 2}})
            matches = s.drain()
        joins = sum(1 for name, m in matches if set(m) == {{"b_p", "b_e"}} and m["b_e"]["a"] == m["b_p"]["b"])
        print(json.dumps({{"paths": len(paths), "ok": paths == {{(i, j) for i in range(n + 1) for j in range(i + 1, n + 1)}},
                          "reach": len(d.derived("reach")), "joins": joins}}))
    """)
    assert proc.returncode == 0, describe(proc)
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    assert out == {"paths": 40 * 41 // 2, "ok": True, "reach": 40, "joins": 300}


def test_raw_batch_assert_with_a_join_documents_the_pitfall():
    """DESIGN.md: durable's assert_facts with a two-pattern join crashed the interpreter.

    If it crashes here, the crash is asserted; if it does not (as on the machine these tests were
    written on), nothing is asserted about it beyond "no Python error".
    """
    proc = run_script("""
        from gpukb._durable import engine as E
        h = E.Host()
        seen = []
        def act(c):
            seen.append(1)
        h.register_rulesets({"batch": {"r0": {"all": [{"b_p": {"t": "path"}},
                                                      {"b_e": {"$and": [{"t": "edge"}, {"a": {"b_p": "b"}}]}}],
                                              "run": act}}})
        facts = [{"t": "path", "fk": f"P{i}", "a": i, "b": i + 1, "sid": "1"} for i in range(200)]
        facts += [{"t": "edge", "fk": f"E{i}", "a": i + 1, "b": i + 2, "sid": "1"} for i in range(200)]
        h.assert_facts("batch", facts)
        print("survived", len(seen))
    """)
    if proc.returncode < 0:
        assert -proc.returncode in (signal.SIGSEGV, signal.SIGABRT, signal.SIGBUS), describe(proc)
    else:
        assert proc.returncode == 0, describe(proc)


NO_FIRING = f"""
    from gpukb.engine.reasoning.rules import load_rules
    from gpukb.engine.reasoning.reasoner import Reasoner
    r = Reasoner(load_rules({str(FIXTURES / 'rules_absent')!r}))
    WARM_UP
    # a block fact alone: no rule fires in this run
    d = r.run([{{"t": "block", "fk": "K", "name": "A"}}])
    print("derived", len(d.derived()))
"""


def test_a_run_without_firings_is_fine_after_a_run_with_firings():
    proc = run_script(NO_FIRING.replace("WARM_UP", 'r.run([{"t": "item", "fk": "I", "name": "A"}])'))
    assert proc.returncode == 0, describe(proc)
    assert proc.stdout.split() == ["derived", "0"]


def test_a_first_run_without_firings_does_not_crash():
    """Regression: the first session of a process in which no rule fired used to kill the interpreter
    when durable_host deleted its state (see the raw reproduction below)."""
    proc = run_script(NO_FIRING.replace("WARM_UP", "pass"))
    assert proc.returncode == 0, describe(proc)
    assert proc.stdout.split() == ["derived", "0"]


def test_raw_delete_state_without_an_action_documents_the_pitfall():
    """durable_rules 2.0.28: delete_state of a sid holding facts in which no action ran, before any
    session whose action ran was deleted, corrupts the heap. Asserted when it crashes; the same script
    with one firing session deleted first must run cleanly either way."""
    script = """
        import sys
        from gpukb._durable import engine as E
        h = E.Host()
        h.register_rulesets({"rs": {"r0": {"all": [{"b_i": {"t": "item"}}, {"b_j": {"t": "other"}}],
                                           "run": lambda c: None}}})
        if sys.argv[1:] == ["warm"]:
            h.assert_fact("rs", {"t": "item", "sid": "w"})
            h.assert_fact("rs", {"t": "other", "sid": "w"})
            h.delete_state("rs", "w")
        h.assert_fact("rs", {"t": "item", "sid": "q"})    # half of the join: no action runs
        h.delete_state("rs", "q")
        print("survived")
    """
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    cold = subprocess.run([sys.executable, "-c", textwrap.dedent(script)], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=60)
    warm = subprocess.run([sys.executable, "-c", textwrap.dedent(script), "warm"], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=60)
    assert warm.returncode == 0 and warm.stdout.strip() == "survived", describe(warm)
    if cold.returncode < 0:
        assert -cold.returncode in (signal.SIGSEGV, signal.SIGABRT, signal.SIGBUS), describe(cold)
    else:
        assert cold.returncode == 0, describe(cold)


DIVIDE = """
    import pathlib, tempfile
    from gpukb.engine.reasoning.rules import load_rules
    from gpukb.engine.reasoning.reasoner import Reasoner
    root = pathlib.Path(tempfile.mkdtemp()) / "rules"
    root.mkdir()
    (root / "types.yaml").write_text(
        "types:\\n  item: {base: true, fields: {name: {}, n: {}, d: {}, kind: {}}}\\n"
        "  out: {fields: {name: {}, v: {}}}\\n")
    (root / "r.yaml").write_text('''rules:
      - id: seen
        version: 1
        description: {en: e, zh: z}
        when: [{bind: i, type: item}]
        derive: {type: out, set: {name: i.name, v: "'seen'"}}
      - id: below.ratio
        version: 1
        description: {en: e, zh: z}
        when:
          - {bind: i, type: item, where: "kind == 'y'"}
          - {bind: j, type: item, where: "n < i.n / i.d"}
        derive: {type: out, set: {name: j.name, v: "'below'"}}
    ''')
    r = Reasoner(load_rules(root))
    r.run([{"t": "item", "fk": "W", "name": "w"}])          # a firing run first (see the test above)
    d = r.run([{"t": "item", "fk": "I", "name": "i", "n": 6, "d": DIVISOR, "kind": "y"},
               {"t": "item", "fk": "J", "name": "j", "n": 1}])
    print(sorted(f["name"] for f in d.derived() if f["v"] == "below"))
"""


def test_division_in_a_compiled_condition():
    proc = run_script(DIVIDE.replace("DIVISOR", "2"))
    assert proc.returncode == 0, describe(proc)
    assert proc.stdout.strip() == "['j']"      # 1 < 6 / 2


def test_division_by_zero_in_a_compiled_condition_does_not_crash():
    """Regression: `/` in a pattern condition was compiled to durable_rules' $div, and an int divisor
    of 0 killed the process with SIGFPE. Now gpukb evaluates it and the condition is false."""
    proc = run_script(DIVIDE.replace("DIVISOR", "0"))
    assert proc.returncode == 0, describe(proc)
    assert proc.stdout.strip() == "[]"


# --------------------------------------------------------------------------------------------------
# the wrapper itself (every session below makes a rule fire)


@pytest.fixture(scope="module")
def compiled():
    return durable_host.CompiledRuleset(definition(load_rules(FIXTURES / "rules_paths")), prefix="test")


def edge(key: str, a: int, b: int) -> dict:
    return {"t": "edge", "fk": f"dh:{key}", "a": a, "b": b}


def test_compiled_rulesets_and_sessions_get_unique_names(compiled):
    other = durable_host.CompiledRuleset(definition(load_rules(FIXTURES / "rules_paths")), prefix="test")
    assert compiled.name != other.name and compiled.name.startswith("test_")
    sids = set()
    for i in range(3):
        with compiled.session() as s:
            s.assert_fact(edge(f"u{i}", 0, 1))
            sids.add(s.sid)
        assert s.closed
    assert len(sids) == 3


def test_session_records_matches_and_drain_empties_them(compiled):
    with compiled.session() as s:
        assert s.assert_fact(edge("d1", 0, 1)) is True
        got = s.drain()
        assert s.drain() == []
        s.check()
    # rules_paths: r0 path.base (edge), r2 reach.direct (edge where a == 0)
    assert sorted(name for name, _ in got) == ["r0", "r2"]
    for _, binding in got:
        (fact,) = binding.values()
        assert fact["fk"] == "dh:d1" and fact["sid"] == s.sid


def test_identical_fact_twice_returns_false(compiled):
    with compiled.session() as s:
        assert s.assert_fact(edge("twice", 3, 4)) is True
        assert s.assert_fact(edge("twice", 3, 4)) is False      # durable's MessageObserved, absorbed
        assert s.assert_fact({"t": "nobody-matches-this", "fk": "dh:none"}) is True   # MessageNotHandled
        assert [name for name, _ in s.drain()] == ["r0"]


def _fnv1a32(text: str) -> int:
    """durable_rules' fnv1Hash32 (src/rules/state.c), the hash a message id is filed under."""
    h = 0x811C9DC5
    for b in text.encode():
        h = ((h ^ b) * 16777619) & 0xFFFFFFFF
    return h


#: two distinct ids with one 32-bit FNV-1a hash (found by a birthday search over "fact-<n>")
COLLIDING = ("fact-25388", "fact-909936")


def test_raw_ids_with_one_hash_document_the_pitfall(compiled):
    """durable_rules takes the second of two ids with the same 32-bit hash for the first and refuses
    the message as already observed: two different facts, one silently dropped."""
    assert _fnv1a32(COLLIDING[0]) == _fnv1a32(COLLIDING[1]) and COLLIDING[0] != COLLIDING[1]
    host = durable_host._host()
    sid = "raw-collision"
    host.assert_fact(compiled.name, {"sid": sid, "id": COLLIDING[0], "t": "edge", "fk": "x1", "a": 0, "b": 1})
    with pytest.raises(durable_host.MessageObserved):
        host.assert_fact(compiled.name, {"sid": sid, "id": COLLIDING[1], "t": "edge", "fk": "x2", "a": 0, "b": 2})
    try:
        host.delete_state(compiled.name, sid)
    except Exception:
        pass
    compiled._matches.clear()


def test_facts_whose_ids_collide_are_both_asserted(compiled):
    """The session sends a fact's key as its id and offers a refused new fact again under a salted id."""
    with compiled.session() as s:
        assert s.assert_fact({"t": "edge", "fk": COLLIDING[0], "a": 0, "b": 1}) is True
        assert s.assert_fact({"t": "edge", "fk": COLLIDING[1], "a": 0, "b": 2}) is True
        assert s.assert_fact({"t": "edge", "fk": COLLIDING[1], "a": 0, "b": 2}) is False   # the same fact again
        got = s.drain()
    fired = sorted(binding[next(iter(binding))]["fk"] for name, binding in got if name == "r2")
    assert fired == sorted(COLLIDING)          # reach.direct matched both edges


def test_without_the_salted_retry_a_collision_is_an_error_not_a_silent_drop(compiled, monkeypatch):
    monkeypatch.setattr(durable_host, "ID_ATTEMPTS", 1)
    with compiled.session() as s:
        s.assert_fact({"t": "edge", "fk": COLLIDING[0], "a": 0, "b": 1})
        with pytest.raises(durable_host.EngineFault, match="different ids"):
            s.assert_fact({"t": "edge", "fk": COLLIDING[1], "a": 0, "b": 2})


def test_session_holds_the_lock_and_releases_it(compiled):
    state = {}

    def probe(key):
        lk = durable_host.lock()
        got = lk.acquire(timeout=0.2)
        if got:
            lk.release()
        state[key] = got

    with compiled.session() as s:
        s.assert_fact(edge("lock", 0, 1))
        t = threading.Thread(target=probe, args=("inside",))
        t.start()
        t.join()
    t = threading.Thread(target=probe, args=("after",))
    t.start()
    t.join()
    assert state == {"inside": False, "after": True}


def test_session_is_closed_and_unlocked_after_an_exception(compiled):
    with pytest.raises(ZeroDivisionError):
        with compiled.session() as s:
            s.assert_fact(edge("exc", 0, 1))
            1 / 0
    assert s.closed
    ok = []

    def probe():
        lk = durable_host.lock()
        if lk.acquire(timeout=0.5):
            lk.release()
            ok.append(True)

    t = threading.Thread(target=probe)
    t.start()
    t.join()
    assert ok == [True]


def test_projection_sends_scalars_and_marks_lists_and_booleans():
    fact = {"t": "x", "fk": "dh:proj", "s": "text", "i": 3, "f": 1.5, "w": 2.0, "tiny": 2e-06, "flag": True,
            "none": None, "list": [1, 2], "map": {"a": 1}, "id": "mine", "sid": "theirs"}
    assert durable_facts.scalar_projection(fact) == {
        "t": "x", "fk": "dh:proj", "s": "text", "i": 3, "f": 1.5, "w": 2, "tiny": math.nextafter(2e-06, 1),
        "flag": durable_facts.TRUE_MARK, "list": durable_facts.LIST_MARK, "map": durable_facts.LIST_MARK}


def test_projection_does_not_change_the_callers_fact():
    fact = {"t": "x", "fk": "dh:same", "flag": False, "list": [1], "w": 3.0, "id": 1, "sid": "s"}
    before = {k: (list(v) if isinstance(v, list) else v) for k, v in fact.items()}
    durable_facts.scalar_projection(fact)
    assert fact == before and type(fact["w"]) is float


def test_durable_exceptions_are_reexported():
    from gpukb._durable import engine as raw   # allowed here: the test documents what the wrapper re-exports
    assert durable_host.MessageObserved is raw.MessageObservedException
    assert durable_host.MessageNotHandled is raw.MessageNotHandledException


# --------------------------------------------------------------------------------------------------
# durable_rules never fails silently


def _paths_reasoner():
    from gpukb.engine.reasoning.reasoner import Reasoner
    return Reasoner(load_rules(FIXTURES / "rules_paths"))


def test_an_error_durable_only_logs_fails_the_run_and_names_the_rule(monkeypatch):
    """durable logs action-callback failures ("error code: 307") and carries on; gpukb must not.
    (Sessions drive the C core themselves, where such a failure raises; a log record from anywhere in
    durable during a run still fails it.)"""
    from gpukb.engine.core.errors import EngineError
    r = _paths_reasoner()
    good = r.run([edge("a", 1, 2), edge("b", 2, 3)])
    assert good.derived(), "the fixture rules derive paths"
    real = r.compiled._assert_and_record
    calls = {"n": 0}

    def noisy(msg):
        out = real(msg)
        calls["n"] += 1
        if calls["n"] == 2:
            logging.getLogger("gpukb._durable").error("base exception type %s, value %s", "Exception", "error code: 307")
        return out

    monkeypatch.setattr(r.compiled, "_assert_and_record", noisy)
    with pytest.raises(EngineError) as info:
        r.run([edge("c", 1, 2), edge("d", 2, 3)])
    err = info.value
    assert err.status == 500
    assert "error code: 307" in err.message and "no partial answer" in err.message
    assert "in rule " in err.message, err.message        # the rule that was matching is named
    monkeypatch.setattr(r.compiled, "_assert_and_record", real)
    again = r.run([edge("e", 1, 2), edge("f", 2, 3)])     # the next run is clean
    assert len(again.derived()) == len(good.derived())


def test_a_core_error_while_completing_an_action_fails_the_run(monkeypatch):
    """An error the C core raises while a session drives its actions is an EngineError naming the rule."""
    from gpukb.engine.core.errors import EngineError
    r = _paths_reasoner()
    real = durable_host._C.complete_and_start_action

    def failing(handle, state):
        raise RuntimeError("Could not complete and start action, error code: 307")

    monkeypatch.setattr(durable_host._C, "complete_and_start_action", failing)
    with pytest.raises(EngineError) as info:
        r.run([edge("c", 1, 2), edge("d", 2, 3)])
    assert "error code: 307" in info.value.message
    monkeypatch.setattr(durable_host._C, "complete_and_start_action", real)
    assert r.run([edge("e", 1, 2), edge("f", 2, 3)]).derived()


def test_the_direct_driver_matches_like_the_host(compiled):
    """Sessions drive durable's C core directly; the same facts through durable's own Host.assert_fact
    complete the same matches."""
    facts = [edge(f"h{i}", i, i + 1) for i in range(12)] + [edge("h-back", 5, 2)]
    with compiled.session() as s:
        for f in facts:
            s.assert_fact(f)
        direct = sorted((n, sorted((k, v["fk"]) for k, v in b.items())) for n, b in s.drain())
    host, sid = durable_host._host(), "via-host"
    try:
        with durable_host.lock():
            compiled._matches.clear()
            for f in facts:
                msg = durable_facts.scalar_projection(f, compiled.fields)
                msg.update(sid=sid, id=f["fk"])
                try:
                    host.assert_fact(compiled.name, msg)
                except (durable_host.MessageObserved, durable_host.MessageNotHandled):
                    pass
            via_host = sorted((n, sorted((k, v["fk"]) for k, v in b.items())) for n, b in compiled._matches)
    finally:
        host.delete_state(compiled.name, sid)
        compiled._matches.clear()
    assert direct and direct == via_host


def test_an_exception_recorded_in_the_state_fails_the_run(monkeypatch):
    from gpukb.engine.core.errors import EngineError
    r = _paths_reasoner()
    host = durable_host._host()
    real = host.get_state
    monkeypatch.setattr(host, "get_state", lambda name, sid: {**(real(name, sid) or {}), "exception": "boom in action"})
    with pytest.raises(EngineError, match="boom in action"):
        r.run([edge("g", 1, 2), edge("h", 2, 3)])


def test_an_engine_error_is_a_500_in_the_json_error_shape(app, monkeypatch, error_shape):
    from gpukb.engine.core.errors import EngineError
    kb = app.extensions["gpukb"]

    def broken(*a, **k):
        raise EngineError("the rule engine failed in rule sizing.x@1 (memory.yaml:3); no partial answer is given")

    from gpukb.engine.reasoning.reasoner import StagedRun
    monkeypatch.setattr(kb.reasoner, "run", broken)
    monkeypatch.setattr(StagedRun, "add", broken)      # an answer's staged session
    r = app.test_client().post("/v1/query", json={"params": 1.234e9, "method": "full", "gpu": "T4"})
    body = error_shape(r.get_json(), 500)
    assert "sizing.x@1" in body["error"]


def test_the_host_runs_no_background_dispatch_threads():
    """durable's stock host dispatches every ruleset from timer threads, racing the main thread."""
    durable_host._host()
    names = {getattr(getattr(t, "function", None), "__name__", "") for t in threading.enumerate()}
    assert not names & {"dispatch_ruleset", "dispatch_timers"}, names
    assert not hasattr(durable_host._host(), "_d_timer")


# --------------------------------------------------------------------------------------------------
# what the session leaves out of durable_rules' work, and how it reads matches back


def _question_filter():
    from tests._engine import bundled
    kb = bundled()
    return kb, durable_facts.PatternFilter(definition(kb.question_reasoner.ruleset))


def test_the_pattern_filter_leaves_out_only_facts_no_pattern_can_match():
    kb, flt = _question_filter()
    ref = {"t": "ref", "fk": "x", "fid": "R-X", "subject": "gpu:T4", "attribute": "effect", "skind": "gpu"}
    assert not flt.may_match(ref)                                    # no sizing pattern reads an 'effect'
    assert flt.may_match({**ref, "attribute": "memory_gb"})          # the GPUs' memory is read
    assert flt.may_match({**ref, "fid": "R-BPP-fp16"})               # a formula is read by its id
    assert flt.may_match({**ref, "attribute": "bytes_per_param", "skind": "optimizer"})
    assert not flt.may_match({"t": "recommendation", "fk": "y"})     # a type no pattern reads
    assert flt.may_match({**ref, "attribute": ["memory_gb"]})        # not a string: counted as a possible match
    # a literal a pattern requires: `purpose == 'answer'` patterns and others that do not require it
    assert flt.may_match({"t": "scenario", "fk": "s", "purpose": "probe", "method": "full"})


def test_facts_left_out_of_durable_change_no_answer(monkeypatch):
    """A question answered with the filter and with every fact sent to durable_rules: the same answer,
    with fewer facts sent."""
    from tests._engine import bundled, sent_to_durable
    kb = bundled()
    kb.query({"params": 5e9, "method": "lora", "gpu": "T4"}).to_json()         # the audit and the error bands, computed once
    sent = sent_to_durable(monkeypatch, "fk")
    body = {"params": 21e9, "method": "full", "gpu": "A10"}
    filtered = json.dumps(kb.query(dict(body)).to_json(), sort_keys=True)
    n_filtered = len(sent)
    kb._cache.clear()
    sent.clear()
    monkeypatch.setattr(durable_facts.PatternFilter, "may_match", lambda self, fact: True)
    everything = json.dumps(kb.query(dict(body)).to_json(), sort_keys=True)
    kb._cache.clear()
    assert filtered == everything
    assert n_filtered < len(sent)


@pytest.mark.parametrize("bindings", [
    {"b_s": {"t": "scenario", "fk": "scenario:q1", "qid": "q1", "n": 2.5}},
    {"b_c": {"t": "claim", "fk": "S1-C1@1", "value": durable_facts.LIST_MARK, "ok": durable_facts.TRUE_MARK},
     "b_r": {"fk": "R-1@1", "t": "ref", "subject": "gpu:T4"}},
    {"b_c": {"t": "claim", "fk": "S1-C2@1", "quote": 'a "quoted" \\ text', "v": durable_facts.FALSE_MARK}},
    {"b_c": {"t": "claim", "fk": 'odd "key"', "note": '"fk": "not-this", "b_x":{'}},
    {"b_c": {"t": "claim", "fk": "k", "lit": "\\u0001list"}},
])
def test_match_keys_reads_the_keys_json_reads(bindings):
    """The bindings' fact keys read from a match's text, with or without escapes, are those json.loads reads."""
    text = '{"r7":{' + ",".join(f'"{b}":{durable_host._ENCODE(m)}' for b, m in bindings.items()) + "}}"
    assert durable_text.match_keys(text) == ("r7", {b: m["fk"] for b, m in bindings.items()})
    assert durable_text.match_dict(text) == ("r7", bindings)


def test_a_reused_fact_is_sent_as_the_text_of_its_message(monkeypatch):
    """A fact asserted with ``reused`` (a release's reference records, shared by every question's
    session) is sent as kept JSON text: that text is exactly what encoding its message would give, in
    every session (its own sid), and the run derives what a run without reuse derives."""
    r = _paths_reasoner()
    facts = [edge("ra", 1, 2), edge("rb", 2, 3), edge("rc", 3, 4)]
    plain = r.run(list(facts))
    sent = []
    real = r.compiled._assert_and_record

    def capture(msg):
        sent.append(msg)
        return real(msg)
    monkeypatch.setattr(r.compiled, "_assert_and_record", capture)
    runs = [r.run([], shared=facts) for _ in range(2)]
    reused = [m for m in sent if isinstance(m, durable_text.Message)]
    assert len(reused) == 2 * len(facts), "every shared fact goes out as kept text"
    assert len({m["sid"] for m in reused}) == 2
    for m in reused:
        assert m.text == durable_host._ENCODE(dict(m)), m.text
    for d in runs:
        assert sorted(d.facts) == sorted(plain.facts)
        assert sorted(f.derived for f in d.firings) == sorted(f.derived for f in plain.firings)
