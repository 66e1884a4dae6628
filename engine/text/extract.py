"""Claims found in free text (English or Chinese), driven by the vocabulary.

The extractor reads what a sentence states about an entity the vocabulary knows: a quantity with its
unit tied to the nearest attribute word of that dimension ("16 GB of GDDR6 memory", "显存 24G"), a yes/no
attribute stated or denied ("no NVLink", "不支持 BF16"), the GPU an instance family carries, and a
workload verdict or requirement ("a T4 cannot fully fine-tune a 13B model", "7B 全量微调需要 112GB
显存"). Every word list is data (the ``cues`` and ``entities`` sections of kb/vocabulary.yaml); nothing
here names a GPU, a model or a sentence of a source.

Each claim keeps its span in the given text, a structure the audit can judge (subject, attribute,
value, unit, qualifiers, modality) and a confidence. Sentences that yield no claim are returned as not
understood, never dropped. The extractor is pure and deterministic and raises only ``BadInput`` for
input that is not text.
"""
from __future__ import annotations

import re
from bisect import bisect_left
from dataclasses import dataclass, replace

from ..core.errors import BadInput, Issue
from ..kb.vocabulary import Vocabulary
from ..kb.names import unknown_mentions
from ..kb.lexicon import Match as _Match, generic_model, match_entities as _match_entities, resolve_variant as _resolve_variant
from .compare import advantages, comparisons
from .tables import covered, table_claims
from .lists import abbreviated, groups, heading_verdict, pronoun_list, spread, spread_same, spread_to_referents
from .claims import product_names
from .glued import with_glued
from .subject import HARDWARE, HEADING, Candidate, in_aside, topic_concept, vendor_prefix
from .tokens import BULLET, PLACEHOLDER, Row, aligned_lower, any_match, layout, quantities, row_at, sentences, tables
from .sentence import asks_question, explicit_vendors, is_heading_line, verdict_of_heading, sentence_claims, uncompared
from .workload import label_method
from .specs import compared_before
from .dates import launch_years

__all__ = ["Candidate", "Extraction", "aligned_lower", "extract", "quantities", "sentences"]


@dataclass
class Extraction:
    """The claims of a text and the sentences that yielded none."""

    text: str
    lang: str
    claims: list[Candidate]
    not_understood: list[tuple[int, int]]


# --- the extractor -----------------------------------------------------------------------------------
def extract(text: str, vocab: Vocabulary, lang: str | None = None) -> Extraction:
    """The claims ``text`` states, and the sentences it could not turn into claims."""
    if not isinstance(text, str):
        raise BadInput(f"the text must be a string, got {type(text).__name__}", [Issue("expected text", field="text")])
    low = aligned_lower(text, vocab)
    out_lang = lang if lang in ("en", "zh") else ("zh" if re.search(r"[\u4e00-\u9fff]", text) else "en")
    t = tables(vocab)
    mentions = _match_entities(low, vocab)
    mentions = sorted(mentions + abbreviated(low, mentions, vocab), key=lambda m: m.start)   # "ZeRO-2/3"
    mentions = with_glued(low, mentions, vocab)                                               # "4090A100"
    starts = [m.start for m in mentions]
    claims: list[Candidate] = []
    not_understood: list[tuple[int, int]] = []
    carried: dict[str, _Match] = {}                       # the last entity of each kind, across sentences
    named: set[str] = set()                               # products already said to exist (first mention only)
    rows = layout(low)                                    # Markdown table rows: header and heading as context
    # tables read cell by cell (product x attribute), and the cells of a column whose product gpukb does not know
    cells, blind = table_claims(low, rows, mentions, vocab, t, text)
    placed: set[int] = set()
    explicit = explicit_vendors(low, mentions, t)       # products whose vendor the text names beside them
    advising = False                                      # the previous line introduced a list of advice
    intro: str | None = None                              # the topic a line introducing a list gives its items
    listed: str | None = None                            # the verdict of the line heading a list
    last_run: list[_Match] = []                           # the products the last sentence naming any spoke of
    section: dict[str, _Match] = {}                       # the one product a heading (or a list's intro) names
    section_size: dict | None = None                      # the one model (or size) the last heading naming any names
    list_owner: dict[str, _Match] = {}
    sheets: list[tuple[int, int]] = []                    # runs of short "label value" lines: their claims
    sheet: list[int] = []                                 # the current run: index of its first claim, lines
    prev_end = -1
    for s, e in sentences(low):
        row = row_at(rows, s)
        line = row is None and _whole_line(low, s, e) and e - s <= SHEET_LINE
        if sheet and not (line and low[prev_end:s] == "\n"):
            if sheet[1] >= SHEET_LINES:
                sheets.append((sheet[0], len(claims)))
            sheet = []
        if line:
            sheet = [sheet[0], sheet[1] + 1] if sheet else [len(claims), 1]
            prev_end = e
        for k in [k for k in carried if k.startswith(HEADING)]:
            del carried[k]
        if row is not None and row.heading is not None:   # the products the table's heading names
            for m in mentions:
                if row.heading[0] <= m.start < row.heading[1] and m.kind in HARDWARE:
                    carried[HEADING + m.kind] = m
        bullet = bool(BULLET.match(low, s)) or bool(re.fullmatch(r"[ \t]*[•▪●\-*][ \t]*", low[low.rfind("\n", 0, s) + 1:s]))
        heading = is_heading_line(low, s, e)
        if not bullet or heading:
            intro = None
        # a short line introducing a list with a verdict ("Good for:", "不适合："), not advice ("try these first:")
        intro_line = not bullet and e - s <= 40 and re.search(r"[:：]\s*$", low[s:e]) is not None and \
            not any_match(t["advice"] + t["use"], low[s:e])
        if heading or not bullet:       # a heading's verdict ("Good for", "不适合："): what its list's items say
            listed = verdict_of_heading(low, s, e, t) if heading or intro_line else None
        topic = intro
        ents = [m for m in mentions[bisect_left(starts, s):bisect_left(starts, e)] if m.end <= e]
        # "A100（40GB…" or "80GB A100": the sized variant the memory beside a generic GPU names
        ents = [_Match(m.start, m.end, _resolve_variant(m, low, vocab), m.kind) if m.kind == "gpu" else m for m in ents]
        masked = list(low[s:e])    # the sentence's names masked, the text around it as it is
        for m in ents:             # hardware and model names only: method and precision words stay readable
            if m.kind in PLACEHOLDER:
                masked[m.start - s:m.end - s] = PLACEHOLDER[m.kind] * (m.end - m.start)
        for m in MIG_PROFILE.finditer(low, s, e):    # "1g.10gb": a MIG profile's name, no figure of its own
            masked[m.start() - s:m.end() - s] = "_" * (m.end() - m.start())
        masked_low = low[:s] + "".join(masked) + low[e:]
        named_all = ents
        ents = uncompared(low, s, ents, t)      # "低于 A100": the product compared with is no subject
        question = asks_question(low, s, e, t)
        # a heading naming one product makes it the section's subject; a line introducing a list, the list's
        own = _sole_product(named_all, vocab) if len(ents) == len(named_all) else None   # not a compared one's
        if heading and not bullet and row is None and (own or listed is None):
            section = own               # a heading naming no product but a verdict ("Good for") stays in the section
        if heading and not bullet and row is None:
            section_size = _heading_size(low, masked_low, s, e, named_all, vocab, section_size)
        if not bullet:
            list_owner = {}
        context = _row_context(row, ents, carried, text, vocab)
        scope = list_owner if bullet and list_owner else section
        if scope and row is None and not any(m.kind in HARDWARE for m in named_all):
            # "显存为 24GB", "this card has 16 GB" under "## A10": the section's product, not the last one named
            context = {**{k: v for k, v in carried.items() if k not in HARDWARE}, **scope}
        found = [] if question else sentence_claims(low, masked_low, s, e, ents, context, vocab, t, row, topic,
                                                        listed if bullet and row is None else None, named_all,
                                                        advising and not bullet, section_size,
                                                        None if row is not None else label_method(low, s, vocab))
        if not question:
            found += launch_years(low, s, e, named_all, vocab)      # "the V100, launched in 2017"
            runs = groups(low, ents, t)
            plural = pronoun_list(low, s, e, t)
            if not runs and plural:           # "they", "二者": the products the previous sentences named
                found += spread_to_referents(found, last_run)
            found += spread(low, found, runs, vocab)   # "A 和 B 都支持 X": the statement of each
            found += spread_same(low, s, e, found, named_all, vocab)   # "X 的功耗和 Y 一样，都是 450W": each's
            referents = last_run if not runs and (plural or any_match(t["coref"]["singular"], low[s:e])) else []
            hardware = [m for m in named_all if m.kind in HARDWARE]
            found += comparisons(low, s, e, hardware, ents, referents, carried, t)
            found += advantages(low, masked_low, s, e, hardware, ents, referents, carried, t, claims)   # "更多显存", "提升训练速度"
            verdict = verdict_of_heading(low, s, e, t) if heading else None
            if verdict and not any(c.modality == "verdict" for c in found):
                found += heading_verdict(low, masked_low, s, e, verdict, ents, carried, t, vocab)
            if runs:
                last_run = runs[0]
            found += product_names(low, ents, named, vocab, carried, explicit)
        if cells:                             # a figure a table cell states is the cell's claim, not the line's
            mine = [k for k, x in enumerate(cells) if s <= x.start < e and k not in placed]
            placed.update(mine)
            found = [c for c in found if not covered(c, cells)] + [cells[k] for k in mine]
        if blind:
            found = [c for c in found if not any(a <= c.start and c.end <= b for a, b in blind)]
        seen = set()
        for c in found:
            key = (c.subject, c.attribute, repr(c.value), repr(sorted(c.qualifiers.items(), key=str)))
            if key not in seen:
                seen.add(key)
                claims.append(c)
        if not found:
            not_understood.append((s, e))
        advising = bool(re.search(r"[:：]\s*$", low[s:e])) and any_match(t["advice"] + t["use"], low[s:e])
        if re.search(r"[:：]\s*$", low[s:e]) and not bullet:
            list_owner = own
        if re.search(r"[:：]\s*$", low[s:e]):        # a line introducing a list: its topic is the items'
            intro = topic_concept(low[s:e], t, general=False) or intro
        for m in ents:
            if m.kind in HARDWARE and (compared_before(low, m.start, s, t) or in_aside(m, low, s)):
                continue            # "(vs. H100's 80GB)": what a product is compared with is not what the next lines speak of
            carried[m.kind] = m
            v = vendor_prefix(m, low, t) if m.kind in ("family", "instance") else None
            if v is not None:                  # "腾讯云 GN7": the vendor the text speaks of
                carried["vendor"] = _Match(m.start, m.end, v, "vendor")
    claims += [x for k, x in enumerate(cells) if k not in placed]
    if sheet and sheet[1] >= SHEET_LINES:
        sheets.append((sheet[0], len(claims)))
    order = sorted(range(len(claims)), key=lambda k: claims[k].start)
    at = [claims[k].start for k in order]
    units = [claims[lo:hi] for lo, hi in sheets]
    columns: dict[tuple, list[Candidate]] = {}      # a table's column: the cells of the product its header names
    for r in rows:
        if r.is_header:
            continue
        row = [claims[k] for k in order[bisect_left(at, r.start):bisect_left(at, r.end)]]
        units.append(row)
        for c in row if r.header else ():
            j = r.cell_at(c.start)
            if j is not None and j > 0:
                columns.setdefault((tuple(r.header), j), []).append(c)
    claims += _sized_by_memory(units + list(columns.values()), vocab)
    _sized_in_brackets(claims, low, vocab)
    return Extraction(text, out_lang, claims, not_understood)


#: a MIG profile's name, <compute slices>g.<memory>gb ("1g.10gb", "3g.40gb", "1g.10gb+me"; NVIDIA Multi-Instance GPU
#: User Guide, "Supported MIG Profiles"): its numbers name the slice, they state no figure
MIG_PROFILE = re.compile(r"(?<![a-z0-9.])\d{1,2}g\.\d{1,3}gb(?:\+me)?(?![a-z0-9])")
#: a memory size in brackets right after a figure ("1935 GB/s (40GB) / 2039 GB/s (80GB)", "（80GB）")
SIZE_IN_BRACKETS = re.compile(r"\s*[（(]\s*(\d{1,3})\s*gb\s*[)）]")


def _sized_in_brackets(claims: list[Candidate], low: str, vocab: Vocabulary) -> None:
    """A figure of a GPU of several sizes followed by one size in brackets ("1935 GB/s (40GB)") is that version's
    figure: the claim's subject becomes the one variant whose name states the size (none when two do)."""
    for c in claims:
        m = SIZE_IN_BRACKETS.match(low, c.end) if c.attribute != "memory_gb" else None
        named = [v for v in vocab.sized_variants(c.subject) if vocab.names_size(v, float(m.group(1)))] if m else []
        if len(named) == 1:
            c.subject = named[0]


#: a line of a spec sheet ("TDP功耗 250W", "Memory: 80 GB") is a whole line of at most this many characters;
#: a sheet has at least SHEET_LINES of them in a row
SHEET_LINE, SHEET_LINES = 60, 3


def _whole_line(low: str, s: int, e: int) -> bool:
    return (s == 0 or low[s - 1] == "\n") and (e == len(low) or low[e] == "\n")


def _sized_by_memory(groups: list[list[Candidate]], vocab: Vocabulary) -> list[Candidate]:
    """A spec sheet, a table row or a table's column about a GPU of several sizes whose memory figure names one of
    them ("最大显存 80 GB" under "英伟达 A100 配置参数", "| A100 | 40 GB | 2.0 TB/s |") is about that variant: its
    figures are that variant's, not the family's (each GPU of the group on its own). A memory type written with
    two sizes of one GPU ("40GB/80GB HBM2e") is said of each: the claims it adds, one per variant."""
    added: list[Candidate] = []
    for mine in groups:
        sized: dict[str, list[tuple[Candidate, list[set[str]]]]] = {}
        for c in mine:
            generic = vocab.generic(c.subject)
            if c.attribute != "memory_gb" or not vocab.sized_variants(generic):
                continue
            factor = vocab.unit_factor("memory", c.unit) or 1
            values = c.value if isinstance(c.value, list) else [c.value]
            named = [{v for v in vocab.sized_variants(generic) if vocab.names_size(v, x * factor)}
                     for x in values if isinstance(x, (int, float)) and x * factor >= 1]
            if any(named):
                sized.setdefault(generic, []).append((c, named))
        for generic, found in sized.items():
            variants = set().union(*(n for _, ns in found for n in ns))
            if len(variants) == 1:
                (variant,) = variants
                for c in mine:
                    if c.subject == generic:
                        c.subject = variant
                continue
            for size, named in found:        # "40GB/80GB HBM2e": the type right after two sizes, said of each
                each = [next(iter(n)) for n in named if len(n) == 1]
                if len(named) < 2 or len(each) != len(named) or len(set(each)) != len(each):
                    continue                 # one size that names two versions ("80GB": SXM or PCIe) says neither
                for c in mine:
                    if c.subject == generic and c.attribute == "memory_type" and 0 <= c.start - size.end <= TYPE_AFTER_SIZES:
                        c.subject = each[0]
                        added += [replace(c, subject=v) for v in each[1:]]
    return added


#: how far after a figure of several sizes a memory type is read as theirs ("40GB/80GB HBM2e")
TYPE_AFTER_SIZES = 4


def _sole_product(named: list[_Match], vocab: Vocabulary) -> dict[str, _Match]:
    """The one hardware product a line names (as {kind: mention}), else nothing."""
    hw = [m for m in named if m.kind in HARDWARE]
    if not hw or len({vocab.generic(m.eid) for m in hw}) != 1:
        return {}
    return {hw[0].kind: hw[0]}


def _heading_size(low: str, masked: str, s: int, e: int, named: list[_Match], vocab: Vocabulary,
                  current: dict | None) -> dict | None:
    """The workload size a heading sets for its section: the one specific model it names ("# Fine-tuning
    Llama-2-13B"), else the one parameter count it states ("7B 模型需要多少显存"); a heading naming two
    sizes ("7B vs 13B") sets none, one naming no size keeps the section's."""
    models = list(dict.fromkeys(m.eid for m in named if m.kind == "model" and not generic_model(m.eid, vocab)))
    sizes = {q.lo * (vocab.unit_factor("params", q.unit) or 1) for q in quantities(masked, s, e, vocab)
             if q.dimension == "params" and q.lo == q.hi}
    if len(models) == 1:
        return {"model": models}
    if models or len(sizes) > 1:
        return None
    if sizes:
        return {"params": sizes.pop()}
    return current


def _row_context(row: Row | None, ents: list[_Match], carried: dict[str, _Match], text: str,
                 vocab: Vocabulary) -> dict[str, _Match]:
    """The products a statement may be about when it names none before it: in a table row, the first
    product of each kind the row names ("| best value | GN7-A10 | …": the row's product, not the one
    of the row above), and none when the row's first cell names a GPU gpukb does not know ("| RTX A4000 |
    16 GB |": that card's row, not the row above's); elsewhere the products carried from earlier sentences."""
    if row is None or row.is_header:
        return carried
    own: dict[str, _Match] = {}
    for m in ents:
        if m.kind in HARDWARE and row.start <= m.start < row.end:
            own.setdefault(m.kind, m)
    if own:
        return {**carried, **own}
    if row.cells and any(u["kind"] == "gpu" for u in unknown_mentions(text[row.cells[0][0]:row.cells[0][1]], vocab)):
        return {k: v for k, v in carried.items() if k not in HARDWARE}
    return carried


