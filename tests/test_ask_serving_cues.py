"""Serving questions as people ask them: "how many concurrent sequences" asks for the largest batch that fits
(each sequence keeps its own KV cache), and "FP8 KV cache" sets the query field kv_cache_dtype. Questions of
our own, in English and Chinese."""
from __future__ import annotations

from pathlib import Path

import pytest

from gpukb.engine.ask.parser import parse_question
from gpukb.engine.kb.vocabulary import Vocabulary


@pytest.fixture(scope="module")
def vocab() -> Vocabulary:
    return Vocabulary.load(Path(__file__).parents[1] / "kb" / "vocabulary.yaml")


@pytest.mark.parametrize("question", [
    "How many concurrent 4k-token sequences can vLLM serve for Llama 3 8B on one A100 80GB?",
    "how many parallel requests can I run with Mistral 7B on an L4 at 2048 tokens",
    "maximum number of simultaneous users for Qwen2.5 7B inference on an A10",
    "vLLM 在一张 A100 80GB 上部署 Llama 3 8B，4k 上下文最多能同时处理多少个请求？",
    "L40S 跑 Qwen2.5 14B 推理，并发数最多多少",
])
def test_concurrency_asks_for_the_largest_batch(vocab, question):
    p = parse_question(question, vocab)
    assert p.kind == "inverse" and p.target == "batch"


@pytest.mark.parametrize("question", [
    "How much memory does Llama 3 8B need on an A100 with 16 concurrent sequences?",   # a batch given, not asked
    "Can Llama 3 8B serve 4k context on one A100 80GB?",
])
def test_a_stated_load_is_not_a_concurrency_question(vocab, question):
    assert parse_question(question, vocab).kind != "inverse"


@pytest.mark.parametrize("question", [
    "Can I serve Llama 3 70B with FP8 KV cache on 2 H100 at 32k context?",
    "serve Qwen2.5 72B on 4 L40S with kv_cache_dtype=fp8",
    "Llama 3 70B inference on two H100 with the KV cache in FP8",
    "两张 H100 部署 Llama 3 70B 推理，KV 缓存用 FP8，能放下吗",
])
def test_fp8_kv_cache_sets_the_field(vocab, question):
    p = parse_question(question, vocab)
    assert p.scenario.get("kv_cache_dtype") == "fp8"
    assert p.scenario.get("method") == "inference"


@pytest.mark.parametrize("question", [
    "Can I serve Llama 3 70B in FP8 on 2 H100?",          # FP8 weights, not the cache
    "Does the H100 support FP8?",
    "Full fine-tune Llama 3 8B on an H100 with FP8 KV cache",   # no KV cache to size in training
])
def test_fp8_elsewhere_is_not_the_kv_cache(vocab, question):
    assert "kv_cache_dtype" not in parse_question(question, vocab).scenario


def test_the_answer_halves_the_cache(gpukb):
    plain = gpukb.ask("Can I serve Llama 3 70B on 2 H100 at 32k context?").to_json()
    fp8 = gpukb.ask("Can I serve Llama 3 70B with FP8 KV cache on 2 H100 at 32k context?").to_json()
    assert fp8["memory"]["kv_cache"] == pytest.approx(plain["memory"]["kv_cache"] / 2, rel=1e-3)
