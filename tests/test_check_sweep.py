"""A sweep of sentences written for this test (not taken from any gold passage), of the kinds real pages
are made of: spec sheets, instance guides, memory arithmetic, in English and Chinese. A true sentence is never
given a negative status (precision before recall); a plainly false one is. Known gaps are listed after the
lists, not tested."""
from __future__ import annotations

import pytest

WRONG = {"incorrect", "understated", "overstated", "misattributed", "inconsistent_with_derivation", "contradicted"}

TRUE = [
    "With 4-bit quantization, a 70B model fits in about 40 GB, so two RTX 4090s can serve it.",
    "The H100 NVL has 94 GB of HBM3 per GPU and is sold in pairs bridged by NVLink.",
    "A 7B model in FP16 takes about 14 GB just for the weights; add the KV cache on top.",
    "Our A100 cluster uses 8 GPUs per node connected by NVLink at 600 GB/s.",
    "The RTX 4090 has 24 GB of GDDR6X and a 384-bit bus, giving about 1 TB/s of bandwidth.",
    "For inference, a 13B model at 8-bit needs roughly 13 GB plus cache, so a 16 GB T4 works for short prompts.",
    "H800 与 H100 的主要区别在于 NVLink 带宽被限制为 400GB/s。",
    "L40S 拥有 48GB GDDR6 显存，显存带宽为 864GB/s。",
    "A10 单卡 24GB 显存，适合 7B 模型的 LoRA 微调。",
    "The V100 SXM2 offers 125 TFLOPS of tensor performance and 900 GB/s of memory bandwidth.",
    "Each p4d.24xlarge instance has eight A100 GPUs with 40 GB each, 320 GB in total.",
    "The g5.xlarge comes with one A10G GPU with 24 GB of memory.",
    "Fine-tuning Llama 2 7B with QLoRA uses about 10 GB of VRAM, well within a T4's 16 GB.",
    "The H200 has 141 GB of HBM3e at 4.8 TB/s, nearly double the H100's capacity.",
    "T4 的 FP16 算力为 65 TFLOPS，INT8 为 130 TOPS。",
    "A100 40GB 的显存带宽为 1555GB/s，80GB 版本为 2039GB/s。",
    "B200 将显存提升到 192GB HBM3e，带宽 8TB/s。",
    "腾讯云 GN7 实例搭载 NVIDIA T4 GPU，单卡 16GB 显存，适合推理。",
    "GN7.5XLARGE80 配备 1 块 T4，20 核 vCPU，80GB 内存。",
    "阿里云 gn7i 实例采用 NVIDIA A10 GPU，每卡 24GB 显存。",
    "AWS p4d.24xlarge 配备 8 块 A100 40GB，总计 320GB 显存，GPU 间通过 NVSwitch 互联，带宽 600GB/s。",
    "H100 SXM 的 FP8 算力可达 3958 TFLOPS（稀疏），BF16 为 989 TFLOPS。",
    "A800 是 A100 的中国特供版，NVLink 带宽从 600GB/s 降到 400GB/s。",
    "H20 拥有 96GB HBM3 显存，带宽 4.0TB/s，但 FP16 算力只有 148 TFLOPS。",
    "L20 配备 48GB GDDR6 显存，适合推理和轻量微调。",
    "RTX 4090 的 FP16 Tensor 算力约为 165 TFLOPS（不含稀疏），显存 24GB GDDR6X，带宽 1008GB/s。",
    "对于 7B 模型，使用 LoRA 微调大约需要 16GB 显存，全参数微调需要 120GB 以上。",
    "70B 模型 INT4 量化后推理大约需要 40GB 显存，单张 A100 80GB 即可运行。",
    "Llama 3 8B 全量微调（bf16 + AdamW）需要约 60GB 显存，单卡 A100 80GB 可以跑。",
    "T4 不支持 BF16，训练时只能用 FP16 混合精度。",
    "V100 没有 BF16 支持，也不支持 TF32。",
    "An 8x H100 node gives 640 GB of GPU memory in total.",
    "The A10G in AWS G5 instances has 24 GB of GDDR6 memory and 600 GB/s bandwidth.",
    "Google Cloud's A3 VMs come with eight H100 80GB GPUs.",
    "Azure ND H100 v5 VMs have eight H100 GPUs connected by NVLink 4.0 at 900 GB/s.",
    "p5.48xlarge 提供 8 块 H100，每块 80GB 显存，总计 640GB。",
    "g4dn.xlarge 搭载 1 块 T4（16GB），4 vCPU，16GB 内存。",
    "A single H100 80GB can serve Llama 2 70B in FP8 with room for a small KV cache.",
    "For LLaMA-7B inference in FP16 you need roughly 14 GB for weights, so a 16 GB T4 is tight but workable with short contexts.",
    "QLoRA lets you fine-tune a 65B model on a single 48GB GPU, as shown in the QLoRA paper.",
    "ZeRO-3 partitions parameters, gradients and optimizer states across GPUs.",
    "Mixed-precision Adam training needs 16 bytes per parameter: 2 for FP16 weights, 2 for gradients and 12 for optimizer states.",
    "H100 的 NVLink 带宽为 900GB/s，是 A100 的 1.5 倍。",
    "A100 相比 V100，FP16 Tensor 算力提升到 312 TFLOPS，约为 V100 的 2.5 倍。",
    "L4 功耗仅 72W，适合边缘推理。",
    "RTX 3090 和 RTX 4090 都是 24GB 显存。",
    "The A40 has 48 GB of GDDR6 with ECC and 696 GB/s of bandwidth.",
    "The A30 supports MIG with up to 4 instances of 6 GB each.",
    "T4 采用 Turing 架构，拥有 320 个 Tensor Core 和 2560 个 CUDA 核心。",
    "V100 的 FP64 算力为 7.8 TFLOPS（SXM2）。",
    "Full fine-tuning a 7B model with mixed-precision AdamW needs about 112 GB for weights, gradients and optimizer states alone.",
    "With LoRA, a 7B model in FP16 needs roughly 14 GB for the frozen weights plus a few GB for activations.",
    "A 13B model in FP16 needs about 26 GB just to load, so it does not fit on a single 24 GB card.",
    "Llama 2 70B needs about 140 GB in FP16, so you need at least two 80 GB GPUs to serve it.",
    "With 4-bit quantization, Llama 2 13B fits in about 8 GB of VRAM.",
    "The KV cache of Llama 2 7B takes about 0.5 MB per token in FP16.",
    "ZeRO-3 on 8 GPUs divides the 16 bytes per parameter of mixed-precision Adam by eight.",
    "Gradient checkpointing trades compute for memory by recomputing activations in the backward pass.",
    "FlashAttention avoids materialising the full attention matrix, so memory grows linearly with sequence length.",
    "The A100 80GB SXM has 2,039 GB/s of memory bandwidth and a 400 W TDP.",
    "The H100 SXM has 80 GB of HBM3 and a TDP of up to 700 W.",
    "The L40S has no NVLink and connects over PCIe Gen4.",
    "The T4 is a 70 W low-profile card with 16 GB of GDDR6.",
    "The V100 SXM2 supports NVLink 2.0 with 300 GB/s of total bandwidth.",
    "The A10 has 24 GB of GDDR6 and 600 GB/s of bandwidth, and it does not support NVLink.",
    "一台 8 卡 A100 80GB 服务器共有 640GB 显存。",
    "QLoRA 论文表明，单张 48GB 显卡即可微调 65B 模型。",
    "7B 模型 FP16 推理大约需要 14GB 显存（不含 KV Cache）。",
    "H100 支持 FP8，A100 不支持 FP8。",
    "A100 支持 TF32 和 BF16，V100 都不支持。",
    "L4 的 FP8 算力为 485 TFLOPS（稀疏）。",
    "RTX 4090 没有 NVLink。",
    "T4 单卡 FP16 算力 65 TFLOPS，显存带宽 320GB/s。",
    "GN7 实例的 GPU 是 NVIDIA T4。",
    "GN10Xp 实例搭载 NVIDIA V100 GPU，支持 NVLink。",
    # passages with structure: headings and lists, spec lists, comparison tables, rows per product, pronouns
    "## NVIDIA T4\n- Memory: 16 GB GDDR6\n- Bandwidth: 320 GB/s\n- TDP: 70 W\n\n## NVIDIA A10\n- Memory: 24 GB GDDR6\n- Bandwidth: 600 GB/s\n- TDP: 150 W\n",
    "英伟达 A10 参数\n显存容量 24 GB\n显存类型 GDDR6\n显存带宽 600 GB/s\n功耗 150W\nFP32 算力 31.2 TFLOPS\n",
    "| 参数 | A100 80GB | H100 SXM |\n|---|---|---|\n| 显存 | 80GB HBM2e | 80GB HBM3 |\n| 显存带宽 | 2039 GB/s | 3.35 TB/s |\n| FP16 Tensor | 312 TFLOPS | 989 TFLOPS |\n| TDP | 400W | 700W |\n| NVLink | 600 GB/s | 900 GB/s |\n",
    "| GPU | Memory | Bandwidth | TDP |\n|---|---|---|---|\n| T4 | 16 GB | 320 GB/s | 70 W |\n| L4 | 24 GB | 300 GB/s | 72 W |\n| A10 | 24 GB | 600 GB/s | 150 W |\n| L40S | 48 GB | 864 GB/s | 350 W |\n",
    "| Instance | GPU | GPUs | GPU memory | vCPUs |\n|---|---|---|---|---|\n| g5.xlarge | A10G | 1 | 24 GB | 4 |\n| g5.12xlarge | A10G | 4 | 96 GB | 48 |\n| p4d.24xlarge | A100 40GB | 8 | 320 GB | 96 |\n",
    "The H100 SXM offers 3.35 TB/s of memory bandwidth, compared with 2.04 TB/s on the A100 80GB. The H200 raises this to 4.8 TB/s with 141 GB of HBM3e.",
    "A100 采用 Ampere 架构，40GB 版本带宽为 1555GB/s；H100 采用 Hopper 架构，FP8 算力达 1979 TFLOPS（稠密）。",
    "The L40S is Ada Lovelace based. It has 48 GB of GDDR6 and 864 GB/s of bandwidth. It does not support NVLink.",
    # verdicts: what a card suits, fits or cannot do
    "T4 适合 7B 模型的推理，但不适合 13B 模型的全量微调。",
    "单张 T4 无法全量微调 13B 模型，显存远远不够。",
    "A100 80GB 可以用 LoRA 微调 13B 模型。",
    "用 QLoRA，单张 RTX 4090 就能微调 13B 模型。",
    "A10 的 24GB 显存可以运行 7B 模型的 FP16 推理。",
    "70B 模型的全量微调需要多机多卡。",
    "H100 is well suited to large-scale LLM training.",
    "The T4 is not a good choice for training large language models.",
    "An L4 can serve a 7B model in FP16 for short contexts.",
    "A single A10 cannot hold a 34B model in FP16.",
    "You cannot fully fine-tune Llama 2 70B on a single A100 80GB.",
    "QLoRA makes it possible to fine-tune a 33B model on a single 24 GB GPU.",
    "For 7B inference, an A10G is enough.",
    "V100 16GB 不足以全量微调 7B 模型。",
    "GN7 实例适合 AI 推理和小规模训练。",
    "L40S 适合生成式 AI 推理和微调。",
    "在 8 张 A100 80GB 上，使用 ZeRO-3 可以全量微调 70B 模型。",
    "A 4x A100 80GB server has 320 GB of GPU memory.",
]

FALSE = [
    "腾讯云 GN7 实例搭载 NVIDIA V100 GPU。",
    "阿里云 gn7i 实例采用 NVIDIA T4 GPU。",
    "H100 SXM 的 BF16 算力为 1979 TFLOPS。",
    "A800 的 NVLink 带宽为 600GB/s。",
    "H20 拥有 80GB HBM3 显存。",
    "L20 配备 24GB GDDR6 显存。",
    "RTX 4090 显存 32GB GDDR6X。",
    "T4 支持 BF16。",
    "Google Cloud's A3 VMs come with eight A100 GPUs.",
    "The L4 has 48 GB of GDDR6 memory.",
    "A100 的 TF32 算力为 312 TFLOPS。",
    "V100 的显存带宽为 1.6TB/s。",
    "全参数微调 7B 模型只需要 16GB 显存。",
    "Full fine-tuning a 7B model with mixed-precision AdamW needs only 20 GB in total.",
    "The A100 80GB SXM has 1,200 GB/s of memory bandwidth.",
    "The H100 SXM has 120 GB of HBM3.",
    "The L40S supports NVLink.",
    "The T4 is a 250 W card with 16 GB of GDDR6.",
    "The A10 has 24 GB of HBM2 memory.",
    "H100 不支持 FP8。",
    "V100 支持 BF16。",
    "RTX 4090 支持 NVLink。",
    "T4 单卡 FP16 算力 130 TFLOPS。",
    "GN7 实例的 GPU 是 NVIDIA A10。",
    "A single T4 can fully fine-tune a 13B model.",
    "一台 8 卡 A100 80GB 服务器共有 320GB 显存。",
    "A 13B model in FP16 needs about 8 GB just to load.",
    "An 8x H100 node gives 320 GB of GPU memory in total.",
]

# Known gaps, not asserted: a GPU named only by its memory size ("a single 80 GB GPU") is not checked.


def _flags(gpukb, text: str) -> list[tuple]:
    return [(c["subject"], c["attribute"], c["value"], c["status"]) for c in gpukb.check(text)["claims"]
            if c["status"] in WRONG]


@pytest.mark.parametrize("text", TRUE)
def test_a_true_sentence_is_not_called_wrong(gpukb, text):
    assert not _flags(gpukb, text)


@pytest.mark.parametrize("text", FALSE)
def test_a_false_sentence_is_called_wrong(gpukb, text):
    assert _flags(gpukb, text)
