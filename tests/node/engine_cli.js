// Runs the browser engine (static/engine.js) in Node for the Python tests: reads one JSON
// request on stdin and writes one JSON answer on stdout.
//   {"index": path, "texts": path, "queries": [{"q", "game"?}], "limit": n}
//     → {"results": [{"ids", "ms", "total", "snippet" (the first hit's), "suggestion"}]}
//   {"analysis": path-to-index, "cases": [...]}   (tests/cases/query_analysis.json's cases)
//     → {"answers": [{words, variants, stem, bigrams, function, choseong, title_parts}]}
//   {"index": path, "texts": path, "derived": true} → {"postings": {field: {term: [[docs], [tfs]]}}}
"use strict";
const fs = require("fs");
const path = require("path");
const Engine = require(path.join(__dirname, "..", "..", "static", "engine.js"));

const request = JSON.parse(fs.readFileSync(0, "utf-8"));
const read = (file) => JSON.parse(fs.readFileSync(file, "utf-8"));
let answer;
if (request.cases) {
  const an = new Engine.Analysis(read(request.analysis).rules);
  answer = { answers: request.cases.map((c) => ({
    words: an.words(c.input),
    variants: an.words(c.input).map((w) => an.variants(w)),
    stems: an.words(c.input).map((w) => an.stem(w)),
    bigrams: an.indexBigrams(c.input),
    function_words: an.words(c.input).filter((w) => an.isFunctionWord(w)),
    inflected: an.words(c.input).filter((w) => an.isInflected(w)),
    choseong: an.choseong(c.input),
    title_parts: an.titleParts(c.input),
    alias_key: an.aliasKey(c.input),
    max_distance: an.words(c.input).map((w) => an.maxDistance(w)),
  })) };
} else {
  const engine = new Engine(read(request.index));
  engine.addTexts(read(request.texts));
  if (request.derived) {
    answer = { postings: { body_w: Object.fromEntries(engine.fields.body_w.decoded),
      body_bg: Object.fromEntries(engine.fields.body_bg.decoded) },
      lengths: { body_w: engine.fields.body_w.lengths, body_bg: engine.fields.body_bg.lengths } };
  } else {
    answer = { results: request.queries.map((q) => {
      const start = process.hrtime.bigint();
      const found = engine.search(q.q, { game: q.game || "", limit: request.limit || 10 });
      const ms = Number(process.hrtime.bigint() - start) / 1e6;
      return { ids: found.hits.map((h) => h.id), ms, total: found.total,
        snippet: found.hits.length ? found.hits[0].snippet : "",
        suggestion: found.suggestion ? found.suggestion.title : null,
        corrected: found.corrected, corrections: found.corrections };
    }) };
  }
}
process.stdout.write(JSON.stringify(answer));
