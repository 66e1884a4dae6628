"""The cheapest instance that fits a scenario, across cloud providers: every instance size of the providers
asked is sized with the same rules as ``/v1/query`` (each verdict's conclusion id explains it), and the sizes that fit are ranked by their hourly
list price (kb/reference ``price_hourly_usd`` / ``price_hourly_cny`` facts, each with its region and the
date it was read). Prices are never converted between currencies: sizes are ranked within a currency and
the answer says so when more than one is involved. Sizes that fit but have no price in the KB are listed
after the priced ones, saying that the price is not published in the KB (and why, when the tier records
it)."""
from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from ..core.errors import BadInput, Issue
from ..kb.store import ReleaseView
from ..core.terms import gb
from ..catalog import inventory as inv
from ..kb import names
from ..models.ask import Candidate, InstanceChoiceAnswer
from ..models.inventory import PricedOption
from .choice import HARDWARE_KEYS
from ..sizing.answer import verdicts

if TYPE_CHECKING:
    from ..core.session import Session

#: words that ask for the lowest price rather than the smallest size
PRICE_CUE = re.compile(r"cheap|low(?:est)?[\s\-]*(?:cost|price)|least[\s\-]+expensive|inexpensive|budget|"
                       r"便宜|省钱|最低价|价格最低|成本最低|最划算", re.I)

def wants_price(question: str) -> bool:
    return bool(PRICE_CUE.search(question or ""))


def providers_named(parsed_entities: list[dict[str, Any]], view: ReleaseView) -> list[str]:
    """The cloud providers a parsed question names (vendor entities that have instances in the KB)."""
    known = inv._providers(view)
    out = []
    for e in parsed_entities:
        name = names.name_of(e.get("id", ""))
        if e.get("kind") == "vendor" and name in known and name not in out:
            out.append(name)
    return out


def _price_text(p: dict[str, Any], zh: bool = False) -> str:
    where = ", ".join(x for x in (p.get("region"), f"as of {p['as_of']}" if p.get("as_of") and not zh else None) if x)
    if zh:
        where = "，".join(x for x in (p.get("region"), f"截至 {p['as_of']}" if p.get("as_of") else None) if x)
        return f"{p['value']:g} {p['currency']}/小时" + (f"（{where}）" if where else "")
    return f"{p['value']:g} {p['currency']}/h" + (f" ({where})" if where else "")


def cheapest(state: Session, scenario: dict[str, Any], providers: list[str] | None, view: ReleaseView,
             lang: str = "en", head: dict[str, Any] | None = None) -> InstanceChoiceAnswer:
    """The instance sizes of ``providers`` (default: all) that fit the scenario, ranked by hourly price
    (``head``: the answer's first fields, e.g. the question asked)."""
    vocab = view.kb.vocab
    provs = [inv.resolve_provider(view, p) for p in (providers or [])] or inv._providers(view)
    provs = list(dict.fromkeys(provs))
    base = {k: v for k, v in scenario.items() if k not in HARDWARE_KEYS + ("gpus", "kb_version")}
    if "model" not in base and "params" not in base:
        raise BadInput("name a model or give a parameter count",
                       [Issue("a model or parameter count is required", field="model")])
    sizes = [e for e in names.known(vocab, "instance") if inv.provider_of(view, e) in provs]
    if not sizes:
        raise BadInput(f"no instance sizes of {', '.join(provs)} in release {view.name}")
    options = []
    with state.staged(view):        # every size's verdict from one engine run (no proof is built until asked)
        found = verdicts(state, [{**base, "instance": names.name_of(e)} for e in sizes], view)
        for e, opt in zip(sizes, found):
            name = names.name_of(e)
            o: dict[str, Any] = {"instance": name, "provider": inv.provider_of(view, e),
                                 "gpu": [names.name_of(g) for g in inv.gpus_of(view, e)], "verdict": opt["verdict"],
                                 "prices": inv.prices(view, e)}
            for k in ("need_gb", "usable_gb_per_gpu", "gpus", "conclusion_id", "error"):
                if k in opt:
                    o[k] = opt[k]
            if not o["prices"]:
                o["price_note"] = inv.price_note(view, e)
            options.append(o)
    fits = [o for o in options if o["verdict"] == "fits"]
    priced = [o for o in fits if o["prices"]]
    unpriced = [o for o in fits if not o["prices"]]
    currencies = sorted({o["prices"][0]["currency"] for o in priced}, key=lambda c: (c != "USD", c))
    ranked, best = [], []
    for cur in currencies:
        group = sorted((o for o in priced if o["prices"][0]["currency"] == cur),
                       key=lambda o: (o["prices"][0]["value"], o["instance"]))
        ranked += group
        best.append(group[0])
    unpriced.sort(key=lambda o: (inv._num(view, f"instance:{o['instance']}", "gpu_count"),
                                 inv._num(view, f"instance:{o['instance']}", "vcpu"), o["instance"]))
    ranked += unpriced
    choice = best[0] if len(best) == 1 else None
    en, zh = _words(provs, best, ranked, unpriced, fits, options, currencies)
    typed = {o["instance"]: PricedOption.of(**o) for o in options}
    fields = {**(head or {}), "kind": "instance_choice", "ranking": "price", "kb_version": view.name,
              "providers": provs, "family": None, "choice": choice["instance"] if choice else None,
              "price": typed[choice["instance"]].prices[0] if choice else None,
              "cheapest": [typed[o["instance"]] for o in best], "ranked": [typed[o["instance"]] for o in ranked],
              "not_fitting": [typed[o["instance"]] for o in options if o["verdict"] != "fits"],
              "tried": [_candidate(o) for o in options],
              "answer": zh if lang == "zh" else en, "text": {"en": en, "zh": zh},
              "scenario": {k: (names.name_of(v) if k == "model" and isinstance(v, str) else v) for k, v in base.items()}}
    if len(currencies) > 1:
        fields["note"] = {"en": f"Prices in {' and '.join(currencies)} are ranked separately: gpukb never converts currencies.",
                          "zh": f"{'、'.join(currencies)} 价格分别排序：gpukb 不做币种换算。"}
    return InstanceChoiceAnswer.of(**fields)


def _candidate(o: dict[str, Any]) -> Candidate:
    keep = ("verdict", "need_gb", "usable_gb_per_gpu", "gpus", "conclusion_id", "error", "instance")
    return Candidate.of(**{k: o[k] for k in keep if k in o})


def _words(provs, best, ranked, unpriced, fits, options, currencies) -> tuple[str, str]:
    where_en = " or ".join(provs)
    where_zh = "、".join(provs)

    def one(o: dict[str, Any], zh: bool = False) -> str:
        p = o["prices"][0]
        cards = f"{o.get('gpus') or '?'}× {'/'.join(o['gpu']) or '?'}"
        if zh:
            return f"{o['instance']}（{o['provider']}，{cards}）{_price_text(p, True)}"
        return f"{o['instance']} ({o['provider']}, {cards}) at {_price_text(p)}"
    if not fits:
        smallest = sorted((o for o in options if o.get("need_gb") is not None), key=lambda o: -(o.get("usable_gb_per_gpu") or 0))
        need = gb(smallest[0]["need_gb"]) if smallest else "?"
        return (f"No instance size of {where_en} in the KB fits (needs about {need} per GPU).",
                f"{where_zh} 在 KB 中没有能放下的实例规格（每卡约需 {need}）。")
    if best:
        if len(best) == 1:
            en = f"The cheapest instance of {where_en} that fits is {one(best[0])} [{best[0]['prices'][0]['citation']}]."
            zh = f"{where_zh} 中能放下的最便宜实例是 {one(best[0], True)} [{best[0]['prices'][0]['citation']}]。"
        else:
            en = ("Prices are in " + " and ".join(currencies) + " and are ranked within each currency (gpukb never converts "
                  "them). Cheapest that fits: " + "; ".join(f"in {o['prices'][0]['currency']}, {one(o)}" for o in best) + ".")
            zh = ("价格分属 " + "、".join(currencies) + "，按币种分别排序（gpukb 不做换算）。能放下的最便宜：" +
                  "；".join(f"{o['prices'][0]['currency']}：{one(o, True)}" for o in best) + "。")
        nxt = [o for o in ranked if o["prices"] and o not in best][:3]
        if nxt:
            en += " Next: " + "; ".join(one(o) for o in nxt) + "."
            zh += "其次：" + "；".join(one(o, True) for o in nxt) + "。"
    else:
        en = f"Sizes of {where_en} fit, but none of them has a price in the KB."
        zh = f"{where_zh} 有能放下的规格，但 KB 中都没有价格。"
    if unpriced:
        names = ", ".join(o["instance"] for o in unpriced[:8]) + (f", ... ({len(unpriced)} in all)" if len(unpriced) > 8 else "")
        en += f" {len(unpriced)} more size(s) fit but the price is not published in the KB: {names}."
        zh += f"另有 {len(unpriced)} 个能放下的规格在 KB 中没有公开价格：{names}。"
    return en, zh
