"""axe-core (WCAG 2.0/2.1 A and AA) on every page of the app and of its static export, in light
and dark colour schemes.

axe is served by `page.route` from a same-origin URL rather than injected inline, so the app's
real CSP (`script-src 'self'`) stays in force during the check (no `bypass_csp`).
"""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import BrowserContext, Route

from tests.browser.conftest import SITE_PAGES, site_base

AXE_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]
#: A path the app does not serve; the browser gets axe's bundle for it from the route below.
AXE_PATH = "/__test__/axe.min.js"


def format_violations(violations: list[dict[str, Any]]) -> str:
    """One readable block per violation: impact, id, help, URL and the failing nodes."""
    lines: list[str] = []
    for violation in violations:
        lines.append(f"[{violation.get('impact')}] {violation['id']}: {violation['help']}"
                     f" ({violation.get('helpUrl', '')})")
        for node in violation.get("nodes", []):
            target = " ".join(str(t) for t in node.get("target", []))
            html = " ".join(str(node.get("html", "")).split())[:160]
            lines.append(f"    at {target}\n       {html}")
            summary = " ".join(str(node.get("failureSummary", "")).split())
            if summary:
                lines.append(f"       {summary[:300]}")
    return "\n".join(lines)


@pytest.mark.parametrize(("site", "path"), [(site, path) for site, _, path in SITE_PAGES],
                         ids=[f"{site}-{name}" for site, name, _ in SITE_PAGES])
def test_no_wcag_a_aa_violations(
    scheme_context: BrowserContext, request: pytest.FixtureRequest, axe_source: str, site: str,
    path: str
) -> None:
    base = site_base(request, site)
    page = scheme_context.new_page()
    try:
        def serve_axe(route: Route) -> None:
            route.fulfill(status=200, content_type="text/javascript; charset=utf-8",
                          body=axe_source)

        page.route(base + AXE_PATH, serve_axe)
        response = page.goto(base + path)
        assert response is not None
        page.add_script_tag(url=base + AXE_PATH)
        results: dict[str, Any] = page.evaluate(
            "tags => axe.run(document, {runOnly: {type: 'tag', values: tags}})", AXE_TAGS)
    finally:
        page.close()
    violations: list[dict[str, Any]] = results["violations"]
    assert not violations, (
        f"axe found {len(violations)} violation(s) on {path}:\n" + format_violations(violations))
