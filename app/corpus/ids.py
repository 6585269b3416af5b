"""Which entry ids the reference can serve at a URL of their own.

An id becomes a path: `/rules/<id>`, with every character percent-encoded except "/", which
stays a separator so that namespaced ids read naturally (`/rules/en/Attack_of_Opportunity`,
`/rules/faq/wilds/2`). Browsers and proxies rewrite some paths before we see them: they drop
`.` and `..` segments (even percent-encoded ones, per the URL standard) and many merge `//`.
Those ids, and ids with control characters (invisible in a link and refused by HTTP tools),
are the only ones rejected; quotes, `?`, `#`, `%` and spaces are served as they are.
"""

from __future__ import annotations

#: Longer ids are not anchors anyone types or shares; the limit keeps URLs far below the
#: server's 16 KB request-line bound even fully percent-encoded.
MAX_ID = 200


def id_problem(entry_id: str) -> str:
    """Why `entry_id` cannot be served at its own URL, or "" when it can."""
    if len(entry_id) > MAX_ID:
        return f"id is {len(entry_id)} characters long (at most {MAX_ID})"
    if not entry_id.isprintable() and any(ord(c) < 32 or 0x7F <= ord(c) < 0xA0
                                          for c in entry_id):
        return "id holds a control character (a line break or tab?)"
    segments = entry_id.split("/")
    if any(s in ("", ".", "..") for s in segments):
        return ('id cannot be served at a URL: browsers rewrite paths with an empty, "." or '
                '".." segment (a leading, trailing or doubled "/", or a "." between slashes)')
    if entry_id != entry_id.strip():
        return "id starts or ends with a space"
    return ""
