"""Korean-aware full-text search over the corpus (Whoosh, no web framework).

`SearchIndex.open_or_build(corpus, index_dir)` gives an index; `search()` ranks entries and
`suggest()` completes titles as the player types. See `searcher.py` for the ranking,
`analysis.py` / `fuzzy.py` for how Korean text is matched and `contract.py` for every value
the server and the browser engine share (the budget: how much work one query may cause).
"""

from app.search.contract import Budget
from app.search.searcher import Hit, Results, SearchIndex

__all__ = ["Budget", "Hit", "Results", "SearchIndex"]
