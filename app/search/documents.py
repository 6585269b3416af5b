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

A **step** of a long procedure (an entry with at least `Steps.least` numbered steps the page
anchors, `Entry.anchors`: the phases' 1.1–4.6, the setup appendix's 1–13) is also a document
of its own, after its entry's: its heading is its title, its text is the step's, and a result
for it lands on the entry's page at the step's anchor (`Document.page`, `Document.anchor`). A
step that answers a question alone then ranks as the short passage it is, not diluted by the
rest of the appendix; the results list each page once (`Ranker.ranking`).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace

from app.corpus.models import Corpus, Entry
from app.search.analysis import compact_title, english_stem
from app.search.contract import CONTRACT

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
    #: The questions the entry answers (the game's answers file), one a line: searched in
    #: a field of their own (`ask_w`), re-ranked with the text, never quoted.
    asks: str = ""
    #: A step's anchor on its entry's page (`step-8`), "" for a whole entry.
    anchor: str = ""
    #: A step's heading (`8. 시작 카드를 뽑습니다.`): the document's title.
    heading: str = ""
    #: The title of the section a passage sits under, searched with its title when the book
    #: gives several passages that title (the learn-to-play's three "전략 조언", under 자원,
    #: 교전 and 회피; Eldritch Horror's two "차원문 열림"): never shown.
    context: str = ""

    @property
    def id(self) -> str:
        """The document's key: its entry's id, with `#anchor` for a step."""
        return f"{self.entry.id}#{self.anchor}" if self.anchor else self.entry.id

    @property
    def page(self) -> str:
        """The id of the entry a result for this document lands on."""
        return self.entry.id

    @property
    def shown_title(self) -> str:
        """The title a result shows: a step's heading, else the entry's."""
        return self.heading or self.entry.title

    @property
    def title(self) -> str:
        """The title searched in the document's own fields: the shown title, after the
        section's it sits under when the book repeats it (`context`)."""
        return f"{self.context} {self.shown_title}" if self.context else self.shown_title

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
        """What is re-ranked in the entry's fields: the text, then the questions it answers
        (BM25 indexes the two apart: `body_w`, `ask_w`)."""
        return f"{self.text}\n{self.asks}" if self.asks else self.text


def segment(entry: Entry) -> str:
    """A translation as it is searched and quoted: its title, then its text."""
    return f"{entry.title}\n{entry.text}"


def documents(corpus: Corpus) -> tuple[Document, ...]:
    """The corpus's documents in reading order."""
    found: list[Document] = []
    shared = Counter((e.source, e.title) for e in corpus)
    titled = _titled_sources(corpus)
    for entry in corpus:
        if _is_paired_translation(corpus, entry):
            continue
        others = [corpus.entries[i] for i in entry.translations.values()]
        source = corpus.source(entry.source)
        weight = source.spec.search_weight if source is not None else 1.0
        if source is not None and titled.get(_title_key(entry), {entry.source}) - {entry.source}:
            weight *= source.spec.repeated_weight
        if _translated(corpus, entry):
            found.append(Document(entry, "", "", weight, (entry,)))
            continue
        folded = [o for o in others if o.lang == FOLDED]
        text = "\n\n".join([entry.text, *(segment(o) for o in folded)]).strip()
        asks = "\n".join(corpus.game(entry.game).answers.get(entry.id, ()))
        whole = Document(entry, corpus.english_name(entry) or "", text, weight,
                         tuple(o for o in others if o.lang != FOLDED), tuple(folded), asks)
        if (entry.parent and source is not None and source.spec.id_prefix
                and shared[entry.source, entry.title] > 1):
            whole = replace(whole, context=corpus.entries[entry.parent].title)
        found.append(whole)
        found.extend(steps(whole, corpus.game(entry.game).answers))
    return tuple(found)


def _title_key(entry: Entry) -> tuple[str, str]:
    return entry.game, compact_title(entry.title)


def _titled_sources(corpus: Corpus) -> dict[tuple[str, str], set[str]]:
    """Per game and compact title, the sources with an entry of that title that is no "see X"
    entry, translations left out (`SourceSpec.repeated_weight`)."""
    titled: dict[tuple[str, str], set[str]] = {}
    for entry in corpus:
        source = corpus.source(entry.source)
        if not entry.placeholder and (source is None or source.spec.translation_of is None):
            titled.setdefault(_title_key(entry), set()).add(entry.source)
    return titled


#: A line that starts with a step number (`4.5 …`, `2.1조사 …`, `8. …`).
_STEP_LINE = re.compile(r"^(\d+(?:\.\d+)*)(?!\d)")
#: Where a step's heading ends: its first sentence.
_HEADING_END = re.compile(r"(?<=[.?!])\s")


def steps(doc: Document, answers: Mapping[str, tuple[str, ...]] | None = None) -> list[Document]:
    """The documents of `doc`'s numbered steps, in reading order, when its entry has at least
    `Steps.least` of them (its page's step anchors): each from the line its number starts
    to the next step's, with the English original's step of the same number after it (as a
    whole entry's text has its English translation's), and the questions the answers file
    lists under the step's id (`Appendix_III_Setting_Up_The_Game#step-8`)."""
    entry = doc.entry
    numbered = {number: anchor for number, anchor in entry.anchors.items()
                if anchor.startswith("step-")}
    if len(numbered) < CONTRACT.steps.least:
        return []
    english = [_split_steps(t.text, numbered) for t in doc.folded]
    found: list[Document] = []
    for number, text in _split_steps(entry.text, numbered).items():
        # The first sentence after the number (whose own dot, in `8. 시작 …`, ends none).
        first = text.split("\n", 1)[0]
        dot = "." if first[len(number):].startswith(".") else ""
        heading = number + dot + _HEADING_END.split(first[len(number) + len(dot):],
                                                     maxsplit=1)[0]
        searched = "\n\n".join([text, *(e[number] for e in english if number in e)])
        anchor = numbered[number]
        asks = "\n".join((answers or {}).get(f"{entry.id}#{anchor}", ()))
        found.append(replace(doc, english="", text=searched, translated=(), folded=(),
                             asks=asks, anchor=anchor, heading=heading, context=""))
    return found


def _split_steps(text: str, numbers: Mapping[str, str]) -> dict[str, str]:
    """Each of `numbers`' steps in `text`, in its order: from the line the number starts to
    the next step's (the last to `_closing`)."""
    lines = text.split("\n")
    starts: list[tuple[int, str]] = []
    for at, line in enumerate(lines):
        match = _STEP_LINE.match(line)
        if match and match[1] in numbers and all(n != match[1] for _, n in starts):
            starts.append((at, match[1]))
    ends = [at for at, _ in starts[1:]] + [_closing(lines)]
    return {number: "\n".join(lines[at:end]).strip()
            for (at, number), end in zip(starts, ends, strict=True)}


def _closing(lines: list[str]) -> int:
    """Where the last step ends: before a plain paragraph (not a list item, not numbered)
    after a blank line, which closes the entry rather than the step (the setup appendix's
    "준비 과정에서는…"); else at the end."""
    last = max((n for n, line in enumerate(lines) if _STEP_LINE.match(line)), default=0)
    for n in range(last + 1, len(lines) - 1):
        after = lines[n + 1].lstrip()
        if not lines[n].strip() and after and not after.startswith("- ") and not (
                _STEP_LINE.match(after)):
            return n
    return len(lines)


def _translated(corpus: Corpus, entry: Entry) -> bool:
    """True for an entry of a translation other than the folded (English) one."""
    source = corpus.source(entry.source)
    return (source is not None and source.spec.translation_of is not None
            and entry.lang != FOLDED)


def _is_paired_translation(corpus: Corpus, entry: Entry) -> bool:
    source = corpus.source(entry.source)
    return source is not None and source.spec.translation_of is not None and bool(
        entry.translations)


_ASCII_WORD = re.compile(r"[a-z]+")


def english_surfaces(docs: Iterable[Document]) -> dict[str, str]:
    """Each English stem that is no word of the documents (`tak`, `vengeanc`) → the word it is
    said as: of the documents' words with that stem, the most frequent, then the shortest,
    then the first alphabetically. The index keeps stems, so a correction is one; the page
    says it as a word (‘vengence’ → ‘vengeance’, not ‘vengeanc’). Both engines say the same
    word: the browser's is this table, shipped (`client_index.index`)."""
    counts: Counter[str] = Counter()
    for doc in docs:
        for part in (doc.title, doc.english, doc.searched,
                     *(segment(t) for t in doc.translated)):
            counts.update(_ASCII_WORD.findall(part.lower()))
    best: dict[str, tuple[int, int, str]] = {}
    for word, count in counts.items():
        stem = english_stem(word)
        if stem != word and stem not in counts:
            rank = (-count, len(word), word)
            if stem not in best or rank < best[stem]:
                best[stem] = rank
    return {stem: rank[2] for stem, rank in sorted(best.items())}
