"""The checker's guards, in the order their reasons are reported (:mod:`.guard` says what each one
reads and why): each names a doubt about a claim's reading and words its reason in both languages."""
from __future__ import annotations

import re

from .explained import total_of_cards, unexplained_figure
from .document_guards import several_values
from .clause_guards import REQUIREMENTS, cut_off, unit_rate, attribute_unstated, with_gradients, workload_without_model, sharded_count_unstated, advice_bound, change_between, difference, marked_sparse, method_elsewhere, space_thousands, embedding_convention, model_named_size, other_precision_label, other_size_in_clause, several_precisions
from .pronouns import pronoun_for, pronoun_opens
from .readings import no_tensor_cores, round_figure, another_reading, beyond_figures, carried_vendor, count_unread, enough_count, setup_count, named_size, own_figure_elsewhere, precision_unstated, usable_scope
from .practice import capacity_place, family_sizes, count_within_practice, loose_bound, usual_count, within_practice
from .guard_base import Context, Guard, PRODUCT_KINDS, clause_of, distributed, cue_in_unit, last_figure, names_of, carries, memory_facts, own_ids, point_of, vocab_cues
from .versions import other_version
from .other_figures import other_form_factor, unknown_form_factor, bit_rate, dot_thousands, figure_then_card, from_to, memory_part, system_total, system_named, other_device, unknown_product, versus, year_off_by_one, alternative_sizes, model_row, own_value_after
from .figure_guards import (said_of_each, same_value, own_sparse_figure, binary_prefix, card_size, cards_counted, interconnect_bandwidth, multiple_of_one_card,
                            pcie_link, optimizer_scope, other_attributes_figure, other_products_figure, non_tensor_rate,
                            several_figures, workload_memory, card_capacity, weights_only)


def _several_products(ctx: Context) -> dict[str, str] | None:
    if ctx.attached or same_value(ctx) or own_sparse_figure(ctx) or distributed(ctx):
        return None             # "低于 H100 的 8.0 TB/s": the figure is written onto its product's name
    # the products the claim itself relates (a family and the GPU it carries) are not rival subjects
    value = ctx.claim.value if isinstance(ctx.claim.value, list) else [ctx.claim.value]
    named = {str(v) for v in value} | {ctx.vocab.generic(str(v)) for v in value}
    # nor are products the attribute cannot be said of ("g5.12xlarge has eight A10G GPUs": a GPU has no GPU count)
    applies = ctx.vocab.attributes[ctx.claim.attribute].applies_to if ctx.claim.attribute in ctx.vocab.attributes else ()
    # nor the instances that carry the claim's GPU ("the A10G in AWS G5 instances has 24 GB": where it is), or the GPU
    # an instance claim's figure is of ("p5.48xlarge: 8 H100 GPUs with 80 GB each")
    placed = ctx.vocab.kind_of(ctx.claim.subject) == "gpu" or said_of_each(ctx)
    rivals = [p for p in ctx.products if p not in named and
              (p == ctx.vocab.generic(ctx.claim.subject) or ctx.vocab.kind_of(p) in applies)
              and not (placed and carries(ctx.view, p, ctx.claim.subject))]
    if len(rivals) < 2:
        return None
    return {"products": names_of(ctx, rivals), "products_zh": "、".join(ctx.vocab.label(e, "zh") for e in rivals)}


def _conditional(ctx: Context) -> dict[str, str] | None:
    return cue_in_unit(ctx, "condition")


def _subject_from_context(ctx: Context) -> dict[str, str] | None:
    c, vocab = ctx.claim, ctx.vocab
    if vocab.kind_of(c.subject) not in PRODUCT_KINDS:
        return None
    own = own_ids(vocab, c.subject)
    named = set(ctx.products) | {e for p in ctx.products for e in (vocab.entities.get(p, {}).get("variants") or ())}
    if own & named or any(carries(ctx.view, p, c.subject) for p in ctx.products) or pronoun_for(ctx, own):
        return None
    return {"subject": vocab.label(c.subject)}


#: what a training verdict or requirement depends on when the text names no method: full fine-tuning,
#: LoRA and QLoRA of one model differ several-fold in memory
METHOD_BOUND = ("memory_verdict", "suitability", "min_gpus", "memory_required")
#: tasks that leave the training method open (pre-training and large-scale training are full training)
OPEN_METHOD_TASKS = ("training", "fine_tuning", "nlp_training", "cv_training")


def _component_named(ctx: Context) -> dict[str, str] | None:
    """"the KV cache for a 70B FP16 model consumes around 80 GB": a requirement whose clause, before its figure,
    names one part of a run's memory (cues ``check_guard.component``), or whose paragraph does before a clause
    drawing its consequence ("…, so …"), is that part's size, which gpukb's total of the run does not judge."""
    c = ctx.claim
    fig = last_figure(ctx.low, c.span)
    if c.attribute not in REQUIREMENTS or fig is None:
        return None
    a, _ = clause_of(ctx, fig.start())
    if _CONSEQUENCE.search(ctx.low, max(ctx.unit[0], a - 12), min(a + 16, fig.start())):
        a = ctx.low.rfind("\n", 0, ctx.unit[0]) + 1    # "the KV cache is 0.5 MiB per token, so 4,096 tokens use about 2 GiB"
    for rx in vocab_cues(ctx.vocab, "component"):
        m = rx.search(ctx.low, a, fig.start())
        if m:
            return {"word": ctx.text[m.start():m.end()]}
    tail = ctx.low[fig.end():min(ctx.unit[1], fig.end() + 60)]                  # "8GB+ just for the cache"
    m = next((m for rx in vocab_cues(ctx.vocab, "component_after") for m in [rx.match(tail)] if m), None)
    return {"word": ctx.text[fig.end():fig.end() + m.end()].strip()} if m else None


#: a clause that draws a consequence of the one before it, of which it goes on speaking
_CONSEQUENCE = re.compile(r"(?<![a-z])(?:so|thus|hence|therefore|which\s+means|meaning)(?![a-z])|所以|因此|因而|这意味着|也就是说")

def _within_error_band(ctx: Context) -> dict[str, str] | None:
    """"You can LoRA a 7B model on a 16 GB T4": gpukb's need (18.6 GB) and the card's capacity (15.6 GB) differ
    by less than its estimates' error band against published measurements of the method's runs (measured
    0.74-1.22 times the estimate): the run may fit or not, so a verdict either way is not called wrong."""
    v = ctx.verdict
    if not v or "capacity_gb" not in v:
        return None
    need, cap, band = v["need_gb"], v["capacity_gb"], v["band"]
    if not max(need * band["low"], v.get("floor_gb") or 0) <= cap <= need * band["high"]:
        return None             # "a 13B model in FP16 on a 24 GB card": its 26 GB of weights alone do not fit
    return {"need": f"{need:.1f}", "capacity": f"{cap:.1f}", "low": f"{need * band['low']:.1f}",
            "high": f"{need * band['high']:.1f}", "points": str(band.get("points", "")), "method": v["method"].split(":")[-1],
            "ratios": f"{band['low']:g}–{band['high']:g}"}


def _requirement_within_band(ctx: Context) -> dict[str, str] | None:
    """"Full fine-tuning of a 7B model needs about 200 GB": gpukb's total for the run (130 GB) times the ratios
    measured over published runs of the method (up to 1.88 for full fine-tuning) reaches the stated need, so the
    text may describe a setup that takes that much; over or under that band, the claim is still called wrong."""
    v = ctx.verdict
    if not v or "capacity_gb" in v or ctx.status not in ("overstated", "understated"):
        return None
    need, band = v["need_gb"], v["band"]
    lo, hi = getattr(ctx.claim.norm, "lo", None), getattr(ctx.claim.norm, "hi", None)
    low, high = need * band["low"], need * band["high"]
    inside = (lo is not None and lo <= high) if ctx.status == "overstated" else \
        ((hi if hi is not None else lo) is not None and (hi if hi is not None else lo) >= low)
    if not inside:
        return None
    return {"need": f"{need:.1f}", "low": f"{low:.1f}", "high": f"{high:.1f}", "points": str(band.get("points", "")),
            "method": v["method"].split(":")[-1], "ratios": f"{band['low']:g}–{band['high']:g}"}


def _variant_unstated(ctx: Context) -> dict[str, str] | None:
    """"推荐配置为两块A100": a verdict or GPU count for a product named without its memory size, whose versions
    differ in memory (A100 40 / 80 GB). gpukb sizes the smallest; a claim that the run fits (or needs no more
    cards) may be about a larger version, so it is not wrong unless gpukb's need per GPU exceeds even the
    largest one's memory. A claim that it does not fit is judged as before: it fails on the smallest too."""
    c, vocab = ctx.claim, ctx.vocab
    optimistic = (c.attribute in ("suitability", "memory_verdict") and vocab.polarity(str(c.value)) > 0
                  and ctx.status == "inconsistent_with_derivation") or (c.attribute == "min_gpus" and ctx.status == "understated")
    variants = vocab.entities.get(c.subject, {}).get("variants") or ()
    if not optimistic or len(variants) < 2:
        return None
    sizes = sorted({x for r in memory_facts(ctx.view, tuple(variants)) if (x := point_of(r))})
    need = (ctx.verdict or {}).get("need_gb")
    if len(sizes) < 2 or (need is not None and need > sizes[-1]):
        return None
    return {"product": vocab.label(c.subject), "sizes": " / ".join(f"{x:g}" for x in sizes)}


def _method_unstated(ctx: Context) -> dict[str, str] | None:
    c = ctx.claim
    if c.attribute in METHOD_BOUND and c.qualifiers.get("method") == "method:full" and "methods" not in c.qualifiers \
            and ctx.vocab.kind_of(c.subject) in PRODUCT_KINDS and cue_in_unit(ctx, "full_said") is None:
        return {}               # "you can fine-tune a 7B model on a 24 GB GPU": LoRA and QLoRA are fine-tuning too
    if c.attribute not in METHOD_BOUND or c.qualifiers.get("method"):
        return None
    tasks = c.qualifiers.get("task") or []
    tasks = [tasks] if isinstance(tasks, str) else tasks
    if not tasks or not all(str(t) in OPEN_METHOD_TASKS for t in tasks):
        return None
    return {}


def _unread_precision(ctx: Context) -> dict[str, str] | None:
    c = ctx.claim
    if c.attribute not in METHOD_BOUND + ("max_params", "bytes_per_param") or c.qualifiers.get("precision"):
        return None
    return cue_in_unit(ctx, "unread_precision")


GUARDS: tuple[Guard, ...] = (
    Guard("several_products",
          "the sentence names several products ({products}); gpukb cannot tell for sure which one the figure belongs to",
          "该句提到多款产品（{products_zh}），gpukb 无法确定该数字属于哪一款", _several_products),
    Guard("other_products_figure",
          "the figure is the {other}'s ({figure}, {citation}), a product the text also names: the figure may belong to it",
          "该数字正是文中也提到的 {other} 的参数（{figure}，{citation}），可能属于后者", other_products_figure),
    Guard("other_attributes_figure",
          "the figure is this product's {attribute} ({figure}); the sentence gives several figures, and which one goes with which word is unclear",
          "该数字正是该产品的{attribute_zh}（{figure}）；句中有多个数字，对应关系不明", other_attributes_figure),
    Guard("no_tensor_cores",
          "the {product} has no Tensor Cores: a rate said in a precision alone is its plain rate in that precision, not the Tensor Core rate gpukb judged",
          "{product_zh} 没有 Tensor Core：只写精度的算力是该精度的普通算力，而非 gpukb 核对的 Tensor Core 算力", no_tensor_cores),
    Guard("non_tensor_rate",
          "the figure is this card's FP32 rate ({figure}, {citation}) and its words never say Tensor: it may be the card's FP16 rate on its shader cores, which many cards run at their FP32 rate, not its Tensor Core rate",
          "该数字正是该卡的 FP32 算力（{figure}，{citation}），且文中未提 Tensor：它可能是着色器核心的 FP16 算力（许多卡与其 FP32 算力相同），而非 Tensor Core 算力", non_tensor_rate),
    Guard("another_reading",
          "the figure is exactly the {product}'s {attribute} ({figure}, {citation}): the text may mean that, not the figure gpukb read",
          "该数字正是{product_zh}的{attribute_zh}（{figure}，{citation}）：文中可能指的是它，而非 gpukb 读出的那一项", another_reading),
    Guard("multiple_of_one_card",
          "the figure is {n} × one card's memory ({card}): it may be the total of a {n}-GPU instance or server",
          "该数字是单卡显存（{card}）的 {n} 倍，可能是 {n} 卡实例或服务器的合计", multiple_of_one_card),
    Guard("cards_counted",
          "the sentence counts several of these cards (“{word}”): the memory figure is set against or shared by them, not one card's size",
          "该句提到多张这种显卡（“{word}”）：该显存数字是与多卡合计相比或由多卡共享的，而非单卡的显存", cards_counted),
    Guard("beyond_figures",
          "{figure} is more than twice the largest figure of its kind any version of the {product} has ({largest}, its {attribute}): it reads as a total, a workload's figure or another product's, not one card's",
          "{figure} 超过 {product_zh} 任何版本同类数值最大值（{attribute_zh} {largest}）的两倍：更像是合计、工作负载的数字或其他产品的数字，而非单卡数值", beyond_figures),
    Guard("unexplained_figure",
          "{figure} is near no figure gpukb knows for the {product}'s {attribute} ({own} is the nearest), nor any figure of its kind of the {product} or of a product the text names, and the clause does not state it of the {product} in so many words: it may be a figure of something else",
          "{figure} 与 gpukb 所知 {product_zh} 的{attribute_zh}（最接近的是 {own}）相去甚远，也不等于 {product_zh} 或文中其他产品的任何同类数值，且该句并未明确说这是 {product_zh} 的数值：可能是别的东西的数字", unexplained_figure),
    Guard("total_of_cards",
          "{figure} is {n} × one card's {attribute} ({card}), and the sentence names {n} cards: it is their total, not one card's",
          "{figure} 是单卡{attribute_zh}（{card}）的 {n} 倍，且该句提到 {n} 张卡：是这些卡的合计，而非单卡数值", total_of_cards),
    Guard("named_size",
          "the text names the card by its memory size (“{name}”): another memory figure beside it is what a workload takes or leaves, not the card's",
          "文中以显存规格称呼该卡（“{name}”）：旁边的另一个显存数字是工作负载占用或剩余的显存，而非该卡的显存", named_size),
    Guard("own_figure_elsewhere",
          "the sentence gives the {name} its own figure ({own}): the other figure is another product's or another thing's",
          "该句已给出 {name} 自己的数值（{own}）：另一个数字属于别的产品或别的事物", own_figure_elsewhere),
    Guard("precision_unstated",
          "the sentence does not say which precision the throughput is in; gpukb's reading of it as the {attribute} is a guess",
          "该句未说明算力对应的精度；gpukb 将其读作{attribute_zh}只是猜测", precision_unstated),
    Guard("difference",
          "the figure is the amount by which one thing exceeds or falls short of another (“{word}”), not the product's",
          "该数字是一方超出或少于另一方的差额（“{word}”），而非该产品的数值", difference),
    Guard("other_size_in_clause",
          "the figure's clause speaks of another model size ({size}) than the one gpukb sized",
          "该数字所在分句说的是另一种模型规模（{size}），并非 gpukb 计算的那一种", other_size_in_clause),
    Guard("other_precision_label",
          "the figure is labelled “{word}” in brackets: it is that precision's",
          "该数字后括注“{word}”：属于该精度", other_precision_label),
    Guard("several_precisions",
          "the clause names several precisions ({precisions}) and gpukb read the figure with all of them: which figure goes with which precision is unclear",
          "该句提到多种精度（{precisions_zh}），gpukb 将该数字与它们一并读取：哪个数字对应哪种精度不明", several_precisions),
    Guard("embedding_convention",
          "parameter counts are given with or without the embedding and output matrices ({emb} here) and rounded: the figure is within that of the reference ({reference})",
          "参数量有含与不含词嵌入和输出矩阵（此处为 {emb}）两种算法，且常被取整：该数字与参考值（{reference}）之差在此范围内", embedding_convention),
    Guard("model_named_size",
          "the {name} is named by its size; another parameter count beside it is another model's",
          "{name} 的名称已说明其规模；旁边的另一个参数量属于别的模型", model_named_size),
    Guard("interconnect_bandwidth",
          "the figure stands next to “{word}”: it may be an interconnect bandwidth, not the memory bandwidth",
          "该数字紧邻“{word}”，可能是互联带宽而非显存带宽", interconnect_bandwidth),
    Guard("pcie_link",
          "the sentence names “{word}” and not NVLink: the interconnect bandwidth may be the PCIe link's",
          "该句提到“{word}”而未提 NVLink：该互联带宽可能是 PCIe 链路的", pcie_link),
    Guard("conditional",
          "the sentence is a condition or hypothesis (“{word}”), which states nothing",
          "该句是条件或假设（“{word}”），并未断言", _conditional),
    Guard("variant_unstated",
          "the text does not name the {product}'s memory size, and its versions have {sizes} GB: gpukb sized the smallest, and on a larger one the run may fit",
          "文中未说明 {product} 的显存规格，其各版本分别为 {sizes} GB：gpukb 按最小显存的版本计算，换成更大显存的版本可能放得下", _variant_unstated),
    Guard("family_sizes",
          "{family}'s sizes carry {counts} GPUs: the claim may be about a size with several, while gpukb sized one card",
          "{family} 的各规格分别配备 {counts} 块 GPU：该说法可能指多卡规格，而 gpukb 按单卡计算", family_sizes),
    Guard("method_unstated",
          "the text does not say how the model is trained (full fine-tuning, LoRA or QLoRA), and the memory it takes differs several-fold between them",
          "文中未说明训练方式（全参数微调、LoRA 或 QLoRA），而三者所需显存相差数倍", _method_unstated),
    Guard("unread_precision",
          "the text sizes the workload in “{word}”, which gpukb's sizing does not take into the scenario it checks",
          "文中按“{word}”估算该任务，gpukb 的计算场景未包含这一精度或量化格式", _unread_precision),
    Guard("count_unread",
          "the sentence speaks of “{word}”, a count of GPUs the scenario gpukb checked does not carry",
          "该句提到“{word}”，而 gpukb 核查的场景未包含这一显卡数量", count_unread),
    Guard("usable_scope",
          "what a run can use is the memory nvidia-smi shows less the runtime's reserve (CUDA context, framework, communication buffers), which the text may subtract; only nvidia-smi's own figure is checked",
          "实际可用显存等于 nvidia-smi 显示的显存减去运行时预留（CUDA 上下文、框架、通信缓冲），文中可能已扣除；只有 nvidia-smi 显示的数字才与之核对", usable_scope),
    Guard("workload_without_model",
          "the text does not say which model size the memory figure is for",
          "文中未说明该显存数字对应的模型规模", workload_without_model),
    Guard("pronoun_opens",
          "the sentence opens with a pronoun for the product named before it, and names the {product} only after this: the claim may be the pronoun's product's",
          "该句以指代前文产品的代词开头，{product_zh} 在其后才出现：该说法可能属于代词所指的产品", pronoun_opens),
    Guard("subject_from_context",
          "the sentence does not name {subject}: gpukb took the product from the text around it",
          "该句未提到 {subject}，产品是 gpukb 从上下文推断的", _subject_from_context),
    Guard("round_figure",
          "the figure is written with one significant digit ({figure}), and the {product}'s {reference} rounds to it: a rounded figure, not a wrong one",
          "该数字只写了一位有效数字（{figure}），{product_zh} 的 {reference} 四舍五入即为此数：是约数，不是错误", round_figure),
    Guard("attribute_unstated",
          "the figure's clause has no word for {attribute}: gpukb read it as that from its unit alone, and the text may mean another quantity",
          "该数字所在分句未提到{attribute_zh}：gpukb 仅凭单位将其读作此项，文中可能指的是别的量", attribute_unstated),
    Guard("several_figures",
          "the sentence gives {n} figures of this kind for products the text compares; which belongs to which is unclear",
          "该句给出 {n} 个同类数字，而文中比较了多款产品，对应关系不明", several_figures),
    Guard("per_unit_rate",
          "the figure is a rate (“{word}”), not a total", "该数字是比率（“{word}”），不是总量", unit_rate),
    Guard("system_total",
          "the figure is a total (“{word}”), of several cards, not one card's",
          "该数字是总量（“{word}”），为多张卡合计，而非单卡数值", system_total),
    Guard("other_device",
          "the figure is said of other hardware (“{word}”), not of the product gpukb read",
          "该数字说的是其他硬件（“{word}”），而非 gpukb 读出的产品", other_device),
    Guard("figure_then_card",
          "the figure is followed by a card's name (“{word}”): what a workload takes on that card, not the card's memory",
          "该数字后括注显卡名称（“{word}”）：是工作负载在该卡上所需的显存，而非该卡的显存容量", figure_then_card),
    Guard("from_to",
          "the figure follows a change from one product's figure to another's (“{word}”): it is not the first product's",
          "该数字位于从一款产品的数值到另一数值的变化之后（“{word}”）：并非前一款产品的数值", from_to),
    Guard("alternative_sizes",
          "the figure is one of several memory sizes written as alternatives (“{word}”), which a product sold in one size does not have: they may be another product's",
          "该数字是以“或”并列的几种显存规格之一（“{word}”），只有一种规格的产品不会有：可能属于另一款产品", alternative_sizes),
    Guard("model_row",
          "the figure is in a table row about a model (“{word}”): it is what the model needs, not a card's memory",
          "该数字位于关于模型的表格行（“{word}”）：是模型所需显存，而非显卡显存", model_row),
    Guard("own_value_after",
          "the text gives {name} its own memory ({own}) in brackets: the other one it names is another product's",
          "文中在 {name} 后的括号里给出了它自己的显存类型（{own}）：另一种属于别的产品", own_value_after),
    Guard("year_off_by_one",
          "the reference gives {year}: a GPU's announcement and its first shipments can fall in consecutive years",
          "参考资料为 {year} 年：GPU 的发布与首批出货可能相差一年", year_off_by_one),
    Guard("system_named",
          "the text names the card inside a system's name (“{name}”): the figure is the system's, not one card's",
          "文中的显卡名称是系统名称的一部分（“{name}”）：该数字属于整个系统，而非单卡", system_named),
    Guard("marked_sparse",
          "“{figure}” carries a footnote mark the text does not explain and is the product's with-sparsity figure, which datasheets mark so",
          "“{figure}”带有文中未解释的脚注标记，且正是该产品的稀疏算力数值，数据手册即如此标注", marked_sparse),
    Guard("cut_off",
          "the text ends right after “{figure}”: the rest of its unit (GB/s, TB/s) may have been cut off with the page",
          "文本在“{figure}”之后即结束：其单位的其余部分（如 GB/s、TB/s）可能随网页被截断", cut_off),
    Guard("space_thousands",
          "“{figure}” may be one number with its thousands grouped by a space, as French or Russian texts write them",
          "“{figure}”可能是以空格分隔千位的一个数（法语、俄语等的写法）", space_thousands),
    Guard("dot_thousands",
          "“{figure}” read with the dot as a thousands separator, as German, Italian, Spanish or Portuguese texts write numbers, is {read}: the {product}'s own figure ({reference})",
          "“{figure}”若按德语、意大利语、西班牙语或葡萄牙语的写法把点视为千位分隔符，即为 {read}，正是 {product_zh} 的数值（{reference}）", dot_thousands),
    Guard("other_form_factor",
          "the figure follows “{form}”, the form factor of {product}, which the text also names: it may be that version's figure",
          "该数字紧跟在“{form}”之后，即文中同样提到的 {product} 的外形规格：可能是该版本的数值", other_form_factor),
    Guard("other_version",
          "the text speaks of a version of the product it calls “{word}”: the figure may be that version's, which gpukb does not know",
          "文中提到该产品的“{word}”版本：该数值可能属于 gpukb 不了解的这个版本", other_version),
    Guard("versus",
          "the figure goes with “{word}”: it is what the product is compared with or does not have, not the product's own",
          "该数字与“{word}”相连：是被比较对象的数值或该产品所没有的数值，而非该产品本身的数值", versus),
    Guard("carried_vendor",
          "the sentence names no vendor for {product}; gpukb took {vendor} from the text around it, and {vendor} sells nothing of its kind: the text names {vendor} for something else",
          "该句未说明 {product} 的厂商；gpukb 是从上下文读出 {vendor_zh} 的，而 {vendor_zh} 并不提供此类产品：文中提到 {vendor_zh} 是为了别的内容", carried_vendor),
    Guard("unknown_product",
          "the figure follows {name}, a product gpukb does not know: it may be that product's",
          "该数字紧跟在 gpukb 不认识的产品 {name} 之后，可能是该产品的数字", unknown_product),
    Guard("memory_part",
          "the figure is said of each memory stack, die or chip (“{word}”), not of the whole card",
          "该数字是每个显存堆栈、裸片或颗粒的数值（“{word}”），而非整卡的数值", memory_part),
    Guard("bit_rate",
          "the figure ({figure}) is in bits per second: a memory's per-pin data rate or a link's speed, not the card's memory bandwidth",
          "该数字（{figure}）以比特每秒计：是显存每针脚的数据速率或链路速率，而非显卡的显存带宽", bit_rate),
    Guard("card_size",
          "the figure names a card size; the requirement may be several such cards",
          "该数字是显卡规格，需求可能是多张此类显卡", card_size),
    Guard("binary_prefix",
          "the reference gives the same number in the other unit ({figure}); vendors often write {unit} for it",
          "参考资料以另一单位给出同一数字（{figure}），厂商常混用 {unit}", binary_prefix),
    Guard("optimizer_scope",
          "the reference ({figure}) counts the FP32 master copy of the weights differently: the figure may count the optimizer's states without it, or with it",
          "参考值（{figure}）对权重 FP32 主副本的计入方式不同：该数字可能只计优化器状态，或连同主副本一并计入", optimizer_scope),
    Guard("with_gradients",
          "the sentence names the gradients (“{word}”): the figure counts the weights, gradients and optimizer states together, not the optimizer's states alone",
          "该句提到梯度（“{word}”）：该数字是权重、梯度与优化器状态的合计，而非优化器状态本身", with_gradients),
    Guard("loose_bound",
          "the text gives a bound ({bound}), and gpukb's estimate lies beyond it on the side the bound allows: true as stated, though far from the need",
          "文中给出的是界限（{bound}），gpukb 的估算在该界限允许的一侧：按字面是对的，只是与实际需求相差较远", loose_bound),
    Guard("within_practice",
          "the text states no optimizer but AdamW and no precision but a 16-bit one (which pure 16-bit and mixed precision training both use), and the figure is within what common setups need ({lo}–{hi} GB)",
          "文中未说明 AdamW 以外的优化器，也未说明 16 位以外的精度（纯 16 位训练和混合精度训练都用 16 位），该数字在常见配置所需范围内（{lo}–{hi} GB）", within_practice),
    Guard("capacity_place",
          "the count of GPUs only says where a memory figure is (“{words}”), not how many GPUs the workload needs",
          "该显卡数量只是说明某个显存数字所在之处（“{words}”），而非该负载所需的显卡数量", capacity_place),
    Guard("usual_count",
          "the text gives a usual or recommended count of GPUs (“{word}”), not the fewest that fit: more than the fewest is no overstatement",
          "文中给出的是通常或推荐的卡数（“{word}”），而非最少所需卡数：多于最少卡数并非夸大", usual_count),
    Guard("setup_count",
          "the text gives the GPUs a setup uses (“{word}”), not that fewer would not do: more than the fewest overstates nothing",
          "文中给出的是所用配置的显卡数量（“{word}”），并未说更少不行：多于最少卡数并非夸大", setup_count),
    Guard("enough_count",
          "the text says the GPUs are enough (“{word}”), not that fewer would not do: more than the fewest overstates nothing",
          "文中说的是这些显卡足够（“{word}”），并未说更少不行：多于最少卡数并非夸大", enough_count),
    Guard("count_within_practice",
          "the text states no precision or optimizer that sets it apart, and a count of {n} GPU(s) lies between what {setups} need on these cards ({lo}–{hi})",
          "文中未说明能区分配置的精度或优化器，{n} 张卡介于{setups_zh}在这类显卡上所需的数量之间（{lo}–{hi} 张）", count_within_practice),
    Guard("workload_memory",
          "the figure is said with “{word}”: it may be memory a workload takes (weights, cache, what is left), not the card's memory",
          "该数字与“{word}”连用：可能是工作负载占用的显存（权重、缓存、剩余），而非显卡的显存容量", workload_memory),
    Guard("card_capacity",
          "the figure ({figure}) is a card's memory ({cards}): the text may give the card the run fits on, not what it needs",
          "该数字（{figure}）正是显卡的显存容量（{cards_zh}）：文中可能给出的是能容纳该任务的显卡规格，而非实际需求", card_capacity),
    Guard("within_error_band",
          "gpukb's estimate ({need} GB per GPU) is within its error band of the usable memory ({capacity} GB): {points} published {method} runs measured {ratios} times gpukb's estimate, {low}–{high} GB here, so the run may fit or not",
          "gpukb 的估算（每卡 {need} GB）与可用显存（{capacity} GB）之差在其误差范围内：{points} 次已发表的 {method} 实测为 gpukb 估算的 {ratios} 倍，此处即 {low}–{high} GB，可能放得下也可能放不下", _within_error_band),
    Guard("requirement_within_band",
          "gpukb's estimate of the run is {need} GB per GPU, and {points} published {method} runs measured {ratios} times gpukb's estimate ({low}–{high} GB here): the stated need is within that band, so gpukb does not call it wrong",
          "gpukb 对该任务的估算为每卡 {need} GB，而 {points} 次已发表的 {method} 实测为 gpukb 估算的 {ratios} 倍（此处即 {low}–{high} GB）：文中的需求在此范围内，gpukb 不判其为错", _requirement_within_band),
    Guard("unknown_form_factor",
          "the figure is given for a “{word}” board, and gpukb knows {product} only as a board of {widths} slot(s): it is a version gpukb has no figures of",
          "该数字对应“{word}”版本，而 gpukb 所知的 {product} 只有 {widths} 槽宽的版本：这是 gpukb 没有参数的版本", unknown_form_factor),
    Guard("sharded_count_unstated",
          "the run is sharded over GPUs (“{word}”) and the text gives no GPU count: the figure is per GPU of an unknown count, or a total",
          "该运行分片于多张 GPU（“{word}”），而文中未给出 GPU 数量：该数字是未知卡数下的单卡数值或合计", sharded_count_unstated),
    Guard("advice_bound",
          "the bound is said as advice on what to look for (“{word}”): a buyer's threshold, not a figure of the product",
          "该界限是选型建议（“{word}”）：是挑选显卡的门槛，而非该产品的数值", advice_bound),
    Guard("method_elsewhere",
          "the method (“{word}”) is named only in another clause after the figure's: the figure's own clause does not say it is that method's need",
          "训练方式（“{word}”）只出现在该数字所在分句之后的另一分句中：该数字所在分句并未说明它是这种方式的显存需求", method_elsewhere),
    Guard("change_between",
          "the figure is one end of a change between two memory figures (“{word}”): one is the setup before the change, the other after it, and gpukb sizes one run",
          "该数字是两个显存数值之间变化的一端（“{word}”）：一个是变化前的配置，另一个是变化后的，而 gpukb 只估算一种运行", change_between),
    Guard("component_named",
          "the figure is what one part of the run takes (“{word}”), not the run's total, which is what gpukb computes",
          "该数字是运行中某一部分（“{word}”）所占的显存，而非 gpukb 计算的总量", _component_named),
    Guard("weights_only",
          "the figure is at least the weights' own size ({params} × {bytes} bytes = {weights}): texts often give that as what serving needs; the KV cache and the runtime come on top",
          "该数字不低于权重本身的大小（{params} × {bytes} 字节 = {weights}）：文中常把它当作推理所需显存，KV 缓存和运行时开销另计", weights_only),
)

#: the guards that weigh a claim against the rest of the text's claims still judged wrong once :data:`GUARDS`
#: have spoken (:mod:`.document_guards`)
DOCUMENT_GUARDS: tuple[Guard, ...] = (
    Guard("several_values",
          "the text gives the {product}'s {attribute} {n} figures that none of its versions has ({figures}): it speaks of several things under that name (a server, a slice, another configuration), and which figure is the card's is unclear",
          "文中给 {product_zh} 的{attribute_zh}写了 {n} 个该产品任何版本都没有的数值（{figures}）：同一名称下说的是几样东西（服务器、切分实例或其他配置），哪个是单卡的数值不明", several_values),
)
