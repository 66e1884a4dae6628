"""Human labels (English and Chinese) for facts, used by proof trees, summaries and pages."""
from __future__ import annotations

from typing import Any

from .store import ReleaseView
from .vocabulary import Vocabulary
from ..terms import LABELS, gb, params_text  # noqa: F401  (gb, params_text re-exported)




def _name(vocab: Vocabulary, eid: Any) -> str:
    if isinstance(eid, str) and eid in vocab.entities:
        return vocab.label(eid)
    return str(eid)


METHOD_TEXT = LABELS["method"]
COMPONENT_TEXT = LABELS["component"]


def fact_label(f: dict[str, Any], view: ReleaseView | None, vocab: Vocabulary) -> dict[str, str]:
    """A one-line English and Chinese description of an engine record."""
    t = f.get("t")
    if t in ("claim", "ref"):
        kbf = view.facts.get(f.get("fid")) if view is not None else None
        attr = vocab.attributes.get(f.get("attribute"))
        val = kbf.value_text(vocab) if kbf is not None else str(f.get("value"))
        subj = _name(vocab, f.get("subject"))
        return {"en": f"{subj} {attr.en if attr else f.get('attribute')}: {val}",
                "zh": f"{subj} {attr.zh if attr else f.get('attribute')}：{val}"}
    if t == "scenario":
        m_en, m_zh = METHOD_TEXT.get(f.get("method"), (f.get("method"), f.get("method")))
        what = _name(vocab, f["model"]) if f.get("model") else params_text(f.get("params"))
        what_zh = _name(vocab, f["model"]) if f.get("model") else params_text(f.get("params"), "zh") + "参数模型"
        hw = f.get("gpu") or f.get("instance") or f.get("family")
        hw_t = _name(vocab, hw) if hw else (f"{f.get('vram_gb')} GB" if f.get("vram_gb") else "?")
        n = f.get("gpus")
        hw_en = f"{n} × {hw_t}" if n else hw_t
        return {"en": f"question: {m_en} of {what} on {hw_en} ({f.get('precision')}, seq {f.get('seq_len')}, batch {f.get('batch')})",
                "zh": f"问题：在 {hw_en} 上对 {what_zh} 做{m_zh}（{f.get('precision')}，序列 {f.get('seq_len')}，批 {f.get('batch')}）"}
    if t == "param_count":
        return {"en": f"{params_text(f.get('n'))} parameters", "zh": f"{params_text(f.get('n'), 'zh')}参数"}
    if t == "arch":
        b = " (estimated)" if f.get("basis") == "approximation" else ""
        return {"en": f"{f.get('layers'):g} layers, hidden size {f.get('hidden'):g}, {f.get('heads'):g} heads{b}",
                "zh": f"{f.get('layers'):g} 层，隐藏维度 {f.get('hidden'):g}，{f.get('heads'):g} 个头{'（估算）' if b else ''}"}
    if t == "hardware":
        return {"en": f"{f.get('gpus')} × {_name(vocab, f.get('gpu'))}", "zh": f"{f.get('gpus')} 张 {_name(vocab, f.get('gpu'))}"}
    if t == "capacity":
        return {"en": f"usable memory {gb(f.get('gb'))} per GPU × {f.get('gpus')}",
                "zh": f"每卡可用显存 {gb(f.get('gb'))} × {f.get('gpus')} 张"}
    if t == "weight_bytes":
        return {"en": f"{f.get('bpp'):g} bytes per stored weight ({f.get('precision')})", "zh": f"每个权重 {f.get('bpp'):g} 字节（{f.get('precision')}）"}
    if t == "opt_bytes":
        return {"en": f"{f.get('bpp'):g} bytes of optimizer state per trained parameter ({f.get('optimizer')})",
                "zh": f"每个训练参数 {f.get('bpp'):g} 字节优化器状态（{f.get('optimizer')}）"}
    if t == "lora_params":
        return {"en": f"{params_text(f.get('n'))} adapter parameters (rank {f.get('rank')}, {f.get('matrices')} matrices per layer)",
                "zh": f"{params_text(f.get('n'), 'zh')}适配器参数（秩 {f.get('rank')}，每层 {f.get('matrices')} 个矩阵）"}
    if t == "mem_part":
        en, zh = COMPONENT_TEXT.get(f.get("component"), (f.get("component"), f.get("component")))
        return {"en": f"{en}: {gb(f.get('gb'))}", "zh": f"{zh}：{gb(f.get('gb'))}"}
    if t == "model_states":
        return {"en": f"model states: {gb(f.get('gb'))}", "zh": f"模型状态：{gb(f.get('gb'))}"}
    if t == "runtime_mem":
        return {"en": f"activations, cache and overhead: {gb(f.get('gb'))}", "zh": f"激活、缓存与开销：{gb(f.get('gb'))}"}
    if t == "per_gpu":
        return {"en": f"per GPU with ZeRO stage {f.get('zero')} on {f.get('gpus')} GPU(s): {gb(f.get('total_gb'))}",
                "zh": f"ZeRO-{f.get('zero')}、{f.get('gpus')} 张卡时每卡：{gb(f.get('total_gb'))}"}
    if t == "verdict":
        if f.get("verdict") == "fits":
            return {"en": f"fits: needs {gb(f.get('need_gb'))} per GPU, {gb(f.get('capacity_gb'))} usable",
                    "zh": f"放得下：每卡需要 {gb(f.get('need_gb'))}，可用 {gb(f.get('capacity_gb'))}"}
        return {"en": f"does not fit: needs {gb(f.get('need_gb'))} per GPU, {gb(f.get('capacity_gb'))} usable",
                "zh": f"放不下：每卡需要 {gb(f.get('need_gb'))}，可用 {gb(f.get('capacity_gb'))}"}
    if t == "min_gpus":
        if f.get("n") is None:
            return {"en": "no GPU count fits: " + str(f.get("reason")), "zh": "加卡也放不下：仅激活与开销就超过单卡"}
        z = f" with ZeRO-{f.get('zero')}" if f.get("zero") else ""
        return {"en": f"smallest GPU count that fits: {f.get('n')}{z}", "zh": f"放得下的最少卡数：{f.get('n')}{'（ZeRO-' + str(f.get('zero')) + '）' if z else ''}"}
    if t == "comm":
        s = f.get("seconds")
        tail_en = f", {s:.2f} s per step over {f.get('link')}" if isinstance(s, (int, float)) else ""
        tail_zh = f"，经 {f.get('link')} 每步 {s:.2f} 秒" if isinstance(s, (int, float)) else ""
        return {"en": f"communication {gb(f.get('gb_per_step'))} per step{tail_en}", "zh": f"每步通信 {gb(f.get('gb_per_step'))}{tail_zh}"}
    if t == "compute":
        return {"en": f"compute ≥ {f.get('seconds', 0):.3g} s per step at {f.get('tflops'):g} TFLOPS peak",
                "zh": f"按 {f.get('tflops'):g} TFLOPS 峰值，每步计算至少 {f.get('seconds', 0):.3g} 秒"}
    if t == "precision_note":
        return {"en": f"{_name(vocab, f.get('gpu'))} has no native BF16: use FP16 mixed precision",
                "zh": f"{_name(vocab, f.get('gpu'))} 不原生支持 BF16：改用 FP16 混合精度"}
    if t == "recommendation":
        return {"en": f"recommend {f.get('action')} ({f.get('change')})", "zh": f"建议 {f.get('action')}（{f.get('change')}）"}
    if t == "finding":
        return {"en": f"{f.get('fkind')}: {f.get('claim')}" + (f" vs {f.get('other')}" if f.get("other") else ""),
                "zh": f"{f.get('fkind')}：{f.get('claim')}" + (f" 对比 {f.get('other')}" if f.get("other") else "")}
    if t == "resolution":
        return {"en": f"status of {f.get('claim')}: {f.get('status')} (rank {f.get('rank')})",
                "zh": f"{f.get('claim')} 的审计结论：{f.get('status')}（优先级 {f.get('rank')}）"}
    return {"en": str(t), "zh": str(t)}
