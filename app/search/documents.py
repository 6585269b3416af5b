"""What search indexes: one document per entry a result can land on.

A translation's entry that pairs with an original (`en/Attack_of_Opportunity` with
`Attack_of_Opportunity`) is not a document of its own: its title and text join the original's
document, so English words find the Korean rule, and the snippet quotes the English sentence
that matched. An entry only the translation has is a document of its own.
"""

from __future__ import annotations

from dataclasses import dataclass

from app.corpus.models import Corpus, Entry


@dataclass(frozen=True)
class Document:
    """An entry as search sees it."""

    entry: Entry
    #: The English name the entry answers to ("Attack of Opportunity"), or "".
    english: str
    #: The text indexed, ranked and quoted in snippets: the entry's, then its translations'.
    text: str
    #: Its source's `search_weight` (the manifest's): a factor on its re-ranked score.
    weight: float = 1.0
    #: The questions the entry answers (the game's answers file), one a line: searched and
    #: re-ranked with the text, never quoted.
    asks: str = ""

    @property
    def id(self) -> str:
        return self.entry.id

    @property
    def searched(self) -> str:
        """What is indexed and re-ranked: the text, then the questions it answers."""
        return f"{self.text}\n{self.asks}" if self.asks else self.text


def documents(corpus: Corpus) -> tuple[Document, ...]:
    """The corpus's documents in reading order."""
    found: list[Document] = []
    for entry in corpus:
        if _is_paired_translation(corpus, entry):
            continue
        others = [corpus.entries[i] for i in entry.translations.values()]
        text = "\n\n".join([entry.text, *(f"{o.title}\n{o.text}" for o in others)]).strip()
        source = corpus.source(entry.source)
        weight = source.spec.search_weight if source is not None else 1.0
        asks = "\n".join(corpus.game(entry.game).answers.get(entry.id, ()))
        found.append(Document(entry, corpus.english_name(entry) or "", text, weight, asks))
    return tuple(found)


def _is_paired_translation(corpus: Corpus, entry: Entry) -> bool:
    source = corpus.source(entry.source)
    return source is not None and source.spec.translation_of is not None and bool(
        entry.translations)
