"""Answers in Chinese are Chinese throughout: what an answer assumed (its notes and caveats), what a question
lacks and the check's labels are said in Chinese under ``--lang zh`` / ``lang=zh`` (CLI, API, pages).

The test looks for English prose: a run of three or more English words in a row, at least two of them
lower-case words (names such as "Hugging Face Trainer", ids, flags, units and rule ids are allowed), in
the text fields a Chinese answer shows. Quotes, citations, ``en`` renderings and the names of the
vocabulary's entities are left out: they are the sources' and vendors' own words.
"""
from __future__ import annotations

import re
from html.parser import HTMLParser
from typing import Any, Iterator

import pytest

from ._engine import proof_nodes

#: fields that hold someone else's words or a machine id, not the engine's sentences
SKIP = {"en", "gloss_en", "quote", "citation", "question", "data", "parsed", "scenario", "conclusion_id", "id",
        "text", "title", "url", "examples", "premises", "cites", "stated_by", "rule_description", "explanation", "tree",
        "sources", "contradictions", "citations"}
#: a citation in an answer's sentence ("[1: AWS EC2 docs, ...]"): the source's own title
_CITED = re.compile(r"\[[^\[\]]*\]")
_WORD = r"[A-Za-z][A-Za-z'’]*"
_RUN = re.compile(rf"(?<![\w.-]){_WORD}(?:[ ,:;]+{_WORD}){{2,}}(?![\w.-])")


def english_prose(text: str, names: list[str]) -> list[str]:
    """The runs of English prose in ``text`` once the vocabulary's names and the citations are taken out."""
    text = _CITED.sub(" · ", text)
    for n in names:
        if n in text:
            text = text.replace(n, " · ")
    found = []
    for m in _RUN.finditer(text):
        words = re.findall(_WORD, m.group(0))
        if sum(1 for w in words if w.islower() and len(w) > 1) >= 2:
            found.append(m.group(0))
    return found


def zh_fields(o: Any, path: str = "") -> Iterator[tuple[str, str]]:
    if isinstance(o, dict):
        for k, v in o.items():
            if k not in SKIP:
                yield from zh_fields(v, f"{path}.{k}")
    elif isinstance(o, list):
        for v in o:
            yield from zh_fields(v, f"{path}[]")
    elif isinstance(o, str):
        yield path, o


@pytest.fixture(scope="module")
def names(app) -> list[str]:
    """Every entity's name, longest first (a name is a name in either language; an English name with English
    words in it has a ``name_zh``, which is what a Chinese answer says, so only the Chinese one is spared)."""
    vocab = app.extensions["gpukb"].kb.vocab
    return sorted({vocab.label(e, "zh") for e in vocab.entities}, key=len, reverse=True)


def assert_chinese(answer: Any, names: list[str], where: str) -> None:
    bad = [(p, run, s[:160]) for p, s in zh_fields(answer) for run in english_prose(s, names)]
    assert not bad, f"{where}: English in a Chinese answer: {bad[:5]}"


def test_the_detector_finds_english_notes_and_spares_names(names):
    assert english_prose("seq_len not given: assumed 512", names)
    assert english_prose("缺少：a GPU, instance or memory size", names)
    assert not english_prose("未指定精度：按 mixed 计算：与 PyTorch AMP 和 Hugging Face Trainer 的做法相同（R-AMP-fp32-weights）", names)
    assert not english_prose("该句提到多款产品（腾讯云 GN7（计算型，T4）, NVIDIA A100（任一显存规格））", names)
    assert english_prose("该句提到多款产品（NVIDIA A100 (either memory size)）", names)   # the English name's words
    assert not english_prose("最便宜的实例是 GN7.2XLARGE32 [Tencent Cloud GPU docs, Purchase Guide > Pricing Overview]。", names)


QUESTIONS = [
    "why not T4 for 13B full fine-tune",                          # sizing, English question
    "为什么 T4 不能全量微调 13B 模型",                               # sizing, Chinese question
    "can an H100 serve llama 3 70B",                              # inference
    "Does the T4 support BF16?",                                  # fact
    "T4 or A10 for 7B LoRA?",                                     # comparison
    "What is the cheapest GN7 size that can QLoRA a 7B model?",   # instance choice
    "longest context for Llama-3-8B inference on one A10",        # inverse
    "can a B300X train llama 7B",                                 # unknown GPU
    "hello",                                                      # nothing understood
    "A100 能全量微调 7B 吗",                                         # a generic A100, the method's default
]


@pytest.mark.parametrize("q", QUESTIONS)
def test_cli_json_answers_in_chinese(cli, names, q):
    a = cli.json("ask", q, "--lang", "zh", "--json")
    assert a["lang"] == "zh"
    assert_chinese(a, names, f"gpukb ask {q!r} --lang zh --json")


@pytest.mark.parametrize("q", QUESTIONS[:4] + QUESTIONS[7:9])
def test_cli_text_answers_in_chinese(cli, names, q):
    code, out, err = cli("ask", q, "--lang", "zh")
    assert code == 0, err
    lines = [ln for ln in out.splitlines() if not ln.lstrip().startswith(("解释：", "可以这样问"))]
    assert_chinese(lines, names, f"gpukb ask {q!r} --lang zh")


@pytest.mark.parametrize("q", QUESTIONS[:3] + QUESTIONS[4:8])
def test_api_answers_in_chinese(api, names, q):
    a = api.ok("/v1/ask", query_string={"q": q, "lang": "zh"})
    assert_chinese(a, names, f"/v1/ask?q={q}&lang=zh")


def test_english_answers_keep_their_english_notes(api):
    a = api.ok("/v1/ask", query_string={"q": "why not T4 for 13B full fine-tune", "lang": "en"})
    assert "seq_len not given: assumed 512" in a["notes"]
    assert "batch not given: assumed 1" in a["summary"]["caveats"]
    z = api.ok("/v1/ask", query_string={"q": "why not T4 for 13B full fine-tune", "lang": "zh"})
    assert "未指定序列长度（seq_len）：按 512 计算" in z["notes"]
    assert len(z["notes"]) == len(a["notes"]) and z["summary"]["en"] == a["summary"]["en"]


def test_query_and_explain_in_chinese(cli, gpukb, names):
    code, out, _ = cli("query", "--model", "llama-2-7b", "--gpu", "T4", "--method", "inference", "--zero", "2",
                       "--gradient-checkpointing", "--lang", "zh")
    assert code == 0
    assert_chinese([ln for ln in out.splitlines() if not ln.startswith("解释：")], names, "gpukb query --lang zh")
    a = gpukb.query({"model": "llama-2-7b", "gpu": "T4"}).to_json()
    assert "method not given: assumed full fine-tuning" in a["notes"]          # the API's query is English
    doc = gpukb.explain(a["conclusion_id"], "json", "zh").to_json()
    assert_chinese(doc["summary"]["caveats"], names, "explain --lang zh")
    assert any(c.startswith("容量：T4 在 nvidia-smi 中显示") for c in doc["summary"]["caveats"])
    en = gpukb.explain(a["conclusion_id"], "json", "en").to_json()["summary"]["caveats"]
    assert any(c.startswith("capacity: T4 reports") for c in en) and len(en) == len(doc["summary"]["caveats"])


def test_check_of_a_chinese_text_in_chinese(cli, names):
    text = "GN7 实例搭载 A100 GPU，T4 显存为 32 GB，支持 NVLink。单张 T4 可以全量微调 Llama-2-13B。今天天气很好。"
    code, out, err = cli("check", text, "--lang", "zh")
    assert code == 0, err
    assert "存疑" in out and "推理过程：" in out
    lines = [ln for ln in out.splitlines() if "“" not in ln and not ln.lstrip().startswith("[")]
    assert_chinese(lines, names, "gpukb check --lang zh")
    d = cli.json("check", text, "--lang", "zh", "--json")
    reasons = [r["zh"] for c in d["claims"] for r in c.get("unclear_because") or []]
    assert reasons
    assert_chinese(reasons, names, "unclear_because.zh")


class _Text(HTMLParser):
    """The text of the elements with one of ``classes`` (the notes, caveats and missing lists of a page)."""

    def __init__(self, classes: set[str]):
        super().__init__()
        self.classes, self.depth, self.out = classes, 0, []

    def handle_starttag(self, tag, attrs):
        cls = set((dict(attrs).get("class") or "").split())
        if self.depth or cls & self.classes:
            self.depth += 1
            if self.depth == 1:
                self.out.append("")

    def handle_endtag(self, tag):
        if self.depth:
            self.depth -= 1

    def handle_data(self, data):
        if self.depth:
            self.out[-1] += data


def page_texts(html: str, classes: set[str]) -> list[str]:
    p = _Text(classes)
    p.feed(html)
    return [t.strip() for t in p.out if t.strip()]


@pytest.mark.parametrize("q", ["why not T4 for 13B full fine-tune", "can a B300X train llama 7B", "hello"])
def test_pages_show_notes_in_chinese(client, names, q):
    r = client.get("/", query_string={"q": q, "lang": "zh"})
    assert r.status_code == 200
    html = r.get_data(as_text=True)
    texts = page_texts(html, {"notes", "caveats"})
    if q.startswith("why"):
        assert texts and any("未指定" in t for t in texts), texts
    assert_chinese(texts, names, f"/?q={q}&lang=zh")


def test_conclusion_and_audit_pages_in_chinese(client, gpukb, names):
    cid = gpukb.query({"model": "llama-2-7b", "gpu": "T4"}).to_json()["conclusion_id"]
    html = client.get(f"/conclusions/{cid}", query_string={"lang": "zh"}).get_data(as_text=True)
    assert "容量：T4 在 nvidia-smi 中显示" in html
    assert "minus the CUDA context" not in html
    audit = client.get("/audit", query_string={"lang": "zh"})
    assert audit.status_code == 200
    legend = page_texts(audit.get_data(as_text=True), {"legend"})
    assert_chinese(legend, names, "/audit?lang=zh legend")


# -- what the rules and the KB say in words: costs, reasons, price notes, refusals, the band's basis ---------

def test_every_sizing_text_a_rule_derives_has_its_chinese(gpukb):
    """A recommendation's cost and a note's reason are derived as English text; the rule's ``explain`` carries
    the same English and its Chinese (a Chinese answer shows that)."""
    rules = [r for r in gpukb.rules.rules if r.file.replace("\\", "/").split("/")[-2:-1] == ["sizing"]]
    texts = [(r, f, r.derive_text[f]) for r in rules for f in ("cost", "reason") if f in r.derive_text]
    assert len(texts) >= 15
    for r, f, text in texts:
        literal = text.strip("'")
        assert r.explain and r.explain["en"] == literal, f"{r.id}: explain.en must be its {f} ({literal!r})"
        assert re.search(r"[\u4e00-\u9fff]", r.explain["zh"]) and not english_prose(r.explain["zh"], []), r.id


def test_costs_reasons_and_band_in_chinese(api, names):
    z = api.ok("/v1/ask", query_string={"q": "can a T4 train a 7B model with lora", "lang": "zh"})
    e = api.ok("/v1/ask", query_string={"q": "can a T4 train a 7B model with lora", "lang": "en"})
    assert [r["cost"] for r in e["recommendations"]] != [r["cost"] for r in z["recommendations"]]
    assert all(re.search(r"[\u4e00-\u9fff]", r["cost"]) for r in z["recommendations"] if r.get("cost"))
    assert e["band"]["basis"] == "measured runs (dev)" and z["band"]["basis"] == "实测运行（开发集）"
    assert "能放下的最小改动：" in z["summary"]["zh"] and "（" in z["summary"]["zh"].split("能放下的最小改动：")[1]
    assert_chinese(z, names, "LoRA on a T4, lang=zh")
    z = api.ok("/v1/ask", query_string={"q": "can a T4 train llama 7B in bf16", "lang": "zh"})
    e = api.ok("/v1/ask", query_string={"q": "can a T4 train llama 7B in bf16", "lang": "en"})
    assert z["precision"] and z["precision"][0]["reason"] == "此 GPU 不原生支持 BF16"
    assert e["precision"][0]["reason"] == "no native BF16 on this GPU"
    assert "能放下的最小改动：" in z["summary"]["zh"] and "（" in z["summary"]["zh"].split("能放下的最小改动：")[1]
    assert_chinese(z, names, "LoRA on a T4, lang=zh")


def test_price_answers_in_chinese(api, names):
    q = "最便宜的能用 QLoRA 微调 7B 模型的实例"
    z = api.ok("/v1/ask", query_string={"q": q, "lang": "zh"})
    assert any(o.get("price_note", "").startswith("知识库中没有公开价格") for o in z["ranked"] + z["not_fitting"])
    assert any(o.get("error", "").startswith("无法计算这个场景") for o in z["tried"])
    assert_chinese(z, names, f"/v1/ask?q={q}&lang=zh")
    e = api.ok("/v1/ask", query_string={"q": q, "lang": "en"})
    assert any(o.get("price_note", "").startswith("the price is not published in the KB: ") for o in e["ranked"] + e["not_fitting"])
    assert any(o.get("error", "").startswith("cannot size this scenario: the KB release ") for o in e["tried"])


def test_a_refused_sizing_question_says_why_in_chinese(api, cli, names):
    q = "GN7vw.LARGE16 能推理 7B 模型吗"          # an instance whose GPU has no memory figure in the KB
    z = api.ok("/v1/ask", query_string={"q": q, "lang": "zh"})
    assert z["kind"] == "unknown" and z["missing"][0].startswith("无法计算这个场景")
    assert_chinese(z, names, f"/v1/ask?q={q}&lang=zh")
    e = api.ok("/v1/ask", query_string={"q": q, "lang": "en"})
    assert e["missing"] == ["gpu: no data on the GPU's memory in release " + e["kb_version"]]
    code, out, err = cli("query", "--instance", "GN7vw.LARGE16", "--model", "llama-2-7b", "--lang", "zh")
    assert code == 2 and "无法计算这个场景" in err
    assert_chinese(err.splitlines(), names, "gpukb query --lang zh (refused)")
    code, out, err = cli("query", "--instance", "GN7vw.LARGE16", "--model", "llama-2-7b")
    assert code == 2 and err.startswith("gpukb: error: cannot size this scenario")


def test_entity_names_in_chinese_answers(app, api, names):
    vocab = app.extensions["gpukb"].kb.vocab
    assert vocab.label("family:GN7") == "Tencent Cloud GN7 (compute, T4)"
    assert vocab.label("family:GN7", "zh") == "腾讯云 GN7（计算型，T4）"
    assert vocab.label("gpu:T4", "zh") == vocab.label("gpu:T4")            # no name_zh: the name as it is
    z = api.ok("/v1/ask", query_string={"q": "GN7 支持 BF16 吗", "lang": "zh"})
    assert "腾讯云 GN7（计算型，T4）" in z["answer"] and "(compute, T4)" not in z["answer"]
    assert_chinese(z, names, "GN7 支持 BF16 吗")
    e = api.ok("/v1/ask", query_string={"q": "Does GN7 support BF16?", "lang": "en"})
    assert "Tencent Cloud GN7 (compute, T4)" in e["answer"]


# -- the proof tree of a Chinese answer: labels, rule descriptions, reference notes, a derived record's basis ------

#: lower-case Latin words a Chinese sentence may keep: code identifiers and tools as they are typed
_KEPT = {"nvidia-smi", "token", "logits", "adamw", "mixed", "vllm", "serve", "torchtune", "litgpt", "autocast",
         "bf16", "fp16", "fp32", "json", "text", "dot", "prov", "aws", "tencent", "alibaba", "gcp", "heads", "id"}
_QUOTED = re.compile(r"'[^']*'|“[^”]*”|\"[^\"]*\"|https?://\S+")
_IDENT = re.compile(r"\S*(?:[_/.@]|\d)\S*|\bR-[\w.+-]+")
_LOWER = re.compile(r"(?<![\w-])[a-z][a-z'-]{2,}(?![\w-])")


def english_words(text: str, names: list[str]) -> list[str]:
    """Lower-case English words in ``text`` once names, citations, quotes, identifiers and the kept words are
    taken out (stricter than :func:`english_prose`: one English word in a Chinese label is one too many)."""
    text = _QUOTED.sub(" ", _CITED.sub(" ", text))
    for n in names:
        text = text.replace(n, " ")
    text = _IDENT.sub(" ", text)
    return [w for w in _LOWER.findall(text) if w not in _KEPT]


def tree_texts(t: dict) -> Iterator[tuple[str, str]]:
    """What a reader of a proof tree reads in a Chinese answer: each node's label, its rule's description,
    the reference fact's note, the derived record's basis and the labels of the facts its rule cites."""
    stack = [t]
    while stack:
        n = stack.pop()
        yield "label", (n.get("label") or {}).get("zh", "")
        yield "rule_description", (n.get("rule_description") or {}).get("zh", "")
        if n.get("note"):
            yield "note", n["note"]
        basis = (n.get("data") or {}).get("basis")
        if isinstance(basis, str) and not basis.startswith("R-"):
            yield "data.basis", basis
        for c in n.get("cites") or []:
            yield "cites.label", (c.get("label") or {}).get("zh", "")
        stack.extend(n.get("premises") or [])


def assert_tree_chinese(tree: dict, names: list[str], where: str) -> None:
    bad = sorted({(k, s[:140], tuple(english_words(s, names))) for k, s in tree_texts(tree) if english_words(s, names)})
    assert not bad, f"{where}: English in a Chinese proof tree ({len(bad)}): {bad[:6]}"


def test_the_word_detector(names):
    assert english_words("transformer activation memory (Korthikanti et al.) 公式系数：10", names)
    assert english_words("mixed precision 每参数字节数：4 B/param", [])
    assert english_words("act_coef", []) == []          # an identifier: the label test below asks for Chinese
    assert not english_words("容量：T4 在 nvidia-smi 中显示 15,360 MiB（R-CAPACITY-nvsmi；可用 vram_gb 覆盖）", names)
    assert not english_words("版本 1 引用的是 'secondary spec tables (NVIDIA A10)'。", names)


TREE_QUESTIONS = [
    "为什么T4不能全量微调13B模型",                 # does not fit, why not
    "A100 能全量微调 7B 吗",                       # fits
    "T4 能用 LoRA 微调 7B 模型吗",                 # recommendation, adapters
    "RTX 4090 能用 QLoRA 微调 13B 吗",             # QLoRA, paged optimizer
    "H100 能推理 Llama-3-8B 吗",                   # inference, KV cache
    "4 张 A100 用 ZeRO-2 全量微调 13B",            # several GPUs, DeepSpeed buckets
]


@pytest.mark.parametrize("q", TREE_QUESTIONS)
def test_proof_trees_of_chinese_answers_are_chinese(api, names, q):
    a = api.ok("/v1/ask", query_string={"q": q, "lang": "zh"})
    assert a["kind"] == "sizing", a["kind"]
    tree = a["explanation"]["tree"]
    assert_tree_chinese(tree, names, f"/v1/ask?q={q}&lang=zh")
    labels = [n["label"] for n in proof_nodes(tree)]
    assert all(lab["zh"] != n for lab, n in zip(labels, (m.get("type") for m in proof_nodes(tree))) if lab["zh"]), \
        "a Chinese label is a record type's name"




def test_explain_in_chinese_and_english_unchanged(gpukb, names):
    a = gpukb.query({"model": "llama-2-13b", "gpu": "T4", "method": "full"}).to_json()
    zh = gpukb.explain(a["conclusion_id"], "json", "zh").to_json()
    assert_tree_chinese(zh["tree"], names, "explain --lang zh")
    en = gpukb.explain(a["conclusion_id"], "json", "en").to_json()
    notes = {n["fact"]: n.get("note") for n in proof_nodes(en["tree"]) if n.get("note")}
    assert notes["R-T4-memory_gb@1"] == "16 GB GDDR6 on a 256-bit bus."
    zh_notes = {n["fact"]: n.get("note") for n in proof_nodes(zh["tree"]) if n.get("note")}
    assert zh_notes["R-T4-memory_gb@1"] == "16 GB GDDR6，256 位总线。" and set(zh_notes) == set(notes)
    parts = {n["data"]["component"]: n["data"].get("basis") for n in proof_nodes(en["tree"]) if n.get("type") == "mem_part"}
    zparts = {n["data"]["component"]: n["data"].get("basis") for n in proof_nodes(zh["tree"]) if n.get("type") == "mem_part"}
    assert parts["weights"] == "all parameters" and zparts["weights"] == "全部参数"
    assert [n["label"] for n in proof_nodes(en["tree"])] == [n["label"] for n in proof_nodes(zh["tree"])]


def test_conclusion_page_tree_in_chinese(client, gpukb, names):
    cid = gpukb.query({"model": "llama-2-13b", "gpu": "T4", "method": "full"}).to_json()["conclusion_id"]
    html = client.get(f"/conclusions/{cid}", query_string={"lang": "zh"}).get_data(as_text=True)
    texts = page_texts(html, {"nlabel", "note"})
    assert texts and "16 GB GDDR6，256 位总线。" in texts
    bad = [(t[:120], english_words(t, names)) for t in texts if english_words(t, names)]
    assert not bad, bad[:5]
    en = client.get(f"/conclusions/{cid}", query_string={"lang": "en"}).get_data(as_text=True)
    assert "16 GB GDDR6 on a 256-bit bus." in en


def test_every_note_a_sizing_rule_cites_has_its_chinese(gpukb):
    """The reference facts the sizing rules cite are every sizing proof's leaves: each note has a Chinese case."""
    wording, vocab = gpukb.kb.vocab.wording, gpukb.kb.vocab
    cited = {c.split("@")[0] for r in gpukb.rules.rules if "sizing" in r.file.replace("\\", "/") for c in r.cites}
    facts = [f for f in gpukb.kb.all_facts if f.tier == "reference" and f.id in cited and f.note]
    assert len(facts) >= 30
    missing = [f.id for f in facts if wording.label({"t": "ref_note", "note": f.note}, vocab)["zh"] == f.note]
    assert not missing, f"notes without a Chinese case in labels.ref_note: {missing}"


def test_swagger_in_chinese(client):
    html = client.get("/docs", query_string={"lang": "zh"}).get_data(as_text=True)
    assert 'data-spec="/docs/openapi.zh.json"' in html
    assert 'data-spec="/openapi.json"' in client.get("/docs").get_data(as_text=True)
    zh = client.get("/docs/openapi.zh.json").get_json()
    en = client.get("/openapi.json").get_json()
    assert zh["paths"].keys() == en["paths"].keys() and zh["components"]["schemas"] == en["components"]["schemas"]
    texts = [zh["info"]["summary"], zh["info"]["description"], *(t["description"] for t in zh["tags"])]
    for ops in zh["paths"].values():
        for op in ops.values():
            texts.append(op["summary"])
            texts += [p["description"] for p in op.get("parameters", []) if "description" in p]
            texts += [r["description"] for r in op["responses"].values() if "description" in r]
    texts += [p["description"] for p in zh["components"]["parameters"].values() if "description" in p]
    texts += [r["description"] for r in zh["components"]["responses"].values()]
    english = [t for t in texts if not re.search(r"[\u4e00-\u9fff]", t)]
    assert not english, english[:5]
    assert en["paths"]["/v1/ask"]["get"]["summary"].startswith("Answer a question")
