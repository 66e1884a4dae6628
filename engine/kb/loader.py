"""Loading the KB: a directory's sources, claims, reference facts and releases read and validated
against the vocabulary, every problem reported with its file and line (:func:`load_kb`)."""
from __future__ import annotations

from pathlib import Path
from typing import Any

from ..core.errors import Issue, ValidationError, short
from ..core.files import read_text, resolve_inside, tree_files
from ..core.yamlio import LineDict, check_top_keys, load_file
from .ids import CLAIM_ID, REF_ID, SOURCE_ID
from .releases import load_releases
from .store import KB, Fact, Source, Unknown
from .vocabulary import Vocabulary
from .unknowns import check_restates, check_unknowns, load_unknowns, restates
from .variants import check_variant_spans

MODALITIES = ("spec", "estimate", "verdict", "recommendation", "product-name")
CONFIDENCES = ("high", "medium", "low")
CLAIM_FIELDS = {"id", "version", "quote", "span", "subject", "attribute", "value", "unit", "qualifiers",
                "modality", "gloss_en", "approx", "note", "rests_on", "review"}
REF_FIELDS = {"id", "version", "subject", "attribute", "value", "unit", "qualifiers", "citation",
              "confidence", "note", "approx", "since", "modality", "gloss_en", "restates"}


def load_kb(root: str | Path, fill_spans: bool = False, include_pending: bool = False) -> KB:
    """Load and validate a KB directory; raise :class:`ValidationError` with every issue found.

    With ``fill_spans`` a claim without ``span`` gets one computed from its quote, and the claim files
    are rewritten in place (only the missing spans are added).
    """
    root = Path(root)
    if not root.is_dir():
        raise ValidationError(f"KB directory {root} not found", [Issue("KB directory not found", str(root))])
    issues: list[Issue] = []

    def rel(p: Path) -> str:
        try:
            return str(p.relative_to(root.parent))
        except ValueError:
            return str(p)

    # regular files only, none outside the directory: a FIFO, a device or an escaping symlink is refused
    names = {name for name, _ in tree_files(root, rel(root))}
    vocab = Vocabulary.load(root / "vocabulary.yaml", rel(root / "vocabulary.yaml"), root)
    sources = _load_sources(root, rel, issues, vocab)
    facts: list[Fact] = []
    unknowns: list[Unknown] = []
    for name in sorted(n for n in names if n.startswith("claims/") and n.endswith(".yaml") and n.count("/") == 1):
        facts += _load_claim_file(root / name, rel(root / name), vocab, sources, issues, fill_spans)
    for name in sorted(n for n in names if n.startswith("reference/") and n.endswith(".yaml") and n.count("/") == 1):
        facts += _load_reference_file(root / name, rel(root / name), vocab, issues, unknowns)
    check_restates(facts, issues)
    check_unknowns(unknowns, facts, issues)
    check_variant_spans(facts, vocab, issues)
    releases = load_releases(root / "versions.yaml", rel(root / "versions.yaml"), sources, facts, issues)
    seen: dict[str, Fact] = {}
    for f in facts:
        if f.key in seen:
            o = seen[f.key]
            issues.append(Issue(f"duplicate fact {f.key} (also {o.file}:{o.line})", f.file, f.line, "id"))
        seen[f.key] = f
    for f in facts:
        if f.version > 1 and f"{f.id}@{f.version - 1}" not in seen:
            issues.append(Issue(f"{f.key} has no version {f.version - 1}", f.file, f.line, "version"))
    if issues:
        raise ValidationError(f"the KB in {root} has {len(issues)} problem(s)", issues)
    return KB(root, vocab, sources, facts, releases, include_pending, unknowns)


def _load_sources(root: Path, rel, issues: list[Issue], vocab: Vocabulary | None = None) -> dict[str, Source]:
    path = root / "sources" / "sources.yaml"
    data = load_file(path, rel(path), root)
    out: dict[str, Source] = {}
    check_top_keys(data, ("sources",), rel(path), issues)
    items = data.get("sources") if isinstance(data, dict) else None
    if not isinstance(items, list):
        issues.append(Issue("expected a 'sources' list", rel(path), 1, "sources"))
        return out
    for item in items:
        line = getattr(item, "line", 0)
        if not isinstance(item, dict):
            issues.append(Issue("each source must be a mapping", rel(path), line))
            continue
        sid = item.get("id")
        if not isinstance(sid, str) or not SOURCE_ID.match(sid):
            issues.append(Issue(f"source id {short(sid)} must look like S000", rel(path), line, "id"))
            continue
        if sid in out:
            issues.append(Issue(f"duplicate source id {sid}", rel(path), line, "id"))
            continue
        fline = item.line_of("file") if isinstance(item, LineDict) else line
        fpath = root / "sources" / str(item.get("file", ""))
        if not isinstance(item.get("file"), str) or not item["file"] or not fpath.exists():
            issues.append(Issue(f"source file {short(item.get('file'))} not found under {rel(root / 'sources')}", rel(path), fline, "file"))
            continue
        try:   # inside kb/sources, a regular file, UTF-8 (the error names the byte offset)
            resolve_inside(fpath, root / "sources", rel(fpath))
            text = read_text(fpath, root / "sources", rel(fpath))
        except ValidationError as exc:
            issues += [Issue(i.message, rel(path), fline, "file") if i.file != rel(fpath) or i.line is None
                       else i for i in exc.issues]
            continue
        lang = item.get("language")
        if lang not in ("zh", "en"):
            issues.append(Issue(f"unknown language {short(lang)}", rel(path), line, "language", ["en", "zh"]))
        about = item.get("about") or []
        if not isinstance(about, list) or not all(isinstance(a, str) for a in about):
            issues.append(Issue(f"about must be a list of entity ids, got {short(about)}", rel(path), line, "about"))
            about = []
        elif vocab is not None:
            unknown = [a for a in about if a not in vocab.entities]
            for a in unknown:
                issues.append(Issue(f"about names unknown entity {short(a)}", rel(path), item.line_of("about"), "about",
                                    sorted(e for e in vocab.entities if e.startswith(("family:", "gpu:", "platform:")))))
            about = [a for a in about if a not in unknown]
        out[sid] = Source(sid, str(item["file"]), str(item.get("title") or ""), item.get("publisher"),
                          None if item.get("published") is None else str(item.get("published")),
                          str(lang), text, item.get("title_en"), tuple(about))
    return out


def _common(item: LineDict, fname: str, vocab: Vocabulary, issues: list[Issue]) -> dict | None:
    """Validate the fields claims and reference facts share; None when the item is unusable."""
    line = item.line
    ok = True
    for req in ("id", "version", "subject", "attribute", "value"):
        if req not in item:
            issues.append(Issue(f"missing required field '{req}'", fname, line, req))
            ok = False
    if not ok:
        return None
    ver = item["version"]
    if isinstance(ver, bool) or not isinstance(ver, int) or ver < 1:
        hint = "; in YAML remove the quotes" if isinstance(ver, str) and ver.isdigit() else ""
        issues.append(Issue(f"version must be a positive integer, got {short(ver)}{hint}", fname, item.line_of("version"), "version"))
        return None
    subj, attr = item["subject"], item["attribute"]
    issues_before = len(issues)
    if not isinstance(subj, str) or not isinstance(attr, str):
        issues.append(Issue("subject and attribute must be plain names, e.g. subject: gpu:T4, attribute: memory_gb",
                            fname, line, "subject" if not isinstance(subj, str) else "attribute"))
        return None
    if subj not in vocab.entities:
        issues.append(Issue(f"unknown subject {short(subj)}", fname, item.line_of("subject"), "subject", set(vocab.entities)))
    if attr not in vocab.attributes:
        issues.append(Issue(f"unknown attribute {short(attr)}", fname, item.line_of("attribute"), "attribute", set(vocab.attributes)))
    if len(issues) > issues_before:
        return None
    a = vocab.attributes[attr]
    kind = vocab.kind_of(subj)
    if a.applies_to and kind not in a.applies_to:
        issues.append(Issue(f"attribute {short(attr)} does not apply to a {kind} ({subj})", fname, item.line_of("attribute"), "attribute", list(a.applies_to)))
        return None
    vwhere = {"file": fname, "line": item.line_of("value")}
    norm, errs = vocab.check_value(attr, item["value"], item.get("unit"), vwhere)
    issues += errs
    quals, qerrs = vocab.check_qualifiers(item.get("qualifiers"), {"file": fname, "line": item.line_of("qualifiers")})
    issues += qerrs
    if errs or qerrs:
        return None
    if "approx" in item and not isinstance(item["approx"], bool):
        issues.append(Issue("approx must be true or false", fname, item.line_of("approx"), "approx"))
        return None
    for key in ("gloss_en", "note"):
        if item.get(key) is not None and not isinstance(item[key], str):
            issues.append(Issue(f"{key} must be text", fname, item.line_of(key), key))
            return None
    if item.get("unit") is not None and not isinstance(item["unit"], (str, int)):
        issues.append(Issue("unit must be a unit name", fname, item.line_of("unit"), "unit"))
        return None
    return {"norm": norm, "qualifiers": quals}


def _fact(fid: str, tier: str, item: LineDict, common: dict, fname: str, line: int, **extra: Any) -> Fact:
    """A checked item as a fact of ``tier``: the fields claims and reference facts share, and ``extra``."""
    return Fact(fid, item["version"], tier, item["subject"], item["attribute"], item["value"],
                None if item.get("unit") is None else str(item.get("unit")), common["norm"], common["qualifiers"],
                fname, line, approx=bool(item.get("approx", False)), note=item.get("note"), **extra)


def _load_claim_file(path: Path, fname: str, vocab: Vocabulary, sources: dict[str, Source],
                     issues: list[Issue], fill_spans: bool) -> list[Fact]:
    data = load_file(path, fname, path.parent.parent)
    if not isinstance(data, dict) or not isinstance(data.get("claims"), list):
        issues.append(Issue("expected a mapping with 'source' and a 'claims' list", fname, 1))
        return []
    check_top_keys(data, ("source", "claims"), fname, issues)
    sid = data.get("source")
    src = sources.get(sid)
    if src is None:
        issues.append(Issue(f"unknown source {short(sid)}", fname, data.line_of("source"), "source", set(sources)))
        return []
    out: list[Fact] = []
    fills: list[tuple[int, list[int]]] = []
    for item in data["claims"]:
        if not isinstance(item, LineDict):
            issues.append(Issue("each claim must be a mapping", fname, getattr(data["claims"], "line", 0)))
            continue
        line = item.line
        unknown = set(item) - CLAIM_FIELDS
        for k in sorted(unknown, key=str):
            issues.append(Issue(f"unknown field {short(k)}", fname, item.line_of(k), str(k), CLAIM_FIELDS))
        cid = item.get("id")
        if not isinstance(cid, str) or not CLAIM_ID.match(cid) or not cid.startswith(str(sid) + "-"):
            issues.append(Issue(f"claim id {short(cid)} must look like {sid}-C001", fname, line, "id"))
            continue
        quote = item.get("quote")
        if not isinstance(quote, str) or not quote:
            issues.append(Issue("missing or empty quote", fname, line, "quote"))
            continue
        span = item.get("span")
        if span is None:
            n = src.text.count(quote)
            if n == 0:
                issues.append(Issue(f"quote not found in {src.file}: {short(quote)}", fname, item.line_of("quote"), "quote"))
                continue
            if n > 1:
                issues.append(Issue(f"quote occurs {n} times in {src.file}; lengthen it so it is unique: {short(quote)}", fname, item.line_of("quote"), "quote"))
                continue
            start = src.text.index(quote)
            span = [start, start + len(quote)]
            if fill_spans:
                fills.append((item.line_of("quote"), span))
            else:
                issues.append(Issue("missing span (run `gpukb validate --fill-spans` to compute it)", fname, line, "span"))
                continue
        elif not (isinstance(span, list) and len(span) == 2 and all(isinstance(x, int) and not isinstance(x, bool) for x in span)):
            issues.append(Issue(f"span must be [start, end] with two integers, got {short(span)}", fname, item.line_of("span"), "span"))
            continue
        elif src.text[span[0]:span[1]] != quote:
            at = src.text[span[0]:span[1]]
            hint = ""
            if quote in src.text:
                s = src.text.index(quote)
                hint = f"; the quote is at [{s}, {s + len(quote)}]"
            issues.append(Issue(f"quote is not at its span: text[{span[0]}:{span[1]}] is {at!r}{hint}", fname, item.line_of("span"), "span"))
            continue
        mod = item.get("modality", "spec")
        if not isinstance(mod, str) or mod not in MODALITIES:
            issues.append(Issue(f"unknown modality {short(mod)}", fname, item.line_of("modality"), "modality", MODALITIES))
            continue
        review = item.get("review")
        if review is not None and review != "pending":
            issues.append(Issue(f"review must be 'pending' (delete the line once a curator has reviewed the claim), got {short(review)}",
                                fname, item.line_of("review"), "review", ["pending"]))
            continue
        rests = item.get("rests_on")
        if rests is not None and not (isinstance(rests, str) and CLAIM_ID.match(rests) and rests.startswith(sid + "-")
                                      and rests != cid):
            issues.append(Issue(f"rests_on must name another claim of {sid} (e.g. {sid}-C001), got {short(rests)}",
                                fname, item.line_of("rests_on"), "rests_on"))
            continue
        common = _common(item, fname, vocab, issues)
        if common is None:
            continue
        out.append(_fact(cid, "claim", item, common, fname, line, source=sid, quote=quote, span=list(span),
                         modality=mod, gloss_en=item.get("gloss_en"), rests_on=rests, pending=review == "pending"))
    known = {f.id for f in out}
    for f in out:
        if f.rests_on and f.rests_on not in known:
            issues.append(Issue(f"{f.id} rests_on {f.rests_on}, which is not a claim of {sid}", fname, f.line, "rests_on",
                                sorted(known)[:20]))
    if fill_spans and fills:
        _write_spans(path, fills)
    return out


def _write_spans(path: Path, fills: list[tuple[int, list[int]]]) -> None:
    """Insert ``span: [s, e]`` after each given quote line, keeping the rest of the file as written."""
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    for qline, (s, e) in sorted(fills, reverse=True):
        text = lines[qline - 1]
        indent = text[: len(text) - len(text.lstrip())]
        if indent.lstrip().startswith("-") or text.lstrip().startswith("- "):
            indent = indent + "  "
        if text.lstrip().startswith("- "):
            indent = text[: len(text) - len(text.lstrip())] + "  "
        lines.insert(qline, f"{indent}span: [{s}, {e}]\n")
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_text("".join(lines), encoding="utf-8")
    tmp.replace(path)


def _load_reference_file(path: Path, fname: str, vocab: Vocabulary, issues: list[Issue],
                         unknowns: list[Unknown] | None = None) -> list[Fact]:
    data = load_file(path, fname, path.parent.parent)
    if (not isinstance(data, dict) or not isinstance(data.get("facts", []), list)
            or not isinstance(data.get("unknowns", []), list) or not ("facts" in data or "unknowns" in data)):
        issues.append(Issue("expected a mapping with a 'facts' list (and optionally an 'unknowns' list)", fname, 1))
        return []
    check_top_keys(data, ("facts", "unknowns"), fname, issues)
    if unknowns is not None:
        unknowns += load_unknowns(data.get("unknowns") or [], fname, vocab, issues)
    out: list[Fact] = []
    for item in data.get("facts") or []:
        if not isinstance(item, LineDict):
            issues.append(Issue("each fact must be a mapping", fname, getattr(data["facts"], "line", 0)))
            continue
        for k in sorted(set(item) - REF_FIELDS, key=str):
            issues.append(Issue(f"unknown field {short(k)}", fname, item.line_of(k), str(k), REF_FIELDS))
        rid = item.get("id")
        if not isinstance(rid, str) or not REF_ID.match(rid):
            issues.append(Issue(f"reference id {short(rid)} must look like R-T4-memory_gb", fname, item.line, "id"))
            continue
        conf = item.get("confidence")
        if not isinstance(conf, str) or conf not in CONFIDENCES:
            issues.append(Issue(f"unknown confidence {short(conf)}", fname, item.line_of("confidence"), "confidence", CONFIDENCES))
            continue
        if not isinstance(item.get("citation"), str) or not item["citation"].strip():
            issues.append(Issue("a reference fact needs a citation", fname, item.line, "citation"))
            continue
        common = _common(item, fname, vocab, issues)
        if common is None:
            continue
        out.append(_fact(rid, "reference", item, common, fname, item.line, citation=item["citation"], confidence=conf,
                         since=None if item.get("since") is None else str(item.get("since")),
                         modality=str(item.get("modality", "spec")), gloss_en=item.get("gloss_en"),
                         restates=restates(item, fname, issues)))
    return out


