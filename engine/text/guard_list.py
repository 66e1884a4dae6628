"""The checker's guards, in the order their reasons are reported (:mod:`.guard` says when they are asked): each names
a doubt about a claim's reading and words its reason in both languages.

Each guard is a general reading of the domain, not a patch for one sentence:

- ``several_products``: the claim's sentence, or its table row and header, names two or more products;
  gpukb reads which product a figure belongs to from proximity, which a comparison defeats. Not when the
  sentence gives one figure to every product it lists ("T4 和 L4 都配备了 24GB", "both ... have"; cue
  ``distributive``): each product has it, and neither is this guard's doubt nor ``other_products_figure``'s.
- ``other_products_figure``: the figure is exactly the reference figure of another product that the
  text also names: the text or gpukb's reading may have moved a figure from one product to another.
- ``another_reading``: a memory size or bandwidth that is exactly another attribute's reference figure of
  the product or of another product the text names (an NVLink bandwidth, an instance's host memory), in a
  sentence that does not name the claim's attribute by its own word (:mod:`.readings`).
- ``beyond_figures``: a card's memory, bandwidth, throughput or power more than twice the largest its product
  has in any version: a server's total, a workload's need or another product's figure (:mod:`.readings`); when
  the sentence names the card and the attribute, only if it says it gives a sum ("a total of", "合计": ``sum_said``).
- :mod:`.readings` and :mod:`.clause_guards` doubt a reading by what the clause says of its figure: a figure
  beside a card named by its size (``named_size``) or beside the product's own figure (``own_figure_elsewhere``),
  a requirement said of a GPU count the scenario lacks (``count_unread``), a "usable" memory not said to be
  nvidia-smi's (``usable_scope``), a count said to be enough (``enough_count``), a throughput with no precision
  word (``precision_unstated``), a difference, another model size, another precision's label, a parameter
  count beside a model named by its size, or one within the embedding matrices of the reference (``embedding_convention``).
- ``card_size``, ``cards_counted``: a need said as a card size ("one or two 80 GB GPUs"), a memory figure beside a
  count of cards ("more than four A100s", "两张"): maybe several cards', set against their total or shared.
- ``multiple_of_one_card``: a memory figure that is an exact multiple of one card's memory, said beside
  several GPUs, a server or an instance, reads as their total, not as a per-card figure.
- ``several_values`` (:data:`.guard_list.DOCUMENT_GUARDS`, weighed after the others, over the claims still judged
  wrong): the text gives one product's attribute two or more figures that none of its versions has; it speaks of
  several things under that name (a server, a MIG slice, a system), so none of them is called wrong.
- ``several_precisions``: a requirement or verdict read with several precisions of its clause ("~14GB in FP16 or
  ~3.5GB in INT4"): which figure is which precision's is the text's to say, so a derivation that disagrees is no finding;
  ``change_between``: likewise a requirement at one end of a change ("cuts it from 780 GB to under 48 GB", "从14GB降到4GB");
  ``host_ram``: a requirement in a line about host RAM ("CPU training memory = …; 1B needs 64GB") is not GPU memory;
  ``change_start``: a figure that starts a change ("TDP reduced from 0.4 kW to 0.25 kW") and is another version's is its;
  ``method_elsewhere``: or one whose method is named only in a later clause ("loading it takes 8 GB, but fine-tuning …");
  ``sharded_count_unstated``: or one of a run sharded (DeepSpeed, FSDP) over a GPU count the text does not give;
  ``advice_bound``: a bound said as what to look for ("FP32算力(≥25TOPS为佳)") is a buyer's threshold.
- ``system_named``: the clause names the card inside a system's name ("DGX H100", "HGX B200", "GB200 NVL72", "H100
  servers"; cues ``system_name_before`` / ``system_name_after``): its figures are the system's, not one card's.
- ``dot_thousands``: "3.958 TFLOPS" read as German texts group thousands is the product's figure; ``space_thousands``:
  three digits right after a short number and a space ("1 360 Go") may be the tail of one number grouped by spaces;
  ``marked_sparse``: "3,958 TFLOPS*" with no footnote is marked as datasheets mark sparse rates; ``cut_off``: a text
  ending right after "1008 GB" may have lost the rest of the unit ("GB/s").
- ``other_version``: a GPU figure in, or right after, a sentence that calls the product a variant, a modified, new or
  improved version ("die jetzt aufgetauchten Varianten", "魔改版", "an upgraded A100"; cues ``other_version``).
- ``loose_bound``: a memory requirement stated as a strict bound ("needs far more than a T4's 16 GB", "needs less than
  24 GB") that gpukb's estimate lies beyond on the allowed side is true as stated: no understatement or overstatement
  ("at least 16 GB", a minimum requirement saying 16 GB is enough, is judged).
- ``other_form_factor``: a figure right after "SXM", "PCIe" or "NVL" that names another version the text names.
- ``family_sizes``: "fits on an ND H100 v5 VM": a family's sizes may carry several GPUs; only "does not fit" is judged.
- ``capacity_place``: a GPU count that only places a memory figure ("the 640 GB on one 8x H100 node") needs nothing.
- ``round_figure``: a figure written with one significant digit ("3 TB/s", "~3,000 GB/s", "500 W") that the product's
  own figure rounds to (half up), within 15% of it: a rounded figure, not a wrong one ("2 TB/s" for 1,555 GB/s is judged).
- ``versus``: a figure or word value right after "versus", "compared with", "instead of" (and their words in other
  languages), or right before "ではなく" / "대신", is the other side of a comparison ("HBM3e instead of HBM3").
- ``interconnect_bandwidth``: a bandwidth next to interconnect words (NVLink, PCIe, network, 互联) is no memory bandwidth.
- ``pcie_link``: an interconnect bandwidth read as NVLink's beside PCIe, not NVLink: maybe the PCIe link's;
  ``no_tensor_cores``: a Tensor Core rate read from a precision word alone, of a card without Tensor Cores (P100).
- ``conditional``: the sentence is a condition or hypothesis ("if", "如果"), which states nothing; ``workload_without_model``:
  a memory requirement with no model size says nothing checkable.
- ``subject_from_context``: the claim's sentence does not name its product (an earlier sentence, a heading did; not
  when it opens with a pronoun for the one product the sentence before names); ``pronoun_opens``: named only later.
- ``several_figures``: the sentence gives figures of the claim's kind side by side with no word of
  their own (a table copied as text, "~1.3 TFLOPS ~9.7 TFLOPS"), and the text names several products.
- ``per_unit_rate``: the figure is a rate ("16 GB per billion parameters", "每卡"), not a total.
- ``binary_prefix``: the reference's own number in the other of GB and GiB ("80 GB" for 80 GiB); ``optimizer_scope``:
  an optimizer's bytes per parameter one FP32 master copy (4 bytes) off the reference's: counted with or without it.
- ``with_gradients``: an optimizer's bytes per parameter in a sentence that names the gradients counts the weights,
  gradients and optimizer states together (16 bytes for mixed-precision AdamW), not the optimizer's states alone.
- ``within_practice``: a training or serving memory figure stating no precision, nor an optimizer but AdamW, within what
  common setups need (pure BF16 to mixed-precision AdamW for full training): right under one, wrong under another;
  for LoRA and QLoRA without a sequence length and batch the band allows for activations, which dominate their memory.
- ``count_within_practice``: the same for a full-training GPU count or a verdict on N GPUs: between what
  pure BF16 and mixed-precision AdamW need on cards of that memory.
- ``variant_unstated``: a verdict that a run fits (or a GPU count said to be enough) on a product named without
  its memory size whose versions differ in memory (A100 40 / 80 GB): gpukb sizes the smallest; unless its need
  per GPU exceeds even the largest version's memory, the text may mean a larger one.
- ``method_unstated``, ``unread_precision``: a training verdict or requirement whose method (full, LoRA, QLoRA: several-fold
  apart) is open, or said in a precision gpukb does not size (FP8, AWQ, GGUF): another scenario.
- ``within_error_band``, ``requirement_within_band``: a verdict whose need lies within gpukb's measured error
  band of the card's usable memory, or a stated need within that band of gpukb's total for the run (the
  band: the ratios measured / estimated over published runs of the method, :func:`..sizing.calibration.band_of`).
- ``workload_memory``, ``card_capacity``, ``weights_only``: a workload's part, a card's capacity given as a need, or a
  serving need at least the weights' size.
"""
from __future__ import annotations

from .explained import total_of_cards, unexplained_figure
from .document_guards import several_values
from .clause_guards import (host_ram, cut_off, unit_rate, attribute_unstated, with_gradients, workload_without_model,
    sharded_count_unstated, advice_bound, change_between, change_start, difference, marked_sparse, method_elsewhere,
    space_thousands, embedding_convention, model_named_size, other_precision_label, other_size_in_clause,
    several_precisions)
from .pronouns import pronoun_opens
from .readings import (no_tensor_cores, round_figure, another_reading, beyond_figures, carried_vendor, count_unread,
    enough_count, setup_count, named_size, own_figure_elsewhere, precision_unstated, usable_scope)
from .practice import capacity_place, family_sizes, count_within_practice, loose_bound, usual_count, within_practice
from .guard_base import Guard
from .versions import other_version
from .other_figures import (other_form_factor, unknown_form_factor, bit_rate, dot_thousands, figure_then_card,
    from_to, memory_part, system_total, system_named, other_device, unknown_product, versus, year_off_by_one,
    alternative_sizes, model_row, own_value_after)
from .figure_guards import (binary_prefix, card_size, cards_counted, interconnect_bandwidth, multiple_of_one_card,
    pcie_link, optimizer_scope, other_attributes_figure, other_products_figure, non_tensor_rate, several_figures,
    workload_memory, card_capacity, weights_only)
from .subject_guards import (several_products, conditional, subject_from_context, component_named, within_error_band,
    requirement_within_band, variant_unstated, method_unstated, unread_precision)


GUARDS: tuple[Guard, ...] = (
    Guard("several_products",
          "the sentence names several products ({products}); gpukb cannot tell for sure which one the figure belongs to",
          "该句提到多款产品（{products_zh}），gpukb 无法确定该数字属于哪一款", several_products),
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
          "该句是条件或假设（“{word}”），并未断言", conditional),
    Guard("variant_unstated",
          "the text does not name the {product}'s memory size, and its versions have {sizes} GB: gpukb sized the smallest, and on a larger one the run may fit",
          "文中未说明 {product} 的显存规格，其各版本分别为 {sizes} GB：gpukb 按最小显存的版本计算，换成更大显存的版本可能放得下", variant_unstated),
    Guard("family_sizes",
          "{family}'s sizes carry {counts} GPUs: the claim may be about a size with several, while gpukb sized one card",
          "{family} 的各规格分别配备 {counts} 块 GPU：该说法可能指多卡规格，而 gpukb 按单卡计算", family_sizes),
    Guard("method_unstated",
          "the text does not say how the model is trained (full fine-tuning, LoRA or QLoRA), and the memory it takes differs several-fold between them",
          "文中未说明训练方式（全参数微调、LoRA 或 QLoRA），而三者所需显存相差数倍", method_unstated),
    Guard("unread_precision",
          "the text sizes the workload in “{word}”, which gpukb's sizing does not take into the scenario it checks",
          "文中按“{word}”估算该任务，gpukb 的计算场景未包含这一精度或量化格式", unread_precision),
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
          "该句未提到 {subject}，产品是 gpukb 从上下文推断的", subject_from_context),
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
          "gpukb 的估算（每卡 {need} GB）与可用显存（{capacity} GB）之差在其误差范围内：{points} 次已发表的 {method} 实测为 gpukb 估算的 {ratios} 倍，此处即 {low}–{high} GB，可能放得下也可能放不下", within_error_band),
    Guard("requirement_within_band",
          "gpukb's estimate of the run is {need} GB per GPU, and {points} published {method} runs measured {ratios} times gpukb's estimate ({low}–{high} GB here): the stated need is within that band, so gpukb does not call it wrong",
          "gpukb 对该任务的估算为每卡 {need} GB，而 {points} 次已发表的 {method} 实测为 gpukb 估算的 {ratios} 倍（此处即 {low}–{high} GB）：文中的需求在此范围内，gpukb 不判其为错", requirement_within_band),
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
    Guard("host_ram",
          "the line speaks of host memory (“{word}”), not GPU memory: the figure is the RAM of a run on the CPU or of its host, which gpukb's GPU sizing does not give",
          "该行说的是主机内存（“{word}”）而非显存：该数字是在 CPU 上运行或主机所需的内存，gpukb 的 GPU 显存估算不给出它", host_ram),
    Guard("change_start",
          "the figure starts a change the text describes (“{word}”) and is a figure of another version of the product: it is that version's",
          "该数字是文中所述变化的起点（“{word}”），且是该产品另一版本的数值：属于那个版本", change_start),
    Guard("component_named",
          "the figure is what one part of the run takes (“{word}”), not the run's total, which is what gpukb computes",
          "该数字是运行中某一部分（“{word}”）所占的显存，而非 gpukb 计算的总量", component_named),
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
