"""Turn a free-text question (English or Chinese) into a sizing scenario or a fact look-up.

The parser is the front door of ``/v1/ask`` and ``gpukb ask``: it finds entities by their vocabulary
aliases, reads numbers with their units (``13B``, ``130亿``, ``24GB``, ``4 张``), and decides whether the
question asks "does this workload fit on this hardware" (kind ``sizing``) or "what is this spec of this
entity" (kind ``fact``). It only reports what the text says: a value that is not written is left out
and, when the answer needs it, listed in ``missing``. It is pure and deterministic and never raises
for a string, except ``BadInput`` for empty or over-long text, so it can face any HTTP input.
"""
from __future__ import annotations

import math
import re
import unicodedata
import weakref
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from typing import Any

from ..errors import require_text
from ..kb.vocabulary import Vocabulary
from ..terms import METHODS, OPTIMIZERS, PRECISIONS

MAX_QUESTION_CHARS = 500

#: Keys a parsed scenario may hold: the query-body keys of API contract v1, plus ``family``.
SCENARIO_KEYS: tuple[str, ...] = (
    "model", "params", "method", "precision", "optimizer", "gpu", "instance", "family", "vram_gb",
    "gpus", "zero", "seq_len", "batch", "lora_rank", "gradient_checkpointing", "flash_attention",
)

MISSING_WORKLOAD = "a model or parameter count"
MISSING_HARDWARE = "a GPU, instance or memory size"
MISSING_LOOKUP = "what to look up"
MISSING_SUBJECT = "which GPU, instance, model or product"

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
_SEP = re.compile(r"[\s\-_.]+")
_SPACES = re.compile(r"[\s\-]+")
_DIGIT_LETTER = re.compile(r"(?<=[0-9])(?=[a-z])")
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


# --- result -----------------------------------------------------------------------------------------
@dataclass
class ParsedQuestion:
    """What a question asks: its kind, the scenario or fact it names, and what is still missing."""

    kind: str
    lang: str
    scenario: dict[str, Any] = field(default_factory=dict)
    ask_min_gpus: bool = False
    negated: bool = False
    fact: dict[str, str] | None = None
    understood: dict[str, Any] = field(default_factory=dict)
    missing: list[str] = field(default_factory=list)
    examples: list[str] = field(default_factory=list)
    compared: dict[str, list[str]] = field(default_factory=dict)   # comparison: the hardware compared
    target: str | None = None                                      # inverse: what to maximise

    def as_dict(self) -> dict[str, Any]:
        """A JSON-ready copy (fresh containers, so callers may mutate it)."""
        extra: dict[str, Any] = {k: list(v) for k, v in self.compared.items()}
        if self.target:
            extra["target"] = self.target
        return {**extra,
            "kind": self.kind,
            "lang": self.lang,
            "scenario": dict(self.scenario),
            "ask_min_gpus": self.ask_min_gpus,
            "negated": self.negated,
            "fact": dict(self.fact) if self.fact else None,
            "understood": {k: (list(v) if isinstance(v, list) else v) for k, v in self.understood.items()},
            "missing": list(self.missing),
            "examples": list(self.examples),
        }


@dataclass(frozen=True)
class _Match:
    start: int
    end: int
    eid: str
    kind: str


# --- alias lexicon (built once per Vocabulary) ------------------------------------------------------
_LEXICONS: "weakref.WeakKeyDictionary[Vocabulary, tuple[tuple[str, re.Pattern[str], str], ...]]" = weakref.WeakKeyDictionary()


def _alias_pattern(alias: str) -> str:
    """A regex for one lower-cased alias: separators are interchangeable, latin ends need word boundaries.

    "llama2-13b" also matches "llama2 13b" and "Llama 2-13B"; "a100 80gb" matches "a100 80 gb"; an alias
    ending in a digit takes a plural "s" ("A100s"); a latin start may follow "4x" ("4xA100").
    """
    tokens = [t for t in _SEP.split(alias) if t]
    body = r"[\s\-_.]*".join(r"\s?".join(re.escape(p) for p in _DIGIT_LETTER.split(t)) for t in tokens)
    head, tail = tokens[0][0], tokens[-1][-1]
    if head.isascii() and head.isalnum():
        body = r"(?:(?<![a-z0-9])|(?<=[0-9]x))" + body
    if tail.isascii() and tail.isdigit():
        body += r"(?:'?s)?(?![a-z0-9])"
    elif tail.isascii() and tail.isalnum():
        body += r"(?![a-z0-9])"
    return body


def _per_vocabulary(cache: "weakref.WeakKeyDictionary", vocab: Vocabulary, build: Any) -> Any:
    """``build(vocab)`` computed once per vocabulary object (recomputed for one that cannot be cached)."""
    try:
        cached = cache.get(vocab)
    except TypeError:
        cached = None
    if cached is None:
        cached = build(vocab)
        try:
            cache[vocab] = cached
        except TypeError:
            pass
    return cached


def _anchor(alias: str) -> str:
    """Text every match of the alias's pattern contains literally: its first token up to the first place
    where the pattern allows a space (between a digit and a letter), so most patterns can be skipped
    with a substring test."""
    first = next((t for t in _SEP.split(alias) if t), "")
    return _DIGIT_LETTER.split(first)[0]


def _lexicon(vocab: Vocabulary) -> tuple[tuple[str, re.Pattern[str], str], ...]:
    """Compiled alias patterns with their literal anchors, longest alias first; cached per vocabulary object."""
    def build(v: Vocabulary) -> tuple[tuple[str, re.Pattern[str], str], ...]:
        items = sorted(v.aliases().items(), key=lambda kv: (-len(kv[0]), kv[0]))
        return tuple((_anchor(a), re.compile(_alias_pattern(a)), eid) for a, eid in items if a.strip() and _SEP.sub("", a))
    return _per_vocabulary(_LEXICONS, vocab, build)


def _match_entities(low: str, vocab: Vocabulary) -> list[_Match]:
    """Entity mentions in text order; on overlap the longest mention wins, then the earliest."""
    found: list[_Match] = []
    for anchor, rx, eid in _lexicon(vocab):
        if anchor not in low:
            continue
        for m in rx.finditer(low):
            if m.end() > m.start():
                found.append(_Match(m.start(), m.end(), eid, vocab.kind_of(eid) or ""))
    found.sort(key=lambda x: (-(x.end - x.start), x.start, x.eid))
    taken = [False] * len(low)
    chosen: list[_Match] = []
    for f in found:
        if not any(taken[f.start:f.end]):
            chosen.append(f)
            for i in range(f.start, f.end):
                taken[i] = True
    return sorted(chosen, key=lambda x: x.start)


_CUES: "weakref.WeakKeyDictionary[Vocabulary, dict[str, tuple[tuple[str, re.Pattern[str]], ...]]]" = weakref.WeakKeyDictionary()


def _cues(vocab: Vocabulary) -> dict[str, tuple[tuple[str, re.Pattern[str]], ...]]:
    """The vocabulary's cue patterns, compiled once per vocabulary: group -> ((value, pattern), ...)."""
    return _per_vocabulary(_CUES, vocab, lambda v: {
        g: tuple((val, re.compile(p)) for val, ps in (getattr(v, "cues", {}).get(g) or {}).items() for p in ps)
        for g in ("method", "precision", "intent", "scale")})


# --- helpers ----------------------------------------------------------------------------------------
def _check_input(text: Any) -> None:
    require_text(text, "question", "q", MAX_QUESTION_CHARS)


def _normalise(text: str) -> tuple[str, str]:
    """NFKC text (full-width digits and letters become ASCII) and a same-length lower-cased copy."""
    norm = unicodedata.normalize("NFKC", text)
    norm = _PRIVATE_USE.sub(" ", norm).replace("\u2019", "'").replace("\u2018", "'")
    low = "".join(c.lower() if len(c.lower()) == 1 else c for c in norm)
    return norm, low


def _pick_lang(text: str, lang: str | None) -> str:
    if isinstance(lang, str):
        code = lang.strip().lower()
        if code.startswith("zh"):
            return "zh"
        if code.startswith("en"):
            return "en"
    return "zh" if _CJK.search(text) else "en"


def _number(digits: str, scale: str = "1") -> float | None:
    """A finite positive float from matched digits times a decimal scale, computed exactly."""
    try:
        x = float(Decimal(digits) * Decimal(scale))
    except (InvalidOperation, ValueError, OverflowError):
        return None
    return x if math.isfinite(x) and x > 0 else None


def _whole(x: float | None, cap: float) -> int | None:
    if x is None or x != int(x) or not 0 < x <= cap:
        return None
    return int(x)


def _earliest(candidates: list[tuple[int, str]]) -> str | None:
    return min(candidates)[1] if candidates else None


def _switch(low: str, rx: re.Pattern[str], entity_hits: list[_Match]) -> tuple[bool, int] | None:
    """A technique flag: (on, position) from its first mention, off when "without"/"不开" precedes it."""
    spans = [(m.start, m.end) for m in entity_hits] + [(m.start(), m.end()) for m in rx.finditer(low)]
    if not spans:
        return None
    start = min(spans)[0]
    return (not _OFF_BEFORE.search(low[max(0, start - 20):start]), start)


# --- the parser -------------------------------------------------------------------------------------
def parse_question(text: str, vocab: Vocabulary, lang: str | None = None) -> ParsedQuestion:
    """Parse one question into a sizing scenario or a fact look-up; see the module docstring.

    Raises ``BadInput`` (field ``q``) only when ``text`` is not a string, is empty or blank, or is
    longer than 500 characters.
    """
    _check_input(text)
    out_lang = _pick_lang(text, lang)
    norm, low = _normalise(text)
    matches = _match_entities(low, vocab)
    masked_chars = list(low)
    for m in matches:
        ph = _PH.get(m.kind, _PH_OTHER)
        for i in range(m.start, m.end):
            masked_chars[i] = ph
    masked = "".join(masked_chars)

    def of_kind(kind: str) -> list[_Match]:
        return [m for m in matches if m.kind == kind]

    def name(eid: str) -> str:
        return eid.split(":", 1)[1]

    scenario: dict[str, Any] = {}
    numbers: list[dict[str, Any]] = []
    ignored: list[str] = []

    def note(key: str, span: tuple[int, int], value: Any) -> None:
        numbers.append({"field": key, "text": norm[span[0]:span[1]], "value": value})

    # hardware: an instance beats a family beats a GPU beats a bare memory size
    gpu_hits = of_kind("gpu")
    assumed: list[dict[str, Any]] = []
    gpu_ids = []
    for m in gpu_hits:
        eid = _resolve_variant(m, masked, vocab)
        variants = vocab.sized_variants(eid)
        if variants:             # "A100" alone: take the smaller card, say so, and offer the others
            eid = variants[0]
            if not any(a["field"] == "gpu" and a["value"] == name(eid) for a in assumed):
                assumed.append({"field": "gpu", "text": norm[m.start:m.end], "value": name(eid),
                                "alternatives": [name(v) for v in variants[1:]]})
        gpu_ids.append(eid)
    distinct_gpus = list(dict.fromkeys(gpu_ids))
    if of_kind("instance"):
        scenario["instance"] = name(of_kind("instance")[0].eid)
    elif of_kind("family"):
        scenario["family"] = name(of_kind("family")[0].eid)
    elif gpu_ids:
        scenario["gpu"] = name(gpu_ids[0])
    else:
        vram = _vram(masked)
        if vram:
            scenario["vram_gb"] = vram[0]
            note("vram_gb", vram[1], vram[0])

    # workload: a named model of known size, else a parameter count
    specific = [m for m in of_kind("model") if not _generic_model(m.eid, vocab)]
    params = _params(masked)
    if specific:
        scenario["model"] = specific[0].eid
        if params:
            ignored.append(norm[params[1][0]:params[1][1]])
    elif params:
        scenario["params"] = params[0]
        note("params", params[1], params[0])

    cues = _cues(vocab)
    method_hits = ([(m.start, name(m.eid)) for m in of_kind("method") if name(m.eid) in METHODS]
                   + [(x.start(), v) for v, rx in cues["method"] for x in rx.finditer(low)])
    # an adapter method named anywhere wins ("fine-tune with QLoRA" is QLoRA); then a training verb
    # ("run a full fine-tune" is training); a serving verb only when nothing else is said
    named = {h[1] for h in method_hits}
    method = next((m for m in ("qlora", "lora") if m in named), None) \
        or _earliest([h for h in method_hits if h[1] in ("full", "pretrain")]) or _earliest(method_hits)
    if method:
        scenario["method"] = method
    prec_hits = [(m.start, name(m.eid)) for m in of_kind("precision") if name(m.eid) in PRECISIONS]
    prec_hits += [(m.start, "mixed") for m in matches if m.eid == "technique:mixed_precision"]
    precision = _earliest(prec_hits + [(x.start(), v) for v, rx in cues["precision"] for x in rx.finditer(masked)])
    if precision == "int4" and scenario.get("method") == "qlora":
        precision = None          # QLoRA's 4-bit base is the method itself (nf4 is kept when it is named)
    if precision in ("int4", "int8") and "method" not in scenario:
        scenario["method"] = "inference"   # integer weights with no training named: serving a quantized model
    if precision:
        scenario["precision"] = precision
    optimizer = _earliest([(m.start, name(m.eid)) for m in of_kind("optimizer") if name(m.eid) in OPTIMIZERS]
                          + [(x.start(), v) for v, rx in _OPTIMIZER_RES for x in rx.finditer(masked)])
    if optimizer:
        scenario["optimizer"] = optimizer

    gpus = _gpus(masked)
    if gpus:
        scenario["gpus"] = gpus[0]
        note("gpus", gpus[1], gpus[0])
    zm = _ZERO_RE.search(low)
    if zm:
        scenario["zero"] = int(zm.group(1))
        note("zero", zm.span(), scenario["zero"])
    for key, found in (("seq_len", _seq_len(low)), ("batch", _first_int(_BATCH_RE, low, 10_000_000)),
                       ("lora_rank", _first_int(_RANK_RES, low, 100_000))):
        if found:
            scenario[key] = found[0]
            note(key, found[1], found[0])
    for key, eid, rx in (("gradient_checkpointing", "technique:gradient_checkpointing", _GC_RE),
                         ("flash_attention", "technique:flash_attention", _FLASH_RE)):
        flag = _switch(low, rx, [m for m in matches if m.eid == eid])
        if flag is not None:
            scenario[key] = flag[0]

    ask_min = any(rx.search(masked) for rx in _MIN_GPUS_RES)
    negated = any(rx.search(low) for rx in _NEGATED_RES)
    fact_attr, subject, attr_seen = _fact(low, matches, vocab)
    if subject and vocab.sized_variants(subject):
        subject = vocab.sized_variants(subject)[0]

    understood: dict[str, Any] = {
        "entities": [{"id": m.eid, "kind": m.kind, "text": norm[m.start:m.end]} for m in matches],
        "numbers": numbers,
    }
    generic = [m.eid for m in of_kind("model") if _generic_model(m.eid, vocab)]
    if generic:
        understood["model_family"] = generic[0]
    if ignored:
        understood["ignored"] = ignored

    intent_hits = {v for v, rx in cues["intent"] for x in [rx.search(masked)] if x}
    instances = list(dict.fromkeys(name(m.eid) for m in of_kind("instance")))
    families = list(dict.fromkeys(name(m.eid) for m in of_kind("family")))
    if assumed:
        understood["assumed"] = assumed
    has_workload = "model" in scenario or "params" in scenario
    compared = ("gpus_compared", [name(g) for g in distinct_gpus]) if len(distinct_gpus) > 1 else \
               ("instances_compared", instances) if len(instances) > 1 else \
               ("families_compared", families) if len(families) > 1 else None
    if compared and "compare" in intent_hits and (has_workload or "method" in scenario):
        for k in ("gpu", "instance", "family"):
            scenario.pop(k, None)
        pq = ParsedQuestion("comparison", out_lang, scenario, False, negated, None, understood, [], list(EXAMPLES[out_lang]))
        pq.compared = {compared[0]: compared[1]}
        return pq
    inverse = next((t for t, cue in (("params", "max_model"), ("batch", "max_batch"), ("seq_len", "max_seq_len"))
                    if cue in intent_hits), None)
    if inverse and (has_workload or inverse == "params"):
        missing = [] if any(k in scenario for k in ("gpu", "instance", "family", "vram_gb")) else [MISSING_HARDWARE]
        pq = ParsedQuestion("inverse", out_lang, scenario, False, negated, None, understood, missing, list(EXAMPLES[out_lang]))
        pq.target = inverse
        return pq
    if "instance_choice" in intent_hits and (families or instances or "instance" in low or "实例" in low or "规格" in low) \
            and (has_workload or "method" in scenario):
        scenario.pop("instance", None)
        if families:
            scenario["family"] = families[0]
        return ParsedQuestion("instance_choice", out_lang, scenario, False, negated, None, understood,
                              [] if has_workload else [MISSING_WORKLOAD], list(EXAMPLES[out_lang]))
    has_hardware = any(k in scenario for k in ("gpu", "instance", "family", "vram_gb"))
    sizing_cues = has_hardware or ask_min or "method" in scenario or bool(_SIZING_CUES.search(low))
    examples = list(EXAMPLES[out_lang])
    if subject and not (has_workload and sizing_cues):
        understood["fact_keyword"] = fact_attr
        return ParsedQuestion("fact", out_lang, {}, False, negated, {"subject": subject, "attribute": fact_attr},
                              understood, [], examples)
    if has_workload:
        missing = [] if has_hardware else [MISSING_HARDWARE]
        return ParsedQuestion("sizing", out_lang, scenario, ask_min, negated, None, understood, missing, examples)
    if attr_seen:
        understood["fact_keyword"] = attr_seen
    wants_sizing = ask_min or "method" in scenario or bool(_SIZING_CUES.search(low))
    if wants_sizing and has_hardware and not attr_seen:
        return ParsedQuestion("sizing", out_lang, scenario, ask_min, negated, None, understood, [MISSING_WORKLOAD], examples)
    missing = [MISSING_WORKLOAD]
    if wants_sizing and not has_hardware:
        missing.append(MISSING_HARDWARE)
    if not wants_sizing:
        missing.append(MISSING_SUBJECT if attr_seen else MISSING_LOOKUP)
    return ParsedQuestion("unknown", out_lang, scenario, ask_min, negated, None, understood, missing, examples)


def _generic_model(eid: str, vocab: Vocabulary) -> bool:
    """A model entity with no fixed size (a family such as "Llama", or "LLMs in general")."""
    label = str(vocab.entities.get(eid, {}).get("name", "")).lower()
    return "(family)" in label or "in general" in label


def _resolve_variant(m: _Match, masked: str, vocab: Vocabulary) -> str:
    """Pick a sized variant from an adjacent memory size: "80GB A100" or "A100 (80 GB)" → A100-80GB."""
    variants = vocab.entities.get(m.eid, {}).get("variants") or []
    if not variants:
        return m.eid
    sizes: list[str] = []
    before = re.search(r"(\d{2,3})\s*g(?:b|ib)?\s*$", masked[max(0, m.start - 10):m.start])
    after = re.match(r"\s*\(?\s*(?:with\s+)?(\d{2,3})\s*g(?:b|ib)?s?(?![a-z0-9])", masked[m.end:m.end + 16])
    sizes += [x.group(1) for x in (after, before) if x]
    for size in sizes:
        for v in variants:
            if str(v).lower().endswith(f"-{size}gb"):
                return str(v)
    return m.eid


def _params(masked: str) -> tuple[float, tuple[int, int]] | None:
    """The parameter count: "13B", "1.5B", "350M", "7 billion", "130亿", "70亿参数" (not "1T tokens")."""
    found: list[tuple[int, int, float, tuple[int, int]]] = []
    for rx in (_PARAMS_EN, _PARAMS_ZH):
        for m in rx.finditer(masked):
            rest = masked[m.end():m.end() + 12]
            if _NOT_PARAMS_AFTER.match(rest):
                continue
            strong = bool(_PARAMS_AFTER.match(rest))
            if m.group(2) in _PARAMS_NEEDS_CONTEXT and not strong:
                continue
            x = _number(m.group(1), _PARAMS_UNITS[m.group(2)])
            if x is not None and x <= 1e15:
                found.append((0 if strong else 1, m.start(), x, m.span()))
    if not found:
        return None
    best = min(found)
    return best[2], best[3]


def _vram(masked: str) -> tuple[float, tuple[int, int]] | None:
    """A GPU memory size such as "24GB GPU", "24G 显存", "单张 48GB 显卡" (host RAM and disks are skipped)."""
    found: list[tuple[int, int, float, tuple[int, int]]] = []
    for m in _GB.finditer(masked):
        before, after = masked[max(0, m.start() - 14):m.start()], masked[m.end():m.end() + 16]
        gpu_context = bool(_GB_GPU_AFTER.match(after) or _GB_GPU_BEFORE.search(before))
        if not gpu_context and (_GB_HOST_AFTER.match(after) or _GB_HOST_BEFORE.search(before)):
            continue
        x = _number(m.group(1))
        if x is not None and x <= 100_000:
            found.append((0 if gpu_context else 1, m.start(), x, m.span()))
    if not found:
        return None
    best = min(found)
    return best[2], best[3]


def _gpus(masked: str) -> tuple[int, tuple[int, int]] | None:
    """A GPU count: "4 张 A100", "4x A100", "A100 x 8", "two T4s", "8 卡", "单卡", "one L4"."""
    found: list[tuple[int, int, tuple[int, int]]] = []
    for rx in _GPUS_RES:
        for m in rx.finditer(masked):
            word = _SPACES.sub(" ", m.group(1))
            n = _ZH_COUNTS.get(word) or _WORD_COUNTS.get(word) or _whole(_number(word), 100_000)
            if n:
                found.append((m.start(), n, m.span()))
    if not found:
        return None
    best = min(found)
    return best[1], best[2]


def _seq_len(low: str) -> tuple[int, tuple[int, int]] | None:
    """A sequence length: "seq 4096", "sequence length 4k", "4K context", "上下文 8k" (k = 1024)."""
    for rx in _SEQ_RES:
        m = rx.search(low)
        if m:
            x = _number(m.group(1), "1024" if m.group(2) else "1")
            n = _whole(float(round(x)) if x is not None and m.group(2) else x, 100_000_000)
            if n:
                return n, m.span()
    return None


def _first_int(rxs: re.Pattern[str] | tuple[re.Pattern[str], ...], low: str, cap: int) -> tuple[int, tuple[int, int]] | None:
    """The first whole, positive number captured by one of the patterns."""
    for rx in (rxs if isinstance(rxs, tuple) else (rxs,)):
        for m in rx.finditer(low):
            n = _whole(_number(m.group(1)), cap)
            if n:
                return n, m.span()
    return None


def _fact(low: str, matches: list[_Match], vocab: Vocabulary) -> tuple[str | None, str | None, str | None]:
    """(attribute, subject, first attribute keyword seen): the first keyword rule with a fitting entity."""
    seen: str | None = None
    for attr, rxs in _FACT_RES:
        spec = vocab.attributes.get(attr)
        if spec is None or not any(rx.search(low) for rx in rxs):
            continue
        seen = seen or attr
        # an instance or family named beside its GPU is what the question is about ("the A100s in GT4")
        for m in sorted(matches, key=lambda m: (m.kind not in ("instance", "family"), m.start)):
            if m.kind in spec.applies_to:
                return attr, m.eid, seen
    return None, None, seen
