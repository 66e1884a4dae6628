"""The whole reference tier, walked (issue #32): every GPU has every GPU attribute of the issue as a fact or
as an explicit unknown with a reason; every instance size names a GPU the KB knows; every reference fact
cites a document a reader can find (a URL, or a named vendor document or paper), never a file of this
repository. A failure lists everything that is missing, so the list is the data's to-do list."""
from __future__ import annotations

import re

import pytest

from gpukb.engine.catalog import inventory
from gpukb.engine.kb import names
from gpukb.engine.kb.loader import load_kb
from gpukb.engine.core.paths import DEFAULT_KB

#: a citation that points at this repository (our notes, the KB's own files) instead of the vendor's document
REPO_FILE = re.compile(r"REFERENCE-FACTS|\.\./shared|(?<![\w/.:-])(?:kb|rules|engine|server|shared|tests|reference)/"
                       r"[\w./-]*\.(?:ya?ml|md|py|json)\b|^[\w./-]+\.(?:ya?ml|md|py|json)$", re.I)
URL = re.compile(r"https?://\S+|\bdoi:\s*10\.\d+|\b10\.\d{4,}/\S+|arxiv[:\s]+\d{4}\.\d{4,5}", re.I)
#: words that name a document a reader can look up (with its publisher or title next to it)
DOCUMENT = re.compile(r"datasheet|data sheet|whitepaper|white paper|\bpaper\b|user guide|guide\b|documentation|\bdocs?\b|"
                      r"manual|product brief|specification|spec sheet|\bpage\b|release notes|model card|configuration|"
                      r"config\.json|technical report|tech report|proceedings|blog|technical overview|readme|"
                      r"\bet al\b|arxiv|neurips|icml|iclr|\bacl\b|\bsc\d\d\b|osdi|mlsys|"
                      r"\b(?:issue|pr|pull request)\s*#?\d+|\bgithub\s+[\w.-]+/[\w.-]+|\bapi\b.*\bdocument\s+\d", re.I)
#: a public repository named as owner/name (GitHub), e.g. "microsoft/DeepSpeed, deepspeed/runtime/zero/stage3.py"
PUBLIC_REPO = re.compile(r"(?<![\w/.-])(?!(?:kb|rules|engine|server|shared|tests|reference)/)[A-Za-z0-9][\w.-]*/[\w.-]+,")
#: "Publisher, Title" with a publisher readers know
PUBLISHER_TITLE = re.compile(r"^(?:NVIDIA|EleutherAI|Meta|Google|Microsoft|Hugging ?Face|Tencent(?: Cloud)?|"
                             r"Alibaba(?: Cloud)?|AWS|Amazon(?: Web Services)?|OpenAI|Mistral AI|DeepSeek|Qwen),\s+\S+\s+\S+")


@pytest.fixture(scope="module")
def kb():
    return load_kb(DEFAULT_KB)


@pytest.fixture(scope="module")
def view(kb):
    return kb.release(None)


def _gpus(kb):
    vocab = kb.vocab
    return [e for e in names.known(vocab, "gpu") if not vocab.entities[e].get("variants")]


def gpu_gaps(kb, view) -> list[str]:
    """Each GPU attribute of issue #32 a GPU has neither as a fact nor as a recorded unknown."""
    vocab = kb.vocab
    out = []
    for g in _gpus(kb):
        subjects = {g, vocab.generic(g)}
        have = {f.attribute for f in view.reference if f.subject in subjects and not f.qualifiers.get("sparsity")}
        have |= {u.attribute for u in kb.unknowns if u.subject in subjects and (u.reason or "").strip()}
        missing = [a for a in inventory.GPU_ATTRIBUTES if a not in have]
        if missing:
            out.append(f"{g}: {', '.join(missing)}")
    return out


def instance_gaps(kb, view) -> list[str]:
    vocab = kb.vocab
    known_gpus = set(names.known(vocab, "gpu"))
    out = []
    for i in names.known(vocab, "instance"):
        gpus = inventory.gpus_of(view, i)
        if not gpus:
            out.append(f"{i}: names no GPU (no gpu fact on it or its family)")
        elif not set(gpus) <= known_gpus:
            out.append(f"{i}: names {', '.join(sorted(set(gpus) - known_gpus))}, not a GPU the KB knows")
    return out


def citation_problem(citation: str | None) -> str | None:
    c = (citation or "").strip()
    if not c:
        return "no citation"
    if REPO_FILE.search(URL.sub(" ", c)):
        return "cites a file of this repository"
    if not (URL.search(c) or DOCUMENT.search(c) or PUBLIC_REPO.search(c) or PUBLISHER_TITLE.search(c)):
        return "names no document a reader can find (no URL, no vendor document or paper)"
    return None


def citation_gaps(kb) -> list[str]:
    """Citations a reader cannot follow. A version superseded by a later one is history (what an earlier
    release said, kept so that `--kb-version` answers as it did): it may be vague, never a file of ours."""
    out = []
    keys = {f.key for f in kb.all_facts}
    for f in kb.all_facts:
        if f.tier != "reference":
            continue
        why = citation_problem(f.citation)
        if why and f"{f.id}@{f.version + 1}" in keys and citation_problem(f.citation + " (https://superseded)") is None:
            continue
        if why:
            out.append(f"{f.key} ({f.file}:{f.line}): {why}: {f.citation!r}")
    for u in kb.unknowns:
        why = citation_problem(u.citation)
        if why:
            out.append(f"unknown {u.subject} {u.attribute} ({u.file}:{u.line}): {why}: {u.citation!r}")
    return out


def _report(what: str, gaps: list[str]) -> str:
    return f"{len(gaps)} {what}:\n  " + "\n  ".join(gaps)


def test_every_gpu_has_every_gpu_attribute_or_an_explicit_unknown(kb, view):
    gaps = gpu_gaps(kb, view)
    assert not gaps, _report("GPUs lack attributes (neither a fact nor an unknown with a reason)", gaps)


def test_the_gpu_attributes_of_the_issue_are_in_the_vocabulary(kb):
    for a in inventory.GPU_ATTRIBUTES:
        assert a in kb.vocab.attributes and "gpu" in kb.vocab.attributes[a].applies_to, a


def test_every_unknown_has_a_kind_and_a_reason(kb):
    bad = [f"{u.subject} {u.attribute}" for u in kb.unknowns
           if u.kind not in ("not_published", "not_applicable") or not (u.reason or "").strip()]
    assert not bad, _report("unknowns without a kind or a reason", bad)


def test_every_instance_size_names_a_known_gpu(kb, view):
    gaps = instance_gaps(kb, view)
    assert not gaps, _report("instance sizes without a known GPU", gaps)


def test_every_reference_citation_names_a_findable_document(kb):
    gaps = citation_gaps(kb)
    assert not gaps, _report("reference citations a reader cannot follow", gaps)


@pytest.mark.parametrize("citation, ok", [
    ("NVIDIA T4 Tensor Core GPU datasheet (https://www.nvidia.com/t4.pdf)", True),
    ("Rajbhandari et al., ZeRO: Memory Optimizations Toward Training Trillion Parameter Models, SC20", True),
    ("https://www.tencentcloud.com/pricing/cvm", True),
    ("REFERENCE-FACTS.md §1", False),
    ("kb/reference/gpus.yaml", False),
    ("../shared/reference/notes.md", False),
    ("secondary spec tables (NVIDIA H100 SXM)", False),
    ("NVIDIA marketing sheets", False),
    ("microsoft/DeepSpeed, deepspeed/runtime/zero/stage3.py (ZeRO-3 memory estimator)", True),
    ("EleutherAI, Transformer Math 101", True),
    ("", False),
])
def test_the_citation_check_itself(citation, ok):
    assert (citation_problem(citation) is None) == ok, citation_problem(citation)
