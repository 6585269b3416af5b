"""Read the data manifest (`sources.json`): the games, the icon set and the sources.

The manifest is the one place that says which files make up the reference. Game knowledge
(names, collections, scenario names, icons) lives in the files it declares, so a newer or
translated data folder needs no code change. This module reads only the manifest itself;
`app.corpus.vocabulary` reads the files it names.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from app.corpus.ids import declared_file_problem, segment_problem
from app.corpus.models import HistoryDecl, SourceSpec
from app.errors import DataError

MANIFEST = "sources.json"
#: The largest data file the reference reads (the manifest included): checked before a byte of
#: it is parsed, by `check`, `serve` and `export` alike. The largest bundled file is 272 KiB,
#: a full upstream rules file about 300 KiB; a 200 MB file took `serve` minutes to validate.
MAX_FILE_BYTES = 4 * 1024 * 1024
_REQUIRED = ("id", "game", "title", "parser", "file")
_OPTIONAL_STRINGS = ("id_prefix", "lang", "translation_of", "upstream")


@dataclass(frozen=True)
class GameDecl:
    """A game as declared: its names and the names file holding its vocabulary."""

    id: str
    name: str
    name_en: str
    names_file: str
    glossary_chapter: int
    synonyms_file: str = ""
    short_name: str = ""
    #: Entries the home page offers as quick links (the EH quick reference), by id.
    quick: tuple[str, ...] = ()
    #: The file of questions each rule answers, in players' words (`app/corpus/vocabulary.py`).
    answers_file: str = ""


@dataclass(frozen=True)
class Manifest:
    """The validated manifest."""

    games: tuple[GameDecl, ...]
    sources: tuple[SourceSpec, ...]
    icons_file: str
    languages_file: str = ""
    #: Where `data update` fetches the sources' `upstream` paths from by default (a URL).
    upstream_base: str = ""
    #: An upstream commit's page, with `{commit}` for its hash (the history links to it).
    commit_url: str = ""
    #: The file of everyday words near the rules' terms, never taken for typos (`words.py`).
    words_file: str = ""

    @property
    def files(self) -> tuple[str, ...]:
        """Every data file the manifest declares, each once, sorted (the histories' revision
        files are listed by their index files: `app.corpus.revisions.declared_files`)."""
        names = ({s.file for s in self.sources} | {g.names_file for g in self.games}
                 | {g.synonyms_file for g in self.games} | {g.answers_file for g in self.games}
                 | {s.history.index_file for s in self.sources if s.history is not None})
        return tuple(sorted(n for n in names | {self.icons_file, self.languages_file,
                                                self.words_file} if n))


def load_manifest(data_dir: Path) -> Manifest:
    """The manifest of `data_dir`, validated, or `DataError` naming the first problem."""
    path = data_dir / MANIFEST
    try:
        check_size(path)
        doc: Any = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise DataError(MANIFEST, "", f"no manifest in {data_dir}") from None
    except _TooLarge as exc:
        raise DataError(MANIFEST, "", str(exc)) from None
    except UnicodeDecodeError as exc:
        problem = f"not UTF-8 text ({exc.reason} at byte {exc.start})"
        raise DataError(MANIFEST, "", problem) from None
    except json.JSONDecodeError as exc:
        where = f"line {exc.lineno} column {exc.colno}"
        raise DataError(MANIFEST, where, f"invalid JSON: {exc.msg}") from None
    if not isinstance(doc, dict):
        raise DataError(MANIFEST, "", "must be a JSON object")
    games = _games(doc.get("games"))
    icons = doc.get("icons")
    if not isinstance(icons, str) or not icons.strip():
        raise DataError(MANIFEST, "", '"icons" must name the icon file (e.g. "icons.json")')
    _declared_file("", "icons", icons)
    sources = _sources(doc.get("sources"), {g.id for g in games})
    languages = doc.get("languages")
    if not isinstance(languages, str) or not languages.strip():
        raise DataError(MANIFEST, "", '"languages" must name the languages file (e.g. '
                                      '"languages.json")')
    _declared_file("", "languages", languages)
    words = doc.get("words", "")
    if not isinstance(words, str):
        raise DataError(MANIFEST, "", '"words" must name the everyday words file (e.g. '
                                      '"ko-words.txt")')
    _declared_file("", "words", words)
    base, commit_url = _upstream(doc.get("upstream", {}))
    return Manifest(games, sources, icons, languages, upstream_base=base,
                    commit_url=commit_url, words_file=words)


def _upstream(item: object) -> tuple[str, str]:
    """The manifest's `upstream` object: `base` (an http(s) URL) and `commit_url`."""
    if not isinstance(item, dict):
        raise DataError(MANIFEST, "upstream", "must be an object")
    base, commit = item.get("base", ""), item.get("commit_url", "")
    if not isinstance(base, str) or (base and not base.startswith(("https://", "http://"))):
        raise DataError(MANIFEST, "upstream", '"base" must be an http(s) URL')
    if not isinstance(commit, str) or (commit and (not commit.startswith("https://")
                                                   or "{commit}" not in commit)):
        raise DataError(MANIFEST, "upstream", '"commit_url" must be an https URL with '
                                              '"{commit}" where the commit hash goes')
    return base, commit


def _history(item: object, where: str) -> HistoryDecl | None:
    """A source's `history`: `{"folder": "history/rules-ko", "index": "revisions.json"}`."""
    if item is None:
        return None
    if not isinstance(item, dict) or not isinstance(item.get("folder"), str):
        raise DataError(MANIFEST, where, '"history" must be {"folder": "...", "index": "..."}')
    folder, index = item["folder"].strip("/"), item.get("index", "revisions.json")
    if not isinstance(index, str) or not index or "/" in index:
        raise DataError(MANIFEST, where, '"history": "index" must be a file name in the folder')
    parts = folder.split("/")
    if not folder or any(p in ("", ".", "..") or p.startswith(".") for p in parts):
        raise DataError(MANIFEST, where, '"history": "folder" must be a folder inside the data '
                                         'folder (no "..", nothing hidden)')
    return HistoryDecl(folder, index)


class _TooLarge(Exception):
    pass


def check_size(path: Path) -> None:
    """Raise (`_TooLarge`, with the one-line reason) when the file at `path` is over
    `MAX_FILE_BYTES`; `FileNotFoundError` when there is none. Only the size is read."""
    size = path.stat().st_size
    if size > MAX_FILE_BYTES:
        raise _TooLarge(f"the file is {size / 1024 / 1024:.1f} MiB, over the "
                        f"{MAX_FILE_BYTES // 1024 // 1024} MiB a data file may hold")


def oversized_files(data_dir: Path, manifest: Manifest) -> list[DataError]:
    """One error for each declared file over `MAX_FILE_BYTES`, found from their sizes alone
    (before any parse, so a huge file costs nothing to refuse)."""
    found: list[DataError] = []
    for name in manifest.files:
        try:
            check_size(data_dir / name)
        except _TooLarge as exc:
            found.append(DataError(name, "", str(exc)))
        except OSError:
            continue  # missing or unreadable: reported where it is read
    return found


def _declared_file(where: str, key: str, name: str) -> None:
    problem = declared_file_problem(name) if name else ""
    if problem:
        raise DataError(MANIFEST, where, f'"{key}" {problem}: {name}')


def objects(file: str, name: str, items: object, *,
            non_empty: bool = True) -> Iterator[tuple[str, dict[str, Any]]]:
    """`(where, item)` for each object of the list `items` (the field `name` of `file`), or
    `DataError` naming the first thing that is not one."""
    if not isinstance(items, list) or (non_empty and not items):
        raise DataError(file, "", f'"{name}" must be a {"non-empty " if non_empty else ""}list')
    for i, item in enumerate(items):
        where = f"{name}[{i}]"
        if not isinstance(item, dict):
            raise DataError(file, where, "must be an object")
        yield where, item


def _games(items: object) -> tuple[GameDecl, ...]:
    games: list[GameDecl] = []
    for where, item in objects(MANIFEST, "games", items):
        for key in ("id", "name"):
            if not isinstance(item.get(key), str) or not item[key].strip():
                raise DataError(MANIFEST, where, f'missing or empty string field "{key}"')
        if any(g.id == item["id"] for g in games):
            raise DataError(MANIFEST, where, f'duplicate game id "{item["id"]}"')
        for key in ("name_en", "names", "synonyms", "short", "answers"):
            if not isinstance(item.get(key, ""), str):
                raise DataError(MANIFEST, where, f'"{key}" must be a string')
        chapter = item.get("glossary_chapter", 20)
        if not isinstance(chapter, int) or isinstance(chapter, bool) or chapter < 1:
            raise DataError(MANIFEST, where, '"glossary_chapter" must be a positive number')
        for key in ("names", "synonyms"):
            _declared_file(where, key, item.get(key, ""))
        quick = item.get("quick", [])
        if not isinstance(quick, list) or not all(isinstance(q, str) for q in quick):
            raise DataError(MANIFEST, where, '"quick" must be a list of entry ids')
        games.append(GameDecl(item["id"], item["name"], item.get("name_en", ""),
                              item.get("names", ""), chapter, item.get("synonyms", ""),
                              item.get("short", ""), tuple(quick), item.get("answers", "")))
    return tuple(games)


def _sources(items: object, games: set[str]) -> tuple[SourceSpec, ...]:
    specs: list[SourceSpec] = []
    for where, item in objects(MANIFEST, "sources", items):
        for key in _REQUIRED:
            if not isinstance(item.get(key), str) or not item[key].strip():
                raise DataError(MANIFEST, where, f'missing or empty string field "{key}"')
        for key in _OPTIONAL_STRINGS:
            if not isinstance(item.get(key, ""), str):
                raise DataError(MANIFEST, where, f'"{key}" must be a string')
        if item["game"] not in games:
            raise DataError(MANIFEST, where,
                            f'"game" must be one of the declared games: {", ".join(sorted(games))}')
        if any(s.id == item["id"] for s in specs):
            raise DataError(MANIFEST, where, f'duplicate source id "{item["id"]}"')
        problem = segment_problem(item["id"])
        if problem:
            raise DataError(MANIFEST, where, f'source id "{item["id"]}" {problem} (it names the '
                                             "source's page, /sources/<id>, and its folder in "
                                             "the static export)")
        _declared_file(where, "file", item["file"])
        options = item.get("options", {})
        if not isinstance(options, dict) or not all(isinstance(v, str) for v in options.values()):
            raise DataError(MANIFEST, where, '"options" must map names to strings')
        original = item.get("translation_of") or None
        lang = item.get("lang") or "ko"
        if original is not None:
            base = next((s for s in specs if s.id == original), None)
            if base is None:
                raise DataError(MANIFEST, where, f'"translation_of": no source "{original}" '
                                                 "declared before this one")
            if base.translation_of is not None or base.lang == lang:
                raise DataError(MANIFEST, where, f'"translation_of": "{original}" must be an '
                                                 'original in another language ("lang")')
        if not isinstance(item.get("original", False), bool):
            raise DataError(MANIFEST, where, '"original" must be true or false')
        upstream = item.get("upstream", "")
        if upstream and (any(p in ("", ".", "..") for p in upstream.split("/"))
                         or "\\" in upstream or "?" in upstream or "#" in upstream):
            raise DataError(MANIFEST, where, '"upstream" must be a path in the upstream '
                                             'repository such as "rules/ko/rules.json"')
        weight = _weight(item, "search_weight", where)
        repeated = _weight(item, "repeated_weight", where)
        specs.append(
            SourceSpec(
                id=item["id"], game=item["game"], title=item["title"], parser=item["parser"],
                file=item["file"], id_prefix=item.get("id_prefix", ""), options=options,
                lang=lang, translation_of=original, search_weight=weight,
                repeated_weight=repeated,
                original=bool(item.get("original", False)),
                upstream=upstream,
                history=_history(item.get("history"), where),
            )
        )
    return tuple(specs)


def _weight(item: Mapping[str, Any], key: str, where: str) -> float:
    """A source's `key` weight: a number above 0 and at most 1 (default 1)."""
    weight = item.get(key, 1)
    if not isinstance(weight, int | float) or isinstance(weight, bool) or not 0 < weight <= 1:
        raise DataError(MANIFEST, where, f'"{key}" must be a number above 0 and at most 1')
    return float(weight)
