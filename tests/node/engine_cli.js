// Runs the browser engine (static/engine.js) in Node for the Python tests: reads one JSON
// request on stdin and writes one JSON answer on stdout. `analysis` is the analysis version
// the engine is told to expect (the page's data-analysis in the browser).
//   Every request with "texts" may name "languages": [[index, texts], …], each translation
//   language's files (client_index.language_index and language_texts), added in order.
//   {"index", "texts", "analysis", "queries": [{"q", "game"?}], "limit"}
//     → {"results": [{"ids", "ms", "total", "snippet" (the first hit's), "suggestion",
//                      "corrections", "fallback", "game_named", "loanwords", "synonyms",
//                      "dropped"}]}
//   {"index", "texts", "analysis", "suggest": [prefix, …], "limit"?}
//     → {"suggestions": [[id, …], …]} (Engine.suggest's ids)
//   {"index", "texts", "analysis", "traces": [{"query", "game"}]} → {"traces": [...]}
//     (app/search/trace.py's stages, tests/cases/traces.json)
//   {"index", "analysis", "cases": [...]}  (tests/cases/query_analysis.json's cases)
//     → {"answers": [{words, variants, stems, bigrams, function_words, ..., clean}]}
//   {"index", "texts", "analysis", "derived": true}
//     → {"postings": {field: {term: [[docs], [tfs]]}}, "lengths": {field: [...]}}
//   {"index", "analysis", "refused": true} → {"error": message or null}
//   "engine": a folder to load the engine files from (default: static/).
"use strict";
const fs = require("fs");
const { loadEngine } = require("./engine.js");

const request = JSON.parse(fs.readFileSync(0, "utf-8"));
const { RulesAnalysis, RulesEngine } = loadEngine(request.engine);
const read = (file) => JSON.parse(fs.readFileSync(file, "utf-8"));
let answer;
if (request.refused) {
  try {
    new RulesEngine(read(request.index), request.analysis);
    answer = { error: null };
  } catch (error) {
    answer = { error: String(error.message) };
  }
} else if (request.codepoints) {
  // Each code point of [from, to) as the analysis reads it alone: its word (or ""), its case
  // folding and its one-character fold, for those where any is not the character itself.
  const index = read(request.index);
  const an = new RulesAnalysis.Analysis(index.rules, index.contract);
  const out = {};
  for (let code = request.codepoints[0]; code < request.codepoints[1]; code++) {
    if (code >= 0xd800 && code <= 0xdfff) continue;
    const c = String.fromCodePoint(code), words = an.words(c), lower = an.casefold(c);
    const folded = an.foldText(c), kind = words.length ? (an.isHan(c) ? "han" : "word") : "";
    if (kind || lower !== c || folded !== c) out[code] = [kind, lower, folded];
  }
  answer = { codepoints: out };
} else if (request.cases) {
  const index = read(request.index);
  const an = new RulesAnalysis.Analysis(index.rules, index.contract);
  answer = { answers: request.cases.map((c) => ({
    words: an.words(c.input),
    variants: an.words(c.input).map((w) => an.variants(w)),
    stems: an.words(c.input).map((w) => an.stem(w)),
    bigrams: an.indexBigrams(c.input),
    function_words: an.words(c.input).filter((w) => an.isFunctionWord(w)),
    inflected: an.words(c.input).filter((w) => an.isInflected(w)),
    counts: an.words(c.input).filter((w) => an.isCount(w)),
    verb_stems: an.words(c.input).map((w) => an.verbStems(w)),
    loose_stems: an.words(c.input).map((w) => an.looseStems(w)),
    choseong: an.choseong(c.input),
    title_parts: an.titleParts(c.input),
    alias_key: an.aliasKey(c.input),
    max_distance: an.words(c.input).map((w) => an.maxDistance(w)),
    max_distance_whole: an.maxDistance(c.input),
    clean: an.clean(c.input),
  })) };
} else {
  const engine = new RulesEngine(read(request.index), request.analysis);
  engine.addTexts(read(request.texts));
  (request.languages || []).forEach(([index, texts]) => engine.addLanguage(read(index), read(texts)));
  if (request.derived) {
    const derived = ["body_w", "body_bg", "ask_w", "title_tr", "body_tr"].filter((f) => engine.fields[f]);
    answer = { postings: Object.fromEntries(derived.map((f) => [f, Object.fromEntries(engine.fields[f].decoded)])),
      lengths: Object.fromEntries(derived.map((f) => [f, engine.fields[f].lengths])) };
  } else if (request.suggest) {
    answer = { suggestions: request.suggest.map((q) => engine.suggest(q, request.limit).map((h) => h.id)) };
  } else if (request.traces) {
    answer = { traces: request.traces.map((t) => engine.trace(t.query, t.game)) };
  } else {
    answer = { results: request.queries.map((q) => {
      const start = process.hrtime.bigint();
      const found = engine.search(q.q, { game: q.game || "", limit: request.limit });
      const ms = Number(process.hrtime.bigint() - start) / 1e6;
      return { ids: found.hits.map((h) => h.id), ms, total: found.total,
        snippet: found.hits.length ? found.hits[0].snippet : "",
        shown: found.hits.map((h) => h.shown),
        suggestion: found.suggestion ? found.suggestion.title : null,
        corrections: found.corrections, fallback: found.fallback, game_named: found.game_named,
        loanwords: found.loanwords, synonyms: found.synonyms, dropped: found.dropped,
        elsewhere: found.elsewhere ? found.elsewhere.id : null };
    }) };
  }
}
process.stdout.write(JSON.stringify(answer));
