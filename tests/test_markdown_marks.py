"""Claim marks on rendered Markdown (server/markdown_layout.py, server/markdown_marks.py): the leaves
cover the source exactly, each claim's pieces spell its quote, and the HTML is well-formed, for the
bundled sources and for random Markdown with random spans."""
from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gpukb.server.markdown_layout import check_cover, describe, layout_markdown, layout_raw
from gpukb.server.markdown_marks import Mark, render_marked, window
from tests._html import Page, walk_text

ROOT = Path(__file__).resolve().parents[1]
SOURCES = sorted((ROOT / "kb" / "sources").glob("*.txt"))

FRAGMENTS = ["a", "bc", "中文", "显存 16GB", " ", "  ", "\n", "\n\n", "| ", " |", "|", "|---|", "|---|---|", ":-:",
             "- ", "* ", "+ ", "1. ", "2) ", "10. ", "**", "*", "_", "__", "`", "``", "~~", "# ", "## ", "> ",
             "\\", "\\|", "\\*", "&amp;", "&#20013;", "&", "[", "]", "(", ")", "](http://x.y)", "[r]: /u\n", "<", ">",
             "<http://a.b>", "![i](p.png)", "    ", "\t", "```", "~~~", "---", "===", "\r\n", "\r", "•", "x|y"]


def pieces_by_claim(html: str, text: str) -> tuple[Page, dict[str, list[tuple[int, str]]]]:
    """(page, claim id -> [(offset in the text, piece text)]) of rendered HTML; asserts the text is unchanged."""
    page = Page("<div>" + html + "</div>")
    root = page.root.children[0]
    assert root.text == text
    pieces: dict[str, list[tuple[int, str]]] = {}

    def visit(el, offset):
        if el.tag == "a" and "claim" in el.classes():
            mark = el.children[0]
            assert mark.tag == "mark"
            for cid in mark.get("data-claims").split():
                pieces.setdefault(cid, []).append((offset, el.text))

    walk_text(root, 0, visit)
    return page, pieces


def check_marks(text: str, layout, marks: list[Mark]) -> Page:
    html = str(render_marked(layout, marks))
    page, pieces = pieces_by_claim(html, text)
    spans = {m.id: (max(0, min(m.start, len(text))), max(0, min(m.end, len(text)))) for m in marks}
    wanted = {cid for cid, (a, b) in spans.items() if b > a}
    assert set(pieces) == wanted
    own = {m.get("data-claim-id") for m in page.find_all("mark")}
    assert own == wanted, "every claim is the data-claim-id of one mark at least"
    for cid, ps in pieces.items():
        a, b = spans[cid]
        assert ps[0][0] == a, cid
        assert "".join(t for _, t in ps) == text[a:b], cid
        offsets = [o for o, _ in ps]
        assert offsets == sorted(offsets)
    anchors = {e.get("id") for e in page.find_all("span", class_="anchor")}
    assert anchors == wanted
    return page


# -- the bundled sources ---------------------------------------------------------------------------------

@pytest.fixture(scope="module", params=SOURCES, ids=lambda p: p.name[:3])
def source(request):
    text = request.param.read_text(encoding="utf-8")
    return text, layout_markdown(text)


def test_sources_render_without_falling_back(source):
    text, layout = source
    check_cover(layout)
    assert layout.fallbacks == 0
    visible = "".join(d["text"] for d in describe(layout) if d["kind"] in ("text", "marker", "indent"))
    assert "|---" not in visible, "a table's delimiter row is syntax, not text"


def test_s001_tables_are_tables():
    text = SOURCES[1].read_text(encoding="utf-8")
    page = Page(str(render_marked(layout_markdown(text), [])))
    tables = page.find_all("table")
    assert len(tables) == 4
    first = tables[0]
    heads = [th.text.replace("|", "").strip() for th in page.all if th.tag == "th" and first in th.ancestors()]
    assert heads == ["项目", "配置说明"]
    rows = [tr for tr in page.all if tr.tag == "tr" and first in tr.ancestors()]
    assert len(rows) == 6            # the header and five rows; the note after the table is a paragraph
    cell = [td for td in rows[1].children if td.tag == "td"][1]
    shown = "".join(x for x in cell.content if isinstance(x, str))
    assert shown.startswith("1× NVIDIA T4")
    notes = [p for p in page.find_all("p") if p.text.lstrip(" |\n").startswith("⚠️ 注")]
    assert notes, "a line without a pipe ends the table"


def test_s000_table_after_a_list_item_is_a_table():
    text = SOURCES[0].read_text(encoding="utf-8")
    page = Page(str(render_marked(layout_markdown(text), [])))
    tables = page.find_all("table")
    assert len(tables) == 1
    assert "应用场景" in tables[0].children[0].text
    assert len(page.find_all("tr")) == 5


def test_ordered_lists_show_the_numbers_the_source_wrote():
    text = SOURCES[2].read_text(encoding="utf-8")
    page = Page(str(render_marked(layout_markdown(text), [])))
    markers = [m.text for m in page.find_all("span", class_="md-marker")]
    assert markers[:4] == ["1.", "2.", "3.", "4."]
    assert "5." in markers, "an item numbered 5 in the source shows 5, whatever its place in the list"


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_random_spans_on_the_sources(source, data):
    text, layout = source
    n = len(text)
    k = data.draw(st.integers(0, 25))
    marks = []
    for i in range(k):
        a = data.draw(st.integers(0, n - 1))
        b = data.draw(st.integers(a + 1, min(n, a + 300)))
        marks.append(Mark(f"C{i}", a, b, symbol="✓", href=f"/claims/C{i}"))
    check_marks(text, layout, marks)
    check_marks(text, layout_raw(text), marks)


# -- random Markdown ---------------------------------------------------------------------------------------

markdown = st.lists(st.sampled_from(FRAGMENTS), max_size=40).map("".join)


@settings(max_examples=400, deadline=None)
@given(text=markdown, data=st.data())
def test_random_markdown_and_spans(text, data):
    layout = layout_markdown(text)
    check_cover(layout)
    n = len(text)
    marks = []
    for i in range(data.draw(st.integers(0, 6))):
        a = data.draw(st.integers(0, max(0, n)))
        b = data.draw(st.integers(a, max(a, n + 2)))
        marks.append(Mark(f"M{i}", a, b, status="incorrect", symbol="✗"))
    check_marks(text, layout, marks)


@settings(max_examples=100, deadline=None)
@given(text=markdown, start=st.integers(0, 200), length=st.integers(1, 50))
def test_a_window_is_whole_blocks_around_the_span(text, start, length):
    layout = layout_markdown(text)
    if not text:
        return
    a = min(start, len(text) - 1)
    b = min(len(text), a + length)
    picked = window(layout, a, b)
    assert picked == sorted(picked) and picked
    lo, hi = layout.blocks[picked[0]][2], layout.blocks[picked[-1]][3]
    assert lo <= a and hi >= b
    html = str(render_marked(layout, [Mark("W", a, b)], blocks=picked))
    page = Page("<div>" + html + "</div>")
    assert page.root.children[0].text == text[lo:hi]


# -- examples ----------------------------------------------------------------------------------------------

def test_a_span_across_emphasis_and_cells_is_split_into_pieces():
    text = "| a | **bold** x |\n|---|---|\n| c | d |\n"
    start = text.index("a |")
    end = text.index("c") + 1
    page = check_marks(text, layout_markdown(text), [Mark("S9-C1", start, end, status="supported", symbol="✓")])
    marks = page.find_all("mark", data_claim_id="S9-C1")
    cells = {next(a.tag for a in m.ancestors() if a.tag in ("th", "td")) for m in marks}
    assert cells == {"th", "td"}
    assert any(a.tag == "strong" for m in marks for a in m.ancestors())
    visible_end = [m for m in marks if m.get("data-symbol") == "✓"]
    assert len(visible_end) == 1 and visible_end[0].text == "c", "the symbol sits where the visible text ends"


def test_markup_is_escaped_and_never_interpreted():
    text = '<script>alert("x")</script> & <b>bold</b>\n\n[x](javascript:alert(1))'
    html = str(render_marked(layout_markdown(text), [Mark("S9-C2", 0, 8, status="incorrect", symbol="✗")]))
    assert "<script>" not in html and "<b>" not in html and "&lt;script&gt;" in html
    assert 'href="javascript' not in html
    check_marks(text, layout_markdown(text), [Mark("S9-C2", 0, 8)])


def test_entities_and_escapes_keep_the_source_text():
    text = "AT&amp;T \\*not em\\*"
    layout = layout_markdown(text)
    html = str(render_marked(layout, []))
    assert 'data-text="&amp;"' in html
    page = Page(html)
    assert page.root.text == text
    kinds = [(d["kind"], d["text"]) for d in describe(layout)]
    assert ("entity", "&amp;") in kinds and ("syntax", "\\") in kinds


def test_links_are_text_with_a_separate_link():
    text = "see [the brief](https://example.com/t4.pdf) now"
    html = str(render_marked(layout_markdown(text), [Mark("L", 4, 20)]))
    page = Page(html)
    ext = page.find_all("a", class_="md-ext")
    assert [a.get("href") for a in ext] == ["https://example.com/t4.pdf"]
    assert ext[0].text == "" and ext[0].get("aria-label")
    check_marks(text, layout_markdown(text), [Mark("L", 4, 20)])


def test_equal_spans_nest_and_each_keeps_a_mark():
    text = "0123456789"
    marks = [Mark("A", 2, 6), Mark("B", 2, 6), Mark("C", 3, 4), Mark("D", 3, 4)]
    page = check_marks(text, layout_raw(text), marks)
    inner = [m for m in page.find_all("mark") if m.parent.tag == "mark"]
    assert inner, "a claim with no piece of its own gets a nested mark"
