// Types of the browser engine (static/analysis.js, matching.js, engine.js) for the JS type
// check (`npx tsc`, tsconfig.json): the two files app/search/client_index.py writes, and the
// values the engine's stages pass along. The contract's own type, `Contract`, is generated from
// app/search/contract.py into contract.d.ts (python -m scripts.query_cases).

/** The analysis tables: `analysis.client_tables()` and the Hangul and pattern tables. */
interface Rules {
  particles: string[];
  short_stem_endings: string[];
  /** Endings that are none after a syllable with this final consonant (its JONGSEONG index). */
  ending_not_after_final: Record<string, number>;
  verb_endings: string[];
  suffixes: string[];
  light: string[];
  /** `analysis._COUNTS`: a native numeral and a counter written together (한장). */
  counts: string[];
  /** (syllables after the jamo, final consonant index, syllables that may carry it or ""). */
  jamo_endings: [string, number, string][];
  /** Vowel of a merged syllable → vowel of the stem (indices into `jungseong`). */
  contracted: Record<string, number>;
  after_merged: string[];
  after_past: string[];
  ss_final: number;
  /** `analysis._BARE_MERGED`: merged syllables undone with nothing after them (져 → 지). */
  bare_merged: Record<string, string>;
  past_same_vowel: number[];
  adnominal_finals: number[];
  /** `analysis._ADNOMINAL_SYLLABLES`: adnominal endings that are a syllable (치우는, 먹은). */
  adnominal_syllables: string[];
  /** `analysis._L_DROPPING`: endings before which a stem's final ㄹ drops (까는, 드나요). */
  l_dropping: string[];
  /** `analysis._AFTER_ADNOMINAL_CLAUSE`: a clause ending after an adnominal form (어려운데). */
  after_adnominal_clause: string[];
  /** `analysis._MERGED_BEFORE_PARTICLE`: -아도/-어도's 도, undone after a syllable with no final. */
  merged_before_particle: string[];
  /** `analysis._NOMINAL_ENDINGS`: endings that make a noun of a verb (-기: 잡기), undone. */
  nominal_endings: string[];
  /** `analysis._LIGHT_VERB_SYLLABLES`: how the forms of 하다 and 되다 begin, less any final. */
  light_verb_syllables: string[];
  /** `analysis._AUXILIARIES` after the -아/-어 links `auxiliary_links` (깔아둬요, 나눠줘도). */
  auxiliaries: string[];
  auxiliary_links: string[];
  /** `analysis._AFTER_ADNOMINAL`: light nouns an adnominal form takes (살때, 보는것). */
  after_adnominal: string[];
  /** `analysis.verb_stems`: the spoken -어/-아, the ㅡ, ㅂ and 르 stems, a stem's mark (먹-). */
  spoken_endings: string[];
  eu_vowels: number[];
  eu: number;
  b_final: number;
  l_final: number;
  no_initial: number;
  reu: string[];
  /** `analysis._noun_form_stems`: -음, and the ㅁ's index among the final consonants. */
  noun_form: string;
  m_final: number;
  stem_mark: string;
  word: string;
  jamo_run: string;
  alias_separators: string;
  alias_word: string;
  camel: string;
  numbering: string;
  appendix: string;
  aside: string;
  alternatives: string;
  choseong: string;
  jungseong: string;
  jongseong: string[];
  spaces: string;
  list_mark: string;
  sentence_end: string;
  /** A worked example's paragraph start ("" when no language declares one), and the names it quotes. */
  example: string;
  example_name: string;
  /** What each of Whoosh's 256 one-byte field lengths stands for, ascending. */
  length_steps: number[];
  postings_radix: number;
  /** A whole word of letters other than Hangul and Han; a whole Han word. */
  other_word: string;
  han_word: string;
  /** scripts.py: letters without a decomposition, the umlauts' spellings, Savoy's Cyrillic
   * light stemmer (word longer than, endings), and casefold() where it is not lower(). */
  fold: Record<string, string>;
  spelled: Record<string, string>;
  cyrillic_endings: [number, string[]][];
  cyrillic_final: [number, string[]];
  cyrillic_double: [string, string];
  casefold?: Record<string, string>;
}

interface ClientDocs {
  id: string[];
  title: string[];
  url: string[];
  /** Index into `ClientIndex.games`. */
  game: number[];
  where: string[];
  order: number[];
  depth: number[];
  backlinks: number[];
  weight: number[];
  placeholder: number[];
  /** A "see X" pointer's docnum → X's docnum. */
  see: Record<string, number>;
  /** 1 when the entry's own title and text are in the entry's fields. */
  base: number[];
  lang: string[];
  /** A step's docnum → the docnum of its entry, where a result for it lands (any other
   * document lands on its own). */
  page: Record<string, number>;
}

interface ClientTitles {
  parts: string[][];
  position: number[];
  full: string[];
  /** Docnum → the title the re-rank reads where it is not `full` (a step's, a passage's). */
  searched: Record<string, string>;
  alias: string[];
  alias_words: string[][];
  words: string[][][];
}

interface ClientIndex {
  version: string;
  analysis: string;
  games: { id: string; name: string; short: string }[];
  docs: ClientDocs;
  titles: ClientTitles;
  lengths: Record<string, number[]>;
  /** Per field, the documents its BM25 statistics count. */
  counts: Record<string, number>;
  /** The translation languages whose files exist (`ClientLanguage`). */
  languages: string[];
  /** Every language's own name, by code. */
  language_names: Record<string, string>;
  postings: Record<string, Record<string, string>>;
  synonyms: Record<string, Record<string, string[]>>;
  related: Record<string, Record<string, string[]>>;
  game_names: Record<string, string[]>;
  /** A game name that is also a title's word → the words that follow it in titles. */
  game_name_guards: Record<string, string[]>;
  /** Everyday words, never taken for typos (`Corpus.words`). */
  words: string[];
  /** Hangul loanwords heard by sound (`loanwords.LoanwordVocabulary.shipped`). */
  loanwords: ClientLoanwords;
  /** An English stem that is no word of the texts → the word it is said as (`tak` → take). */
  surfaces: Record<string, string>;
  rules: Rules;
  contract: Contract;
}

/** loanwords.LoanwordVocabulary: the English side of the loanword table, made on the server. */
interface ClientLoanwords {
  /** Consonant skeleton → [rank (0: a whole name, 1: a word inside one), English phrase]. */
  skeletons: Record<string, [number, string][]>;
  /** A synonyms file's English word → the official term it stands for (devour → 집어삼켜짐). */
  listed: Record<string, string>;
  /** An English name (or a listed word's official term) → the official term the notice names. */
  officials: Record<string, string>;
}

interface ClientTexts {
  version: string;
  analysis: string;
  texts: string[];
  /** The questions each document answers (the answers files), one a line. */
  asks?: string[];
}

/** client_index.language_index: one translation language's titles, by docnum. */
interface ClientLanguage {
  version: string;
  analysis: string;
  lang: string;
  /** docnum → [entry id, title, URL] of the entry in this language. */
  entries: Record<string, [string, string, string]>;
  parts: Record<string, string[]>;
  postings: { title_tr: Record<string, string> };
}

/** client_index.language_texts: one translation language's texts, by docnum. */
interface ClientLanguageTexts {
  version: string;
  analysis: string;
  lang: string;
  texts: Record<string, string>;
}

/** searcher._Segment: a text a result may be shown in. */
interface Segment {
  shown: string;
  title: string;
  url: string;
  lang: string;
  flat: string;
  folded: string;
  squashed: string;
  spelled: string;
}

type Analysis = InstanceType<typeof RulesAnalysis.Analysis>;
type Vocabulary = InstanceType<typeof RulesAnalysis.Vocabulary>;
type Engine = InstanceType<typeof RulesEngine>;
type Tables = Record<string, Record<string, string[]>>;

interface Correction { term: string; distance: number }

/** query.QueryWord. */
interface QueryWord {
  text: string;
  variants: string[];
  stem: string;
  hangul: boolean;
  known: boolean;
  corrections: string[];
  /** The English word or name (or the official term) an unknown Hangul word sounds like. */
  english: string;
  /** A Han word's character bigrams. */
  grams: string[];
  /** An everyday word the index does not know: left as typed. */
  everyday: boolean;
}

/** query.Plan. */
interface Plan {
  text: string;
  words: QueryWord[];
  initials: string;
  compact: string;
  stemCompact: string;
  alias: string;
  /** (rules' word, typed word) for each related word the rewrite added. */
  related: [string, string][];
}

/** rewrite.Rewrite. */
interface Rewrite {
  text: string;
  synonyms: [string, string][];
  game: [string, string] | null;
  related: [string, string][];
}

/** titles.TitleHit as [docnum, TitleRank]. */
type TitleHit = [number, number];

/** rank.Features. */
interface Features {
  coordination: number;
  proximity: number;
  title_coverage: number;
  authority: number;
  passage: number;
}

/** rank.Prepared: the query's side of the features. */
interface Prepared {
  groups: [string[], number][];
  pairs: [string[], string[]][];
  /** The index of each pair's first group. */
  pairAt: number[];
  forms: Record<string, number>;
  joined: string;
  total: number;
}

/** searcher.Ranking, by docnum. */
interface Ranking {
  terms: [string, string, number][];
  bm25: Map<number, number>;
  tiers: Map<number, number>;
  features: Map<number, Features>;
  order: number[];
}

/** One result (searcher.Hit with what the page shows of its entry). */
interface EngineHit {
  id: string;
  title: string;
  url: string;
  game: string;
  game_name: string;
  game_short: string;
  where: string;
  context: string;
  snippet: string;
  /** The entry whose title and snippet are shown: the result's, or its translation's. */
  shown: string;
  lang: string;
  /** The result's own entry, shown beside a translation's title. */
  entry: { title: string; url: string; lang: string; lang_name: string } | null;
}

/** searcher.Results. */
interface EngineResults {
  query: string;
  total: number;
  hits: EngineHit[];
  synonyms: [string, string][];
  /** (as typed, English word heard, official term or "") per loanword heard by sound. */
  loanwords: [string, string, string][];
  corrections: [string, string][];
  suggestion: EngineHit | null;
  game_named: [string, string] | null;
  /** (as typed, as meant) when typed in the keyboard's other layout. */
  layout: [string, string] | null;
  /** Words no entry has, left out. */
  dropped: string[];
  /** Every word is in `dropped`: the results only share letters of the words. */
  partial: boolean;
  /** (as typed, nearest word of the texts) when nothing matched. */
  fallback: [string, string][];
  /** With a game filter: the best entry outside it, when it answers better. */
  elsewhere: EngineHit | null;
}

interface SearchOptions { game?: string; limit?: number; offset?: number; typed?: boolean }

/** A field's postings: shipped (`raw`, decoded when first met) or derived from the texts. */
interface Field {
  raw?: Record<string, string>;
  decoded: Map<string, [number[], number[]]>;
  lengths: number[];
}
