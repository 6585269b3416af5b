"""What search indexes: one document per entry a result can land on.

A translation's entry that pairs with an original (`en/Attack_of_Opportunity` with
`Attack_of_Opportunity`) is not a document of its own: it joins the original's document.

* The **English** translation is folded into the original's own fields, as it always was: its
  title becomes the English name (the names of ArkhamDB ids and English forums), its text is
  searched and quoted with the entry's, so English words find the Korean rule.
* **Every other translation** (`de/Doom`) is searched in the translation fields (`title_tr`,
  `body_tr`): its title counts as a title of the entry, and a search in its language finds the
  entry and shows that language's title and snippet (`SearchIndex.search`). The entry's own
  fields, and so every Korean and English search, are the same with or without them.

An entry only a translation has is a document of its own: an English one in the entry's
fields (as before), one of any other language in the translation fields only.
"""

from __future__ import annotations

from dataclasses import dataclass

from app.corpus.models import Corpus, Entry

#: The language whose translation is folded into the original's own fields: the names of the
#: game's community (`Corpus.english_name`).
FOLDED = "en"


@dataclass(frozen=True)
class Document:
    """An entry as search sees it."""

    entry: Entry
    #: The English name the entry answers to ("Attack of Opportunity"), or "".
    english: str
    #: The text indexed in the entry's own fields, ranked and quoted in snippets: the entry's,
    #: then its English translation's ("" for an entry of another translation, searched in
    #: the translation fields only).
    text: str
    #: Its source's `search_weight` (the manifest's): a factor on its re-ranked score.
    weight: float = 1.0
    #: The entries searched in the translation fields: the paired translations in languages
    #: other than the entry's and English, or the entry itself when it is one of those.
    translated: tuple[Entry, ...] = ()
    #: The English translations folded into the entry's fields.
    folded: tuple[Entry, ...] = ()
    #: The questions the entry answers (the game's answers file), one a line: searched and
    #: re-ranked with the text, never quoted.
    asks: str = ""

    @property
    def id(self) -> str:
        return self.entry.id

    @property
    def base(self) -> bool:
        """True when the entry's own title and text are in the entry's fields."""
        return not self.translated or self.translated[0].id != self.entry.id

    @property
    def sources(self) -> tuple[str, ...]:
        """The sources a filter finds the document by: its entry's and its translations'."""
        return tuple(dict.fromkeys(e.source for e in (self.entry, *self.folded,
                                                      *self.translated)))

    @property
    def others(self) -> tuple[Entry, ...]:
        """The translations whose titles count as the entry's (`translated` less the entry)."""
        return tuple(t for t in self.translated if t.id != self.entry.id)

    @property
    def searched(self) -> str:
        """What is indexed and re-ranked in the entry's fields: the text, then the questions
        it answers."""
        return f"{self.text}\n{self.asks}" if self.asks else self.text


def segment(entry: Entry) -> str:
    """A translation as it is searched and quoted: its title, then its text."""
    return f"{entry.title}\n{entry.text}"


def documents(corpus: Corpus) -> tuple[Document, ...]:
    """The corpus's documents in reading order."""
    found: list[Document] = []
    for entry in corpus:
        if _is_paired_translation(corpus, entry):
            continue
        others = [corpus.entries[i] for i in entry.translations.values()]
        source = corpus.source(entry.source)
        weight = source.spec.search_weight if source is not None else 1.0
        if _translated(corpus, entry):
            found.append(Document(entry, "", "", weight, (entry,)))
            continue
        folded = [o for o in others if o.lang == FOLDED]
        text = "\n\n".join([entry.text, *(segment(o) for o in folded)]).strip()
        asks = "\n".join(corpus.game(entry.game).answers.get(entry.id, ()))
        found.append(Document(entry, corpus.english_name(entry) or "", text, weight,
                              tuple(o for o in others if o.lang != FOLDED), tuple(folded),
                              asks))
    return tuple(found)


def _translated(corpus: Corpus, entry: Entry) -> bool:
    """True for an entry of a translation other than the folded (English) one."""
    source = corpus.source(entry.source)
    return (source is not None and source.spec.translation_of is not None
            and entry.lang != FOLDED)


def _is_paired_translation(corpus: Corpus, entry: Entry) -> bool:
    source = corpus.source(entry.source)
    return source is not None and source.spec.translation_of is not None and bool(
        entry.translations)
