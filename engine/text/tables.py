"""Tables read as tables, for the claim extractor: each cell is one claim about the product of its row or
column and the attribute of the other.

- column per product (``| 指标 | GPU A | GPU B |`` header, one row per attribute): the header cell names
  the subject, the row's first cell the attribute;
- row per product (``| 型号 | 显存 | 带宽 |`` header, one row per product): the row's first cell names
  the subject, the header cell the attribute;
- a table copied as text without pipes, only when its structure is unambiguous: a line naming N products
  and nothing else of note, followed by lines of a label and exactly N figures of one kind (before any
  product named as a remark); the i-th figure is the i-th product's. Lines that do not fit are left to
  the sentence reader (and the check's guards).

A bare number in a cell takes its unit from the header ("| TDP(W) |", "FP8/TFLOPS"). The attribute is
read from the label's words only (:func:`attribute_for` over the label), so a figure whose label names no
attribute of its kind gives no claim. Nothing here names a product or an attribute: the words are the
vocabulary's."""
from __future__ import annotations

import re
from functools import lru_cache
from typing import Any, NamedTuple

from ..kb.vocabulary import Vocabulary
from ..kb.lexicon import Match as _Match, resolve_variant as _resolve_variant
from ..kb.names import unknown_mentions
from .attributes import attribute_for
from .subject import HARDWARE, Candidate
from .guard_base import size_in_name
from .specs import unit_of
from .requirement_tables import requirement_table
from .tokens import PLACEHOLDER, Quantity, Row, any_match, line_spans, quantities

_BARE = re.compile(r"\s*(?:~|≈|约)?\s*((?:\d{1,3}(?:,\d{3})+|\d{1,7})(?:\.\d{1,4})?)\s*$")
_PROSE = re.compile(r"[。！？!?；;，:：]|[,.](?!\d)")
#: the longest line read as a table's header line when the table has no pipes
HEADER_LINE = 100


def masked_text(low: str, mentions: list[_Match]) -> str:
    """``low`` with every hardware and model name masked (their digits are no figures)."""
    out = list(low)
    for m in mentions:
        if m.kind in PLACEHOLDER:
            out[m.start:m.end] = PLACEHOLDER[m.kind] * (m.end - m.start)
    return "".join(out)


def _hardware(mentions: list[_Match], a: int, b: int, low: str, vocab: Vocabulary) -> list[_Match]:
    """The distinct hardware products named in ``[a, b)`` as words of their own (not the "A100" inside
    "Standard_NC24ads_A100_v4"), in order, each as the variant its text names."""
    out: list[_Match] = []
    for m in mentions:
        inside = (m.start > 0 and re.match(r"[a-z0-9_]", low[m.start - 1])) or re.match(r"[a-z0-9_]", low[m.end:m.end + 1])
        if m.kind in HARDWARE and a <= m.start and m.end <= b and not inside:
            m = _Match(m.start, m.end, _resolve_variant(m, low, vocab), m.kind) if m.kind == "gpu" else m
            if all(vocab.generic(x.eid) != vocab.generic(m.eid) for x in out):
                out.append(m)
    return out


#: a header cell that is only a count's noun ("GPUs", "vCPUs", "GPU 数量", "卡数", "# of GPUs"): its cells count
_COUNT_HEADER = re.compile(r"\s*(?:#|no\.|number\s+of)?\s*(?:gpus|v?cpus|vcores|cards|gpu\s*(?:count|数量|数)|卡数|显卡数量?|"
                           r"vcpu\s*(?:count|数量?)|cpu\s*核数)\s*")


def _header_unit(low: str, a: int, b: int, t: dict[str, Any]) -> tuple[str, str] | None:
    """The unit a header or label cell names on its own ("TDP(W)", "FP8/TFLOPS"): (dimension, unit); a
    header that is only a count's noun ("GPUs", "vCPUs", "GPU 数量") makes its bare numbers counts."""
    if _COUNT_HEADER.fullmatch(low, a, b):
        return "count", "1"
    for dim, unit, rx in t["unit"]:
        if dim in ("count", "ratio", "params"):
            continue
        for i in range(a, b):
            if i > a and low[i - 1] not in " /(（[_-":
                continue
            m = rx.match(low, i, b)
            if m and m.end() > i and (m.end() == b or low[m.end()] in " /)）]_-"):
                return dim, unit
    return None


def _figures(masked: str, low: str, a: int, b: int, head: tuple[int, int], vocab: Vocabulary,
             t: dict[str, Any]) -> list[Quantity]:
    """The figures of cell ``[a, b)``: numbers with units, or a bare number with the header's unit."""
    qs = quantities(masked, a, b, vocab)
    if qs:
        return qs
    bare = _BARE.fullmatch(masked, a, b)
    unit = _header_unit(low, *head, t) if bare else None
    if bare is None or unit is None:
        return []
    x = float(bare.group(1).replace(",", ""))
    approx = bool(re.match(r"\s*(?:~|≈|约)", masked[a:b]))
    return [Quantity(bare.start(1), bare.end(1), x, x, unit[0], unit[1], approx=approx)]


def _cell_claims(subject: _Match, masked: str, low: str, a: int, b: int, head: tuple[int, int],
                 vocab: Vocabulary, t: dict[str, Any], conf: float = 0.8, words_from: int | None = None,
                 qs: list[Quantity] | None = None) -> list[Candidate]:
    """The claims of one cell about ``subject``, the attribute read from ``head``'s words (memory types
    from ``words_from`` on: in a table copied as text a cell's words follow its figure); ``qs``: the
    cell's figures when the caller read them."""
    out: list[Candidate] = []
    if subject.kind == UNKNOWN:
        return out              # a column of a product gpukb does not know: its cells are no claims it can check
    for q in qs if qs is not None else _figures(masked, low, a, b, head, vocab, t):
        attr, aconf = attribute_for(q, low, masked, head, head[0], head[1], [], {}, vocab, t)
        if (attr is None or aconf < 0.7) and q.start >= head[1]:    # a label whose word looks ahead to the cell's
            attr, aconf = attribute_for(q, low, masked, head, head[0], q.end, [], {}, vocab, t)   # unit ("BF16 | 989 TFLOPS")
        if attr == "memory_gb" and subject.kind in ("instance", "family") and "host_memory_gb" in vocab.attributes \
                and any_match(t["instance_words"]["host_memory"], _label_words(low, head)):
            attr = "host_memory_gb"     # "| Memory (GiB) |" of an instance beside its "GPU memory": its RAM
        if attr is None or aconf < 0.7 or vocab.kind_of(subject.eid) not in vocab.attributes[attr].applies_to:
            continue
        value: Any = q.lo if q.lo == q.hi else [q.lo, q.hi]
        if q.bound and q.lo == q.hi:
            value = f"{q.bound} {q.lo:g}"
        out.append(Candidate(q.start, q.end, subject.eid, attr, value, q.unit, modality="spec",
                             confidence=conf * aconf, approx=q.approx))
    kind = vocab.kind_of(subject.eid)
    label = low[head[0]:head[1]]
    for attr, crx in t["components"]:      # a generation in a cell whose label names the component
        if attr in vocab.attributes and kind in vocab.attributes[attr].applies_to and any(r.search(label) for r in crx):
            for x, rxs in t["ordinals"]:
                for m in (m for rx in rxs for m in rx.finditer(masked, a, b)):
                    out.append(Candidate(m.start(), m.end(), subject.eid, attr, x, unit_of(vocab, attr), modality="spec",
                                         confidence=conf * 0.9))
    for attr, val, rxs in t["text_values"]:   # a text value in a cell whose label names its attribute
        if attr in vocab.attributes and kind in vocab.attributes[attr].applies_to \
                and any(w.search(label) for w in t["attribute"].get(attr, ())):
            for m in (m for rx in rxs for m in rx.finditer(masked, a, b)):
                out.append(Candidate(m.start(), m.end(), subject.eid, attr, val, modality="spec", confidence=conf * 0.9))
    if "memory_type" in vocab.attributes and kind in vocab.attributes["memory_type"].applies_to:
        for val, rx in t["memory_types"]:
            for m in rx.finditer(masked, a if words_from is None else words_from, b):
                out.append(Candidate(m.start(), m.end(), subject.eid, "memory_type", val, confidence=conf * 0.9))
    return out


def _markdown_tables(rows: list[Row]) -> list[tuple[Row, list[Row]]]:
    """Each Markdown table of the text as its header row and its body rows (those with cells)."""
    tabs: dict[int, list[Row]] = {}
    for r in rows:
        if r.header:
            tabs.setdefault(r.header[0][0], []).append(r)
    out = []
    for table in tabs.values():
        head = next((r for r in table if r.is_header), None)
        if head is not None:
            out.append((head, [r for r in table if not r.is_header and r.cells]))
    return out


def markdown_tables(low: str, masked: str, rows: list[Row], mentions: list[_Match], vocab: Vocabulary,
                    t: dict[str, Any]) -> list[Candidate]:
    """The cells of Markdown tables whose header or first column names the products (see the module)."""
    out: list[Candidate] = []
    for head, body in _markdown_tables(rows):
        if len(head.cells) < 2 or not body:
            continue
        out += requirement_table(low, masked, head, body, mentions, vocab)   # rows of models, columns of methods
        named = [_hardware(mentions, a, b, low, vocab) for a, b in head.cells]
        first = [_hardware(mentions, *r.cells[0], low, vocab) for r in body]
        columns = {j: ms[0] for j, ms in enumerate(named) if j > 0 and len(ms) == 1}
        if named[0] and head.cells[-1][0] == head.cells[-1][1] and not any(first):
            # "| L4 | L40S | H100 | |" over "| Memory | 24 GB | 48 GB | 80 GB |": the header's corner cell slipped to its
            # end when the table was copied, so each name heads the column after its own
            columns = {j + 1: ms[0] for j, ms in enumerate(named[:-1]) if len(ms) == 1}
        if columns and (not named[0] or 1 in columns) and sum(1 for f in first if f) * 2 < len(body):
            for r in body:                       # one row per attribute, one column per product
                for j, p in columns.items():
                    if j < len(r.cells) and len(r.cells) == len(head.cells):
                        out += _cell_claims(p, masked, low, *r.cells[j], r.cells[0], vocab, t)
        elif not any(named) and sum(1 for f in first if len(f) == 1) * 2 > len(body):
            for r, f in zip(body, first):        # one row per product, one column per attribute
                if len(f) != 1 or len(r.cells) != len(head.cells):
                    continue
                for j in range(1, len(r.cells)):
                    out += _cell_claims(f[0], masked, low, *r.cells[j], head.cells[j], vocab, t)
    return out


def unread_cells(low: str, rows: list[Row], mentions: list[_Match], vocab: Vocabulary) -> list[tuple[int, int]]:
    """The cells of a product-per-column table under a column whose header names a product gpukb does not
    know ("| | GB200 NVL72 | HGX B200 |"): their figures are that product's, so no other reader may give them
    to a product it knows (the one of the next column, of the heading). Returned as cell spans."""
    out: list[tuple[int, int]] = []
    for head, body in _markdown_tables(rows):
        if len(head.cells) < 3:
            continue
        named = [_hardware(mentions, a, b, low, vocab) for a, b in head.cells]
        if named[0] or not any(named[1:]):
            continue
        blind = [j for j in range(1, len(head.cells)) if not named[j] and re.search(r"[a-z]{1,}\s*-?\d|\d\s*[a-z]", low[slice(*head.cells[j])])]
        out += [r.cells[j] for r in body if len(r.cells) == len(head.cells) for j in blind]
    return out


def _glued_header(mentions: list[_Match], a: int, b: int, low: str, vocab: Vocabulary) -> list[_Match]:
    """A header line whose names ran together ("SpecA100-40GBH100 SXML40S", "参数RTX 4090A100 80GB"): the
    names, when they and the separators between them fill the line after its label word."""
    names = [m for m in mentions if a <= m.start and m.end <= b and m.kind in HARDWARE]
    if len(names) < 2:
        return []
    rest = list(low[a:b])
    for m in names:
        rest[m.start - a:m.end - a] = " " * (m.end - m.start)
    if not re.fullmatch(r"\s*[^\s\d]*\s*[^\s\d]*\s*", "".join(rest)):     # a label cell before them, one after
        return []
    return [_Match(m.start, m.end, _resolve_variant(m, low, vocab), m.kind) if m.kind == "gpu" else m for m in names]


def _names_size(q: Quantity, products: list[_Match], low: str) -> bool:
    """The figure is the size in a product's name ("A100 80GB"): part of the name, not a figure."""
    return any(size_in_name(low, p.end, q.start) and p.eid.lower().endswith(f"-{q.lo:g}gb") for p in products)


#: the kind of a header's column whose product gpukb does not know ("Feature GB300 GB200 B300 B200")
UNKNOWN = "unknown"


def _with_unknown(text: str, a: int, b: int, known: list[_Match], mentions: list[_Match], vocab: Vocabulary) -> list[_Match]:
    """A header line's columns when it also names GPUs gpukb does not know: each such name holds a column
    (kind :data:`UNKNOWN`), so the figures under it are not given to a known neighbour."""
    inside = [(m.start - a, m.end - a) for m in mentions if a <= m.start and m.end <= b]
    unknown = [_Match(a + x["span"][0], a + x["span"][1], "", UNKNOWN)
               for x in unknown_mentions(text[a:b], vocab, inside) if x["kind"] == "gpu"]
    return sorted(known + unknown, key=lambda m: m.start) if known and unknown else known


class TableRead(NamedTuple):
    """What the tables of a text say: the claims of their cells, and the spans no claim may come from (a cell
    under a GPU gpukb does not know, a row of such a table that does not fit its columns)."""

    claims: list[Candidate]
    unread: list[tuple[int, int]]


def text_tables(low: str, masked: str, mentions: list[_Match], vocab: Vocabulary, t: dict[str, Any],
                text: str | None = None) -> TableRead:
    """Tables copied as text without pipes (see the module): only the lines whose structure is clean;
    ``text``, the original (not lowered) text, shows the names of GPUs gpukb does not know."""
    unread: list[tuple[int, int]] = []
    lines = line_spans(low)
    out: list[Candidate] = []
    i = 0
    while i < len(lines):
        a, b = lines[i]
        i += 1
        line = masked[a:b].strip()
        if not line or len(line) > HEADER_LINE or "|" in line or _PROSE.search(re.sub(r"[\ue000-\ue003]+", "", line)):
            continue
        products = _hardware(mentions, a, b, low, vocab)
        if len(products) < 2:
            products = _glued_header(mentions, a, b, low, vocab) or \
                (_with_unknown(text, a, b, products, mentions, vocab) if text is not None else products)
        if len(products) < 2 or [q for q in quantities(_blank(masked, products), a, b, vocab) if not _names_size(q, products, low)]:
            continue
        n = len(products)
        unknown = any(p.kind == UNKNOWN for p in products)
        while i < len(lines) and masked[lines[i][0]:lines[i][1]].strip():
            la, lb = lines[i]
            i += 1
            fits = len(out)
            named = [m for m in mentions if la <= m.start < lb and m.kind in HARDWARE]
            cut = named[0].start if named else lb
            qs = [q for q in quantities(masked, la, cut, vocab, ranges=False) if q.end <= cut]
            if len(qs) != n or len({q.dimension for q in qs}) != 1:
                qs = _glued_figures(masked, la, cut, t)
                if len(qs) == n and len({q.dimension for q in qs}) == 1:
                    for q, p in zip(qs, products):      # "TDP400W700W": each figure with its own unit
                        out += _cell_claims(p, masked, low, q.start, q.end, (la, qs[0].start), vocab, t, conf=0.7, qs=[q])
                        unread += [(q.start, q.end)] if p.kind == UNKNOWN else []
                    if qs[0].dimension == "memory":     # ... and a size's technology ("48 GB GDDR6X24 GB GDDR6X")
                        out += _glued_types(masked, la, cut, products, vocab, t)
                else:
                    out += _glued_types(masked, la, cut, products, vocab, t)
                    unread += [(la, lb)] if unknown and len(out) == fits else []   # whose figure is whose: unknown
                continue
            label = (la, qs[0].start)
            if not masked[la:qs[0].start].strip() or _PROSE.search(masked[la:qs[-1].end].replace(",", "")):
                unread += [(la, lb)] if unknown else []
                continue
            for k, (q, p) in enumerate(zip(qs, products)):
                begin = qs[k - 1].end if k else la
                stop = qs[k + 1].start if k + 1 < n else cut
                out += _cell_claims(p, masked, low, begin, stop, label, vocab, t, conf=0.7, words_from=q.start)
                unread += [(begin, stop)] if p.kind == UNKNOWN else []
    return TableRead(out, unread)


_GLUED_NUM = re.compile(r"((?:\d{1,3}(?:,\d{3})+|\d{1,5})(?:\.\d{1,3})?)\s*")
#: a row label that ends in a precision's name run into the first figure ("FP3219.5 TFLOPS"): the bit widths
#: a precision's name can end in, longest first, so the figure starts after them
_PRECISION_GLUE = re.compile(r"(?<![a-z])(?:fp|bf|tf|int)(?:64|32|16|8|6|4)(?=\d)")
#: what may follow a row's figures: a last column comparing them ("2.6x", "+68%", "——")
_TRAILING = re.compile(r"\s*(?:\d+(?:\.\d+)?\s*(?:x|×|倍|%)|[—–-]+)?\s*")


@lru_cache(maxsize=256)
def _glued_type(rx: re.Pattern[str]) -> re.Pattern[str]:
    """A memory technology's pattern that a figure may follow with no space ("GDDR6X24 GB", "HBM2e80 GB")."""
    return re.compile(rx.pattern.replace("(?![a-z0-9])", "(?![a-z])"))


def _glued_figures(masked: str, a: int, b: int, t: dict[str, Any]) -> list[Quantity]:
    """The figures of a text table's row whose cells ran together ("TDP400W400W700W", "Memory BW1.6
    TB/s2.0 TB/s"): from the first figure after the row's label word to the line's end, nothing but
    figures each with its unit; else none (a row such as "FP16 TFLOPS312312990" cannot be split)."""
    glue = _PRECISION_GLUE.search(masked, a, b)
    starts = [m.start() for m in re.finditer(r"(?<![\d.,])\d", masked[:b]) if m.start() > a]
    for start in ([glue.end()] if glue else []) + starts:
        if not masked[a:start].strip():
            continue
        out: list[Quantity] = []
        at = start
        while at < b:
            num = _GLUED_NUM.match(masked, at, b)
            unit = None
            if num:
                unit = next(((dim, u, m.end()) for dim, u, rx in t["unit"] if dim not in ("count", "ratio", "params")
                             for m in [rx.match(masked, num.end(), b)] if m and m.end() > num.end()), None)
            if unit is None:
                break
            x = float(num.group(1).replace(",", ""))
            out.append(Quantity(at, unit[2], x, x, unit[0], unit[1], unit_at=num.end()))
            at = unit[2] + len(masked[unit[2]:b]) - len(masked[unit[2]:b].lstrip())
            if unit[0] == "memory":      # a size's memory technology in its cell ("48 GB GDDR6X24 GB GDDR6X")
                kind = next((m.end() for _, rx in t["memory_types"] for m in [_glued_type(rx).match(masked, at, b)] if m), None)
                at = at if kind is None else kind + len(masked[kind:b]) - len(masked[kind:b].lstrip())
        if len(out) >= 2 and (at >= b or _TRAILING.fullmatch(masked, at, b)):
            return out
    return []


def _glued_types(masked: str, a: int, b: int, products: list[_Match], vocab: Vocabulary,
                 t: dict[str, Any]) -> list[Candidate]:
    """A text table's row whose cells hold named values, or ran together ("VRAM40 GB HBM2e80 GB HBM348 GB
    GDDR6X", "接口 PCIe 3.0 x16 PCIe 4.0 x16", "架构 Turing (TU104) Ampere (GA102)"): when it holds exactly
    one value of an attribute per product (a memory technology, a host interface, an architecture), in a
    line with no sentence mark, the i-th is the i-th product's (its figures, glued to the words, are left
    unread)."""
    if _PROSE.search(masked[a:b].replace(",", "")):
        return []
    groups: dict[str, list[tuple[str, Any]]] = {"memory_type": [(val, _glued_type(rx)) for val, rx in t["memory_types"]]}
    groups["host_link"] = [(val, rx) for val, rxs in t["host_links"] for rx in rxs]
    for attr, val, rxs in t["text_values"]:
        groups.setdefault(attr, []).extend((val, rx) for rx in rxs)
    out: list[Candidate] = []
    for attr, pairs in groups.items():
        if attr not in vocab.attributes:
            continue
        found = sorted(((m.start(), m.end(), val) for val, rx in pairs for m in rx.finditer(masked, a, b)),
                       key=lambda x: (x[0], -(x[1] - x[0])))
        kept = [x for i, x in enumerate(found) if not any(y[0] <= x[0] < y[1] for y in found[:i])]
        if len(kept) != len(products):
            continue
        applies = vocab.attributes[attr].applies_to
        out += [Candidate(s, e, p.eid, attr, val, confidence=0.6) for (s, e, val), p in zip(kept, products)
                if p.kind != UNKNOWN and vocab.kind_of(p.eid) in applies]
    return out


def _blank(masked: str, products: list[_Match]) -> str:
    """``masked`` with the unknown names among ``products`` blanked too (their digits are no figures)."""
    for m in (m for m in products if m.kind == UNKNOWN):
        masked = masked[:m.start] + " " * (m.end - m.start) + masked[m.end:]
    return masked


def table_claims(low: str, rows: list[Row], mentions: list[_Match], vocab: Vocabulary, t: dict[str, Any],
                 text: str | None = None) -> TableRead:
    """Every claim the text's tables state cell by cell, and the spans no claim may come from (``text``: the
    original text, for unknown names; see :func:`text_tables` and :func:`unread_cells`)."""
    masked = masked_text(low, mentions)
    plain = text_tables(low, masked, mentions, vocab, t, text)
    return TableRead(markdown_tables(low, masked, rows, mentions, vocab, t) + plain.claims,
                     plain.unread + unread_cells(low, rows, mentions, vocab))


def _label_words(low: str, head: tuple[int, int]) -> str:
    """A label's words without its unit and marks: "| Memory (GiB) |" -> "memory"."""
    return re.sub(r"\s+", " ", re.sub(r"[(（][^)）]*[)）]|[|:：*]", " ", low[head[0]:head[1]])).strip()


def covered(c: Candidate, cells: list[Candidate]) -> bool:
    """Whether a claim the sentence reader made rests on a figure (or word) a table cell already gave."""
    return any(c.attribute == x.attribute and c.start <= x.start and x.end <= c.end for x in cells) or \
        any(c.start <= x.start and x.end <= c.end and c.unit is not None and x.unit is not None for x in cells)


__all__ = ["TableRead", "table_claims", "covered", "masked_text", "unread_cells"]
