/* 룰사전 browser search engine: the server's search (app/search/) over the client index.
 *
 * Why our own module and not MiniSearch, FlexSearch or lunr: their tokenizers split on spaces
 * (lunr, MiniSearch) or index CJK text character by character (FlexSearch); none strips
 * Korean particles and endings (조사자가 → 조사자), matches 초성 (ㅌㅅㄱㄱ) or corrects typos
 * at the jamo level (틈세 → 틈새), and each ranks with its own scoring rather than the
 * server's title tiers and re-rank. With all of that plugged in, what would be left of a
 * library is a postings map, a few lines here. So this file ports the server's pipeline
 * (clean → synonyms → plan → BM25F → tiers → re-rank → order → snippets; docs/search.md),
 * and reads every rule table, pattern and weight from the index (`app/search/client_index.py`):
 * particle lists, function words, 초성 tables, synonyms and weights are written once, in
 * Python. The body fields' postings are derived from the texts file with the same analysis
 * (`addTexts`); tests/test_client_parity.py checks they equal the server's, and compares
 * rankings over the development queries. Title matching, synonyms, the re-rank features,
 * snippets and suggestions are in static/matching.js.
 *
 * Not ported: Hangul loanwords matched by sound (클루 → clue), the owned-collections
 * demotion, the source filter. A global `RulesEngine` in the browser (after
 * static/analysis.js and static/matching.js), `module.exports` in Node.
 */
(function (root, factory) {
  "use strict";
  if (typeof module === "object" && module.exports) {
    module.exports = factory(require("./analysis.js"), require("./matching.js"));
  } else root.RulesEngine = factory(root.RulesAnalysis, root.RulesMatching);
})(this, function (R, M) {
  "use strict";

  var H = R.helpers, C = R.consts, has = H.has, isHangul = H.isHangul, isLatin = H.isLatin;
  var unique = H.unique, shortest = H.shortest, dict = H.dict;
  var BODY = ["body_w", "body_bg"];

  /* A length as the server's index stores it (client_index.stored_length): the first of the
   * 256 `steps` at or above it. */
  function storedLength(steps, length) {
    var lo = 0, hi = steps.length - 1;
    if (length >= steps[hi]) return steps[hi];
    while (lo < hi) {
      var mid = (lo + hi) >> 1;
      if (steps[mid] < length) lo = mid + 1; else hi = mid;
    }
    return steps[lo];
  }

  function Engine(index) {
    if (index.format !== 1) throw new Error("unknown search index format " + index.format);
    var an = this.an = new R.Analysis(index.rules), self = this, t = index.titles;
    this.index = index;
    this.w = index.weights;
    this.tier = index.weights.TIER;
    this.docs = index.docs;
    this.n = index.docs.id.length;
    this.fields = {};
    Object.keys(index.postings).forEach(function (f) {
      self.fields[f] = { raw: index.postings[f], decoded: new Map(), lengths: index.lengths[f] };
    });
    this.texts = null;
    this.titles = t;
    this.exact = dict();
    this.full = dict();
    this.partRows = [];
    this.partsJamo = [];
    this.longest = 0;
    function push(map, key, d) { (has(map, key) ? map[key] : (map[key] = [])).push(d); }
    t.parts.forEach(function (ps, d) {
      push(self.full, t.full[d], d);
      ps.concat(t.alias[d] ? [t.alias[d]] : []).forEach(function (p) {
        push(self.exact, p, d);
        self.partRows.push(d);
        self.partsJamo.push(an.decompose(p));
      });
      ps.forEach(function (p) { self.longest = Math.max(self.longest, p.length); });
    });
    this.sortKey = t.parts.map(function (ps, d) {
      return [self.docs.placeholder[d], ps.length ? ps[0].length : 99, self.docs.depth[d],
        -self.docs.backlinks[d], self.docs.order[d]];
    });
    this.titleText = t.full;
    this.titleForms = t.words.map(function (ws) { return H.set([].concat.apply([], ws)); });
    this.authority = this.docs.backlinks.map(function (b, d) {
      return (1 + self.w.AUTHORITY * Math.log1p(b)) * self.docs.weight[d];
    });
    this.gamesById = dict();
    index.games.forEach(function (g, i) { self.gamesById[g.id] = i; });
    this.setUpSynonyms(index.synonyms, index.related || {}, index.game_names || {},
                       index.spelling_distance);
    this.buildVocabularies();
  }
  var E = Engine.prototype;
  Object.keys(M).forEach(function (name) { E[name] = M[name]; });

  /* The body fields, postings and re-rank texts, from each document's text. */
  E.addTexts = function (data) {
    var an = this.an.memoised(), self = this;
    if (data.version !== this.index.version || data.analysis !== this.index.analysis) {
      throw new Error("texts and index are of different data versions");
    }
    BODY.forEach(function (f) { self.fields[f] = { decoded: new Map(), lengths: [] }; });
    var listMark = new RegExp(this.index.rules.list_mark, "gm");
    this.flat = [];
    this.squashed = [];
    this.rerankText = [];
    this.rerankLatin = [];
    this.rerankStarts = [];
    var sentenceEnd = new RegExp(this.index.rules.sentence_end);
    var postings = [this.fields.body_w, this.fields.body_bg], steps = this.index.rules.length_steps;
    data.texts.forEach(function (text, d) {
      var words = an.words(text), lists = [an.wordTokens(words), an.bigramTokens(words)];
      for (var f = 0; f < 2; f++) {
        var field = postings[f], tokens = lists[f];
        field.lengths.push(storedLength(steps, tokens.length));
        for (var i = 0; i < tokens.length; i++) {
          var post = field.decoded.get(tokens[i]);
          if (!post) { post = [[], []]; field.decoded.set(tokens[i], post); }
          var last = post[0].length - 1;
          if (last >= 0 && post[0][last] === d) post[1][last] += 1;
          else { post[0].push(d); post[1].push(1); }
        }
      }
      /* rank._prepare: one line per sentence (proximity stops at a line break; the passage
       * feature counts per line), with where each Hangul line starts. */
      var sentences = text.split(sentenceEnd).map(function (s) { return an.words(s); });
      var lines = [self.titleText[d]].concat(sentences.map(function (ws) {
        return ws.filter(function (w) { return !isLatin(w); }).join("");
      })).filter(Boolean);
      var starts = [], at = 0;
      lines.forEach(function (line) { starts.push(at); at += line.length + 1; });
      self.rerankText.push(lines.join("\n"));
      self.rerankStarts.push(starts);
      self.rerankLatin.push([self.titleText[d]].concat(sentences.map(function (ws) {
        return ws.filter(isLatin).join("");
      })).join("\n"));
      self.flat.push(text.replace(listMark, "").replace(/\s+/g, " ").trim());
      self.squashed.push(text.replace(/\s+/g, "").toLowerCase());
    });
    this.texts = data.texts;
    this.buildVocabularies();
  };

  E.postings = function (field, term) {
    var f = this.fields[field];
    if (!f) return null;
    var found = f.decoded.get(term);
    if (found) return found;
    if (!f.raw || !has(f.raw, term)) return null;
    found = R.decode(f.raw[term]);
    f.decoded.set(term, found);
    return found;
  };

  /* searcher._vocabularies: known words with document frequencies; corrections lead only to
   * title words and English names. */
  E.buildVocabularies = function () {
    var hangul = dict(), english = dict(), targets = dict(), an = this.an, self = this;
    ["title_w", "alias", "body_w"].forEach(function (field) {
      var f = self.fields[field];
      if (!f) return;
      var terms = f.raw ? Object.keys(f.raw) : Array.from(f.decoded.keys());
      terms.forEach(function (term) {
        var df = self.postings(field, term)[0].length;
        if (isHangul(term)) hangul[term] = (hangul[term] || 0) + df;
        else if (isLatin(term)) english[term] = (english[term] || 0) + df;
        else return;
        if (field !== "body_w" && term.length >= 2 && !an.isFunctionWord(term)) targets[term] = 1;
      });
    });
    this.hangul = new R.Vocabulary(an, hangul, targets);
    this.english = new R.Vocabulary(an, english, targets);
  };
  E.knows = function (w) { return this.hangul.knows(w) || this.english.knows(w); };

  /* query.make_plan (without loanwords). */
  E.plan = function (text, correct) {
    var an = this.an, raw = an.words(text), self = this, jamoRun = /^[ㄱ-ㅎㅏ-ㅣ]+$/;
    var initials = "";
    if (raw.some(function (w) { return an.isInitials(w); }) || raw.some(function (w) { return jamoRun.test(w); })) {
      initials = raw.filter(function (w) { return isHangul(w) || an.isInitials(w); }).join("");
    }
    var analysed = dict(), order = [], considered = [], left = correct === false ? 0 : 6;
    for (var i = 0; i < raw.length; i++) {
      var token = raw[i];
      if (jamoRun.test(token)) continue;
      if (!has(analysed, token)) {
        if (order.length >= 16) break;
        var hangul = isHangul(token), forms = an.variants(token);
        var stem = hangul ? shortest(forms) : forms[0];
        var vocab = hangul ? self.hangul : self.english;
        var known = /^[0-9]+$/.test(token) || forms.some(function (f) { return vocab.knows(f); });
        var corrections = [], inflected = hangul && !known && an.isInflected(token);
        if (!known && left > 0 && !an.isFunctionWord(token)) {
          left -= 1;
          // query.make_plan: a verb form is corrected only by a long stem (_INFLECTED_STEM).
          if (!inflected || stem.length >= an.r.inflected_stem) corrections = vocab.corrections(hangul ? stem : forms[0]);
          if (hangul && !corrections.length && stem !== token && left > 0 && !inflected) {
            left -= 1;
            corrections = vocab.corrections(token);
          }
        }
        analysed[token] = { text: token, variants: forms, stem: stem, hangul: hangul,
          known: known, corrections: corrections };
        order.push(token);
      }
      considered.push(token);
    }
    var words = order.map(function (t) { return analysed[t]; });
    return {
      text: text, words: words, initials: initials, compact: considered.join(""),
      stemCompact: considered.map(function (t) { return analysed[t].stem; }).join(""),
      alias: words.some(function (w) { return !w.hangul && /^[^\W\d_]+$/.test(w.text); }) ? an.aliasKey(text) : ""
    };
  };

  /* query.weighted_terms: (field, term, boost) lookups in priority order. */
  E.weightedTerms = function (plan) {
    var w = this.w, an = this.an, boosts = dict(), keys = [];
    function add(field, term, boost) {
      var key = field + "\u0000" + term;
      if (!has(boosts, key)) keys.push(key);
      if (boost > (boosts[key] || 0)) boosts[key] = boost;
    }
    if (plan.words.length > 1) [plan.compact, plan.stemCompact].forEach(function (x) { add("title_w", x, w.TITLE_WHOLE); });
    if (plan.alias) add("alias", plan.alias, w.ALIAS * 2);
    var added = dict();
    (plan.related || []).forEach(function (p) { added[p[0]] = 1; });
    var content = plan.words.filter(function (x) {
      return !an.isFunctionWord(x.text) && (x.known || x.corrections.length) && !has(added, x.text);
    }).length;
    var titleW = w.TITLE_W * Math.min(1, w.LONG_QUERY / Math.max(content, 1));
    plan.words.forEach(function (word) {
      if (an.isFunctionWord(word.text)) return;
      if (word.hangul) {
        word.variants.forEach(function (form) {
          var weight = form.length === 1 && word.text.length > 1 ? w.SHORT_STEM : 1;
          add("title_w", form, titleW * weight);
          add("body_w", form, w.BODY_W * weight);
        });
      } else {
        add("alias", word.stem, w.ALIAS);
        add("body_w", word.stem, w.BODY_W);
        add("title_w", word.stem, titleW);
      }
      word.corrections.forEach(function (fixed) {
        add("title_w", fixed, w.TITLE_W * w.CORRECTED);
        add("body_w", fixed, w.BODY_W * w.CORRECTED);
        if (!word.hangul) add("alias", fixed, w.ALIAS * w.CORRECTED);
      });
      if (word.hangul) {
        an.bigrams(word.stem.length > 1 ? word.stem : word.text).forEach(function (g) {
          add("title_bg", g, w.TITLE_BG);
          add("body_bg", g, w.BODY_BG);
        });
        word.corrections.forEach(function (fixed) {
          an.bigrams(fixed).forEach(function (g) { add("title_bg", g, w.TITLE_BG * w.CORRECTED); });
        });
      }
    });
    return keys.slice(0, 120).map(function (k) {
      var at = k.indexOf("\u0000");
      return [k.slice(0, at), k.slice(at + 1), boosts[k]];
    });
  };

  /* bm25.score_terms: BM25F summed over the lookups. */
  E.score = function (terms, allowed) {
    var scores = {}, n = this.n, w = this.w, self = this;
    terms.forEach(function (t) {
      var post = self.postings(t[0], t[1]);
      if (!post) return;
      var docs = post[0], tfs = post[1], lengths = self.fields[t[0]].lengths;
      var avg = Math.max(1, lengths.reduce(function (a, b) { return a + b; }, 0) / Math.max(1, n));
      var idf = (Math.log(n / (docs.length + 1)) + 1) * t[2], b = has(w.FIELD_B, t[0]) ? w.FIELD_B[t[0]] : 0.75;
      var norm = w.K1 * (1 - b), per = w.K1 * b / avg;
      for (var i = 0; i < docs.length; i++) {
        if (allowed && !allowed[docs[i]]) continue;
        var tf = tfs[i];
        scores[docs[i]] = (scores[docs[i]] || 0) + idf * tf * (w.K1 + 1) / (tf + norm + per * lengths[docs[i]]);
      }
    });
    return scores;
  };

  /* SearchIndex._tiers. */
  E.tiers = function (plan) {
    var T = this.tier, an = this.an, tiers = {}, self = this, keys = [plan.compact, plan.stemCompact, plan.alias];
    if (plan.words.length === 1) keys = keys.concat(plan.words[0].variants);
    keys = keys.concat(an.titleParts(plan.text));
    unique(keys.filter(Boolean)).forEach(function (k) { (self.exact[k] || []).forEach(function (d) { tiers[d] = T.NAMES; }); });
    (this.full[an.compactTitle(plan.text)] || []).forEach(function (d) { tiers[d] = T.WHOLE; });
    if (plan.initials) {
      this.prefixMatches(plan.initials).forEach(function (m) {
        var tier = (m[1] === C.EXACT || m[1] === C.INITIALS_EXACT) ? T.CLOSE : (m[1] <= C.START ? T.STARTS : T.NONE);
        tiers[m[0]] = Math.max(tiers[m[0]] || 0, tier);
      });
    }
    var unknown = plan.words.some(function (x) { return !x.known; });
    if (unknown && !Object.keys(tiers).length) {
      this.fuzzyMatches(plan.alias || plan.stemCompact).forEach(function (m) {
        tiers[m[0]] = Math.max(tiers[m[0]] || 0, m[1] === C.FUZZY + 1 ? T.CLOSE : T.STARTS);
      });
      if (plan.compact !== plan.stemCompact && !plan.alias) {
        this.fuzzyMatches(plan.compact).forEach(function (m) { if (!has(tiers, m[0])) tiers[m[0]] = T.STARTS; });
      }
    }
    return tiers;
  };

  /* SearchIndex._rank: [[doc, score]] best first. */
  E.rank = function (plan, allowed) {
    var w = this.w, T = this.tier, self = this, docs = this.docs;
    var scores = this.score(this.weightedTerms(plan), allowed), tiers = this.tiers(plan);
    if (allowed) Object.keys(tiers).forEach(function (d) { if (!allowed[d]) delete tiers[d]; });
    var ids = Object.keys(scores).map(Number);
    var top = ids.length ? Math.max.apply(null, ids.map(function (d) { return scores[d]; })) : 1;
    Object.keys(tiers).map(Number).forEach(function (d) { if (!has(scores, d)) { scores[d] = top * w.TITLE_ONLY; ids.push(d); } });
    ids.sort(function (a, b) { return scores[b] - scores[a]; });
    var q = this.prepare(plan);
    ids.forEach(function (d, i) {
      scores[d] *= i < 60 ? self.factor(q, d) : w.COORD_FLOOR;
      if (docs.placeholder[d]) scores[d] *= w.PLACEHOLDER;
    });
    function tier(d) { return tiers[d] || T.NONE; }
    ids.sort(function (a, b) {
      var ga = tier(a) >= T.CLOSE ? docs.game[a] : 0, gb = tier(b) >= T.CLOSE ? docs.game[b] : 0;
      return (tier(b) - tier(a)) || (ga - gb) || (scores[b] - scores[a]) || (docs.order[a] - docs.order[b]);
    });
    ids = this.placeholdersBelowTargets(ids, allowed);
    var previous = Infinity;
    return ids.map(function (d) {
      var s = Math.min((scores[d] || 0) + w.TIER_STEP * tier(d), previous);
      previous = s;
      return [d, s];
    });
  };
  E.placeholdersBelowTargets = function (order, allowed) {
    var see = this.docs.see;
    order.filter(function (d) { return has(see, d); }).forEach(function (d) {
      var target = see[d];
      if (allowed && !allowed[target]) return;
      var at = order.indexOf(d), there = order.indexOf(target);
      if (there >= 0 && there < at) return;
      order.splice(at, 1);
      if (there >= 0) order.splice(order.indexOf(target), 1);
      order.splice(at, 0, target, d);
    });
    return order;
  };

  E.hit = function (d, score, plan) {
    var docs = this.docs, game = this.index.games[docs.game[d]];
    return { id: docs.id[d], title: docs.title[d], url: docs.url[d], game: game.id,
      game_name: game.name, game_short: game.short, where: docs.where[d],
      context: game.short + " · " + docs.where[d], score: Math.round(score * 1e4) / 1e4,
      snippet: plan && this.texts ? this.snippet(d, plan) : "" };
  };

  /* SearchIndex.search: {query, total, hits, synonyms, corrected, suggestion (a hit without
   * snippet, when nothing matched)}. Needs `addTexts`. */
  E.search = function (query, options) {
    options = options || {};
    if (!this.texts) throw new Error("search needs the texts: call addTexts first");
    var typed = this.an.clean(query), game = options.game || "", limit = options.limit || 10;
    var rewrite = options.typed ? { text: typed, synonyms: [], related: [] } : this.rewrite(typed, game);
    var plan = this.plan(rewrite.text, !options.typed), self = this;
    plan.related = rewrite.related;
    var added = dict();
    (rewrite.related || []).forEach(function (p) { added[p[0]] = 1; });
    var corrected = plan.words.some(function (x) { return x.corrections.length && !x.known; }) ?
      plan.words.filter(function (x) { return !has(added, x.text); }).map(function (x) {
        return x.corrections.length && !x.known ? x.corrections[0] : x.text;
      }).join(" ") : null;
    /* A game named in the query comes first, unless a filter already chose the game. */
    var named = game ? null : rewrite.game || null;
    var corrections = plan.words.filter(function (x) { return x.corrections.length && !x.known; })
      .map(function (x) { return [x.text, x.corrections[0]]; });
    var result = { query: typed, total: 0, hits: [], synonyms: rewrite.synonyms, corrected: corrected,
      corrections: corrections, suggestion: null, game_named: named };
    if (!plan.words.length && !plan.initials) return result;
    var allowed = null;
    if (game) {
      if (!has(this.gamesById, game)) return result;
      allowed = {};
      this.docs.game.forEach(function (g, d) { if (g === self.gamesById[game]) allowed[d] = 1; });
    }
    var ranked = this.rank(plan, allowed);
    if (!ranked.length) {
      // SearchIndex._did_you_mean: the closest title, one more edit allowed than in search.
      var near = this.fuzzyMatches(plan.alias || plan.stemCompact || plan.compact, 1)
        .filter(function (m) { return !allowed || allowed[m[0]]; });
      if (near.length) result.suggestion = this.hit(near[0][0], 0, null);
    }
    if (named) {
      var first = this.gamesById[named[1]];
      ranked = ranked.map(function (r, i) { return [r, i]; }).sort(function (a, b) {
        return ((self.docs.game[a[0][0]] !== first) - (self.docs.game[b[0][0]] !== first)) || a[1] - b[1];
      }).map(function (x) { return x[0]; });  /* stable */
    }
    result.total = ranked.length;
    result.hits = ranked.slice(options.offset || 0, (options.offset || 0) + limit).map(function (r) {
      return self.hit(r[0], r[1], plan);
    });
    return result;
  };

  /* In the browser: the engine for the index at `indexUrl`, with the texts at `textsUrl`
   * when given (a promise). Each file is fetched once per page. */
  var loading = {};
  Engine.load = function (indexUrl, textsUrl) {
    function json(url) {
      return fetch(url, { credentials: "same-origin" }).then(function (r) {
        if (!r.ok) throw new Error(url + ": " + r.status);
        return r.json();
      });
    }
    var key = indexUrl + " " + (textsUrl || "");
    if (!loading[key]) {
      loading[key] = Promise.all([json(indexUrl), textsUrl ? json(textsUrl) : null]).then(function (got) {
        var engine = new Engine(got[0]);
        if (got[1]) engine.addTexts(got[1]);
        return engine;
      });
      loading[key].catch(function () { delete loading[key]; });
    }
    return loading[key];
  };
  Engine.Analysis = R.Analysis;
  return Engine;
});
