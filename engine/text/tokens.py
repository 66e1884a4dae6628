"""Tokenising for the claim extractor: aligned lower-casing, sentences and clauses, the compiled cue tables
of the vocabulary, and numbers with units, ranges, bounds and hedges."""
from __future__ import annotations

import re
import weakref
from dataclasses import dataclass
from typing import Any

from ..kb.vocabulary import Vocabulary
from ..kb.lexicon import per_vocabulary as _per_vocabulary
from ..core.casefold import nfkc_lower_aligned
from .numbers import BARE_LIST, BARE_RANGE, LIST_JOIN, NUM, RANGE_JOIN, english_format

_SENTENCE = re.compile(r"[^。！？!?；;\n•▪●]+[。！？!?；;]*")     # a bullet starts a statement of its own
#: a list item's mark at the start of a line or sentence ("- ", "• ", "1. ", "2、", "3）")
BULLET = re.compile(r"\s*(?:[-*•▪●]|\d{1,2}[.、)）])\s*")
_ENGLISH_STOP = re.compile(r"(?<=[a-z0-9)\]%])(?<!\bvs)(?<!\bca)(?<!\be\.g)(?<!\bi\.e)(?<!approx)(?<!\bbzw)(?<!\binkl)(?<!\bz\.b)(?<!\bnr)(?<!\bresp)"
                           r"\.(?:\[\d{1,3}(?:[,–-]\d{1,3})*\])*(?=\s+\S)")  # "BF16. Next", "T4.[3][5] FP16"; not "vs.", "e.g.", "ca."
_LIST_NUMBER = re.compile(r"\s*\d{1,2}\.")
COMMA = re.compile(r"[，、|｜]|(?<!\d),|,(?!\d{3}(?!\d))")    # clause separators (table cells too), not "9,000"'s
# where a sentence turns to a second statement: ", but", "; while", "，但", "，而", ", which the 4090 cannot"
CLAUSE = re.compile(r"[,，]\s*(?:but|while|whereas|although|however|yet)\b|[,，]\s*(?:但|但是|而|不过|然而|可是)"
                    r"|[,，]\s*(?=which\s[^,.;，。]{0,48}?(?:cannot|can't|can\s+not|does\s*n[o']t|won't|could\s*n[o']t)(?![a-z]))")
_NAME_TAIL = re.compile(r"[a-z][\-_]?$")      # a number glued to a name before it ("qwen3", "llama-3", "glm2")
_ZH_SCALE = {"千亿": 1e11, "百亿": 1e10, "亿": 1e8}
_ZH_PARAMS = re.compile(r"^\s*(千亿|百亿|亿)")
_PRIVATE, _LAST_ALIGNED = re.compile(r"[\ue000-\uf8ff]"), ((None, 0), "")     # see aligned_lower
# entity mentions are masked, one private-use character per character, so positions stay aligned and
# numbers inside names ("Llama-2-13B", "A100 80GB") are not read as statements
PLACEHOLDER = {"gpu": "\ue000", "family": "\ue001", "instance": "\ue002", "model": "\ue003"}
NAME_MARKS = "".join(PLACEHOLDER.values())
GPU_AFTER = re.compile(r"\s*(?:x|×|\*)?\s*(?:nvidia\s*)?\ue000")


@dataclass
class Quantity:
    start: int
    end: int
    lo: float
    hi: float
    dimension: str
    unit: str
    bound: str | None = None
    approx: bool = False
    unit_at: int = 0               # where the unit's text starts ("8 vCPUs": the unit names the attribute)


# --- compiled cue tables (once per vocabulary) -------------------------------------------------------
_TABLES: "weakref.WeakKeyDictionary[Vocabulary, dict[str, Any]]" = weakref.WeakKeyDictionary()


def tables(vocab: Vocabulary) -> dict[str, Any]:
    def build(v: Vocabulary) -> dict[str, Any]:
        cues = v.cues
        comp = lambda ps: tuple(re.compile(p) for p in ps)      # noqa: E731
        return {
            "attribute": {a: comp(ps) for a, ps in (cues.get("attribute") or {}).items()},
            "cards_of_size": comp((cues.get("check_guard") or {}).get("cards_of_size", ())),
            "unit_announced": tuple(re.compile(p + r"\s*$") for p in (cues.get("check_guard") or {}).get("unit_announced", ())),
            "unit": tuple((k.split(":", 1)[0], k.split(":", 1)[1], re.compile(r"\s*(?:" + "|".join(ps) + ")"))
                          for k, ps in (cues.get("unit") or {}).items()),
            # the units of measured quantities (not counts, ratios or parameter counts): what a decimal figure has
            "measures": tuple(re.compile(r"\s*(?:" + "|".join(ps) + ")") for k, ps in (cues.get("unit") or {}).items()
                              if k.split(":", 1)[0] not in ("count", "ratio", "params")),
            "neg_before": comp((cues.get("negation") or {}).get("before", ())),
            "neg_after": comp((cues.get("negation") or {}).get("after", ())),
            "neg_not": comp((cues.get("negation") or {}).get("not", ())),
            "bound": tuple((op, comp(ps)) for op, ps in (cues.get("bound") or {}).items()),
            "per_second": comp((cues.get("per_second") or {}).get("before", ())),
            "approx": comp((cues.get("approx") or {}).get("hedge", ())),
            "verdict": tuple((val, comp(ps)) for val, ps in (cues.get("verdict") or {}).items()),
            "verdict_any": tuple(rx for ps in (cues.get("verdict") or {}).values() for rx in comp(ps)),
            "verdict_attribute": tuple((a, comp(ps)) for a, ps in (cues.get("verdict_attribute") or {}).items()),
            "role_verb": comp((cues.get("role") or {}).get("verb", ())),
            "roles": tuple(sorted(((r, re.compile(re.escape(str(x).lower()))) for r, spec in (v.enums.get("role") or {}).items()
                                   if isinstance(spec, dict) for x in (spec.get("en"), spec.get("zh")) if x),
                                  key=lambda p: -len(p[1].pattern))),
            "open_question": comp((cues.get("open_question") or {}).get("cue", ())),
            "presupposed": comp((cues.get("open_question") or {}).get("presupposed", ())),
            "carries": comp((cues.get("carries") or {}).get("verb", ())),
            "require": comp((cues.get("require") or {}).get("verb", ())),
            "usage": comp((cues.get("require") or {}).get("usage", ())),
            "load": comp((cues.get("require") or {}).get("load", ())),
            "weights": comp((cues.get("require") or {}).get("weights", ())),
            "parts": {k: comp((cues.get("require") or {}).get(k + "_part", ())) for k in ("weights", "other")},
            "possess": comp((cues.get("possess") or {}).get("verb", ())),
            "advice": comp((cues.get("advice") or {}).get("verb", ())),
            "use": comp((cues.get("advice") or {}).get("use", ())),
            "upgrade": comp((cues.get("advice") or {}).get("upgrade", ())),
            "advice_guard_before": comp((cues.get("advice") or {}).get("not_before", ())),
            "advice_guard_after": comp((cues.get("advice") or {}).get("not_after", ())),
            "compared": comp((cues.get("comparison") or {}).get("before", ())),
            "cmp": {k: comp((cues.get("comparison") or {}).get(k, ())) for k in ("metric", "other_metric", "ratio", "behind", "ahead", "condition", "more_memory", "speedup", "multiple", "bracket")},
            "coref": {k: comp((cues.get("coreference") or {}).get(k, ())) for k in ("plural", "singular", "joiner")},
            "instance_words": {k: comp((cues.get("instance_words") or {}).get(k, ())) for k in ("host_memory", "gpu_share", "per_gpu_after", "per_gpu_before", "storage_after", "partition_before")},
            "text_values": tuple((k.split(":", 1)[0], k.split(":", 1)[1], comp(ps)) for k, ps in (cues.get("text_value") or {}).items()),
            "figure_after": tuple((a, comp(ps)) for a, ps in (cues.get("figure_after") or {}).items()),
            "counted": tuple((a, comp(ps)) for a, ps in (cues.get("counted") or {}).items()),
            "ordinals": tuple((float(k), comp(ps)) for k, ps in (cues.get("ordinal") or {}).items()),
            "components": tuple((a, comp(ps)) for a, ps in (cues.get("generation") or {}).items()),
            "number_words": tuple((float(k), comp(ps)) for k, ps in (cues.get("number_words") or {}).items()),
            "tasks": tuple((task, re.compile("|".join([re.escape(str(x).lower()) for x in (spec.get("en"), spec.get("zh")) if x]
                                                     + list((cues.get("task") or {}).get(task, ())))))
                           for task, spec in (v.enums.get("task") or {}).items() if isinstance(spec, dict)),
            "bottlenecks": tuple((val, comp(ps)) for val, ps in (cues.get("bottleneck") or {}).items()),
            "bottleneck_cue": comp((cues.get("bottleneck_cue") or {}).get("cue", ())),
            "problem_header": comp((cues.get("bottleneck_cue") or {}).get("table_header", ())),
            "hypothetical": comp((cues.get("bottleneck_cue") or {}).get("hypothetical", ())),
            "vendors": tuple(sorted(((eid, str(a).lower()) for eid, spec in v.entities.items() if spec.get("kind") == "vendor"
                                     for names in (spec.get("aliases") or {}).values() for a in names or ()),
                                    key=lambda p: -len(p[1]))),
            "topics": tuple((eid, comp(ps)) for eid, ps in (cues.get("topic") or {}).items()),
            "effect_any": re.compile("|".join(f"(?:{p})" for ps in (cues.get("effect") or {}).values() for p in ps) or r"(?!x)x"),
            "effects": tuple((val, comp(ps)) for val, ps in (cues.get("effect") or {}).items()),
            "depends_cue": comp((cues.get("depends") or {}).get("cue", ())),
            "depends_memory": comp((cues.get("depends") or {}).get("memory", ())),
            "depends_activations": comp((cues.get("depends") or {}).get("activations", ())),
            "factors": tuple((val, comp(ps)) for val, ps in (cues.get("factor") or {}).items()),
            "advised_as": tuple((eid, comp(ps)) for eid, ps in (cues.get("advised_as") or {}).items()),
            "gpu_names": _gpu_suffix(v),
            "kinds_of": v.kind_of,
            "applies": {a: spec.applies_to for a, spec in v.attributes.items()},
            "host_links": tuple((val, comp(ps)) for val, ps in (cues.get("host_link") or {}).items()),
            "memory_types": tuple((val, re.compile(r"(?<![a-z0-9])" + re.escape(val.lower()) + r"(?![a-z0-9])"))
                                  for val in sorted(v.enums.get("memory_type") or {}, key=len, reverse=True)),
        }
    return _per_vocabulary(_TABLES, vocab, build)


def _gpu_suffix(v: Vocabulary) -> tuple[re.Pattern[str], dict[str, str]]:
    """A pattern for a GPU's name ending a longer name ("GN7-V100"), and the GPU of each spelling."""
    names = {str(a).lower(): eid for eid, spec in v.entities.items() if spec.get("kind") == "gpu"
             for aliases in (spec.get("aliases") or {}).values() for a in aliases or ()}
    alts = "|".join(re.escape(a) for a in sorted(names, key=len, reverse=True))
    return re.compile(r"[\-\s](" + alts + r")$"), names


# --- text helpers ------------------------------------------------------------------------------------
def aligned_lower(text: str, vocab: Vocabulary | None = None) -> str:
    """A lower-cased, NFKC-normalised copy of ``text`` with the same length (one character for one), so
    spans found in it are spans of the original; with ``vocab``, its figures in the English format whatever
    format the text writes them in ("3,35 TB/s" read as "3.35 TB/s": :func:`.numbers.english_format`)."""
    global _LAST_ALIGNED
    last = _LAST_ALIGNED        # the last text's copy: a check reads it three times (reader, claims, extract)
    if last[0] != (text, id(vocab)):
        low = _PRIVATE.sub(" ", nfkc_lower_aligned(text))
        last = _LAST_ALIGNED = ((text, id(vocab)), english_format(low, tables(vocab)["measures"]) if vocab else low)
    return last[1]


#: the longest span read as one sentence: the readers compare a sentence's mentions pairwise, so a run-on "sentence" of
#: thousands of characters (a table pasted without line breaks, a hostile text) would cost the cube of its length; past
#: this it is cut at clause marks, else at spaces; long enough for real spec sentences (figures 400 characters on)
MAX_SENTENCE = 600
#: a clause mark: not the comma of a thousands separator ("18,176 CUDA cores" is one number)
_CLAUSE_CUT = re.compile(r"[，、；;：:]\s*|,(?!\d)\s*|\s+")


def _bounded(low: str, start: int, end: int) -> list[tuple[int, int]]:
    """``low[start:end]`` as pieces of at most MAX_SENTENCE characters, cut at the last clause mark
    (else space) before the limit, so extraction stays linear in the text's length.

    >>> _bounded("a, b", 0, 4)
    [(0, 4)]
    >>> pieces = _bounded("x, " * 500, 0, 1500)
    >>> len(pieces) > 1 and all(e - s <= MAX_SENTENCE for s, e in pieces)
    True
    """
    out = []
    while end - start > MAX_SENTENCE:
        cuts = [m.end() for m in _CLAUSE_CUT.finditer(low, start + MAX_SENTENCE // 2, start + MAX_SENTENCE)]
        marks = [c for c in cuts if not low[c - 1].isspace()]
        cut = (marks or cuts or [start + MAX_SENTENCE])[-1]
        out.append((start, cut))
        start = cut
    out.append((start, end))
    return out


def sentences(low: str) -> list[tuple[int, int]]:
    """Sentence spans: split at Chinese and English sentence ends, semicolons and line breaks; a run-on
    span longer than MAX_SENTENCE is cut into clauses (:func:`_bounded`)."""
    out = []
    for m in _SENTENCE.finditer(low):
        start = m.start()
        for stop in _ENGLISH_STOP.finditer(low, m.start(), m.end()):
            if _LIST_NUMBER.fullmatch(low, start, stop.end()):
                continue                  # "3. 数据预取优化": a list item's number, not a sentence
            out += _bounded(low, start, stop.end())
            start = stop.end()
        out += _bounded(low, start, m.end())
    return [(s + len(low[s:e]) - len(low[s:e].lstrip()), e) for s, e in out if low[s:e].strip().strip(".。").strip()]


def spans_of(pairs: tuple[tuple[str, tuple[re.Pattern[str], ...]], ...], text: str, a: int, b: int) -> list[tuple[int, int, str]]:
    """Every (start, end, value) match of (value, patterns) pairs in ``text[a:b]``, in text order; of two
    overlapping matches the longer (then the earlier listed) is kept."""
    hits = [(m.start(), m.end(), order, val) for order, (val, rxs) in enumerate(pairs) for rx in rxs
            for m in rx.finditer(text, a, b) if m.end() > m.start()]
    kept: list[tuple[int, int, str]] = []
    for h in sorted(hits, key=lambda h: (h[0] - h[1], h[2], h[0])):
        if all(h[1] <= k[0] or h[0] >= k[1] for k in kept):
            kept.append((h[0], h[1], h[3]))
    return sorted(kept)


def any_match(rxs: tuple[re.Pattern[str], ...], text: str) -> bool:
    return any(rx.search(text) for rx in rxs)


def first_match(pairs: tuple[tuple[str, tuple[re.Pattern[str], ...]], ...], text: str) -> tuple[str, int, int] | None:
    """The earliest (then longest) match over (value, patterns) pairs: (value, start, end)."""
    best = None
    for val, rxs in pairs:
        for rx in rxs:
            m = rx.search(text)
            if m and (best is None or (m.start(), -(m.end() - m.start())) < (best[1], -(best[2] - best[1]))):
                best = (val, m.start(), m.end())
    return best


def quantities(low: str, start: int, end: int, vocab: Vocabulary, ranges: bool = True) -> list[Quantity]:
    """Numbers with a unit in ``low[start:end]``, with ranges ("16-32 GB", "40GB 或 80GB"), bounds ("at least 24GB",
    "24G 以上") and hedges ("约 16GB"). Without ``ranges`` two figures with units stay two ("~8.1 TFLOPS ~31.2 TFLOPS")."""
    t = tables(vocab)
    out: list[Quantity] = []
    for m in NUM.finditer(low, start, end):
        x = float(m.group(1).replace(",", ""))
        after = m.end()
        zh = _ZH_PARAMS.match(low, after)
        if zh:
            q = Quantity(m.start(), zh.end(), x * _ZH_SCALE[zh.group(1)], x * _ZH_SCALE[zh.group(1)], "params", "1")
        elif GPU_AFTER.match(low, after) and float(x).is_integer():
            q = Quantity(m.start(), after, x, x, "count", "1", unit_at=after)    # "4 A100s", "8x H100"
        else:
            q = None
            for dim, unit, rx in t["unit"]:
                u = rx.match(low, after)
                if u and u.end() > after and u.end() <= end:
                    q = Quantity(m.start(), u.end(), x, x, dim, unit, unit_at=after)
                    break
        if q is None:
            continue
        prev = out[-1] if out else None
        gap = low[prev.end:m.start()] if prev is not None and m.start() - prev.end <= 6 else "|"
        join = RANGE_JOIN.search(gap) if "|" not in gap else None     # "~900 GB/s | ~3,000 GB/s": two cells
        # "16-32 GB" joins two; "32G/64G/128G" (alternatives) may go on: the range they span
        # a range rises ("16-32 GB"); "从 14GB 降到 4GB" falls: a change between two figures, not a range
        if ranges and prev is not None and join and prev.dimension == q.dimension and \
                ((prev.hi == prev.lo and x >= prev.lo) or LIST_JOIN.fullmatch(join.group(0))):
            prev.hi, prev.end = max(prev.hi, x), q.end
            continue
        # "16-32GB": a bare number joined to this one
        bare = BARE_RANGE.search(low, max(start, m.start() - 14), m.start()) or \
            BARE_LIST.search(low, max(start, m.start() - 40), m.start())     # "32G/64G/128G": alternatives
        if bare and _NAME_TAIL.search(low, max(0, bare.start(1) - 2), bare.start(1)):
            bare = None                 # "qwen3-14b", "llama-3-70b": a name's version, not a range's start
        if bare and (prev is None or prev.end <= m.start() - len(bare.group(0))):
            lo = float(bare.group(1))
            if lo < x:
                q.lo, q.start = lo, m.start() - len(bare.group(0))
        before, rest = low[max(start, q.start - 24):q.start], low[q.end:min(end, q.end + 12)]
        for op, rxs in t["bound"]:
            if any(rx.search(before) or (rx.pattern.startswith("^") and rx.search(rest)) for rx in rxs):
                q.bound = op
                break
        q.approx = any(rx.search(before) if not rx.pattern.startswith("^") else rx.search(rest) for rx in t["approx"])
        if q.dimension == "memory" and any_match(t["per_second"], before):    # "每秒 10TB": a bandwidth
            q.dimension, q.unit = "bandwidth", q.unit + "/s"
        out.append(q)
    return sorted(out + _counted_in_words(low, start, end, out, t), key=lambda q: q.start)


_GPU_WORD = re.compile(r"\s*(?:(?:nvidia\s*)?\ue000+\s*)?(?:gpus?|cards?|accelerators?|显卡|卡)(?![a-z])")


def _counted_in_words(low: str, start: int, end: int, found: list[Quantity], t: dict[str, Any]) -> list[Quantity]:
    """Counts written as words (cues.number_words), only right before a GPU's name or a word for GPUs
    or cards: "four T4 GPUs", "两块 A100", "半张 T4", "a whole T4 card"."""
    out: list[Quantity] = []
    for x, rxs in t["number_words"]:
        for rx in rxs:
            for m in rx.finditer(low, start, end):
                after = m.end()
                if not (GPU_AFTER.match(low, after) or _GPU_WORD.match(low, after)):
                    continue
                if any(q.start < after and m.start() < q.end for q in found + out):
                    continue
                out.append(Quantity(m.start(), after, x, x, "count", "1", unit_at=after))
    return out


def negated(low: str, seg_start: int, cue_start: int, cue_end: int, seg_end: int, t: dict[str, Any]) -> bool:
    before, after = low[seg_start:cue_start], low[cue_end:seg_end]
    for rx in t.get("neg_not", ()):         # "不仅", "not only": words that hold a negation's letters but deny nothing
        before = rx.sub(lambda m: " " * len(m.group(0)), before)
    return any(rx.search(before) for rx in t["neg_before"]) or any(rx.search(after) for rx in t["neg_after"])


def segment(low: str, s: int, e: int, pos: int) -> tuple[int, int]:
    """The comma-delimited piece of sentence [s, e) around ``pos``."""
    left = max([m.end() for m in COMMA.finditer(low, s, pos)] or [s])
    right = next((m.start() for m in COMMA.finditer(low, pos, e)), e)
    return left, right


# --- layout: Markdown tables and the line that heads them -------------------------------------------
_PIPE_LINE = re.compile(r"[ \t]*\|[^\n]*")
_RULE_ROW = re.compile(r"[\s|:\-]+")
#: a table's delimiter row with at least two columns, outer pipes optional (``---|---|``, ``:-- | --:``)
_DELIMITER_ROW = re.compile(r"[ \t]*\|?[ \t]*:?-+:?[ \t]*(?:\|[ \t]*:?-+:?[ \t]*)+\|?[ \t]*")


@dataclass
class Row:
    """One line of a Markdown table, with the table's header row and the line heading the table."""

    start: int
    end: int
    cells: list[tuple[int, int]]
    header: list[tuple[int, int]]
    heading: tuple[int, int] | None
    is_header: bool = False

    def cell_at(self, pos: int) -> int | None:
        """The index of the cell holding ``pos`` (None between cells)."""
        return next((i for i, (a, b) in enumerate(self.cells) if a <= pos < b), None)


def _cells(low: str, start: int, end: int) -> list[tuple[int, int]]:
    bars = [i for i in range(start, end) if low[i] in "|｜"]
    first = start + len(low[start:end]) - len(low[start:end].lstrip())
    if bars and bars[0] != first:
        bars.insert(0, first - 1)          # no leading pipe ("Memory | 16 GB | 24 GB |"): the line opens a cell
    out = []
    for a, b in zip(bars, bars[1:] + ([end] if low[start:end].rstrip()[-1:] not in "|｜" else [])):
        a += 1
        while a < b and low[a].isspace():
            a += 1
        e2 = b
        while e2 > a and low[e2 - 1].isspace():
            e2 -= 1
        out.append((a, e2))         # an empty cell keeps its column ("| | A100 | H100 |": the corner cell)
    return out


def line_spans(text: str) -> list[tuple[int, int]]:
    """The [start, end) span of every line of ``text`` (without its newline).

    >>> line_spans("ab\\n\\ncd")
    [(0, 2), (3, 3), (4, 6)]
    """
    spans, pos = [], 0
    for part in text.split("\n"):
        spans.append((pos, pos + len(part)))
        pos += len(part) + 1
    return spans


def _piped(low: str, s: int, e: int) -> bool:
    return ("|" in low[s:e] or "｜" in low[s:e]) and bool(low[s:e].strip())


def layout(low: str) -> list[Row]:
    """The rows of the Markdown tables in ``low``: a run of lines starting with a pipe, or, as GitHub
    Markdown allows, a header line with pipes over a delimiter row (``---|---``) and the piped lines
    after it, whose outer pipes may be left out. A paragraph line may precede a table without a blank
    line, as in text copied from web pages.

    >>> [len(r.cells) for r in layout("spec | t4 | a10 |\\n---|---|---|\\nmemory | 16 gb | 24 gb |")]
    [3, 3]
    """
    lines = line_spans(low)
    rows: list[Row] = []
    i = 0
    while i < len(lines):
        s, e = lines[i]
        loose = not _PIPE_LINE.fullmatch(low, s, e) and _piped(low, s, e) and i + 1 < len(lines) \
            and _DELIMITER_ROW.fullmatch(low, *lines[i + 1]) is not None
        if not loose and not _PIPE_LINE.fullmatch(low, s, e):
            i += 1
            continue
        j = i
        while j < len(lines) and (_PIPE_LINE.fullmatch(low, *lines[j]) or (loose and _piped(low, *lines[j]))):
            j += 1
        heading = next(((a, b) for a, b in reversed(lines[max(0, i - 3):i]) if low[a:b].strip()), None)
        header = _cells(low, s, e)
        for k in range(i, j):
            a, b = lines[k]
            if _RULE_ROW.fullmatch(low, a, b):
                continue
            rows.append(Row(a, b, _cells(low, a, b), header, heading, is_header=k == i))
        i = j
    return rows


def row_at(rows: list[Row], pos: int) -> Row | None:
    """The table row holding ``pos``."""
    return next((r for r in rows if r.start <= pos < r.end), None)
