"""Page data for what changed: an entry's history line and page, a removed entry's page,
`/changes` and its feed. Built as the typed views of `app.web.views` from the history the
library computed once (`app.corpus.history`); no web framework here."""

from __future__ import annotations

from app.corpus.history import Change, EntryHistory, History, Revision
from app.corpus.models import Corpus, Entry
from app.errors import AppError
from app.render.diff import plain_html, word_diff
from app.urls import Urls
from app.web.context import entry_context
from app.web.views import (
    ChangedEntry,
    ChangesPage,
    EntryHistoryLine,
    EntryPage,
    HistoryPage,
    HistoryStep,
    LangLink,
    RemovedPage,
    RevisionChanges,
    RevisionRef,
    SourceChanges,
    SourceFilter,
    TranslationLag,
)

#: Revisions the feed carries (newest first): enough for a reader that polls monthly.
FEED_REVISIONS = 30
#: A rewrite at least this many words in size is called large on /changes.
LARGE_CHANGE = 30


def _anchor(revision: Revision) -> str:
    """The id of a revision's section on /changes: one commit touching two sources is one
    section there."""
    return f"r-{revision.date}-{(revision.commit[:9] or revision.key)}"


def revision_ref(history: History, revision: Revision, urls: Urls) -> RevisionRef:
    commit_url = (history.commit_url.replace("{commit}", revision.commit)
                  if history.commit_url and revision.commit else None)
    return RevisionRef(source=revision.source, key=revision.key, date=revision.date,
                       subject=revision.subject, commit_url=commit_url, local=revision.local,
                       baseline=revision.baseline,
                       url=urls.changes() + "#" + _anchor(revision))


def _step_anchor(revision: Revision) -> str:
    return f"v-{revision.key}"


def _sized(change: Change) -> str:
    """The size of a change in words, as /changes and the history page show it."""
    if change.kind == "added":
        return f"{change.added}어절"
    parts = [f"+{change.added}" if change.added else "", f"−{change.removed}"
             if change.removed else ""]
    return " ".join(p for p in parts if p) + "어절" if any(parts) else "제목만"


def entry_page_context(corpus: Corpus, history: History, entry_id: str, urls: Urls,
                       owned: frozenset[str] | None = None) -> EntryPage:
    """The entry page (`context.entry_context`) with what the history says about it."""
    page = entry_context(corpus, entry_id, urls, owned)
    entry = corpus.entries[entry_id]
    return page.model_copy(update={"history": entry_history_line(corpus, history, entry, urls)})


def entry_history_line(corpus: Corpus, history: History, entry: Entry,
                       urls: Urls) -> EntryHistoryLine | None:
    """What the entry page says about the entry's past: added, last changed, how often, and
    whether the English original changed since the Korean text did."""
    record = history.of(entry.id)
    if record is None:
        return None
    first = history.revision(record.source, record.added.revision)
    edits = record.revisions
    last = history.revision(record.source, edits[-1].revision) if edits else None
    return EntryHistoryLine(
        url=urls.history(entry.id),
        added=None if first.baseline else first.date,
        changed=last.date if last is not None else None,
        changes=len(edits),
        last_changed=(last or first).date,
        former_ids=list(record.former_ids),
        lag=translation_lag(corpus, history, entry, record, urls),
    )


def translation_lag(corpus: Corpus, history: History, entry: Entry, record: EntryHistory,
                    urls: Urls) -> TranslationLag | None:
    """When a translation paired with this entry (its original text, for the Korean
    reference) changed after this entry's text last did: which, and when."""
    source = corpus.source(entry.source)
    if source is None or source.spec.translation_of is not None:
        return None  # only the reference's own pages compare themselves with the others
    mine = history.date_of(record, record.last_text)
    for lang, other_id in entry.translations.items():
        other = history.of(other_id)
        if other is None:
            continue
        latest = other.last_text
        date = history.date_of(other, latest)
        if date > mine:
            revision = history.revision(other.source, latest.revision)
            return TranslationLag(lang=lang, lang_name=corpus.language(lang).name,
                                  date=date, since=mine,
                                  url=urls.history(other_id, _step_anchor(revision)))
    return None


def history_context(corpus: Corpus, history: History, entry_id: str,
                    urls: Urls) -> HistoryPage:
    """Every change to one entry, newest first, each with its word-level difference."""
    record = history.of(entry_id)
    if record is None:
        raise AppError(404, f"'{entry_id}' 항목의 변경 이력이 없습니다.", detail={"id": entry_id})
    entry = corpus.get(entry_id)
    source = corpus.source(record.source)
    steps: list[HistoryStep] = []
    previous: Change | None = None
    for change in record.changes:
        revision = history.revision(record.source, change.revision)
        title_html = body_html = ""
        rewrite = False
        if previous is not None and change.kind in ("changed", "restored"):
            if change.title_changed:
                title_html = word_diff(previous.title, change.title).html
            if change.text != previous.text:
                diff = word_diff(previous.text, change.text)
                body_html, rewrite = diff.html, diff.rewrite
        steps.append(HistoryStep(
            kind=change.kind, revision=revision_ref(history, revision, urls),
            anchor=_step_anchor(revision), title=change.title, text=change.text,
            title_html=title_html, body_html=body_html, rewrite=rewrite,
            text_html=plain_html(change.text) if change.kind in ("added", "removed") else "",
            size=_sized(change) if change.kind in ("added", "changed") else "",
            added=change.added, removed=change.removed, renamed_from=change.renamed_from or None,
            id=change.id))
        if change.edits:
            previous = change
    last = record.changes[-1]
    return HistoryPage(
        id=entry_id, title=last.title, lang=source.spec.lang if source else "ko",
        url=urls.entry(entry_id), history_url=urls.history(entry_id),
        source=record.source, source_title=source.spec.title if source else record.source,
        source_url=urls.source(record.source), removed=record.removed,
        title_html=entry.title_html if entry is not None else None,
        steps=list(reversed(steps)), changes_url=urls.changes(record.source))


def removed_context(corpus: Corpus, history: History, entry_id: str,
                    urls: Urls) -> RemovedPage | None:
    """A removed entry's last text and dates, or None when `entry_id` was never removed."""
    record = history.of(entry_id)
    if record is None or not record.removed or entry_id in corpus.entries:
        return None
    source = corpus.source(record.source)
    last = record.last_text
    elsewhere = [corpus.entries[i] for i in (s.spec.namespace + entry_id for s in corpus.sources
                                             if s.spec.namespace) if i in corpus.entries]
    return RemovedPage(
        id=entry_id, title=last.title, text=last.text, text_html=plain_html(last.text),
        lang=source.spec.lang if source else "ko",
        source_title=source.spec.title if source else record.source,
        source_url=urls.source(record.source),
        added=None if history.revision(record.source, record.added.revision).baseline
        else history.date_of(record, record.added),
        removed=history.date_of(record, record.changes[-1]),
        history_url=urls.history(entry_id), search_url=urls.search(last.title),
        translations=[LangLink(title=e.title, url=urls.entry(e.id), lang=e.lang)
                      for e in elsewhere])


def changes_context(corpus: Corpus, history: History, urls: Urls,
                    source_id: str | None = None, *, limit: int | None = None) -> ChangesPage:
    """What each revision changed, newest first: new entries and rewritten ones apart, each
    with the size of its change; one source only with `source_id`."""
    if source_id is not None and source_id not in history.sources:
        raise AppError(404, f"'{source_id}' 자료의 변경 내역이 없습니다.")
    grouped: dict[tuple[str, int], list[tuple[EntryHistory, Change]]] = {}
    for record in history.entries.values():
        for change in record.changes:
            grouped.setdefault((record.source, change.revision), []).append((record, change))
    sections: dict[str, RevisionChanges] = {}
    for source in corpus.sources:
        if source.id not in history.sources or source_id not in (None, source.id):
            continue
        for revision in history.sources[source.id].revisions:
            part = _source_changes(corpus, history, source.id, revision,
                                   grouped.get((source.id, revision.number), []), urls)
            anchor = _anchor(revision)
            section = sections.get(anchor)
            if section is None:
                sections[anchor] = RevisionChanges(
                    anchor=anchor, revision=revision_ref(history, revision, urls),
                    sources=[part])
            else:
                section.sources.append(part)
    # Newest first; a history's baseline (a snapshot taken when the history began, not a
    # change) goes last.
    ordered = sorted(sections.values(), key=lambda s: (not s.revision.baseline,
                                                       s.revision.date, s.anchor), reverse=True)
    if limit is not None:
        ordered = ordered[:limit]
    filters = [SourceFilter(id=source.id, title=source.spec.title, lang=source.spec.lang,
                            url=urls.changes(source.id), current=source.id == source_id)
               for source in corpus.sources if source.id in history.sources]
    return ChangesPage(source=source_id, revisions=ordered, filters=filters,
                       all_url=urls.changes(), feed_url=urls.changes_feed(),
                       newest=history.latest, url=urls.changes(source_id),
                       list_level=3 if source_id else 4)


def _source_changes(corpus: Corpus, history: History, source_id: str, revision: Revision,
                    changes: list[tuple[EntryHistory, Change]], urls: Urls) -> SourceChanges:
    source = corpus.source(source_id)
    assert source is not None
    lists: dict[str, list[ChangedEntry]] = {"added": [], "changed": [], "removed": [],
                                           "renamed": []}
    for record, change in changes:
        kind = "added" if change.kind == "restored" else change.kind
        lists[kind].append(ChangedEntry(
            id=record.id, title=change.title, url=urls.entry(record.id),
            history_url=urls.history(record.id, _step_anchor(revision)), size=_sized(change),
            added=change.added, removed=change.removed, title_changed=change.title_changed,
            large=change.kind == "changed" and change.added + change.removed >= LARGE_CHANGE,
            renamed_from=change.renamed_from or None, restored=change.kind == "restored"))
    lists["changed"].sort(key=lambda c: c.added + c.removed, reverse=True)
    first = revision.number == 0
    return SourceChanges(
        source=source_id, source_title=source.spec.title, lang=source.spec.lang,
        key=revision.key, first=first, local=revision.local,
        entries=len(lists["added"]) if first else 0,
        new=[] if first else lists["added"], rewritten=lists["changed"],
        removed=lists["removed"], renamed=lists["renamed"],
        nothing=not any(lists.values()))

