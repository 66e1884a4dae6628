"""The question parser's patterns, compiled once: example questions, and the regular expressions that read numbers with units, GPU counts, sequence lengths,
batch sizes, LoRA ranks and switches (gradient checkpointing, FlashAttention, ZeRO) from a question.
The words of methods, precisions, intents, optimizers and fact attributes are data (the ``cues``
section of kb/vocabulary.yaml); these are the number and switch patterns around them. Used by :mod:`.ask_parser`.
"""
from __future__ import annotations

import re

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
