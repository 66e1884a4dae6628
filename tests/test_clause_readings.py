"""Which clause a figure belongs to. A comma between a digit and three more ("9,000") is a thousands separator, not a
clause break, so the label after the figure ("9,000 TFLOPS dense FP4") is in its clause and beats a precision named
before a colon. A requirement whose method is named only in a later clause ("Loading a 7B model takes 14 GB, but
full fine-tuning it needs far more") is not that method's need. Sentences written for these tests; figures from the
NVIDIA Blackwell architecture technical brief (B200: FP4 dense about 9 PFLOPS, FP8 dense 4.5 PFLOPS) and bytes per
parameter (7B x 2 bytes = 14 GB of FP16 weights; mixed-precision AdamW about 16 bytes per parameter)."""
from __future__ import annotations

from ._engine import checked

WRONG = ("incorrect", "overstated", "understated", "misattributed", "contradicted", "inconsistent_with_derivation")


def test_a_thousands_comma_keeps_the_figures_own_label_in_its_clause(gpukb):
    got = [(c["attribute"], c["status"]) for c in checked(gpukb, "It beats FP8: about 9,000 TFLOPS dense FP4 on the B200.")
           if c["attribute"].endswith("_tflops")]
    assert got == [("fp4_tensor_tflops", "supported")], got


def test_a_method_named_only_in_a_later_clause_is_not_the_requirements(gpukb):
    text = "Loading a 7B model in FP16 takes about 14 GB, but full fine-tuning it needs far more."
    got = checked(gpukb, text, "memory_required")
    assert got and not [c for c in got if c["status"] in WRONG], got
    assert "method_elsewhere" in [r["code"] for c in got for r in c.get("unclear_because", [])]
    zh = "以 FP16 精度加载 7B 模型参数，显存占用约 14GB，但进行全参数微调时显存远远不够。"
    assert not [c for c in checked(gpukb, zh, "memory_required") if c["status"] in WRONG]
    # named in the figure's own clause, the method is the requirement's: 8 GB for a full fine-tune is far too little
    assert [c["status"] for c in checked(gpukb, "Full fine-tuning of a 7B model needs about 8 GB.", "memory_required")] == \
        ["understated"]
