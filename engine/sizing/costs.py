"""What a scenario costs besides memory: the time of a training step on the card, and what offloading moves
over PCIe and keeps in host memory."""
from __future__ import annotations

from typing import Any
from . import run as sizing
from ..kb.store import ReleaseView


def step_cost(r: sizing.SizingRun, s: dict[str, Any]) -> dict[str, Any]:
    """A training step's time and GPU time per 1,000 tokens: compute at the tensor peak (6·N·D FLOPs, 8·N·D
    with recomputation), plus gradient exchange over the network and offload traffic over PCIe, neither
    assumed to overlap with compute. Empty for inference or when the KB lacks a throughput figure."""
    comp = r.all("compute")
    if s.get("method") == "inference" or not comp or comp[0].get("seconds") is None:
        return {}
    seconds = comp[0]["seconds"] * (8 / 6 if s.get("gradient_checkpointing") else 1)
    net = [c.get("seconds") for c in r.all("comm") if c.get("link") == "network" and c.get("seconds") is not None]
    seconds += max(net) if net else 0.0
    hn = r.one("host_need")
    cap = r.one("capacity") or {}
    gpus = cap.get("gpus") or 1
    tokens = (s.get("seq_len") or 1) * (s.get("batch") or 1) * gpus
    return {"step_seconds": round(seconds, 3), "gpu_hours_per_step": round(gpus * seconds / 3600, 6),
            "gpu_seconds_per_1k_tokens": round(gpus * seconds / tokens * 1000, 4),
            **({"pcie_gb_per_step": round(hn["pcie_gb_per_step"], 3)} if hn else {})}


def offload_view(r: sizing.SizingRun, s: dict[str, Any], view: ReleaseView) -> dict[str, Any] | None:
    """What CPU offload needs outside the GPU: host memory (checked against the instance size's host RAM
    when the scenario names an instance) and PCIe traffic per step (timed with the GPU's host link)."""
    hn = r.one("host_need")
    if hn is None:
        return None
    out: dict[str, Any] = {"mode": s.get("offload"), "host_gb": round(hn["gb"], 3),
                           "pcie_gb_per_step": round(hn["pcie_gb_per_step"], 3)}
    inst = s.get("instance")
    if inst:
        host = view.ref(inst, "host_memory_gb")
        if host is not None:
            out["host_available_gb"] = host.norm.point()
            out["host_fits"] = hn["gb"] <= host.norm.point()
    cap = r.one("capacity")
    link = view.ref(cap["gpu"], "host_link_bandwidth") if cap and cap.get("gpu") else None
    if link is not None and link.norm.point():
        out["pcie_seconds_per_step"] = round(hn["pcie_gb_per_step"] / link.norm.point(), 3)
    return out
