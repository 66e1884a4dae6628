"""The pages' interface in English and Chinese: one data file (server/i18n.yaml), the language of a
request, and the Jinja globals and filters that read it.

    lang = negotiate(request.args.get("lang"), request.accept_languages)   # ?lang= first, then the browser
    t("audit.title", "zh")                          # "来源审核"
    t("audit.n_claims", "en", n=3)                  # plural forms by `n` where the file gives them

Status symbols and descriptions are in the same file (``statuses``, most severe first). Labels of the
domain's vocabulary are not repeated here: status names (the audit's finding kinds), methods and
memory components come from engine/core/terms.py, entities and attributes from kb/vocabulary.yaml through
the engine facade.
"""
from __future__ import annotations

import logging
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, Iterable

from markupsafe import Markup, escape

from gpukb.engine.core.terms import FINDING_KINDS, label
from gpukb.engine.core.yamlio import load_file

__all__ = ["LANGS", "DEFAULT", "Status", "catalog", "t", "tm", "verbatim", "negotiate", "statuses", "fmt_number", "html_lang"]

log = logging.getLogger("gpukb.i18n")

LANGS = ("en", "zh")
DEFAULT = "en"
PATH = Path(__file__).with_name("i18n.yaml")


@dataclass(frozen=True)
class Status:
    """An audit status: how the pages name, explain and draw it."""

    id: str
    symbol: str          # shown next to the label so status never depends on colour alone
    names: dict[str, str]
    descriptions: dict[str, str]

    @property
    def label(self) -> str:
        return self.names["en"]

    @property
    def label_zh(self) -> str:
        return self.names["zh"]

    @property
    def description(self) -> str:
        return self.descriptions["en"]

    def name(self, lang: str) -> str:
        return self.names.get(lang) or self.names["en"]

    def describe(self, lang: str) -> str:
        return self.descriptions.get(lang) or self.descriptions["en"]


@dataclass(frozen=True)
class Catalog:
    ui: dict[str, dict[str, Any]]
    statuses: tuple[Status, ...]


class I18nError(ValueError):
    """server/i18n.yaml is malformed."""


@lru_cache(maxsize=1)
def catalog() -> Catalog:
    """server/i18n.yaml, checked: every entry has every language."""
    data = load_file(PATH)
    problems = []
    ui = data.get("ui") or {}
    for key, entry in ui.items():
        if not isinstance(entry, dict) or set(entry) != set(LANGS):
            problems.append(f"ui.{key}: needs exactly the languages {', '.join(LANGS)}")
    sts = []
    for sid, spec in (data.get("statuses") or {}).items():
        desc = spec.get("description") or {}
        if sid not in FINDING_KINDS or set(desc) != set(LANGS) or not spec.get("symbol"):
            problems.append(f"statuses.{sid}: needs to be a finding kind ({', '.join(FINDING_KINDS)}) with a "
                            f"symbol and a description in {', '.join(LANGS)}")
            continue
        names = {lang: label("finding", sid, lang) for lang in LANGS}
        names["en"] = names["en"][:1].upper() + names["en"][1:]
        sts.append(Status(str(sid), str(spec["symbol"]), names, dict(desc)))
    if problems:
        raise I18nError(f"{PATH}: " + "; ".join(problems))
    return Catalog(ui, tuple(sts))


def statuses() -> tuple[Status, ...]:
    return catalog().statuses


def t(key: str, lang: str = DEFAULT, **params: Any) -> str:
    """The UI string `key` in `lang`, formatted with `params`; an entry may give en plural forms
    ``{one, other}`` chosen by ``params['n']``. An unknown key is logged and shown as the key."""
    entry = catalog().ui.get(key)
    if entry is None:
        log.error("no UI string %r in %s", key, PATH.name)
        return key
    text = entry.get(lang) if lang in entry else entry[DEFAULT]
    if isinstance(text, dict):
        n = params.get("n")
        text = text.get("one") if n == 1 and "one" in text else text.get("other")
    text = str(text)
    if params:
        shown = {k: (fmt_number(v, lang) if isinstance(v, (int, float)) and not isinstance(v, bool) else v)
                 for k, v in params.items()}
        try:
            return text.format(**shown)
        except (KeyError, IndexError, ValueError):
            log.error("UI string %r: cannot format with %s", key, sorted(params))
    return text


def tm(key: str, lang: str = DEFAULT, **params: Any) -> Markup:
    """Like :func:`t`, as HTML: the string is escaped, Markup parameters (e.g. a value marked
    ``translate="no"``) are kept, other parameters are escaped."""
    raw = {k: (v if isinstance(v, Markup) else str(v) if not isinstance(v, (int, float)) or isinstance(v, bool)
               else fmt_number(v, lang)) for k, v in params.items()}
    return Markup(escape(t(key, lang))).format(**raw) if raw else Markup(escape(t(key, lang)))


def verbatim(value: Any, tag: str = "span") -> Markup:
    """A value shown as is, never translated (an id, a parameter value, a name)."""
    return Markup('<{0} translate="no">{1}</{0}>').format(Markup(tag), value)


def fmt_number(value: Any, lang: str = DEFAULT, digits: int | None = None) -> str:
    """A number for display: thousands grouped, at most `digits` decimals (whole numbers show none)."""
    if value is None:
        return "–"
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        return str(value)
    if isinstance(value, float) and not value.is_integer():
        d = 1 if digits is None else digits
        return f"{value:,.{d}f}"
    return f"{int(value):,}"


def negotiate(arg: str | None, accept: Iterable[tuple[str, float]] = ()) -> str:
    """The page's language: the ``lang`` parameter if given, else the first of the browser's
    Accept-Language (by quality) whose primary subtag gpukb speaks, else English."""
    if arg in LANGS:
        return arg
    for tag, _quality in accept:
        primary = str(tag).split("-")[0].split("_")[0].lower()
        if primary in LANGS:
            return primary
    return DEFAULT


def html_lang(lang: str) -> str:
    """The HTML lang attribute of a UI language."""
    return "zh-Hans" if lang == "zh" else "en"
