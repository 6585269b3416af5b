"""Printing on A4, as Chromium prints (`page.pdf`, the page's own print stylesheet): each
timing table on one page with its heading, no row split, an entry's title with its text.

The PDF's text is read back with pypdf: a table is on one page when some page holds its heading
and every one of its rows (rows repeat, "플레이어의 행동 기회", so a row may be on other pages
too); a table split across pages has no such page.
"""

from __future__ import annotations

import io
import re
import unicodedata
from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, Page
from pypdf import PdfReader

from app.corpus.models import Corpus
from tests.browser.conftest import new_context

#: A4 in PDF points, either way round.
A4 = (595.3, 841.9)
_NOT_WORD = re.compile(r"\W+")
#: The table headings and rows of a page, as the reader sees them.
TABLES = """() => [...document.querySelectorAll('table.timing')].map((table) => {
    const section = table.closest('.timing-section');
    const heading = section ? section.querySelector('h3')
                            : document.querySelector('#entry-title');
    const rows = [...table.querySelectorAll('tr.row .row-text')].map((r) => r.innerText);
    return {heading: heading.innerText, rows};
})"""


def _words(text: str) -> str:
    """Letters and digits only, NFKC (PDF text has its own spacing, line breaks and
    ligatures: ﬁ)."""
    return _NOT_WORD.sub("", unicodedata.normalize("NFKC", text))


def _key(text: str) -> str:
    """A row's first 24 letters and digits: enough to tell rows apart."""
    return _words(text)[:24]


@pytest.fixture()
def printer(browser: Browser, base: str) -> Iterator[Page]:
    context = new_context(browser, base_url=base)
    page = context.new_page()
    yield page
    context.close()


def printed(page: Page, path: str) -> list[str]:
    """Each A4 page's text (letters and digits only) when `path` is printed."""
    page.goto(path)
    pdf = PdfReader(io.BytesIO(page.pdf(format="A4", print_background=True,
                                        prefer_css_page_size=True)))
    for sheet in pdf.pages:
        size = sorted((float(sheet.mediabox.width), float(sheet.mediabox.height)))
        assert abs(size[0] - A4[0]) < 2 and abs(size[1] - A4[1]) < 2, size
    return [_words(sheet.extract_text()) for sheet in pdf.pages]


def tables_on_one_page_each(page: Page, pages: list[str]) -> list[int]:
    """The page each table of `page` is printed on, whole and with its heading."""
    found = []
    for table in page.evaluate(TABLES):
        keys = [_key(table["heading"]), *(_key(r) for r in table["rows"] if _key(r))]
        assert len(keys) > 3, table
        holding = [n for n, text in enumerate(pages) if all(k in text for k in keys)]
        missing = {n: [k for k in keys if k not in text] for n, text in enumerate(pages)}
        assert holding, f"{table['heading']!r} is split across pages: {missing}"
        found.append(holding[0])
    return found


def test_timing_prints_each_table_on_a_page_of_its_own(printer: Page) -> None:
    pages = printed(printer, "/timing")
    tables = tables_on_one_page_each(printer, pages)
    assert len(tables) == 4  # both tables, in Korean and in English
    assert len(pages) <= len(tables), f"{len(pages)} pages for {len(tables)} tables"
    assert sorted(set(tables)) == tables  # one each, in order
    # The title, the address and the legend start the first page, with the first table; each
    # source's heading is on its first table's page, never left at the foot of the one before.
    assert "타이밍표" in pages[0] and "회색상자" in pages[0] and tables[0] == 0
    for source in printer.locator(".timing-source").all_inner_texts():
        holding = [n for n, text in enumerate(pages) if _key(source) in text]
        assert holding and holding[0] in tables, source


def test_each_timing_entry_prints_its_title_with_its_table(printer: Page,
                                                            corpus: Corpus) -> None:
    entries = [e for e in corpus if e.table]
    assert len(entries) >= 4
    for entry in entries:
        path = "/rules/" + entry.id
        pages = printed(printer, path)
        assert len(pages) <= 2, f"{path}: {len(pages)} pages"
        (on,) = tables_on_one_page_each(printer, pages)
        assert on == 0, path  # the title is not printed alone above a blank page


def test_an_entry_prints_its_title_with_the_start_of_its_text(printer: Page) -> None:
    pages = printed(printer, "/rules/Attack_of_Opportunity")
    title, first = printer.evaluate("""() => [document.querySelector('#entry-title').innerText,
        document.querySelector('.entry .body').innerText]""")
    assert _key(title) in pages[0] and _key(first) in pages[0]
