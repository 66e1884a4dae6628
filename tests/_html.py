"""A small strict DOM for tests: every element with its attributes, parent and text; it fails on
unbalanced tags and on content the HTML parser of a browser would move or reorganise (text directly
in a table or a list, a block inside an inline element, a link inside a link, a duplicate id)."""
from __future__ import annotations

from html.parser import HTMLParser

VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}
INLINE = {"a", "abbr", "b", "cite", "code", "em", "i", "mark", "q", "s", "small", "span", "strong", "sub", "sup"}
BLOCK = {"address", "article", "aside", "blockquote", "details", "div", "dl", "figure", "footer", "form", "h1",
         "h2", "h3", "h4", "h5", "h6", "header", "hr", "li", "main", "nav", "ol", "p", "pre", "section", "table",
         "ul"}
TEXTLESS = {"table", "thead", "tbody", "tfoot", "tr", "ul", "ol"}
CHILDREN = {"table": {"caption", "colgroup", "thead", "tbody", "tfoot", "tr"}, "thead": {"tr"}, "tbody": {"tr"},
            "tfoot": {"tr"}, "tr": {"th", "td"}, "ul": {"li", "script", "template"}, "ol": {"li", "script", "template"}}


class Element:
    def __init__(self, tag: str, attrs: dict[str, str | None], parent: "Element | None"):
        # a boolean attribute (<details open>) has the value "" here, so get(name) is None only when absent
        self.tag, self.attrs, self.parent = tag, {k: ("" if v is None else v) for k, v in attrs.items()}, parent
        self.children: list[Element] = []
        self.content: list = []            # children and text, in document order
        self.parts: list[str] = []

    @property
    def text(self) -> str:
        return "".join(self.parts)

    def get(self, name: str, default=None):
        return self.attrs.get(name, default)

    def classes(self) -> list[str]:
        return (self.attrs.get("class") or "").split()

    def ancestors(self):
        p = self.parent
        while p is not None:
            yield p
            p = p.parent

    def __repr__(self) -> str:
        return f"<{self.tag} {self.attrs}>"


class Page(HTMLParser):
    """Parse `html`; assert it is well-formed (see the module docstring)."""

    def __init__(self, html: str, strict: bool = True):
        super().__init__(convert_charrefs=True)
        self.strict = strict
        self.root = Element("#root", {}, None)
        self.stack = [self.root]
        self.all: list[Element] = []
        self.ids: set[str] = set()
        self.feed(html)
        self.close()
        assert self.stack == [self.root], f"unclosed elements: {[e.tag for e in self.stack[1:]]}"

    def _add(self, tag, attrs) -> Element:
        parent = self.stack[-1]
        el = Element(tag, dict(attrs), parent)
        if self.strict:
            if parent.tag in CHILDREN:
                assert tag in CHILDREN[parent.tag], f"<{tag}> directly inside <{parent.tag}>"
            if tag in BLOCK:
                bad = [a.tag for a in [parent, *parent.ancestors()] if a.tag in INLINE or a.tag == "p"]
                assert not bad, f"<{tag}> inside <{bad[0]}>"
            if tag == "a":
                assert not [a for a in [parent, *parent.ancestors()] if a.tag == "a"], "a link inside a link"
            ident = el.get("id")
            if ident is not None:
                assert ident not in self.ids, f"duplicate id {ident!r}"
                self.ids.add(ident)
        parent.children.append(el)
        parent.content.append(el)
        self.all.append(el)
        return el

    def handle_starttag(self, tag, attrs):
        el = self._add(tag, attrs)
        if tag not in VOID:
            self.stack.append(el)

    def handle_startendtag(self, tag, attrs):
        self._add(tag, attrs)

    def handle_endtag(self, tag):
        if tag in VOID:
            return
        assert self.stack[-1].tag == tag, f"</{tag}> closes <{self.stack[-1].tag}>"
        self.stack.pop()

    def handle_data(self, data):
        if self.strict and self.stack[-1].tag in TEXTLESS:
            assert not data.strip(), f"text {data[:20]!r} directly inside <{self.stack[-1].tag}>"
        self.stack[-1].content.append(data)
        for el in self.stack:
            el.parts.append(data)

    def find_all(self, tag: str | None = None, **attrs) -> list[Element]:
        out = []
        for el in self.all:
            if tag and el.tag != tag:
                continue
            ok = True
            for k, v in attrs.items():
                k = k.rstrip("_").replace("_", "-")
                have = el.attrs.get(k)
                if v is True:
                    ok = ok and k in el.attrs
                elif k == "class":
                    ok = ok and v in (have or "").split()
                else:
                    ok = ok and have == v
            if ok:
                out.append(el)
        return out

    def by_id(self, ident: str) -> Element | None:
        return next((e for e in self.all if e.attrs.get("id") == ident), None)


def walk_text(el: Element, offset: int = 0, on_element=None) -> int:
    """Visit `el`'s content in document order, calling on_element(element, offset) with the offset of its
    first character in el's text; returns the offset after el."""
    for node in el.content:
        if isinstance(node, str):
            offset += len(node)
        else:
            if on_element is not None:
                on_element(node, offset)
            offset = walk_text(node, offset, on_element)
    return offset


# -- the interface language --------------------------------------------------------------------------------

# Names a Chinese interface writes in Latin letters too (letters only: "FP16" counts as "FP")
ZH_UI_TERMS = {"gpukb", "GPU", "GB", "API", "Markdown", "LoRA", "QLoRA", "FP", "BF", "FlashAttention", "CUDA",
               "ZeRO", "JSON", "PROV", "DOT", "KV", "PyTorch", "SDPA", "logits", "vLLM", "NVLink", "MIG", "FSDP"}   # names and terms Chinese ML text keeps in Latin
UI_ATTRS = ("title", "aria-label", "placeholder", "alt")
_LATIN_WORD = __import__("re").compile(r"[A-Za-z]{2,}")


def _exempt(el: Element) -> bool:
    """Not interface text: verbatim (translate="no"), content from the KB or the engine (class
    "content"), hidden Markdown syntax, code, or an element in another language than Chinese."""
    for a in [el, *el.ancestors()]:
        if a.tag in ("script", "style", "code", "title") or a.get("translate") == "no":
            return True
        if "content" in a.classes() or "md-syntax" in a.classes():
            return True
        lang = a.get("lang")
        if lang is not None:
            return not lang.startswith("zh")
    return False


def latin_ui_words(page: Page) -> list[tuple[str, str]]:
    """(word, context) of each Latin word in the interface text of a Chinese page, terms excepted."""
    out = []

    def walk(el: Element) -> None:
        for node in el.content:
            if isinstance(node, str):
                if not _exempt(el):
                    out.extend((w, node.strip()[:60]) for w in _LATIN_WORD.findall(node) if w not in ZH_UI_TERMS)
            else:
                walk(node)

    walk(page.root)
    for el in page.all:
        for attr in UI_ATTRS:
            value = el.get(attr)
            if value and not _exempt(el):
                out.extend((w, f"{attr}={value[:50]}") for w in _LATIN_WORD.findall(value)
                           if w not in ZH_UI_TERMS and not __import__("re").match(r"^S\d", w))
    return out
