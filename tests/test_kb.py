"""The bundled KB: every quote at its span, coverage of the documents, releases, and broken inputs."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from gpukb.engine.core.errors import UnknownRelease, ValidationError
from gpukb.engine.kb.loader import load_kb

from ._engine import ROOT

KB = ROOT / "kb"


@pytest.fixture(scope="module")
def kb():
    return load_kb(KB)


# SHA-256 of the three seed documents as delivered (../shared/seeds/), so the check needs no checkout of them
SEED_SHA256 = {'000_224545ea096de99b.txt': '23c671663aa55d26a1a4158d1eddf7783d0ded602aa040bccb846ac2581c4da7', '001_13316cdc419f1a5d.txt': 'dfaaf455dad6eccf459065271fc1d21b9228e32ed00ca7cb69fa6749336cf153', '002_7e0469e951912f41.txt': '8c2dbf37019bd3d163a9a21bb36585936a08147e6153b651dc48e6fe13586700'}


def test_sources_are_the_seeds_byte_for_byte(kb):
    import hashlib
    assert {s.file for s in kb.sources.values()} == set(SEED_SHA256)
    for s in kb.sources.values():
        assert hashlib.sha256((KB / "sources" / s.file).read_bytes()).hexdigest() == SEED_SHA256[s.file]
    seeds = ROOT.parent / "shared" / "seeds"
    if seeds.is_dir():  # and, where the delivered copies are at hand, byte for byte
        for s in kb.sources.values():
            assert (KB / "sources" / s.file).read_bytes() == (seeds / s.file).read_bytes()


def test_every_quote_sits_verbatim_at_its_span(kb):
    claims = [f for f in kb.all_facts if f.tier == "claim"]
    assert len(claims) > 100
    for c in claims:
        text = kb.sources[c.source].text
        assert text[c.span[0]:c.span[1]] == c.quote, c.key


def _coverage(kb, sid):
    text = kb.sources[sid].text
    spans = [f.span for f in kb.all_facts if f.tier == "claim" and f.source == sid]
    lines, pos = [], 0
    for line in text.split("\n"):
        if line.strip():
            lines.append((pos, pos + len(line)))
        pos += len(line) + 1
    covered = sum(1 for a, b in lines if any(s < b and e > a for s, e in spans))
    return covered, len(lines)


@pytest.mark.parametrize("sid", ["S000", "S001", "S002"])
def test_claims_cover_at_least_90_percent_of_each_documents_lines(kb, sid, record_property):
    covered, total = _coverage(kb, sid)
    record_property(f"coverage_{sid}", f"{covered}/{total}")
    print(f"{sid}: {covered}/{total} non-empty lines covered ({covered / total:.1%})")
    assert covered / total >= 0.90


def test_releases_tell_the_history(kb):
    names = kb.release_names()
    assert names == ["2026.09", "2026.10", "2026.12", "2026.12.1", "2026.12.4", "2026.12.5", "2026.12.6", "2026.12.7",
                     "2026.12.8", "2026.12.9", "2026.12.10", "2026.12.11", "2026.12.12", "2026.12.13", "2026.12.14",
                     "2026.12.15", "2026.12.16", "2026.12.17", "2026.12.18", "2026.12.19", "2026.12.20", "2026.12.21",
                     "2026.12.22", "2026.12.23", "2026.12.24", "2026.12.25", "2026.12.27", "2026.12.28",
                     "2026.12.29", "2026.12.30", "2026.12.31", "2026.12.32", "2027.1"]
    (first, second, last, newest, recoded, purposes, shares, tier, azure, compiled, sdpa, gated, prompt, practice, hgx, smi,
     sharded, deepspeed, split, pcie, megatron, groups, frozen, galore, precisions, fused, kbit_base, p100, configs,
     titan, prices, sizes, step) = (kb.release(n) for n in names)
    # 2027.1 sizes the optimizer step of PyTorch's foreach AdamW (tests/test_sizing_optimizer_step.py)
    assert "R-TORCH-adamw-foreach-temp" not in sizes.facts and step.facts["R-TORCH-adamw-foreach-temp"].value == 1
    # 2026.12.32 adds the G6e, Gr6 and A3 sizes that were missing, and prices G6 (tests/test_instances_more.py)
    assert "R-g6e.xlarge-gpu_count" not in prices.facts and sizes.facts["R-g6e.xlarge-gpu_count"].value == 1
    assert "R-g6.xlarge-price_hourly_usd" not in prices.facts
    assert sizes.facts["R-g6.xlarge-price_hourly_usd"].value == pytest.approx(0.8048)
    assert prices.facts["R-aws-g6e-note"].version == 1 and sizes.facts["R-aws-g6e-note"].version == 2
    # 2026.12.31 prices AWS, Azure and Google Cloud sizes (tests/test_prices_clouds.py)
    assert "R-p4d.24xlarge-price_hourly_usd" not in titan.facts
    assert prices.facts["R-p4d.24xlarge-price_hourly_usd"].value == pytest.approx(32.7726)
    # 2026.12.30 sizes torchtitan's op-level selective checkpointing and expandable segments (tests/test_sizing_torchtitan.py)
    assert "R-ACT-sac-op" not in configs.facts and titan.facts["R-ACT-sac-op"].value == 2
    assert "9dec370ad26b5f8e9a7333a0e36165018262644b" in titan.facts["R-ACT-sac-op"].citation
    assert "R-TORCH-expandable-segments" not in configs.facts and titan.facts["R-TORCH-expandable-segments"].value == 0
    # 2026.12.29 sizes open models a run names by repository from their config.json (tests/test_sizing_practice4.py)
    assert "R-yi-6b-vocab_size" not in p100.facts and "R-yi-6b-vocab_size" in configs.facts
    assert "01-ai/Yi-6B" in configs.facts["R-yi-6b-vocab_size"].citation
    # 2026.12.28 records the P100's SXM2 board and 12 GB PCIe card, and scopes the PCIe card's figures to its form factor
    assert "R-P100-SXM2-fp32_tflops" not in kbit_base.facts and p100.facts["R-P100-SXM2-fp32_tflops"].value == 10.6
    assert "nvidia-tesla-p100-datasheet" in p100.facts["R-P100-SXM2-nvlink_bandwidth"].citation
    assert kbit_base.facts["R-P100-tdp_w"].version == 1 and not kbit_base.facts["R-P100-tdp_w"].qualifiers
    assert p100.facts["R-P100-tdp_w"].version == 2 and p100.facts["R-P100-tdp_w"].qualifiers == {"form_factor": "PCIe"}
    # 2026.12.27 sizes LoRA over an 8-bit or a GPTQ/AWQ 4-bit base in that precision, cited to PEFT and LLM.int8()
    assert "R-LORA-kbit-base" not in fused.facts and "R-LORA-kbit-base" in kbit_base.facts
    assert "2208.07339" in kbit_base.facts["R-LORA-kbit-base"].citation
    # 2026.12.25 sizes a loss fused into the output head (Cut Cross-Entropy, Liger), cited to both papers
    assert "R-LOGITS-fused" not in precisions.facts and "R-LOGITS-fused" in fused.facts
    assert "2411.09009" in fused.facts["R-LOGITS-fused"].citation
    # 2026.12.24 lists the precisions each GPU's tensor cores run, cited to NVIDIA's datasheets and whitepapers
    assert "R-H100-80GB-tensor_core_precisions" not in galore.facts
    h100 = precisions.facts["R-H100-80GB-tensor_core_precisions"]
    assert "precision:fp8" in h100.value and "precision:int4" not in h100.value and "nvidia" in h100.citation.lower()
    assert "R-T4-tensor_core_precisions" in galore.facts        # the T4's list was there from the first release
    # 2026.12.23 sizes GaLore's projected optimizer states and Q-GaLore's INT8 weights (the papers and their code),
    # and catalogues LLaMA-7B from the LLaMA paper's Table 2
    for fid in ("R-GALORE-states", "R-QGALORE-int8-weights", "R-QGALORE-int4-projection", "R-llama-7b-params",
                "R-FSDP-no-sync-grads", "R-OPT-adamw4bit-states"):
        assert fid not in frozen.facts and fid in galore.facts
    assert "2403.03507" in galore.facts["R-GALORE-states"].citation
    assert "2302.13971" in galore.facts["R-llama-7b-layers"].citation
    # 2026.12.22 gives a LoRA run's frozen base gradients under FSDP1's use_orig_params with mixed units (PyTorch docs)
    assert "R-FSDP-frozen-grads" not in groups.facts and "R-FSDP-frozen-grads" in frozen.facts
    assert "pytorch.org/docs/stable/fsdp.html" in frozen.facts["R-FSDP-frozen-grads"].citation
    # 2026.12.21 sizes a tensor-parallel question's minimum as the smallest group that fits (Megatron Core's head
    # divisibility; Narayanan et al.'s Takeaway #1: tensor parallelism within one 8-GPU server)
    for fid in ("R-MEGATRON-tp-heads", "R-PTDP-tp-node"):
        assert fid not in megatron.facts and fid in groups.facts
    assert "2104.04473" in groups.facts["R-PTDP-tp-node"].citation and groups.facts["R-PTDP-tp-node"].value == 8
    # 2026.12.20 adds Megatron-style tensor-parallel training (Shoeybi et al.; Korthikanti et al.'s Table 2)
    assert "R-MEGATRON-tp" not in pcie.facts and "R-MEGATRON-tp" in megatron.facts
    assert "1909.08053" in megatron.facts["R-MEGATRON-tp"].citation
    assert "2205.05198" in megatron.facts["R-ACT-coef-tp"].citation and megatron.facts["R-ACT-coef-tp"].value == 24
    # 2026.12.19 gives the H100 PCIe's memory bandwidth as the datasheet's 2TB/s, not a lower bound
    assert split.facts["R-H100-PCIe-memory_bandwidth"].version == 1 and pcie.facts["R-H100-PCIe-memory_bandwidth"].version == 2
    assert pcie.facts["R-H100-PCIe-memory_bandwidth"].norm.lo == pcie.facts["R-H100-PCIe-memory_bandwidth"].norm.hi
    # 2026.12.18 adds a model split layer by layer over GPUs (Accelerate's device_map="auto")
    assert "R-ACCEL-layer-split" not in deepspeed.facts and "R-ACCEL-layer-split" in split.facts
    assert "huggingface.co/docs/accelerate" in split.facts["R-ACCEL-layer-split"].citation
    # 2026.12.17 adds DeepSpeed's FP32 master weights and states of a BF16 run
    assert "R-DS-bf16-master" not in sharded.facts and "R-DS-bf16-master" in deepspeed.facts
    # 2026.12.16 adds FSDP1's gradient shards under CPU offload and Gemma 2's final logit soft-capping
    for fid in ("R-FSDP-offload-grad-shard", "R-LOGITS-softcap", "R-gemma-2-9b-final_logit_softcapping"):
        assert fid not in smi.facts and fid in sharded.facts
    assert sharded.facts["R-gemma-2-9b-final_logit_softcapping"].norm.lo == 30
    # 2026.12.15 adds nvidia-smi's reported memory of more cards
    assert "R-RTX-A6000-usable_memory" not in hgx.facts and smi.facts["R-RTX-A6000-usable_memory"].value == 49140
    # 2026.12.14 adds the later HGX B200 figures as a version of the B200's
    assert "R-B200-fp32_tflops-hgx" not in practice.facts and hgx.facts["R-B200-fp32_tflops-hgx"].norm.lo == 75
    # 2026.12.13 adds the unfused prompt pass's scores, the loss in the logits' dtype and PEFT's k-bit preparation
    for fid, value in (("R-INF-scores", 4), ("R-LOGITS-own-dtype", 3), ("R-PEFT-kbit-fp32", 4), ("R-EXLLAMA-attention", None)):
        assert fid not in prompt.facts and fid in practice.facts
        assert value is None or practice.facts[fid].norm.lo == value
    # 2026.12.12 adds the logits of every prompt position that transformers before v4.45 computed
    assert "R-HF-logits-all" not in gated.facts and prompt.facts["R-HF-logits-all"].norm.lo == 6
    # 2026.12.11 adds the gated MLP's forward buffers and the MLP widths of the catalogued models
    assert "R-INF-mlp-gated" not in sdpa.facts and gated.facts["R-INF-mlp-gated"].norm.lo == 3
    assert "R-qwen2.5-7b-intermediate_size" not in sdpa.facts and gated.facts["R-qwen2.5-7b-intermediate_size"].norm.lo == 18944
    # 2026.12.10 adds transformers' SDPA default and which SDPA kernel runs where
    assert "R-HF-sdpa-default" not in compiled.facts and "R-SDPA-kernels" not in compiled.facts
    assert "torch>=2.1.1" in sdpa.facts["R-HF-sdpa-default"].value and "sdp_utils.cpp" in sdpa.facts["R-SDPA-kernels"].citation
    # 2026.12.9 adds torch.compile's recomputation and the allocator's fragmentation
    assert "R-ACT-compile-remat" not in azure.facts and compiled.facts["R-ACT-compile-remat"].norm.lo == 10
    # 2026.12.8 adds Azure's GPU sizes and revises the H20's citations (values unchanged)
    assert "R-Standard_NC24ads_A100_v4-gpu_count" not in tier.facts
    assert azure.facts["R-Standard_NC24ads_A100_v4-gpu_count"].norm.lo == 1
    assert azure.facts["R-H20-memory_gb"].version == 2 and azure.facts["R-H20-memory_gb"].norm.lo == tier.facts["R-H20-memory_gb"].norm.lo
    # 2026.12.7 adds the reference tier's other GPUs and clouds: absent before, present from then on
    assert "R-L40S-memory_gb" not in shares.facts and tier.facts["R-L40S-memory_gb"].norm.lo == 48
    assert {c.source for c in first.claims} == {"S000", "S001"}
    assert {c.source for c in second.claims} == {"S000", "S001", "S002"}
    # the T4 bandwidth is revised in 2026.12: old value before, new value after
    assert first.facts["R-T4-memory_bandwidth"].version == 1
    assert first.facts["R-T4-memory_bandwidth"].norm.lo == 300
    assert last.facts["R-T4-memory_bandwidth"].version == 2
    assert last.facts["R-T4-memory_bandwidth"].norm.lo == 320
    # the unverified A10 FP16 figure is retired, then comes back in 2026.12.1 citing NVIDIA's datasheet
    assert "R-A10-fp16_tensor_tflops" in second.facts
    assert "R-A10-fp16_tensor_tflops" not in last.facts
    assert newest.facts["R-A10-fp16_tensor_tflops"].version == 2
    assert "datasheet" in newest.facts["R-A10-fp16_tensor_tflops"].citation
    # facts added with `since:` appear from their release on
    assert "R-ZERO2-comm" not in last.facts and "R-ZERO2-comm" in newest.facts
    # a claim re-encoded in 2026.12.4 keeps its free-text version in the earlier releases
    assert newest.facts["S002-C091"].attribute == "note" and newest.facts["S002-C091"].version == 1
    assert recoded.facts["S002-C091"].attribute == "weakness" and recoded.facts["S002-C091"].version == 2
    # 2026.12.5 gives recommendations their purpose and documents the tools they name
    assert "purpose" not in recoded.facts["S002-C079"].qualifiers and "R-NVSMI-effect" not in recoded.facts
    assert purposes.facts["S002-C079"].qualifiers["purpose"] == ["reduces_communication"]
    assert purposes.facts["R-NVSMI-effect"].version == 1
    # 2026.12.6: a fractional GN7 size's vGPU memory is its own figure, no longer under a condition
    assert purposes.facts["R-GN7.LARGE20-memory_gb"].qualifiers.get("condition") == "vGPU share"
    assert shares.facts["R-GN7.LARGE20-memory_gb"].version == 2 and not shares.facts["R-GN7.LARGE20-memory_gb"].qualifiers


def test_a_named_release_yields_exactly_its_facts(kb):
    r = kb.release("2026.10")
    assert all(kb.introduced_in(f) <= 1 for f in r.facts.values())
    assert len(r.facts) == len({f.id for f in kb.all_facts if kb.introduced_in(f) <= 1 and f.version == 1})


def test_unknown_release_is_refused_with_the_allowed_names(kb):
    with pytest.raises(UnknownRelease) as e:
        kb.release("1999.01")
    assert "2026.09" in str(e.value)


# ---------------------------------------------------------------------------------------------
# broken KB files: each message names the file and the line

@pytest.fixture
def kbcopy(tmp_path):
    dst = tmp_path / "kb"
    shutil.copytree(KB, dst)
    return dst


def _break(path: Path, old: str, new: str, count: int = 1):
    text = path.read_text(encoding="utf-8")
    assert old in text, old
    path.write_text(text.replace(old, new, count), encoding="utf-8")


def _first_claim_line(path: Path, needle: str) -> int:
    for i, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if needle in line:
            return i
    raise AssertionError(needle)


BROKEN = [
    # (file, old, new, expected words in the message)
    ("claims/S001.yaml", "source: S001", "source: S001\nsource: S002", ["duplicate key"]),
    ("claims/S001.yaml", "claims:", "claims: [", ["invalid YAML"]),
    ("claims/S001.yaml", "version: 1", "version: '1'", ["positive integer", "remove the quotes"]),
    ("claims/S001.yaml", "subject: family:GN7", "subject: family:GN77", ["unknown subject", "family:GN7"]),
    ("claims/S001.yaml", "attribute: gpu_count", "attribute: gpu_cnt", ["unknown attribute"]),
    ("claims/S001.yaml", "modality: spec", "modality: rumour", ["unknown modality", "product-name"]),
    ("reference/gpus.yaml", "confidence: high", "confidence: certain", ["unknown confidence", "medium"]),
    ("reference/gpus.yaml", "unit: GB", "unit: gigabytes", ["unknown unit", "GiB"]),
    ("versions.yaml", "revises: [R-T4-memory_bandwidth@2]", "revises: [R-T4-memory_bandwidth@7]", ["unknown fact version"]),
    ("versions.yaml", "adds: {sources: [S002]}", "adds: {sources: [S009]}", ["unknown source"]),
]


@pytest.mark.parametrize("rel,old,new,words", BROKEN, ids=[b[3][0] for b in BROKEN])
def test_broken_files_are_reported_with_file_and_line(kbcopy, rel, old, new, words):
    _break(kbcopy / rel, old, new)
    with pytest.raises(ValidationError) as e:
        load_kb(kbcopy)
    text = str(e.value)
    for w in words:
        assert w in text, text
    issues = e.value.issues
    assert any(i.file and i.file.endswith(rel) and i.line for i in issues), [str(i) for i in issues]


def test_quote_off_its_span_is_rejected_with_a_hint(kbcopy):
    path = kbcopy / "claims" / "S002.yaml"
    text = path.read_text(encoding="utf-8")
    import re
    m = re.search(r"span: \[(\d+), (\d+)\]", text)
    a, b = int(m.group(1)), int(m.group(2))
    path.write_text(text[:m.start()] + f"span: [{a + 1}, {b + 1}]" + text[m.end():], encoding="utf-8")
    with pytest.raises(ValidationError) as e:
        load_kb(kbcopy)
    msg = str(e.value)
    assert "quote is not at its span" in msg and f"[{a}, {b}]" in msg
    line = text[:m.start()].count("\n") + 1
    assert any(i.line == line and i.file.endswith("S002.yaml") for i in e.value.issues)


def test_fill_spans_computes_missing_spans_and_refuses_ambiguous_quotes(kbcopy):
    path = kbcopy / "claims" / "S000.yaml"
    text = path.read_text(encoding="utf-8")
    import re
    stripped = re.sub(r"\n\s*span: \[\d+, \d+\]", "", text)
    path.write_text(stripped, encoding="utf-8")
    with pytest.raises(ValidationError) as e:
        load_kb(kbcopy)
    assert "--fill-spans" in str(e.value)
    kb2 = load_kb(kbcopy, fill_spans=True)
    assert all(c.span for c in kb2.all_facts if c.tier == "claim")
    load_kb(kbcopy)  # the rewritten file now validates on its own
    # an ambiguous quote (occurs twice in S002) is refused
    path2 = kbcopy / "claims" / "S002.yaml"
    t2 = path2.read_text(encoding="utf-8")
    m = re.search(r"(quote: .*\n)(\s*)span: \[\d+, \d+\]\n", t2)
    t2 = t2[:m.start()] + f"quote: GN7-T4\n" + t2[m.end():]
    path2.write_text(t2, encoding="utf-8")
    with pytest.raises(ValidationError) as e2:
        load_kb(kbcopy, fill_spans=True)
    assert "lengthen it" in str(e2.value)


def _ref_kb_with(tmp_path, old: str, new: str):
    """A copy of the bundled KB with one edit to kb/reference/techniques.yaml."""
    import shutil

    from gpukb.engine.core.paths import BUNDLED_KB
    root = tmp_path / "kb"
    shutil.copytree(BUNDLED_KB, root)
    p = root / "reference" / "techniques.yaml"
    text = p.read_text(encoding="utf-8")
    assert old in text
    p.write_text(text.replace(old, new, 1), encoding="utf-8")
    return root


@pytest.mark.parametrize("old, new, message", [
    ("restates: R-ZERO-comm-dp\n", "restates: R-NOPE-x\n", "not another reference fact"),
    ("restates: R-ZERO-comm-stage3\n", "restates: R-ZERO-comm-dp\n", "a restatement says the same thing"),
    ("restates: R-ZERO-comm-dp\n", "restates: 42\n", "must be a reference id"),
])
def test_restates_must_name_another_fact_that_says_the_same(tmp_path, old, new, message):
    from gpukb.engine.core.errors import ValidationError
    from gpukb.engine.kb.loader import load_kb
    root = _ref_kb_with(tmp_path, old, new)
    with pytest.raises(ValidationError) as e:
        load_kb(root)
    assert any(message in str(i) and "techniques.yaml" in str(i) for i in e.value.issues), e.value.issues
