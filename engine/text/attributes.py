"""Which attribute a figure states: the word of its dimension nearest to it in its clause, else in its sentence,
else in the label of the list it is an item of, else the one attribute of that dimension its product can have.
Words are the vocabulary's ``attribute`` cues; a size said of storage ("8 TB of local NVMe storage", cues
``instance_words.storage_after``) is a disk's, named by a disk's own word, never a memory's."""
from __future__ import annotations

import re
from typing import Any

from ..kb.vocabulary import Vocabulary
from ..kb.lexicon import Match as _Match
from .subject import locative_gpu
from .tokens import GPU_AFTER, NAME_MARKS, Quantity, any_match, quantities
from .workload import label_attribute

#: the attributes of the memory dimension that are sizes of storage, not of memory
STORAGE_ATTRIBUTES = ("system_disk_gb",)

_OWN_FIGURE, _TRAILS = re.compile(r"(?:\s|[(（)）:：=~≈约]|tensor|core|cores){0,6}\d"), re.compile(r"\d[\d,.]*\s*[a-z/%]{0,8}\s*of\s+$")


#: a memory technology's name right before a bandwidth ("HBM3 at 3.35 TB/s", "GDDR6 (300 GB/s)", "HBM2e mit 2 TB/s")
_AFTER_MEMORY_TYPE = re.compile(r"(?<![a-z])(?:hbm\d?e?|gddr\d+x?|lpddr\d+x?)(?:\s+memory)?\s*(?:at|@|with|mit|à|a|con|com|de|di|,|[(（:：])?"
                                r"\s*(?:up\s+to|bis\s+zu|jusqu'à|hasta|até|fino\s+a|最高|高达)?\s*(?:~|≈|约)?\s*$")


def attribute_for(q: Quantity, low: str, masked: str, seg: tuple[int, int], s: int, e: int, ents: list[_Match],
                   carried: dict[str, _Match], vocab: Vocabulary, t: dict[str, Any]) -> tuple[str | None, float]:
    """The attribute a quantity states: its dimension's whose word is nearest in the clause, else in the sentence,
    else in the label of the list it is an item of; a lone attribute of that dimension when no word names one."""
    cands = [a for a in t["attribute"] if vocab.attributes[a].type == "quantity" and vocab.attributes[a].dimension == q.dimension]
    if q.dimension == "count" and "gpu_count" in cands and GPU_AFTER.match(masked, q.end):
        return "gpu_count", 0.85                  # "4 张 T4", "8x A100": a count followed by a GPU name
    # "8 TB of local NVMe storage": a disk, not memory; only a disk's own word ("| 系统盘 | 100–500GB SSD |") names it
    storage = q.dimension == "memory" and any_match(t["instance_words"]["storage_after"], low[q.end:q.end + 48])
    cands = [a for a in cands if a in STORAGE_ATTRIBUTES] if storage else cands
    if not cands:
        return None, 0.0
    if q.dimension == "memory" and "memory_gb" in cands and re.search(r"\ue000\s*[（(]\s*$", masked[max(s, q.start - 8):q.start]):
        return "memory_gb", 0.85                  # "A10（24GB）": the memory of the GPU just named
    if q.dimension == "memory" and "memory_gb" in cands and q.lo == q.hi and re.match(r"\s*(?:nvidia\s*)?\ue000", masked[q.end:q.end + 10]):
        return "memory_gb", 0.85                  # "a single 80 GB A100 with 220 GiB of RAM": the GPU's own size
    if q.dimension == "bandwidth" and "memory_bandwidth" in cands and _AFTER_MEMORY_TYPE.search(low, max(s, q.start - 32), q.start):
        return "memory_bandwidth", 0.85           # "HBM3 at 3.35 TB/s", "GDDR6（300 GB/s）": the memory's own rate
    unit_text = low[q.unit_at:q.end] if q.unit_at else ""
    for a in cands:                               # "8 vCPUs", "4 张卡": the unit's own word names the attribute
        if unit_text and any(rx.search(unit_text) for rx in t["attribute"][a]):
            if a == "gpu_count" and not re.search(r"gpu|卡|card", unit_text):
                continue                          # "张" or "块" alone count anything
            return a, 0.85
    best: tuple[int, int, int, int] | None = None     # (outside the clause, distance, -length, order in the cues)
    word = ""
    for order, a in enumerate(cands):
        for rx in t["attribute"][a]:
            for m in rx.finditer(low, s, e):
                if q.start <= m.start() < q.end or masked[m.start()] in NAME_MARKS:
                    continue                      # the unit itself ("16 张") or a hardware or model name
                if m.start() >= q.end and _OWN_FIGURE.match(low, m.end(), min(e, m.end() + 24)) and \
                        not _TRAILS.fullmatch(low[q.start:m.start()] + " "):   # "733 TFLOPS of FP8 (1,466 …)": its own
                    continue                      # "…1,979 TFLOPS, TF32 989 TFLOPS": it leads a figure of its own
                if m.end() <= q.start and _TRAILS.search(low, max(s, m.start() - 24), m.start()) and \
                        not _OWN_FIGURE.match(low, m.end(), min(e, m.end() + 24)):
                    continue                      # "19.5 TFLOPS of FP64 on its Tensor Cores and 9.7": the earlier's
                lead = _OWN_FIGURE.match(low, m.end(), min(e, m.end() + 24)) if m.end() <= q.start else None
                if lead is not None and lead.end() <= q.start and any(ch in NAME_MARKS for ch in masked[lead.end():q.start]) \
                        and any(x.dimension == q.dimension for x in quantities(low, lead.end() - 1, min(e, lead.end() + 24), vocab)[:1]):
                    continue                      # "NVLink 900 GB/s, 700 W H200 SXM: 141 GB @ 4.8 TB/s": another's row
                dist = max(m.start() - q.end if m.start() >= q.end else q.start - m.end(), 0)
                key = (0 if seg[0] <= m.start() < seg[1] else 1, dist, -(m.end() - m.start()), order)
                if best is None or key < best:
                    best, word = key, m.group(0)
    if best is not None:
        attr, conf = cands[best[3]], 0.9 if best[0] == 0 else 0.7
        if attr == "memory_gb" and "host_memory_gb" in cands and any_match(t["instance_words"]["host_memory"], word.strip()):
            # "GN7.5XLARGE80 has 20 vCPUs and 80 GB of memory": a bare "memory" said of an instance is its RAM
            near = [m for m in ents if s <= m.start and m.end <= q.start]
            if near and near[-1].kind in ("instance", "family") and locative_gpu(low, near) is None:
                return "host_memory_gb", conf
            # "a3-highgpu-8g ships 8× H100 80GB with 208 vCPUs and 1,872 GB of memory": beside the instance's
            # vCPUs, a bare memory is the host's whatever GPU the size lists before
            host = next((m for m in near if m.kind in ("instance", "family", "gpu")), None)
            if host is not None and host.kind != "gpu" and any(rx.search(low, host.end, q.start) for rx in t["attribute"]["vcpu"]):
                return "host_memory_gb", conf
            if not near and _instance_section(low, ents, carried):
                return "host_memory_gb", conf     # "- 4 vCPUs, 16 GiB memory" under "## g5.xlarge (NVIDIA A10G)"
        return attr, conf
    if q.dimension in ("count", "params", "ratio") or storage:
        return None, 0.0                          # a bare number of things (or of parameters) could be anything
    if (above := label_attribute(low, s, cands, t)) is not None:
        return above, 0.8                         # a list item's figure: the attribute its list's label names
    # no word names the attribute: the dimension's first attribute (in the cues' order) that applies to the
    # nearest entity that can have such a quantity ("the T4 has 16GB", "T4 | AI推理 | 8000(14G)": the T4's)
    before = [m for m in ents if m.end <= q.start]
    near = [m for m in before if any(m.kind in vocab.attributes[a].applies_to for a in cands)] if before \
        else ents or list(carried.values())
    kind = near[-1].kind if near else None
    fitting = [a for a in cands if kind in vocab.attributes[a].applies_to]
    return (fitting[0], 0.55) if fitting else (None, 0.0)


def _instance_section(low: str, ents: list[_Match], carried: dict[str, _Match]) -> bool:
    """Whether a sentence naming no hardware speaks of an instance or family: the last one the text named,
    with no GPU named after it but in brackets on its name ("## g5.xlarge (NVIDIA A10G)": the size's card)."""
    if any(m.kind in ("gpu", "instance", "family") for m in ents):
        return False
    owners = [m for m in carried.values() if m.kind in ("instance", "family")]
    if not owners:
        return False
    owner = max(owners, key=lambda m: m.start)
    return all(m.start < owner.start or _BRACKET_OPEN.fullmatch(low, owner.end, m.start) for m in carried.values() if m.kind == "gpu")


#: from a product's name to a name in the brackets right after it ("g5.xlarge (1 × NVIDIA A10G")
_BRACKET_OPEN = re.compile(r"\s*[(（][^)）\n]*")
