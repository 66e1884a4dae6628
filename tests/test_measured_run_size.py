"""A measured run that names a model but states a parameter count of another size ("gpt2 (18B shape)": the
architecture scaled up) is sized by the count it states; a count that differs by rounding or by an untied output
head counted apart (GPT-2 124M holds 163M with its head) is still the named model. Rows written for these tests."""
from __future__ import annotations

import pytest

from gpukb.engine.sizing.calibration import run_body

ROW = {"id": "X1", "method": "pretrain", "model": "hf:openai-community/gpt2", "precision": "mixed", "gpus": 1,
       "gpu": "gpu:A100-40GB", "batch": 1, "seq_len": 1024}


@pytest.mark.parametrize("params_b, sized_as", [
    (None, "model"),        # no count stated: the named model
    (0.124, "model"),       # its own count
    (0.163, "model"),       # with the output head counted apart: under half again
    (0.355, "params"),      # GPT-2 medium's count: another size
    (18.33, "params"),      # the architecture scaled to 18B
    (0.05, "params"),       # smaller than the named model by more than a third
])
def test_a_stated_count_of_another_size_is_sized_by_that_count(kb, params_b, sized_as):
    body = run_body({**ROW, "params_b": params_b}, kb.kb.vocab, kb.view(None))
    if sized_as == "model":
        assert body["model"] == "gpt2-124m" and "params" not in body
    else:
        assert "model" not in body and body["params"] == pytest.approx(params_b * 1e9)
