"""The cited one-paragraph summary of a sizing answer, in English and Chinese."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..explain.trees import leaves, walk
from ..core.terms import gb, params_text
from ..kb.store import ReleaseView
from ..models.sizing import Summary

if TYPE_CHECKING:
    from ..core.session import Session


def summary(state: Session, a: dict[str, Any], t: dict, view: ReleaseView) -> Summary:
    """The summary of a sizing answer from its fields as made (``a``: JSON key → value, its parts as their
    models) and its proof tree ``t``."""
    sc = a["scenario"]
    vocab = state.kb.vocab
    what_en = sc.get("model") or params_text(sc.get("params"))
    what_zh = sc.get("model") or (params_text(sc.get("params"), "zh") + "参数模型")
    hw = sc.get("gpu") or sc.get("instance") or sc.get("family") or f"{sc.get('vram_gb')} GB GPU"
    m = a["memory"]
    cites: list[dict[str, Any]] = []

    def cite(item: dict[str, Any]) -> int:
        for i, c in enumerate(cites, 1):
            if c == item:
                return i
        cites.append(item)
        return len(cites)
    ref_marks = []
    for leaf in leaves(t):
        if leaf.get("tier") == "reference":
            ref_marks.append(cite({"type": "reference", "fact": leaf["fact"], "citation": leaf.get("citation")}))
            for c in (leaf.get("stated_by") or [])[:2]:
                ref_marks.append(cite({"type": "quote", "claim": c["id"], "source": c["source"], "quote": c["quote"]}))
    rule_cites = []
    for node in walk(t):
        for c in node.get("cites", []) or []:
            if c.get("missing_in_release"):
                continue          # a rule citing a fact of a later release: nothing to cite in this one
            rule_cites.append(cite({"type": "reference", "fact": c["id"], "citation": c.get("citation")}))
    marks = "".join(f"[{i}]" for i in sorted(set(ref_marks + rule_cites))[:8])
    meth_en = {"full": "Full fine-tuning", "lora": "LoRA fine-tuning", "qlora": "QLoRA fine-tuning", "pretrain": "Pre-training", "inference": "Inference"}[sc.method.value]
    if sc.get("model"):
        what_en, what_zh = vocab.label("model:" + sc.model), vocab.label("model:" + sc.model, "zh")
    meth_zh = {"full": "全量微调", "lora": "LoRA 微调", "qlora": "QLoRA 微调", "pretrain": "预训练", "inference": "推理"}[sc.method.value]
    fits = a["verdict"] == "fits"
    usable = gb(a["capacity"].per_gpu)
    en = [f"{meth_en} of {what_en} on {hw} {'fits' if fits else 'does not fit'}: it needs about "
          f"{gb(m.per_gpu_total)} per GPU (model states {gb(m.model_states)}) against {usable} "
          f"usable per GPU {marks}."]
    zh = [f"在 {hw} 上对 {what_zh} 做{meth_zh}{'放得下' if fits else '放不下'}：每卡约需 {gb(m.per_gpu_total)}"
          f"（模型状态 {gb(m.model_states)}），每卡可用 {usable} {marks}。"]
    if not fits and a.get("min_gpus"):
        z = f" with ZeRO-{a['min_gpus_zero']}" if a.get("min_gpus_zero") else ""
        en.append(f"The smallest count of this GPU that fits is {a['min_gpus']}{z}.")
        zh.append(f"放得下的最少卡数为 {a['min_gpus']}{'（ZeRO-' + str(a['min_gpus_zero']) + '）' if z else ''}。")
    if a.get("borderline"):
        b = a["band"]
        en.append(f"Borderline: against {b.points} published measurements this kind of estimate runs between "
                  f"{b.ratios[0]:.2f}× and {b.ratios[1]:.2f}×, i.e. {gb(b.low_gb)} to {gb(b.high_gb)}, "
                  f"and the usable {usable} lies inside that range.")
        zh.append(f"临界：与 {b.points} 个公开实测值相比，此类估算的实际值在 {b.ratios[0]:.2f} 到 {b.ratios[1]:.2f} 倍之间，"
                  f"即 {gb(b.low_gb)} 至 {gb(b.high_gb)}，而可用的 {usable} 落在此范围内。")
    fit_recs = [r for r in a["recommendations"] if r.get("fits")]
    if fit_recs:
        r0 = fit_recs[0]
        en.append(f"Cheapest change that fits: {r0.label.en} ({r0.cost}).")
        cost_zh = getattr(r0.get("cost"), "zh", None)
        zh.append(f"能放下的最小改动：{r0.label.zh}" + (f"（{cost_zh}）" if cost_zh else "") + "。")
    for p in a.get("precision", []):
        en.append(f"The {p.gpu} has no native BF16, so use FP16 mixed precision.")
        zh.append(f"{p.gpu} 不原生支持 BF16，应使用 FP16 混合精度。")
    caveats_en = list(a.get("notes", []))          # Notes: English, with their Chinese (labels.note)
    vocab = state.kb.vocab
    if any(n.get("type") == "arch" and (n.get("data") or {}).get("basis") == "approximation" for n in walk(t)):
        caveats_en.append(vocab.wording.note("shape_estimated", vocab))
    if a.get("contradictions"):
        caveats_en.append(vocab.wording.note("disagreeing", vocab, n=len(a["contradictions"])))
    return Summary.of(en=" ".join(en), zh="".join(zh), citations=cites, caveats=caveats_en)
