"""The typed answer models (gpukb.engine.models) describe the answers the API really gives.

Every real answer builds as its model and turns back into the same object (a field the model lacks, a
misnamed or a missing one fails); every field a model declares is seen in some real answer (so removing
or renaming any field breaks these tests); the enums are the vocabulary's; the CLI's choices are the
enums' values.
"""
from __future__ import annotations

import copy
import dataclasses
import json
import typing

import pytest

from gpukb.engine import models
from gpukb.engine.core import terms
from gpukb.engine.ask import choice as ask_choice
from gpukb.engine.models import scenario
from gpukb.engine.kb.loader import MODALITIES
from gpukb.engine.models.base import OMIT, Model, ModelError, json_name
from gpukb.engine.models.schema import Variants

from ._answers import samples

#: Fields no bundled answer carries, and why.
UNSEEN_OK = {
    ("Issue", "file"): "KB validation issues name their file; the API shows them only for a broken KB",
    ("ClaimDetail", "rests_on"): "the sampled claim detail presupposes no other claim; the claim list shows the field",
    ("CheckedClaim", "reason"): "an unverifiable checked claim's reason; the sampled check text has no unverifiable claim "
                                "(tests/test_check.py covers it)",
    ("Recommendation", "error"): "a variant the scenario rules refuse; none of the sampled answers has one since an "
                                 "inference scenario's own optimizer ('none') is accepted back",
    **{(m, "unknown_names"): "a name the KB does not know, said beside an answer; sampled on a sizing and an "
                             "unknown answer (tests/test_inventory.py covers the rest)"
       for m in ("ComparisonAnswer", "FactAnswer", "InstanceChoiceAnswer", "InverseAnswer", "ClaimCheckAnswer")},
    ("InstanceChoiceAnswer", "note"): "said when prices in two currencies are ranked separately; the KB's prices are "
                                      "all in USD today (tests/test_inventory.py fakes a CNY price)",
    ("EntryUnknown", "via"): "an unknown recorded on an umbrella GPU (gpu:A100) and shown on its variants; none is "
                             "recorded on an umbrella today",
}


@pytest.fixture(scope="module")
def answers(app):
    return samples(app)


def _models_of(root) -> set[type[Model]]:
    """Every model reachable from ``root`` through its fields' annotations."""
    seen: set[type[Model]] = set()

    def walk(tp):
        if isinstance(tp, Variants):
            for m in tp.models.values():
                walk(m)
            return
        if isinstance(tp, type) and issubclass(tp, Model):
            if tp in seen:
                return
            seen.add(tp)
            for hint in typing.get_type_hints(tp).values():
                walk(hint)
            return
        for arg in typing.get_args(tp):
            walk(arg)
    walk(root)
    return seen


def _visit(obj, seen: dict[str, set[str]]) -> None:
    if isinstance(obj, Model):
        fields = seen.setdefault(type(obj).__name__, set())
        for f in dataclasses.fields(obj):
            value = getattr(obj, f.name)
            if value is not OMIT:
                fields.add(json_name(f.name))
                _visit(value, seen)
    elif isinstance(obj, list):
        for x in obj:
            _visit(x, seen)
    elif isinstance(obj, dict):
        for x in obj.values():
            _visit(x, seen)


def test_every_endpoint_is_sampled(answers):
    assert set(models.ANSWERS) <= {s.name for s in answers}
    assert {s.status for s in answers if s.name == "error"} >= {400, 404, 405, 413, 415}


def test_every_real_answer_builds_as_its_model_and_back_unchanged(answers):
    for s in answers:
        built = models.ANSWERS[s.name].build(s.body)
        out = built.to_json()
        assert out == s.body, s.request
        assert json.dumps(out, ensure_ascii=False) == json.dumps(s.body, ensure_ascii=False), s.request  # key order too


def _build(name: str, body: dict) -> Model:
    """The model of answer ``name`` built from its JSON object."""
    return models.ANSWERS[name].build(body)


def test_every_field_of_every_model_is_in_some_real_answer(app, answers):
    seen: dict[str, set[str]] = {}
    for s in answers:
        _visit(_build(s.name, s.body), seen)
    _visit(_build("health", _health_under_serve(app)), seen)
    unseen = []
    for root in models.ANSWERS.values():
        for model in _models_of(root):
            for f in dataclasses.fields(model):
                key = (model.__name__, json_name(f.name))
                if json_name(f.name) not in seen.get(model.__name__, set()) and key not in UNSEEN_OK:
                    unseen.append(".".join(key))
    assert not unseen, f"fields no real answer has (remove them, or say why in UNSEEN_OK): {sorted(set(unseen))}"


def _health_under_serve(app) -> dict:
    """/health as gpukb serve answers it: with the KB digest and the reload state."""
    import tempfile
    from pathlib import Path
    with tempfile.TemporaryDirectory() as tmp:
        state = Path(tmp) / "state.json"
        state.write_text(json.dumps({"generation": {"loaded_at": "2026-12-04T00:00:00Z", "number": 3},
                                     "refused": {"error": "kb/claims/S000.yaml:3: bad", "at": "2026-12-04T00:01:00Z"}}))
        saved = {k: app.config.get(k) for k in ("GPUKB_DIGEST", "GPUKB_STATE")}
        app.config.update(GPUKB_DIGEST="0123456789abcdef0123", GPUKB_STATE=str(state))
        try:
            r = app.test_client().get("/health")
        finally:
            app.config.update(saved)
    assert r.status_code == 200
    body = r.get_json()
    assert body["reload"]["generation"] == 3 and body["kb_digest"] == "0123456789abcdef"
    return body


@pytest.mark.parametrize("name, path", [
    ("query", ["verdict"]), ("query", ["memory", "total"]), ("audit", ["findings", 0, "kind"]),
    ("claims", ["claims", 0, "quote"]), ("check", ["summary", "zh"]), ("versions", ["versions", 0, "name"]),
    ("error", ["errors", 0, "message"]), ("explain", ["tree", "fact"]),
])
def test_a_misnamed_or_missing_field_fails(answers, name, path):
    body = next(s.body for s in answers if s.name == name)
    renamed = copy.deepcopy(body)
    node = renamed
    for step in path[:-1]:
        node = node[step]
    node[path[-1] + "_x"] = node.pop(path[-1])
    with pytest.raises(ModelError, match=path[-1]):
        _build(name, renamed)
    del node[path[-1] + "_x"]
    with pytest.raises(ModelError, match="missing"):
        _build(name, renamed)


def test_a_value_outside_the_vocabulary_fails(answers):
    body = copy.deepcopy(next(s.body for s in answers if s.name == "query"))
    body["scenario"]["method"] = "telepathy"
    with pytest.raises(ModelError, match="telepathy"):
        _build("query", body)
    body = copy.deepcopy(next(s.body for s in answers if s.name == "audit"))
    body["findings"][0]["kind"] = "wrong-ish"
    with pytest.raises(ModelError, match="wrong-ish"):
        _build("audit", body)


def test_a_wrong_type_fails():
    with pytest.raises(ModelError, match="expected an integer, got bool"):
        models.Health.build({"status": "ok", "kb_version": "x", "claims": True, "rules": 1})
    with pytest.raises(ModelError, match="unknown field"):
        models.Error.build({"ok": False, "status": 400, "error": "e", "errors": [{"message": "m", "hint": 1}]})


def test_enums_are_the_vocabulary():
    values = lambda e: [m.value for m in e]     # noqa: E731
    assert values(models.Method) == list(terms.METHODS) == list(scenario.METHODS)
    assert values(models.Precision) == list(terms.PRECISIONS)
    assert values(models.Optimizer) == list(terms.OPTIMIZERS)
    assert values(models.FindingKind) == list(terms.FINDING_KINDS)
    assert values(models.Lang) == list(terms.LANGS)
    assert values(models.Verdict) == list(terms.LABELS["verdict"])
    assert values(models.Modality) == list(MODALITIES)
    assert values(models.Offload) == list(terms.OFFLOADS) == list(scenario.OFFLOADS)
    from gpukb.engine.models.vocab import SolveTarget, UnverifiableReason
    assert values(SolveTarget) == list(terms.SOLVE_TARGETS) == list(ask_choice.INVERSE_RANGES)
    assert values(UnverifiableReason) == list(terms.UNVERIFIABLE_REASONS)


def _option(parser, command: str, flag: str):
    sub = next(a for a in parser._actions if a.__class__.__name__ == "_SubParsersAction")
    return next(a for a in sub.choices[command]._actions if flag in a.option_strings)


@pytest.mark.parametrize("command, flag, enum", [
    ("query", "--method", "Method"), ("query", "--precision", "Precision"), ("query", "--optimizer", "Optimizer"),
    ("query", "--offload", "Offload"), ("query", "--lang", "Lang"), ("audit", "--kind", "FindingKind"),
    ("ask", "--lang", "Lang"), ("check", "--lang", "Lang"),
])
def test_cli_choices_are_the_models_enums(command, flag, enum):
    from gpukb.server.cli import build_parser
    assert list(_option(build_parser(), command, flag).choices) == [m.value for m in getattr(models, enum)]


def test_cli_solve_and_zero_choices_come_from_the_engine():
    from gpukb.server.cli import build_parser
    parser = build_parser()
    assert list(_option(parser, "query", "--solve").choices) == list(ask_choice.INVERSE_RANGES)
    assert list(_option(parser, "query", "--zero").choices) == list(terms.ZERO_STAGES)


def test_cli_json_prints_the_model_of_the_answer(cli, gpukb):
    """``--json`` prints the object the engine answered, passed through its model."""
    code, out, _ = cli("query", "--params", "13e9", "--method", "full", "--gpu", "T4", "--json")
    assert code == 0
    printed = json.loads(out)
    assert printed == gpukb.query({"params": "13e9", "method": "full", "gpu": "T4"}).to_json()
