"""Inline SVG icons for the game-icon tokens used in the rules text.

The rules text marks game icons with tokens such as ``reaction`` or
``elder_sign``.  Each token is drawn here as a small, original SVG (not the
publisher's artwork and not the IcoMoon font used elsewhere) on a
``0 0 24 24`` canvas.  The shapes only use ``currentColor`` so they follow the
surrounding text colour (dark mode, coloured table rows), contain no ``id``
or ``style`` attributes (the page may repeat an icon many times and the CSP
forbids inline styles) and reference nothing external.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from html import escape
from types import MappingProxyType

__all__ = ["ICONS", "Icon", "icon_html"]

# Shared attribute fragments for the two drawing styles.
_FILL = 'fill="currentColor"'
_EVENODD = 'fill="currentColor" fill-rule="evenodd"'
_STROKE = 'fill="none" stroke="currentColor" stroke-linecap="round" stroke-linejoin="round"'


@dataclass(frozen=True)
class Icon:
    """One game icon.

    Attributes:
        token: The token used in the rules markup, e.g. ``"reaction"``.
        label: The Korean name, used as the accessible label and tooltip.
        body: Inner SVG markup (shapes only) for a ``0 0 24 24`` viewBox.
    """

    token: str
    label: str
    body: str


_DEFS: tuple[tuple[str, str, str], ...] = (
    # --- action / trigger icons ------------------------------------------
    (
        "action",
        "행동",
        # A notched, forward-pointing chevron arrow.
        f'<path {_FILL} d="M2 3.5h10.5L21.5 12l-9 8.5H2l7.5-8.5z"/>',
    ),
    (
        "free",
        "자유 격발",
        # A lightning bolt.
        f'<path {_FILL} d="M14.5 1 4 13.5h7L9 23l11-13h-7z"/>',
    ),
    (
        "reaction",
        "반응 격발",
        # A hooked return arrow.
        f'<path {_STROKE} stroke-width="3" d="M20 20v-5a6 6 0 0 0-6-6H7"/>'
        f'<path {_FILL} d="M10 3 2.5 9l7.5 6z"/>',
    ),
    (
        "fast",
        "신속",
        # A lightning bolt inside a ring.
        f'<circle {_STROKE} stroke-width="2" cx="12" cy="12" r="10"/>'
        f'<path {_FILL} d="M13.5 4.5 7 13h4.5l-1.5 6.5 7-8.5h-4.5z"/>',
    ),
    (
        "per_investigator",
        "조사자당",
        # A head-and-shoulders bust.
        f'<circle {_FILL} cx="12" cy="7" r="4.5"/>'
        f'<path {_FILL} d="M3 22c0-5.5 4-9 9-9s9 3.5 9 9z"/>',
    ),
    # --- chaos tokens ---------------------------------------------------
    (
        "elder_sign",
        "고대 표식",
        # A five-pointed star outline with a burning eye in the middle.
        f'<polygon {_STROKE} stroke-width="1.8" points="12,1.6 14.7,9.1 22.7,9.3 '
        '16.4,14.2 18.6,21.9 12,17.4 5.4,21.9 7.6,14.2 1.3,9.3 9.3,9.1"/>'
        f'<circle {_FILL} cx="12" cy="12.6" r="2.3"/>',
    ),
    (
        "skull",
        "해골",
        # A skull with hollow eyes, nose and a toothed jaw.
        f'<path {_EVENODD} d="M12 2a9 9 0 0 0-9 9c0 3 1.4 5 3.5 6.2V21a1 1 0 0 0 1 1h9a1 1 '
        "0 0 0 1-1v-3.8C19.6 16 21 14 21 11a9 9 0 0 0-9-9zM8.5 9a2.2 2.2 0 1 0 0 4.4 "
        "2.2 2.2 0 0 0 0-4.4zm7 0a2.2 2.2 0 1 0 0 4.4 2.2 2.2 0 0 0 0-4.4zM12 14l-1.5 "
        '2.5h3zM9.3 19h1.2v3H9.3zm4.2 0h1.2v3h-1.2z"/>',
    ),
    (
        "cultist",
        "광신도",
        # A pointed hood with a dark face and two glinting eyes.
        f'<path {_EVENODD} d="M12 1.5C7 4.5 5 9.5 5 15l-2 7h18l-2-7c0-5.5-2-10.5-7-13.5z'
        'M8.5 13a3.5 4.5 0 1 0 7 0 3.5 4.5 0 1 0-7 0z"/>'
        f'<circle {_FILL} cx="10.6" cy="13" r="1"/><circle {_FILL} cx="13.4" cy="13" r="1"/>',
    ),
    (
        "tablet",
        "석판",
        # A round-topped stone tablet with carved lines.
        f'<path {_EVENODD} d="M4.5 22V9a7.5 7 0 0 1 15 0v13z'
        'M8 9.5h8v1.8H8zm0 3.7h8V15H8zm0 3.7h5v1.8H8z"/>',
    ),
    (
        "elder_thing",
        "고대의 것",
        # A star-shaped head: five curling stalks ending in eyes.
        f'<path {_STROKE} stroke-width="2.2" d="M12 12.5Q14.8 7.7 12 3.9M12 12.5Q17.4 13.6 '
        "20.2 9.8M12 12.5Q12.6 18 17.1 19.5M12 12.5Q7 14.7 6.9 19.5M12 12.5Q8.3 8.4 "
        '3.8 9.8"/>'
        f'<g {_FILL}><circle cx="12" cy="12.5" r="3.6"/><circle cx="12" cy="3.9" r="2"/>'
        '<circle cx="20.2" cy="9.8" r="2"/><circle cx="17.1" cy="19.5" r="2"/>'
        '<circle cx="6.9" cy="19.5" r="2"/><circle cx="3.8" cy="9.8" r="2"/></g>',
    ),
    (
        "auto_fail",
        "자동 실패",
        # A solid disc with an X cut out of it.
        f'<path {_EVENODD} d="M12 1.5a10.5 10.5 0 1 0 0 21 10.5 10.5 0 0 0 0-21z'
        "M16.9 9 14 12l2.9 3-1.9 1.9-3-2.9-3 2.9L7.1 15l2.9-3-2.9-3L9 7.1l3 2.9 "
        '3-2.9z"/>',
    ),
    (
        "bless",
        "축복",
        # A sun with eight rays.
        f'<circle {_FILL} cx="12" cy="12" r="4.5"/>'
        f'<path {_STROKE} stroke-width="2" d="M19 12h3.5M16.9 16.9l2.5 2.5M12 19v3.5'
        'M7.1 16.9l-2.5 2.5M5 12H1.5M7.1 7.1 4.6 4.6M12 5V1.5M16.9 7.1l2.5-2.5"/>',
    ),
    (
        "curse",
        "저주",
        # A crescent (a waning, swallowed light).
        f'<path {_FILL} d="M14.5 2.3A10 10 0 1 0 21.7 16 8 8 0 0 1 14.5 2.3z"/>',
    ),
    # --- skills ----------------------------------------------------------
    (
        "willpower",
        "의지",
        # A flame with an open eye at its heart.
        f'<path {_EVENODD} d="M12 1c1 4 7.5 6.5 7.5 13.5a7.5 7.5 0 0 1-15 0c0-3.5 1.8-6 3.6-7.5 '
        '0 2 .8 3.3 2 3.8C9.8 7 10.6 4 12 1zM7.8 15.3q4.2-4.4 8.4 0-4.2 4.4-8.4 0z"/>'
        f'<circle {_FILL} cx="12" cy="15.3" r="1.5"/>',
    ),
    (
        "intellect",
        "지식",
        # An open book.
        f'<path {_FILL} d="M1.5 5c3.5-1.3 7.5-1 9.7 1.2V21c-2.2-1.8-6.2-2-9.7-1z'
        'M22.5 5c-3.5-1.3-7.5-1-9.7 1.2V21c2.2-1.8 6.2-2 9.7-1z"/>',
    ),
    (
        "combat",
        "힘",
        # A clenched fist seen from the front: four knuckles over a thumb.
        f'<g {_FILL}><rect x="4" y="3.5" width="3.7" height="8" rx="1.85"/>'
        '<rect x="8.2" y="2.5" width="3.7" height="9" rx="1.85"/>'
        '<rect x="12.4" y="2.5" width="3.7" height="9" rx="1.85"/>'
        '<rect x="16.6" y="3.5" width="3.7" height="8" rx="1.85"/>'
        '<path d="M4 12.5h16.3v3c0 2.5-1.5 4-3.3 4.5V22H8v-2c-2.3-.8-4-2.4-4-4.5z"/></g>',
    ),
    (
        "agility",
        "민첩",
        # A boot with speed lines behind it.
        f'<path {_FILL} d="M8 2h6.5v9.5l5.5 2.5c1.8.8 2.5 2 2.5 3.5V20H7v-2.5l1-3z"/>'
        f'<path {_FILL} d="M6.5 21h16v1.5h-16z"/>'
        f'<path {_STROKE} stroke-width="1.8" d="M1.5 6h4.5M2.5 10h3.5M1.5 14h4.5"/>',
    ),
    (
        "wild",
        "만능",
        # A question mark.
        f'<path {_STROKE} stroke-width="3" d="M7.5 8a4.5 4.5 0 1 1 6.6 4c-1.5.8-2.1 1.8-2.1 '
        '3.2V16"/>'
        f'<circle {_FILL} cx="12" cy="20.5" r="1.9"/>',
    ),
    # --- classes ---------------------------------------------------------
    (
        "guardian",
        "수호자",
        # A heater shield with one half of its inner field cut away.
        f'<path {_EVENODD} d="M12 1.5 20.5 4.5V11c0 5.5-3.6 9.5-8.5 11.5-4.9-2-8.5-6-8.5-11.5'
        'V4.5zM12 4.8v14.9c3.1-1.7 5.3-4.6 5.3-8.7V6.7z"/>',
    ),
    (
        "seeker",
        "탐구자",
        # A magnifying glass.
        f'<circle {_STROKE} stroke-width="2.6" cx="10" cy="10" r="6.8"/>'
        f'<path {_STROKE} stroke-width="3.6" d="M15.2 15.2 21 21"/>',
    ),
    (
        "rogue",
        "무법자",
        # A domino mask.
        f'<path {_EVENODD} d="M1.5 8.5c0-2 3.5-3 10.5-.8 7-2.2 10.5-1.2 10.5.8 0 5-2 8.5-5.3 '
        "8.5-2.5 0-3.5-2.3-5.2-2.3s-2.7 2.3-5.2 2.3C3.5 17 1.5 13.5 1.5 8.5z"
        'M5 11a2.5 1.7 0 1 0 5 0 2.5 1.7 0 1 0-5 0zm9 0a2.5 1.7 0 1 0 5 0 2.5 1.7 0 1 0-5 0z"/>',
    ),
    (
        "mystic",
        "신비주의자",
        # A cut crystal: crown above, pavilion below.
        f'<path {_FILL} d="M6.5 3h11l4.5 6H2zM2 10.7h20L12 22.5z"/>',
    ),
    (
        "survivor",
        "생존자",
        # Two chain links pulled apart, with a break between them.
        f'<g {_STROKE} stroke-width="2.4" transform="rotate(-45 12 12)">'
        '<rect x="0.5" y="8.5" width="10" height="7" rx="3.5"/>'
        '<rect x="13.5" y="8.5" width="10" height="7" rx="3.5"/>'
        '<path stroke-width="1.6" d="M12 5.5v2M12 16.5v2"/></g>',
    ),
)

ICONS: Mapping[str, Icon] = MappingProxyType(
    {token: Icon(token=token, label=label, body=body) for token, label, body in _DEFS}
)
"""All known icons, keyed by token (read-only)."""


def icon_html(token: str) -> str | None:
    """The inline HTML for a token, or None when the token is unknown.

    The result is a single line: a ``<span>`` carrying the accessible Korean
    label (``role="img"``, ``aria-label`` and ``title``) wrapping a 1em square
    inline ``<svg>`` that is hidden from assistive technology.
    """
    icon = ICONS.get(token)
    if icon is None:
        return None
    label = escape(icon.label, quote=True)
    return (
        f'<span class="icon icon-{icon.token}" role="img" aria-label="{label}" title="{label}">'
        '<svg viewBox="0 0 24 24" width="1em" height="1em" aria-hidden="true" focusable="false">'
        f"{icon.body}</svg></span>"
    )
