"""Browser checks (Chromium via Playwright, axe-core, the Nu HTML Checker)."""
