"""Which entry ids the reference can serve at a URL of their own.

An id becomes a path: `/rules/<id>`, with every character percent-encoded except "/", which
stays a separator so that namespaced ids read naturally (`/rules/en/Attack_of_Opportunity`,
`/rules/faq/wilds/2`). Browsers and proxies rewrite some paths before we see them: they drop
`.` and `..` segments (even percent-encoded ones, per the URL standard) and many merge `//`.
Those ids, and ids with control characters (invisible in a link and refused by HTTP tools),
are the only ones rejected; quotes, `?`, `#`, `%` and spaces are served as they are.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Container

#: Longer ids are not anchors anyone types or shares; the limit keeps URLs far below the
#: server's 16 KB request-line bound even fully percent-encoded.
MAX_ID = 200
#: Longest name of one file or folder, in UTF-8 bytes, on the file systems a static export is
#: written to (ext4, XFS, APFS, NTFS): each segment of an id becomes one (`rules/<id>/`).
MAX_SEGMENT_BYTES = 255


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
    longest = max(segments, key=lambda s: len(s.encode("utf-8", "surrogatepass")))
    if len(longest.encode("utf-8", "surrogatepass")) > MAX_SEGMENT_BYTES:
        return (f'id segment "{longest[:20]}…" is {len(longest.encode("utf-8", "surrogatepass"))}'
                f" bytes in UTF-8: a file name may have at most {MAX_SEGMENT_BYTES} (the static "
                "export writes one folder per segment)")
    return ""


def segment_problem(name: str) -> str:
    """Why `name` cannot be one segment of a URL path and one file name (a source id, which
    becomes `/sources/<id>` and the export's `sources/<id>/`), or "" when it can."""
    if not name.isprintable():
        return "holds a control character"
    if "/" in name or "\\" in name or name in (".", ".."):
        return 'must be one path segment: no "/" or "\\", and not "." or ".."'
    if name != name.strip():
        return "starts or ends with a space"
    if len(name.encode("utf-8", "surrogatepass")) > MAX_SEGMENT_BYTES:
        return f"is longer than a file name may be ({MAX_SEGMENT_BYTES} bytes in UTF-8)"
    return ""


def declared_file_problem(name: str) -> str:
    """Why the manifest may not declare `name` as a data file, or "" when it may: a file is
    named by a relative path inside the data folder (a copy of the folder, the snapshot the
    workers serve, must mean the same files)."""
    if not name.isprintable():
        return "holds a control character"
    parts = name.replace("\\", "/").split("/")
    if name.startswith(("/", "\\")) or (len(name) > 1 and name[1] == ":"):
        return "must be a path relative to the data folder, not an absolute one"
    if any(part in ("", ".", "..") for part in parts):
        return ('must name a file inside the data folder (no "..", "." or empty path '
                "segments)")
    if any(len(part.encode("utf-8", "surrogatepass")) > MAX_SEGMENT_BYTES for part in parts):
        return f"has a path segment longer than a file name may be ({MAX_SEGMENT_BYTES} bytes)"
    return ""


def canonical_id(requested: str, entries: Container[str]) -> str | None:
    """The id of `entries` that `requested` spells differently, or None (it is one, or names
    none). Decomposed Hangul (NFD, as some systems write file names and copied text) names the
    composed (NFC) id the data uses: `/rules/eh-징조` typed either way is one page."""
    composed = unicodedata.normalize("NFC", requested)
    if composed != requested and composed in entries:
        return composed
    return None
