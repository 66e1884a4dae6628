"""Entity mentions found by trying each alias pattern at its anchor's places (engine/kb/lexicon.py) are
those a scan of the whole text with every alias pattern finds (the reading it replaced)."""
from __future__ import annotations

import random

from gpukb.engine.kb import lexicon
from gpukb.engine.kb.lexicon import Match
from gpukb.engine.text.tokens import aligned_lower


def _scanned(low: str, vocab) -> list[Match]:
    """The former reading: rx.finditer over the whole text for every alias whose anchor occurs."""
    found = []
    for anchor, entries in lexicon._lexicon(vocab):
        if anchor not in low:
            continue
        for rx, eid, _, _ in entries:
            for m in rx.finditer(low):
                if m.end() > m.start():
                    found.append((Match(m.start(), m.end(), eid, vocab.kind_of(eid) or ""),
                                  eid[-1:].isdigit() and low[m.end() - 1] == "s"))
    found.sort(key=lambda xp: (-(xp[0].end - xp[0].start), xp[1], xp[0].start, xp[0].eid))
    taken, chosen = [False] * len(low), []
    for f, _ in found:
        if not any(taken[f.start:f.end]):
            chosen.append(f)
            taken[f.start:f.end] = [True] * (f.end - f.start)
    return sorted(chosen, key=lambda x: x.start)


def test_anchored_matching_finds_what_a_whole_text_scan_finds(gpukb):
    vocab = gpukb.kb.vocab
    aliases = sorted(vocab.aliases())
    glue = ["s", "'s", "x", "4x", " ", "-", "_", ".", "a", "1", "80gb", "中文", "显卡", "a100", "h100", "rtx"]
    rng = random.Random(5)
    texts = ["4xA100s and H100-80GB, A100 80 GB; L40S vs L40s", "8卡A100（80GB）训练 Llama-2-13B"]
    for _ in range(1500):      # aliases run together, split by separators, with plurals and multipliers
        texts.append("".join(rng.choice(["", " ", "", "-"]) + rng.choice(aliases + glue) for _ in range(rng.randint(1, 12))))
    for text in texts:
        low = aligned_lower(text)
        assert lexicon._match_entities(low, vocab) == _scanned(low, vocab), text


def test_a_suffix_after_a_gpus_name_names_another_card(gpukb):
    """"RTX 3090 Ti" is not an RTX 3090 (cues product_suffix); Tencent's TI-ONE platform after "A10" is no suffix."""
    vocab = gpukb.kb.vocab
    gpus = lambda text: [m.eid for m in lexicon.match_entities(aligned_lower(text), vocab) if m.kind == "gpu"]  # noqa: E731
    assert gpus("The RTX 3090 Ti and the RTX 4080 Super") == []
    assert gpus("The RTX 3090 and the RTX 4090") == ["gpu:RTX-3090", "gpu:RTX-4090"]
    assert "gpu:A10" in gpus("NVIDIA A10 TI-ONE 平台")
    names = [n["reason"] for n in gpukb.check("The RTX 3090 Ti has 24 GB of memory.").to_json()["not_understood"]]
    assert any("RTX 3090 Ti" in r for r in names), names
