"""The search bench's two peers behind HTTP, so their latency over loopback is measured the
same way as the project's: `uvicorn bench.peers_app:app` (data from RULES_DATA_DIR).

    GET /peer/substring?q=&game=   → {"results": [ids]}   a substring filter, names first
    GET /peer/fts5?q=&game=        → {"results": [ids]}   SQLite FTS5 with the trigram tokenizer

Both are `bench.search`'s peers, unchanged: they index each entry's title, its id as English
text and its body, and FTS5 falls back to `LIKE '%term%'` for terms under 3 characters.
"""

from __future__ import annotations

import os
from pathlib import Path

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from app.corpus.build import load_corpus
from bench.search import ROOT, Search, fts5_peer, substring_peer

_corpus = load_corpus(Path(os.environ.get("RULES_DATA_DIR", ROOT / "data")))
_PEERS: dict[str, Search | None] = {
    "substring": substring_peer(_corpus),
    "fts5": fts5_peer(_corpus),
}


async def _peer(request: Request) -> JSONResponse:
    peer = _PEERS.get(request.path_params["name"])
    if peer is None:
        return JSONResponse({"error": "no such peer"}, status_code=404)
    query = request.query_params.get("q", "")
    game = request.query_params.get("game") or None
    return JSONResponse({"results": list(peer(query, game))})


app = Starlette(routes=[Route("/peer/{name}", _peer)])
