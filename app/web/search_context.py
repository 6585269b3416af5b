"""Search page and API data, built from the index's results (one function for both)."""

from __future__ import annotations

from markupsafe import escape

from app.corpus.collections import is_hidden
from app.corpus.hangul import choseong, with_particle
from app.corpus.lookup import named
from app.corpus.models import Corpus
from app.corpus.normalize import compact
from app.errors import AppError
from app.search import Hit, SearchIndex
from app.search.query import clean
from app.search.searcher import Results
from app.search.titles import short_title
from app.urls import Urls
from app.web.context import entry_points, path_of
from app.web.views import (
    Choice,
    ChooserPage,
    GameChoice,
    Notice,
    PathStep,
    Scope,
    SearchHit,
    SearchPage,
    SearchResults,
    ShownTranslation,
    SourceChoice,
    SourceLink,
    Suggestions,
    TitleMatch,
)

PAGE_SIZE = 10
MAX_PAGE = 100


def clean_query(query: str) -> str:
    """The query as searched and shown: the search's own cleaning (`query.clean`: no control
    or format characters, lone surrogates, at most `MAX_QUERY`) with spacing collapsed."""
    return " ".join(clean(query).split())


def check_filters(corpus: Corpus, game: str, source: str) -> None:
    """422 for a game or source the corpus does not have."""
    games = [g.id for g in corpus.games]
    if game and game not in games:
        raise AppError(422, f"game은 {', '.join(games)} 중 하나여야 합니다.")
    if source and corpus.source(source) is None:
        raise AppError(422, f"'{source[:50]}' 자료는 없습니다.")


def search_results(
    corpus: Corpus, index: SearchIndex, urls: Urls, query: str, *, game: str = "",
    source: str = "", limit: int = PAGE_SIZE, offset: int = 0,
    owned: frozenset[str] | None = None, as_typed: bool = False,
) -> SearchResults:
    """One page of results for `query`, with what the search changed in it.

    With `owned` collections, rules for other collections rank last and are marked; the
    index reorders its whole ranking before cutting the page, so paging and `total` hold.
    """
    check_filters(corpus, game, source)
    query = clean_query(query)
    if not query:
        results = None
        hits: list[Hit] = []
    else:
        def not_owned(entry_id: str) -> bool:
            return is_hidden(corpus.entries[entry_id].collections, owned)

        results = index.search(query, game=game or None, source=source or None,
                               limit=limit, offset=offset,
                               demote=not_owned if owned is not None else None,
                               as_typed=as_typed)
        hits = list(results.hits)
    def item(hit: Hit) -> SearchHit:
        entry = corpus.entries[hit.id]
        spec = corpus.source(entry.source)
        assert spec is not None
        shown = corpus.entries[hit.shown] if hit.shown != hit.id else None
        translation = ShownTranslation.of(
            shown, urls, lang=shown.lang, lang_name=corpus.language(shown.lang).name,
        ) if shown is not None else None
        # A step of a long entry (`documents.steps`): its heading, at its anchor, the entry
        # itself the last step of the path.
        step = {"title": hit.heading, "title_html": str(escape(hit.heading)),
                "url": urls.entry(entry.id, hit.anchor), "anchor": hit.anchor} if (
            hit.anchor) else {}
        path = path_of(corpus, entry)
        if hit.anchor:
            path.append(PathStep(id=entry.id, title=entry.title))
        return SearchHit.of(
            entry, urls, source=entry.source, game=entry.game, snippet=hit.snippet,
            path=path, source_title=spec.spec.title, **step,
            game_name=corpus.game(entry.game).name, game_short=corpus.game(entry.game).short,
            lang=entry.lang, not_owned=is_hidden(entry.collections, owned),
            translation=translation, snippet_lang=shown.lang if shown else entry.lang,
            lang_name=corpus.language(entry.lang).name)

    items = [item(hit) for hit in hits]
    suggestion = results.suggestion if results else None
    elsewhere = results.elsewhere if results and offset == 0 else None
    return SearchResults(
        query=query,
        total=results.total if results else 0,
        results=items,
        scope=_scope(corpus, urls, query, game, source),
        elsewhere=item(Hit(elsewhere, index.opening(elsewhere))) if elsewhere else None,
        suggestion=suggestion,
        suggestion_url=urls.search(suggestion, game=game, source=source) if suggestion else None,
        # "…을 찾으셨나요?": the particle the suggested title takes.
        suggestion_particle=with_particle(suggestion, "을")[len(suggestion):]
        if suggestion else "",
        notices=_notices(corpus, results, urls, game, source) if results else [],
        as_typed=as_typed,
        no_results=f"{with_particle(f'“{query}”', '와')} 일치하는 항목이 없습니다."
        if query else "",
    )


def _scope(corpus: Corpus, urls: Urls, query: str, game: str, source: str) -> Scope | None:
    """The chip naming the filter in force, with the link that removes it."""
    if source:
        spec = corpus.source(source)
        label = spec.spec.title if spec else source
        return Scope(label=f"{label}에서만", clear_url=urls.search(query, game=game),
                     clear_label="모든 자료")
    if game:
        return Scope(label=f"{corpus.game(game).name}에서만", clear_url=urls.search(query),
                     clear_label="모든 게임")
    return None


def _notices(corpus: Corpus, results: Results, urls: Urls, game: str,
             source: str) -> list[Notice]:
    """What the search changed in the query, said plainly: the official term a player's word
    stands for, the game the query named (with a link to that game alone), and a typo
    correction with a link to search the words as typed."""
    found: list[Notice] = []
    as_typed = urls.search(results.query, game=game, source=source, typed="1")
    if results.layout:
        typed, meant = results.layout
        found.append(Notice(kind="layout", typed=typed, official=meant,
                            text=f"‘{typed}’ → ‘{meant}’ (한/영 전환)", url=as_typed,
                            link=f"‘{typed}’ 그대로 찾기"))
    for typed, official in dict.fromkeys(results.synonyms):
        found.append(Notice(kind="synonym", typed=typed, official=official,
                            text=f"‘{typed}’ → 공식 용어 ‘{official}’", url=None, link=None))
    for typed, english, official in dict.fromkeys(results.loanwords):
        text = (f"‘{typed}’ → 공식 용어 ‘{official}’" if official
                else f"{with_particle(f'‘{typed}’', '을')} ‘{english}’"
                     f"{with_particle(english, '으로')[len(english):]} 찾았습니다")
        found.append(Notice(kind="loanword", typed=typed, official=official or english,
                            text=text, url=None, link=None))
    if results.game_named:
        typed, game_id = results.game_named
        name = corpus.game(game_id).name
        found.append(Notice(
            kind="game", typed=typed, official=name,
            text=f"‘{typed}’ → {name} 규칙 먼저",
            url=urls.search(results.query, game=game_id, source=source),
            link=f"{name}에서만 찾기"))
    if results.corrections:
        # The words corrected, not the whole query: in a question, ‘토쿤’ found nothing, the
        # rest did. The link searches the whole query as typed.
        typed = " ".join(word for word, _ in results.corrections)
        fixed = " ".join(correction for _, correction in results.corrections)
        found.append(Notice(
            kind="correction", typed=typed, official=fixed,
            text=f"‘{typed}’ 결과가 없어 {with_particle(f'‘{fixed}’', '으로')} 찾았습니다",
            url=as_typed,
            link=f"‘{typed}’ 그대로 찾기",
        ))
    if results.fallback:
        typed = " ".join(word for word, _ in results.fallback)
        near = " ".join(word for _, word in results.fallback)
        found.append(Notice(
            kind="fallback", typed=typed, official=near,
            text=f"{with_particle(f'‘{typed}’', '와')} 일치하는 항목이 없어 본문의 비슷한 낱말 "
                 f"{with_particle(f'‘{near}’', '으로')} 찾았습니다",
            url=as_typed, link=f"‘{typed}’ 그대로 찾기"))
    if results.dropped and results.hits:
        typed = ", ".join(f"‘{word}’" for word in results.dropped)
        # Every word missing: the results only share letters with them (떨어트리다 → 트리시).
        text = (f"{with_particle(typed, '이')} 든 항목이 없어 글자 일부가 같은 항목을 보여 드립니다"
                if results.partial else
                f"{with_particle(typed, '은')} 어느 항목에도 없어 나머지 낱말로 찾았습니다")
        found.append(Notice(
            kind="partial" if results.partial else "dropped", typed=" ".join(results.dropped),
            official="", text=text, url=None, link=None))
    return found


def search_page_context(
    corpus: Corpus, index: SearchIndex, urls: Urls, query: str, *, game: str, source: str,
    page: int, owned: frozenset[str] | None = None, as_typed: bool = False,
) -> SearchPage:
    """The results page: one page of results, filters and pagination links."""
    data = search_results(corpus, index, urls, query, game=game, source=source,
                          limit=PAGE_SIZE, offset=(page - 1) * PAGE_SIZE, owned=owned,
                          as_typed=as_typed)
    typed = "1" if as_typed else ""
    pages = min(MAX_PAGE, -(-data.total // PAGE_SIZE))
    q = data.query
    # The entry points are shown before anything is asked, and when nothing was found (0.12
    # ms to gather).
    lost = not q or not data.total
    points = entry_points(corpus, urls) if lost else None
    return SearchPage(
        **dict(data),
        game=game,
        source=source,
        page=page,
        pages=pages,
        prev_url=urls.search(q, game=game, source=source, page=page - 1, typed=typed)
        if page > 1 else None,
        next_url=urls.search(q, game=game, source=source, page=page + 1, typed=typed)
        if page < pages else None,
        games=[GameChoice(id=g.id, name=g.name) for g in corpus.games],
        sources=[SourceChoice(id=s.id, title=s.spec.title, game=s.spec.game)
                 for s in corpus.sources],
        first=(page - 1) * PAGE_SIZE + 1,
        # With nothing asked yet or found: where players usually go, and each index.
        timing=points.timing if points else [],
        quick=points.quick if points else [],
        timing_url=urls.timing(),
        source_links=[] if not lost else [
            SourceLink(title=s.spec.title, url=urls.source(s.id)) for s in corpus.sources
            if s.spec.translation_of is None],
    )


def suggest_context(corpus: Corpus, index: SearchIndex, urls: Urls, query: str) -> Suggestions:
    """The best titles for what has been typed so far (search as you type)."""
    query = clean_query(query)
    ids = index.suggest(query) if query else []
    suggestions = []
    for entry_id in ids:
        entry = corpus.entries[entry_id]
        parent = corpus.get(entry.parent) if entry.parent else None
        spec = corpus.source(entry.source)
        assert spec is not None
        # Two games share titles (특성, 파멸): the context names the game first.
        match = TitleMatch.of(
            entry, urls, game=entry.game,
            context=f"{corpus.game(entry.game).short} · "
                    f"{parent.title if parent else spec.spec.title}")
        # A pasted FAQ question is shortened; its scenario is the context.
        suggestions.append(match.model_copy(update={"title": short_title(entry.title)}))
    return Suggestions(query=query, suggestions=suggestions)


def closest_entries(
    corpus: Corpus, index: SearchIndex, urls: Urls, text: str, *, limit: int = 5
) -> list[TitleMatch]:
    """Entries that a missing id or title most likely meant, for 404 pages.

    `Attack_of_Oportunity` and `틈세 공격` both lead to 틈새 공격: ids are English names the
    index knows as aliases, and typos are corrected at the jamo level.
    """
    query = clean_query(text.replace("_", " "))
    if not query:
        return []
    ids = list(dict.fromkeys([*index.suggest(query, limit=limit),
                              *(h.id for h in index.search(query, limit=limit).hits)]))
    found = []
    for entry_id in ids[:limit]:
        entry = corpus.entries[entry_id]
        spec = corpus.source(entry.source)
        assert spec is not None
        found.append(TitleMatch.of(entry, urls, game=entry.game, context=spec.spec.title))
    return found


def go_targets(corpus: Corpus, index: SearchIndex, text: str) -> list[str]:
    """Where `/go/{text}` leads: one entry when the match is beyond doubt, several when the
    best matches tie (the same title in both games, or two titles with those initials), or
    none (then the search page).

    Beyond doubt means: the text names entries as a link would (`lookup.named`: an id in any
    case, a title or English name, a players' word for one official term: `클루`, `AoO`), or
    it is exactly a title's initial consonants, or the title suggestion and the top search
    result agree. Within one game, the same title in two books opens the first book's (the
    reference).
    """
    found = named(corpus, text)
    if found:
        return list(found)
    query = clean_query(text.replace("_", " "))
    if not query:
        return []
    suggested = index.suggest(query, limit=8)
    if not suggested:
        return []
    wanted = compact(query)
    exact: dict[tuple[str, str], str] = {}
    for entry_id in suggested:
        entry = corpus.entries[entry_id]
        title = compact(entry.title)
        if title == wanted or choseong(title) == wanted:
            exact.setdefault((entry.game, title), entry_id)
    if exact:
        return list(exact.values())
    top = index.search(query, limit=1).hits
    return [suggested[0]] if top and top[0].id == suggested[0] else []


def chooser_context(corpus: Corpus, urls: Urls, text: str, ids: list[str]) -> ChooserPage:
    """The small page `/go/` shows when its best matches tie: each with game and place."""
    choices = []
    for entry in (corpus.entries[i] for i in ids):
        source = corpus.source(entry.source)
        place = [source.spec.title if source else "", *(p.title for p in corpus.path(entry))]
        choices.append(Choice.of(entry, urls, game=entry.game,
                                 game_name=corpus.game(entry.game).name,
                                 context=" › ".join(place)))
    return ChooserPage(query=clean_query(text.replace("_", " ")), choices=choices)
