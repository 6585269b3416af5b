"""Browser checks: one Debian Chromium per session (through pytest-playwright), one server.

These tests are part of the default `pytest` run. Their tools are Debian's `/usr/bin/chromium`
(or `RULES_CHROMIUM`), `node_modules/` (`npm ci`) and `java`. Where one is missing they are
skipped with the install hint (the README's test command must work with Python alone), except
when `RULES_BROWSER_TESTS=required`, as `.ci/run` sets after installing them: then a missing
tool fails the run instead of quietly skipping the checks.

Contexts block service workers unless a test asks for one: the worker precaches every page
after the first load, which would make each check depend on what an earlier one cached.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any, NoReturn

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, expect

from bench.static_server import http_server_serving
from tests.conftest import ROOT, missing_tool

CHROMIUM = Path(os.environ.get("RULES_CHROMIUM", "/usr/bin/chromium"))
NODE_MODULES = ROOT / "node_modules"
AXE_JS = NODE_MODULES / "axe-core" / "axe.min.js"
VNU_JAR = NODE_MODULES / "vnu-jar" / "build" / "dist" / "vnu.jar"

#: Debian's Chromium outside a desktop: no sandbox as root, and no calls to Google's hosts
#: (without the networking flags it keeps trying hosts it cannot reach).
CHROMIUM_FLAGS = [
    "--headless",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    *(["--no-sandbox"] if os.geteuid() == 0 else []),
]

#: The pages every check visits: name → path (percent-encoding left to the browser/urllib).
PAGES: dict[str, str] = {
    "home": "/",
    "source-index": "/sources/ahlcg-reference",
    "entry-table": "/rules/Skill_Test_Timing",
    "timing": "/timing",
    "search": "/search?q=틈새 공격",
    "not-found": "/rules/No_Such_Rule",
    "empty-search": "/search",
    "go-chooser": "/go/파멸",
    "api-reference": "/api",
    "faq-question": "/rules/faq/wilds/1",
    "english-entry": "/rules/en/Frost_Tokens",
    "settings": "/settings",
    "entry-history-line": "/rules/Signature_Cards",
    "history": "/history/Signature_Cards",
    "history-english": "/history/en/Concealed_X",
    "changes": "/changes",
    "changes-source": "/changes/ahlcg-reference-en",
}

#: The same pages in the static export (`python -m app export`, served under /rules/), where
#: the site has them: search is the browser's, the not-found page is 404.html; /go/, the API
#: reference and the settings form need a server.
EXPORT_PAGES: dict[str, str] = {
    "home": "/rules/",
    "source-index": "/rules/sources/ahlcg-reference/",
    "entry-table": "/rules/rules/Skill_Test_Timing/",
    "timing": "/rules/timing/",
    "search": "/rules/search/?q=틈새 공격",
    "not-found": "/rules/404.html",
    "faq-question": "/rules/rules/faq/wilds/1/",
    "english-entry": "/rules/rules/en/Frost_Tokens/",
    "history": "/rules/history/Signature_Cards/",
    "changes": "/rules/changes/",
}
#: Every checked page of both sites: (site, page name, path); `site_base` gives the base URL.
SITE_PAGES: list[tuple[str, str, str]] = [
    *(("app", name, path) for name, path in PAGES.items()),
    *(("export", name, path) for name, path in EXPORT_PAGES.items()),
]


def _missing(message: str) -> NoReturn:
    missing_tool(message, "RULES_BROWSER_TESTS")


def require_file(path: Path, hint: str) -> Path:
    """`path`, or skip (fail where the browser checks are required)."""
    if not path.is_file():
        _missing(f"{path} is missing: {hint}")
    return path


def require_java() -> str:
    """The `java` executable for the Nu HTML Checker, or skip (fail where required)."""
    java = shutil.which("java")
    if java is None:
        _missing("`java` is not on PATH: install a JRE ≥ 11 (apt-get install -y "
                 "default-jre-headless) for the Nu HTML Checker")
    return java


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args: dict[str, Any]) -> dict[str, Any]:
    """pytest-playwright's launch options, pointed at the system Chromium (never a download)."""
    require_file(CHROMIUM, "install Chromium (apt-get install -y chromium) or set RULES_CHROMIUM")
    return {**browser_type_launch_args, "executable_path": str(CHROMIUM),
            "args": CHROMIUM_FLAGS}


@pytest.fixture(scope="session")
def base(live_server: str) -> str:
    """The real server over the bundled data; its base URL (no trailing slash)."""
    return live_server


@pytest.fixture(scope="session")
def export_base(static_export: Path) -> Iterator[str]:
    """The static export of the bundled data (tests/conftest.py, built for /rules/) served by
    `python -m http.server`, as CI serves it; its base URL (the pages are under /rules/)."""
    with http_server_serving(static_export) as served:
        yield served


def site_base(request: pytest.FixtureRequest, site: str) -> str:
    """The base URL of `site` ("app" or "export"), started on first use."""
    served: str = request.getfixturevalue("base" if site == "app" else "export_base")
    return served


@pytest.fixture(scope="session")
def axe_source() -> str:
    """axe-core's browser bundle from node_modules."""
    return require_file(AXE_JS, "run `npm ci` in the project root").read_text(encoding="utf-8")


def new_context(browser: Browser, **options: Any) -> BrowserContext:
    """A context like a Korean reader's, service workers blocked unless `options` allow them."""
    return browser.new_context(**{"locale": "ko-KR", "service_workers": "block", **options})


#: Colour set-ups: the system preference (emulated), and the page's own toggle (theme.js reads
#: localStorage["theme"] before the first paint) overriding a light system preference.
SCHEMES: dict[str, tuple[str, str | None]] = {
    "light": ("light", None),
    "dark": ("dark", None),
    "dark-toggle": ("light", "dark"),
}


@pytest.fixture(scope="session", params=list(SCHEMES))
def scheme_context(browser: Browser, request: pytest.FixtureRequest) -> Iterator[BrowserContext]:
    """One context per colour set-up, shared by the tests that use it."""
    media, stored = SCHEMES[request.param]
    context = new_context(browser, color_scheme=media)
    if stored is not None:
        context.add_init_script(f"localStorage.setItem('theme', '{stored}');")
    yield context
    context.close()


@pytest.fixture()
def fresh_page(browser: Browser) -> Iterator[Page]:
    """A page in its own context: empty cache, light scheme, JavaScript on, no service worker."""
    context = new_context(browser)
    page = context.new_page()
    yield page
    context.close()


@pytest.fixture()
def phone(browser: Browser) -> Iterator[Page]:
    """A page on a 360×800 phone screen, in its own context (no service worker)."""
    context = new_context(browser, viewport={"width": 360, "height": 800})
    page = context.new_page()
    yield page
    context.close()


#: Resolves "ready" once the page's service worker has installed (its precache of the whole
#: reference, the browser index included) and activated; "none" for a page without one, and
#: "late" after 90 s: a bound against hanging on a busy machine, not a speed target.
WAIT_FOR_WORKER = """() => {
    if (!document.documentElement.dataset.sw || !("serviceWorker" in navigator)) return "none";
    const late = new Promise((resolve) => setTimeout(() => resolve("late"), 90000));
    return Promise.race([navigator.serviceWorker.ready.then(() => "ready"), late]);
}"""


@pytest.fixture()
def saved_page(browser: Browser, base: str) -> Iterator[Page]:
    """A page whose service worker has saved the reference after one visit to the home page."""
    context = browser.new_context(locale="ko-KR", service_workers="allow", base_url=base)
    page = context.new_page()
    page.goto("/")
    assert page.evaluate(WAIT_FOR_WORKER) == "ready"
    yield page
    context.close()


def choose_first_suggestion(page: Page, typed: str, expected: str) -> None:
    """Type `typed` into the header's search box as a player would, check that the first
    suggestion shows `expected`, and open it with ↓ and Enter."""
    box = page.locator("#search-q")
    box.press_sequentially(typed)
    option = page.locator("#search-suggestions [role=option]").first
    expect(option).to_contain_text(expected)
    box.press("ArrowDown")
    box.press("Enter")
