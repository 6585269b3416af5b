"""Audit the installed dependencies for known vulnerabilities with pip-audit.

    .venv/bin/python scripts/audit_deps.py [extra pip-audit options]

Exit 0: every dependency was looked up and none has a known vulnerability.
Exit 1: a known vulnerability (listed), or pip-audit itself failed.
Exit 3: no verdict: the vulnerability service answered for none of the dependencies (this
        machine reaches PyPI's package index but not its per-version JSON, nor OSV). That is
        reported loudly; CI treats it as "could not check", never as "clean".
A partial answer (some dependencies not found) is a pass with a warning naming them.
The project itself (installed editable) is skipped. To accept a vulnerability knowingly, pass
`--ignore-vuln ID` where this is run, with a comment saying why.
"""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

NO_VERDICT = 3


def verdict(report: dict[str, Any]) -> tuple[int, str]:
    """The exit status and the message for a pip-audit JSON report."""
    deps = report.get("dependencies", [])
    vulnerable = [d for d in deps if d.get("vulns")]
    skipped = [d for d in deps if "skip_reason" in d]
    audited = len(deps) - len(skipped)
    if vulnerable:
        lines = [f"  {d['name']} {d.get('version', '?')}: "
                 + ", ".join(f"{v['id']} (fixed in {', '.join(v.get('fix_versions', [])) or '?'})"
                             for v in d["vulns"])
                 for d in vulnerable]
        return 1, "known vulnerabilities:\n" + "\n".join(lines)
    if deps and not audited:
        return NO_VERDICT, (f"no verdict: the vulnerability service answered for none of "
                            f"{len(deps)} dependencies ({skipped[0]['skip_reason']})")
    if skipped:
        names = ", ".join(d["name"] for d in skipped)
        return 0, f"no known vulnerabilities in {audited} dependencies; not found: {names}"
    return 0, f"no known vulnerabilities in {audited} dependencies"


def main(argv: list[str]) -> int:
    """Run pip-audit on this interpreter's environment and judge its report."""
    command = [sys.executable, "-m", "pip_audit", "--skip-editable", "--progress-spinner",
               "off", "--format", "json", *argv]
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    try:
        report = json.loads(done.stdout)
    except json.JSONDecodeError:
        print(f"audit-deps: pip-audit failed ({done.returncode}): {done.stderr.strip()[-500:]}",
              file=sys.stderr)
        return 1
    status, message = verdict(report)
    print(f"audit-deps: {message}", file=sys.stderr)
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
