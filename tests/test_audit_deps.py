"""The dependency audit's verdict on pip-audit reports."""

from __future__ import annotations

from scripts.audit_deps import NO_VERDICT, verdict


def test_known_vulnerability_fails_and_is_named() -> None:
    report = {"dependencies": [
        {"name": "jinja2", "version": "3.1.2", "vulns": [
            {"id": "GHSA-h5c8-rqwp-cp95", "fix_versions": ["3.1.3"]}]},
        {"name": "fastapi", "version": "0.115.0", "vulns": []},
    ]}
    status, message = verdict(report)
    assert status == 1
    assert "jinja2 3.1.2: GHSA-h5c8-rqwp-cp95 (fixed in 3.1.3)" in message


def test_unreachable_service_is_no_verdict_not_a_pass() -> None:
    reason = "Dependency not found on PyPI and could not be audited: anyio (4.16.0)"
    report = {"dependencies": [{"name": "anyio", "skip_reason": reason}]}
    status, message = verdict(report)
    assert status == NO_VERDICT and "no verdict" in message


def test_clean_report_passes_and_names_what_was_not_found() -> None:
    report = {"dependencies": [
        {"name": "fastapi", "version": "0.115.0", "vulns": []},
        {"name": "private-pkg", "skip_reason": "not on PyPI"},
    ]}
    assert verdict(report) == (0, "no known vulnerabilities in 1 dependencies; not found: "
                                  "private-pkg")
