"""The question parser's word lists and patterns, compiled once: optimizer and fact keywords, example
questions, and the regular expressions that read numbers with units, GPU counts, sequence lengths,
batch sizes, LoRA ranks and switches (gradient checkpointing, FlashAttention, ZeRO) from a question.
Method, precision and intent cues are data (the ``cues`` section of kb/vocabulary.yaml); these are the
patterns the vocabulary does not cover. Used by :mod:`.ask_parser`.
"""
from __future__ import annotations

import re

#: Method, precision and intent cues are data: the ``cues`` section of kb/vocabulary.yaml.
#: Optimizer keywords the vocabulary's aliases do not cover.
OPTIMIZER_KEYWORDS: tuple[tuple[str, str], ...] = (
    ("adamw8bit", r"(?<![a-z])(?:paged[\s\-_]*)?adamw?[\s\-_]*8[\s\-_]*bit(?![a-z])|bnb[\s\-_]*adamw?"),
)

#: Fact keywords → attribute, tried in order (specific phrasings before bare words). An attribute may
#: appear twice: a bare "bandwidth" is the network's on an instance and the memory's on a GPU — the
#: first rule with an entity the attribute applies to wins.
FACT_KEYWORDS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("tensor_core_precisions", (r"precisions", r"tensor[\s\-_]*cores?.{0,40}support", r"support.{0,30}tensor[\s\-_]*cores?",
                                r"supports?\s+(?:fp16|int8|int4|tf32|fp8)(?![a-z0-9])",
                                r"哪些精度|什么精度|支持.{0,8}精度|tensor\s*core.{0,10}精度", r"支持\s*(?:fp16|int8|int4|tf32|fp8)")),
    ("bf16_native", (r"(?<![a-z0-9])(?:bf16|bfloat16)(?![a-z0-9])",)),
    ("fp16_tensor_tflops", (r"(?:fp16|half|tensor).{0,20}(?:tflops|flops|throughput|算力|性能)", r"(?:tflops|算力).{0,10}(?:fp16|tensor)")),
    ("int8_tops", (r"int8.{0,20}(?:tops|算力|throughput|性能)",)),
    ("int4_tops", (r"int4.{0,20}(?:tops|算力|throughput|性能)",)),
    ("fp32_tflops", (r"(?:fp32|float32|单精度).{0,20}(?:tflops|flops|throughput|compute|performance|算力|性能)",
                     r"(?:tflops|flops|算力).{0,10}(?:fp32|float32|单精度)",
                     r"(?<![a-z])(?:tflops|flops)(?![a-z])", r"算力", r"compute\s+(?:throughput|power)")),
    ("compute_capability", (r"compute\s*capability|cuda\s*capability|计算能力|(?<![a-z])sm[\s_]?\d{2}(?![0-9])",)),
    ("nvlink_bandwidth", (r"nvlink.{0,10}(?:bandwidth|speed|带宽|速度)",)),
    ("host_link_bandwidth", (r"pcie.{0,10}(?:bandwidth|speed|带宽|速度)",)),
    ("memory_bandwidth", (r"memory\s*bandwidth|mem(?:ory)?\s*bw|hbm\s*bandwidth|显存带宽|访存带宽",)),
    ("public_bandwidth", (r"public\s*(?:network\s*)?bandwidth|公网带宽|公网",)),
    ("network_bandwidth", (r"network\s*(?:bandwidth|speed)|private\s*(?:network\s*)?bandwidth|内网带宽|网络带宽|内网",)),
    ("network_bandwidth", (r"bandwidth|带宽",)),
    ("memory_bandwidth", (r"bandwidth|带宽",)),
    ("nvlink", (r"nvlink",)),
    ("p2p", (r"(?<![a-z])p2p(?![a-z])|peer[\s\-]*to[\s\-]*peer|多卡直连",)),
    ("rdma", (r"rdma|infiniband|(?<![a-z])roce|(?<![a-z])ib(?![a-z])",)),
    ("host_link", (r"pcie|host\s*interface|主机接口",)),
    ("ecc", (r"(?<![a-z])ecc(?![a-z])|纠错",)),
    ("tdp_w", (r"(?<![a-z])tdp(?![a-z])|功耗|耗电|power\s*(?:draw|consumption|usage|limit)|watt", )),
    ("architecture", (r"architecture|架构",)),
    ("memory_type", (r"memory\s*type|(?:type|kind)\s+of\s+memory|(?<![a-z])gddr\d*|(?<![a-z])hbm\d*e?(?![a-z])|显存类型|显存颗粒",)),
    ("usable_memory", (r"usable\s+(?:gpu\s+)?memory|available\s+(?:gpu\s+)?memory|可用显存|可见显存",)),
    ("host_memory_gb", (r"host\s*(?:memory|ram)|system\s*(?:memory|ram)|cpu\s*memory|(?<![a-z])ram(?![a-z])|主机内存|系统内存|内存",)),
    ("vcpu", (r"vcpus?|cpu\s*cores?|how\s+many\s+(?:cpus|cores)|几核|核数|多少核|cpu\s*(?:数|核)",)),
    ("cpu", (r"(?:what|which)\s+(?:kind\s+of\s+)?cpu|cpu\s*(?:model|型号)|什么\s*cpu|哪(?:种|款|个)\s*cpu|处理器",)),
    ("gpu_count", (r"how\s+many\s+(?:gpus?|cards?)|number\s+of\s+(?:gpus|cards)|gpu\s*(?:count|数量|个数)",
                   r"几张卡|几块卡|几卡|多少(?:张|块)?(?:卡|gpu)")),
    ("gpu", (r"(?:what|which)\s+(?:kind\s+of\s+|type\s+of\s+)?(?:gpus?|graphics\s+cards?|cards?|accelerators?)|gpu\s+(?:model|type)",
             r"什么\s*(?:型号的?\s*)?(?:gpu|显卡|卡)|哪(?:种|款|个|一种|一款|张|块)?\s*(?:gpu|显卡|卡)|gpu\s*型号|显卡型号|配的?(?:是)?什么")),
    ("memory_gb", (r"how\s+much\s+(?:gpu\s+)?(?:memory|vram)|memory\s*size|(?<![a-z])vram(?![a-z])|(?<![a-z])memory(?![a-z])|frame\s*buffer",
                   r"显存")),
    ("system_disk_gb", (r"system\s*disk|boot\s*disk|系统盘",)),
    ("family", (r"which\s+(?:instance\s+)?family|what\s+(?:instance\s+)?family|实例族|哪个系列|属于哪",)),
    ("vendor", (r"vendor|who\s+(?:sells|makes|offers|provides|runs|owns|builds)|(?:made|sold|offered|provided)\s+by|"
                r"which\s+(?:company|cloud|provider)|from\s+which\s+(?:company|cloud|provider)",
                r"(?:tencent|alibaba|aliyun|aws|azure|google)\s*(?:cloud\s*)?(?:product|service)",
                r"厂商|哪家|谁家|哪个公司|哪个云|供应商|谁的产品|(?:阿里云|腾讯云)(?:还是(?:阿里云|腾讯云))?的产品")),
    ("in_catalog", (r"(?<![a-z])(?:real|exists?|existence|fake|made[\s\-]+up|fictional)(?![a-z])|in\s+(?:the\s+)?catalog",
                    r"存在|真的有|真实|有没有这个|目录|虚构")),
    ("role", (r"intended\s+use|(?:used|good|designed|meant)\s+for\s*\??$|what\s+is\s+.{1,30}\s+for\s*\??$",
              r"定位|用途|适合(?:做)?什么|用来做什么|干什么")),
    ("params", (r"how\s+many\s+param|parameter\s*count|number\s+of\s+param|how\s+big\s+is|(?<![a-z])params?\s*\??$",
                r"参数量|参数规模|参数数量|多少参数|几个参数")),
    ("kv_heads", (r"kv\s*heads|key[\s/]*value\s+heads|kv\s*头",)),
    ("heads", (r"(?:attention\s+)?heads|头数",)),
    ("layers", (r"(?<![a-z])layers(?![a-z])|层数|几层|多少层",)),
    ("hidden_size", (r"hidden\s*(?:size|dim)|d_model|隐藏(?:维度|层大小)",)),
    ("vocab_size", (r"vocab(?:ulary)?\s*size|词表",)),
)

#: Example questions offered when a question is not understood (and alongside every answer).
EXAMPLES: dict[str, tuple[str, ...]] = {
    "en": (
        "Can I fully fine-tune Llama-2-7B on 4x A100-80GB with ZeRO-3?",
        "How many T4s do I need to serve Llama-2-13B in FP16?",
        "Does the T4 support BF16?",
        "What GPU does GN7 use?",
    ),
    "zh": (
        "GN7.2XLARGE32 上能用 QLoRA 微调 Llama-3-8B 吗？",
        "用 4 张 A10 做 13B 模型的 LoRA 微调够吗？",
        "T4 支持 BF16 吗？",
        "GN7 用的是什么 GPU？",
    ),
}

# --- patterns compiled once -------------------------------------------------------------------------
# Private-use characters stand in for matched entities in the masked text, one per character, so
# positions stay aligned with the normalised text and numbers inside names ("Llama-2-13B") vanish.
_PH = {"gpu": "\ue000", "family": "\ue001", "instance": "\ue002", "model": "\ue003"}
_PH_OTHER = "\ue004"
_PRIVATE_USE = re.compile(r"[\ue000-\uf8ff]")
_CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0002ffff]")
_SPACES = re.compile(r"[\s\-]+")
_G = "\ue000+"  # one GPU name in the masked text
_NUM = r"(?<![0-9.])(\d{1,7}(?:\.\d{1,4})?)(?![0-9]|\.[0-9])"

_OPTIMIZER_RES = tuple((v, re.compile(p)) for v, p in OPTIMIZER_KEYWORDS)
_FACT_RES = tuple((a, tuple(re.compile(p) for p in ps)) for a, ps in FACT_KEYWORDS)

_PARAMS_EN = re.compile(_NUM + r"\s*(trillion|billion|million|bn|mn|[bmt])(?![a-z0-9/])")
_PARAMS_ZH = re.compile(_NUM + r"\s*(万亿|千亿|百亿|亿|千万|百万|万)")
_PARAMS_UNITS = {"trillion": "1e12", "t": "1e12", "billion": "1e9", "bn": "1e9", "b": "1e9",
                 "million": "1e6", "mn": "1e6", "m": "1e6", "万亿": "1e12", "千亿": "1e11", "百亿": "1e10",
                 "亿": "1e8", "千万": "1e7", "百万": "1e6", "万": "1e4"}
_NOT_PARAMS_AFTER = re.compile(r"\s*(?:tokens?|samples?|images?|examples?|steps?|words?|rows?|sentences?|records?|"
                               r"flops|pairs?|条|个?样本|张图|步|词|字|行|个token)")
_PARAMS_AFTER = re.compile(r"\s*(?:of\s+)?(?:param|parameter|model|llm|参数|模型|大模型)")
_PARAMS_NEEDS_CONTEXT = {"万", "千万", "百万"}

_GB = re.compile(r"(?<![a-z0-9.])(\d{1,5}(?:\.\d{1,2})?)\s*(gb|gib|g)(?![a-z0-9/])")
_GB_GPU_AFTER = re.compile(r"\s*(?:of\s+)?(?:\ue000|gpu|card|graphics|vram|video\s+memory|显存|显卡|卡|的显卡|的卡|的gpu)")
_GB_GPU_BEFORE = re.compile(r"(?:vram|gpu\s+memory|显存|显卡|单卡|卡)\s*(?:is|of|=|:|为|是|有|只有)?\s*$")
_GB_HOST_AFTER = re.compile(r"\s*(?:of\s+)?(?:ram|system|host|cpu|内存|主机|系统|硬盘|磁盘|disk|ssd|storage|存储|云盘|"
                            r"network|网络|带宽|bandwidth|data|数据|files?|文件|checkpoints?|weights?|权重)")
_GB_HOST_BEFORE = re.compile(r"(?:内存|ram|host\s+memory|system\s+memory|disk|硬盘|系统盘|数据集?|dataset|storage|存储|权重|weights)"
                             r"\s*(?:is|of|=|:|为|是|有)?\s*$")

_WORD_COUNTS = {"one": 1, "single": 1, "a single": 1, "two": 2, "dual": 2, "three": 3, "four": 4, "quad": 4,
                "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10, "twelve": 12,
                "sixteen": 16, "thirty two": 32, "sixty four": 64}
_ZH_COUNTS = {"单": 1, "一": 1, "两": 2, "二": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9,
              "十": 10, "十六": 16, "三十二": 32, "六十四": 64}
_CARD = r"(?:" + _G + r"|gpus?|cards?|graphics\s+cards?|accelerators?|显卡|卡|gpu)"
_OPT_GB = r"(?:\d{1,3}\s*g(?:b|ib)?\s*)?"
_GPUS_RES = (
    re.compile(_NUM + r"\s*(?:x|×|\*)?\s*(?:张|块|片|个)?\s*" + _OPT_GB + r"(?:nvidia\s+)?" + _CARD),
    re.compile(_NUM + r"\s*(?:张|块)(?!图|照片|图片|纸)"),
    re.compile(_G + r"\s*(?:x|×|\*)\s*" + _NUM + r"(?![0-9])"),
    re.compile(r"(?<![a-z])(a\s+single|single|one|two|dual|three|four|quad|five|six|seven|eight|nine|ten|twelve|"
               r"sixteen|thirty[\s-]two|sixty[\s-]four)\s+" + _OPT_GB + r"(?:nvidia\s+)?" + _CARD),
    re.compile(r"(?<![一二两三四五六七八九十百千])(三十二|六十四|十六|单|一|两|二|三|四|五|六|七|八|九|十)\s*(?:张|块|片)?\s*"
               + _OPT_GB + _CARD),
    re.compile(r"(?<![一二两三四五六七八九十百千])(单|一|两)\s*(?:张|块)(?!图|照片|图片|纸)"),
)
_MIN_GPUS_RES = (
    re.compile(r"how\s+many\s+(?:nvidia\s+)?" + _CARD),
    re.compile(r"(?:min(?:imum)?|fewest|least)\s+(?:number\s+of\s+|amount\s+of\s+)?" + _CARD),
    re.compile(r"number\s+of\s+(?:gpus|cards|" + _G + r")"),
    re.compile(r"(?:几|多少)\s*(?:张|块|个|片)?\s*" + _CARD),
    re.compile(r"(?:几|多少)\s*(?:张|块)"),
    re.compile(r"(?:一|两|1|2)\s*(?:张|块)\s*够还是"),
)
_NEGATED_RES = (
    re.compile(r"(?<![a-z])why\b[^.?!]{0,60}?(?<![a-z])(?:not|can't|cant|cannot|won't|wont|doesn't|doesnt|isn't|isnt|don't|"
               r"dont|wouldn't|couldn't|shouldn't|fails?|unable|impossible|no)(?![a-z])"),
    re.compile(r"(?:为什么|为何|为啥|怎么)[^。？?！!]{0,30}?(?:不|没法|无法|跑不|装不|放不)"),
)
_ZERO_RE = re.compile(r"(?<![a-z])zero[\s\-_]*(?:stage[\s\-_]*|阶段\s*)?([0-3])(?![0-9])")
_SEQ_RES = (
    re.compile(r"(?:(?<![a-z])seq(?:uence)?(?:[\s_\-]*len(?:gth)?)?|max[\s_\-]*(?:seq[\s_\-]*)?len(?:gth)?|"
               r"context(?:[\s_\-]*(?:length|len|window|size))?|(?<![a-z])ctx(?:[\s_\-]*len)?|"
               r"序列长度|序列长|序列|上下文长度|上下文窗口|上下文|文本长度)"
               r"\s*(?:of|=|:|is|为|是|长度|开到|开|设到|设为|到)?\s*" + _NUM + r"\s*(k)?(?![a-z0-9])"),
    re.compile(_NUM + r"\s*(k)?\s*(?:的\s*)?(?:长度|序列长度)"),
    re.compile(_NUM + r"\s*(k)?\s*(?:-?\s*tokens?\s*)?(?:of\s+)?"
               r"(?:context|seq(?:uence)?(?:[\s_\-]*len(?:gth)?)?|上下文|序列|长文本)"),
    re.compile(_NUM + r"\s*(k)?[\s\-]*tokens?(?![a-z])"),
)
_BATCH_RE = re.compile(r"(?:(?<![a-z])(?:global|micro|per[\s_\-]*(?:device|gpu))[\s_\-]*)?"
                       r"(?:batch[\s_\-]*size|batch|(?<![a-z])bsz|(?<![a-z])mbs|(?<![a-z])bs|批大小|批次大小|批量大小|批处理大小|批量|批次)"
                       r"\s*(?:of|=|:|is|为|是|设为|设置为)?\s*" + _NUM + r"(?![0-9.])")
_RANK_RES = (
    re.compile(r"(?:lora[\s_\-]*)?(?<![a-z])rank\s*(?:of|=|:|is|为|是)?\s*" + _NUM + r"(?![0-9.])"),
    re.compile(r"(?<![a-z0-9])(?:lora[\s_\-]*)?r\s*[=:]\s*" + _NUM + r"(?![0-9.])"),
    re.compile(r"lora[\s_\-]*r\s+" + _NUM + r"(?![0-9.])"),
    re.compile(r"秩\s*(?:为|是|=|:)?\s*" + _NUM + r"(?![0-9.])"),
)
_GC_RE = re.compile(r"grad(?:ient)?[\s_\-]*(?:checkpoint\w*|ckpt)|activation[\s_\-]*(?:checkpoint\w*|recomput\w*)|"
                    r"梯度检查点|激活重计算|重计算")
_FLASH_RE = re.compile(r"flash[\s_\-]*att(?:n|ention)(?:[\s_\-]*v?\d)?|(?<![a-z0-9])fa2(?![a-z0-9])")
_OFF_BEFORE = re.compile(r"(?:without|(?<![a-z])no|(?<![a-z])not\s+using|w/o|disable[ds]?|turn(?:ed)?\s+off|不用|不开|"
                         r"不使用|不开启|关闭|关掉|没有|不加|未开启)\s*(?:the\s+|any\s+)?$")
_SIZING_CUES = re.compile(r"(?<![a-z])(?:train\w*|fine[\s\-_]*tun\w*|finetun\w*|ft|run\w*|fits?|load|serv\w*|infer\w*|"
                          r"deploy\w*|enough|can\s+i|able\s+to|need\w*|require\w*)(?![a-z])|训练|微调|推理|跑|部署|够|"
                          r"能不能|能否|可以|装得下|放得下|需要|加载")
