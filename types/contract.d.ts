// Written by scripts/query_cases.py from app/search/contract.py: do not edit.
// The search contract as the client index ships it (`index.contract`).

interface ContractClean {
  max_query: number;
  read: number;
  blank_categories: string[];
  /** `contract.blank_ranges`: [gap, length - 1] per range. */
  blank_ranges: [number, number][];
}

interface ContractRewrite {
  longest_run: number;
  spelling_distance: number;
  spelling_min_length: number;
  glued_min_rest: number;
}

interface ContractStems {
  passes: number;
  short_ending_stem: number;
  jamo_ending_min: number;
  jamo_ending_not_after: string;
  english_suffixes: [number, string, string][];
}

interface ContractScripts {
  han_gram: number;
}

interface ContractTypos {
  hangul_edits: [number, number][];
  letter_edits: [number, number][];
  han_edits: [number, number][];
  candidates: number;
  length_slack: number;
  kept: number;
  title_candidates: number;
  title_min_length: number;
  did_you_mean_extra: number;
  inflected_stem: number;
  target_min_length: number;
  target_title_most: number;
  question_marks: string;
  wide_fallback_min: number;
  gain_tolerance: number;
}

interface ContractTitles {
  inside_min_typed: number;
  alias_prefix_min: number;
}

interface ContractBoosts {
  title_w: number;
  title_bg: number;
  body_w: number;
  body_bg: number;
  ask_w: number;
  alias: number;
  alias_whole: number;
  title_tr: number;
  body_tr: number;
  title_whole: number;
  corrected: number;
  short_stem: number;
  long_query: number;
}

interface ContractBm25 {
  k1: number;
  field_b: Record<string, number>;
}

interface ContractRerank {
  coord_floor: number;
  proximity: number;
  title_coverage: number;
  authority: number;
  near_gap: number;
  passage: number;
  passage_min_words: number;
  short_word: number;
  example: number;
}

interface ContractOrder {
  title_only: number;
  placeholder: number;
}

interface ContractSnippet {
  chars: number;
  lead: number;
  min_cut: number;
  min_term: number;
  word_head: string;
  word_tail: string;
  sentence_reach: number;
  sentence_ends: string[];
}

interface ContractBudget {
  words: number;
  corrections: number;
  lookups: number;
  rerank: number;
  highlight_chars: number;
}

interface ContractLayout {
  keys: [string, string][];
  vowels: [string, string][];
  finals: [string, string][];
  min_letters: number;
}

interface ContractLoanwords {
  initial_sounds: string[];
  final_sounds: string[];
  finals: number[];
  roman_initial: string[];
  roman_medial: string[];
  roman_final: string[];
  korean_letters: [string, string][];
  name_bonus: number;
  min_likeness: number;
  least_skeleton: number;
  sentence_skeleton: number;
  short_query: number;
  ratio_scale: number;
  max_alternatives: number;
}

interface ContractSteps {
  least: number;
  min_words: number;
}

interface ContractLimits {
  search: number;
  suggest: number;
  suggest_title: number;
  most: number;
  dropped_most: number;
  offline: number;
}

interface Contract {
  clean: ContractClean;
  rewrite: ContractRewrite;
  stems: ContractStems;
  scripts: ContractScripts;
  typos: ContractTypos;
  titles: ContractTitles;
  boosts: ContractBoosts;
  bm25: ContractBm25;
  rerank: ContractRerank;
  order: ContractOrder;
  snippet: ContractSnippet;
  budget: ContractBudget;
  layout: ContractLayout;
  loanwords: ContractLoanwords;
  steps: ContractSteps;
  limits: ContractLimits;
  tier: { NONE: number; STARTS: number; CLOSE: number; NAMES: number; WHOLE: number };
  title_rank: { EXACT: number; INITIALS_EXACT: number; START: number; PART_START: number; INSIDE: number; FUZZY: number };
}
