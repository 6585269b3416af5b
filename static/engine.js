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
 * rankings over the development queries.
 *
 * Not ported: Hangul loanwords matched by sound (클루 → clue), the did-you-mean title, the
 * owned-collections demotion, the source filter. A global `RulesEngine` in the browser (after
 * static/analysis.js), `module.exports` in Node.
 */
(function (root, factory) {
  "use strict";
  if (typeof module === "object" && module.exports) module.exports = factory(require("./analysis.js"));
  else root.RulesEngine = factory(root.RulesAnalysis);
})(this, function (R) {
  "use strict";

  var H = R.helpers, C = R.consts, has = H.has, isHangul = H.isHangul, isLatin = H.isLatin;
  var unique = H.unique, shortest = H.shortest;
  var BODY = ["body_w", "body_bg"];

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
      self.fields[f] = { raw: index.postings[f], decoded: {}, lengths: index.lengths[f] };
    });
    this.texts = null;
    this.titles = t;
    this.exact = {};
    this.full = {};
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
    this.authority = this.docs.backlinks.map(function (b) {
      return 1 + self.w.AUTHORITY * Math.log1p(b);
    });
    this.gamesById = {};
    index.games.forEach(function (g, i) { self.gamesById[g.id] = i; });
    this.setUpSynonyms(index.synonyms);
    this.buildVocabularies();
  }
  var E = Engine.prototype;

  /* The body fields, postings and re-rank texts, from each document's text. */
  E.addTexts = function (data) {
    var an = this.an, self = this;
    if (data.version !== this.index.version || data.analysis !== this.index.analysis) {
      throw new Error("texts and index are of different data versions");
    }
    BODY.forEach(function (f) { self.fields[f] = { decoded: {}, lengths: [] }; });
    var listMark = new RegExp(this.index.rules.list_mark, "gm");
    this.flat = [];
    this.squashed = [];
    this.rerankText = [];
    this.rerankLatin = [];
    data.texts.forEach(function (text, d) {
      [["body_w", an.indexWords(text)], ["body_bg", an.indexBigrams(text)]].forEach(function (p) {
        var field = self.fields[p[0]], tokens = p[1];
        field.lengths.push(tokens.length);
        tokens.forEach(function (tok) {
          var post = has(field.decoded, tok) ? field.decoded[tok] : (field.decoded[tok] = [[], []]);
          var last = post[0].length - 1;
          if (last >= 0 && post[0][last] === d) post[1][last] += 1;
          else { post[0].push(d); post[1].push(1); }
        });
      });
      var words = an.words(text);
      self.rerankText.push(self.titleText[d] + "\n" + words.filter(function (w) { return !isLatin(w); }).join(""));
      self.rerankLatin.push(self.titleText[d] + "\n" + words.filter(isLatin).join(""));
      self.flat.push(text.replace(listMark, "").replace(/\s+/g, " ").trim());
      self.squashed.push(text.replace(/\s+/g, "").toLowerCase());
    });
    this.texts = data.texts;
    this.buildVocabularies();
  };

  E.postings = function (field, term) {
    var f = this.fields[field];
    if (!f) return null;
    if (has(f.decoded, term)) return f.decoded[term];
    if (!f.raw || !has(f.raw, term)) return null;
    return (f.decoded[term] = R.decode(f.raw[term]));
  };

  /* searcher._vocabularies: known words with document frequencies; corrections lead only to
   * title words and English names. */
  E.buildVocabularies = function () {
    var hangul = {}, english = {}, targets = {}, an = this.an, self = this;
    ["title_w", "alias", "body_w"].forEach(function (field) {
      var f = self.fields[field];
      if (!f) return;
      var terms = f.raw ? Object.keys(f.raw) : Object.keys(f.decoded);
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

  /* rewrite.Rewriter: players' words → the official terms. */
  E.setUpSynonyms = function (synonyms) {
    var merged = {}, an = this.an, self = this;
    this.synTables = {};
    this.synNear = {};
    Object.keys(synonyms).forEach(function (game) {
      self.synTables[game] = synonyms[game];
      Object.keys(synonyms[game]).forEach(function (k) { if (!has(merged, k)) merged[k] = synonyms[game][k]; });
    });
    this.synTables[""] = merged;
    Object.keys(this.synTables).forEach(function (game) {
      var freq = {};
      Object.keys(self.synTables[game]).forEach(function (k) {
        if (k.length >= 3 && isHangul(k)) freq[k] = 1;
      });
      self.synNear[game] = new R.Vocabulary(an, freq, null);
    });
  };
  E.synonymAt = function (words, start, table) {
    for (var length = Math.min(4, words.length - start); length > 0; length--) {
      var run = words.slice(start, start + length), last = run[run.length - 1];
      var lasts = unique([last].concat(this.an.variants(last), this.an.looseStems(last)));
      for (var i = 0; i < lasts.length; i++) {
        var key = this.an.compact(run.slice(0, -1).join("") + lasts[i]);
        if (has(table, key)) return [length, table[key]];
      }
    }
    return null;
  };
  E.rewrite = function (text, game) {
    var an = this.an, self = this, table = this.synTables[game || ""] || this.synTables[""];
    var near = this.synNear[game || ""] || this.synNear[""];
    var asks = 6, words = an.words(text), out = [], synonyms = [], i = 0;
    function known(w) { return self.knows(w); }
    while (i < words.length) {
      if (i >= 16) { out = out.concat(words.slice(i)); break; }
      var found = this.synonymAt(words, i, table), word = words[i];
      if (!found && asks > 0 && isHangul(word) && !an.isFunctionWord(word) &&
          !an.variants(word).some(known)) {
        asks -= 1;
        var close = near.corrections(an.stem(word), 1);
        if (close.length) found = [1, table[close[0]]];
      }
      if (found && /^[\x00-\x7f]*$/.test(word) && (found[0] !== words.length ||
          words.every(function (w) { return an.variants(w).some(known); }))) found = null;
      if (found) {
        var typed = words.slice(i, i + found[0]).join(" ");
        out = out.concat(found[1]);
        if (/^[\x00-\x7f]*$/.test(typed)) out.push(typed);
        found[1].forEach(function (o) { synonyms.push([typed, o]); });
        i += found[0];
        continue;
      }
      out.push(words[i]);
      i += 1;
    }
    return synonyms.length ? { text: out.join(" "), synonyms: synonyms } : { text: text, synonyms: [] };
  };

  /* query.make_plan (without loanwords). */
  E.plan = function (text, correct) {
    var an = this.an, raw = an.words(text), self = this, jamoRun = /^[ㄱ-ㅎㅏ-ㅣ]+$/;
    var initials = "";
    if (raw.some(function (w) { return an.isInitials(w); }) || raw.some(function (w) { return jamoRun.test(w); })) {
      initials = raw.filter(function (w) { return isHangul(w) || an.isInitials(w); }).join("");
    }
    var analysed = {}, order = [], considered = [], left = correct === false ? 0 : 6;
    for (var i = 0; i < raw.length; i++) {
      var token = raw[i];
      if (jamoRun.test(token)) continue;
      if (!has(analysed, token)) {
        if (order.length >= 16) break;
        var hangul = isHangul(token), forms = an.variants(token);
        var stem = hangul ? shortest(forms) : forms[0];
        var vocab = hangul ? self.hangul : self.english;
        var known = /^[0-9]+$/.test(token) || forms.some(function (f) { return vocab.knows(f); });
        var corrections = [];
        if (!known && left > 0) {
          left -= 1;
          corrections = vocab.corrections(hangul ? stem : forms[0]);
          if (hangul && !corrections.length && stem !== token && left > 0) {
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
    var w = this.w, an = this.an, boosts = {}, keys = [];
    function add(field, term, boost) {
      var key = field + "\u0000" + term;
      if (!has(boosts, key)) keys.push(key);
      if (boost > (boosts[key] || 0)) boosts[key] = boost;
    }
    if (plan.words.length > 1) [plan.compact, plan.stemCompact].forEach(function (x) { add("title_w", x, w.TITLE_WHOLE); });
    if (plan.alias) add("alias", plan.alias, w.ALIAS * 2);
    var content = plan.words.filter(function (x) {
      return !an.isFunctionWord(x.text) && (x.known || x.corrections.length);
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

  /* titles.TitleTable.prefix_matches / fuzzy_matches: [doc, rank] pairs. */
  E.prefixMatches = function (typed) {
    if (typed.replace(/\s/g, "").length > this.longest) return [];
    var source = this.an.prefixPattern(typed);
    if (source === null) return [];
    var anchored = new RegExp("^" + source), anywhere = new RegExp(source), out = [];
    var size = typed.replace(/\s/g, "").length;
    var initialsOnly = typed.split("").every(function (c) { return !isHangul(c); });
    this.titles.parts.forEach(function (ps, d) {
      var best = null;
      ps.forEach(function (part, i) {
        var rank;
        if (anchored.test(part)) {
          rank = part.length === size ? (initialsOnly ? C.INITIALS_EXACT : C.EXACT) : (i === 0 ? C.START : C.PART_START);
        } else if (typed.length >= 2 && anywhere.test(part)) rank = C.INSIDE;
        else return;
        best = best === null ? rank : Math.min(best, rank);
      });
      if (best !== null) out.push([d, best]);
    });
    return out;
  };
  E.fuzzyMatches = function (text, extra) {
    var allowed = this.an.maxDistance(text) + (extra || 0), self = this, best = {}, order = [];
    if (allowed <= 0 || text.length < 2) return [];
    R.closest(this.an.decompose(text), this.partsJamo, allowed, 20).forEach(function (f) {
      var d = self.partRows[f[1]];
      if (!has(best, d)) { order.push(d); best[d] = f[0]; } else best[d] = Math.min(best[d], f[0]);
    });
    order.sort(function (a, b) { return best[a] - best[b]; });
    return order.map(function (d) { return [d, C.FUZZY + best[d]]; });
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

  /* rank.Reranker: coordination, proximity, title coverage, authority. */
  E.prepare = function (plan) {
    var an = this.an, groups = [];
    plan.words.forEach(function (word) {
      if (an.isFunctionWord(word.text)) return;
      var forms = [word.stem].concat(word.corrections).filter(Boolean);
      if (forms.length) groups.push([forms, word.stem.length === 1 && word.hangul ? 0.5 : 1]);
    });
    var forms = {};
    plan.words.forEach(function (x) { x.variants.concat(x.corrections).forEach(function (f) { forms[f] = 1; }); });
    var pairs = [];
    for (var i = 0; i + 1 < groups.length; i++) pairs.push([groups[i][0], groups[i + 1][0]]);
    return { groups: groups, pairs: pairs, forms: forms, joined: plan.stemCompact + plan.compact };
  };
  E.near = function (text, first, then) {
    var gap = this.w.NEAR_GAP;
    if (!then.some(function (b) { return text.indexOf(b) >= 0; })) return false;
    var longest = Math.max.apply(null, then.map(function (b) { return b.length; }));
    for (var i = 0; i < first.length; i++) {
      for (var at = text.indexOf(first[i]); at !== -1; at = text.indexOf(first[i], at + 1)) {
        var end = at + first[i].length, window = text.slice(end, end + gap + longest);
        for (var j = 0; j < then.length; j++) {
          var g = window.indexOf(then[j]);
          if (g >= 0 && g <= gap && window.slice(0, g).indexOf("\n") < 0) return true;
        }
      }
    }
    return false;
  };
  E.factor = function (q, d) {
    var w = this.w, self = this;
    if (!q.groups.length) return this.authority[d];
    function side(f) { return isLatin(f) ? self.rerankLatin[d] : self.rerankText[d]; }
    var total = 0, found = 0;
    q.groups.forEach(function (g) {
      total += g[1];
      if (g[0].some(function (f) { return side(f).indexOf(f) >= 0; })) found += g[1];
    });
    var proximity = q.pairs.length ? q.pairs.filter(function (p) { return self.near(side(p[0][0]), p[0], p[1]); }).length / q.pairs.length : 0;
    var coverage = 0, titleWords = this.titles.words[d];
    if (titleWords.length) {
      var covered = titleWords.filter(function (forms) {
        var s = shortest(forms);
        return (s.length > 1 && q.joined.indexOf(s) >= 0) || forms.some(function (f) { return has(q.forms, f); });
      }).length;
      var explained = q.groups.filter(function (g) {
        return g[0].some(function (f) { return has(self.titleForms[d], f) || (f.length > 1 && self.titleText[d].indexOf(f) >= 0); });
      }).length;
      coverage = covered / titleWords.length * explained / q.groups.length;
    }
    var coord = found / total;
    return Math.max(w.COORD_FLOOR, coord * coord) * (1 + w.PROXIMITY * proximity) *
      (1 + w.TITLE_COVERAGE * coverage) * this.authority[d];
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

  /* Plan.highlight_terms + snippet.term_pattern/make_snippet. */
  function escapeHtml(s) {
    return s.replace(/[&<>"']/g, function (c) { return "&#" + c.charCodeAt(0) + ";"; });
  }
  E.snippet = function (d, plan) {
    var only = plan.words.length === 1, terms = [], used = 0, self = this;
    plan.words.forEach(function (x) {
      [x.text, x.stem].concat(x.corrections).forEach(function (f) { if (f.length >= 2 || (only && f)) terms.push(f); });
    });
    terms = unique(terms).filter(function (t) {
      if (used + t.length > 80 || self.squashed[d].indexOf(t.toLowerCase()) < 0) return false;
      used += t.length;
      return true;
    }).sort(function (a, b) { return b.length - a.length; });
    var pattern = terms.length ? new RegExp(terms.map(function (t) {
      var esc = function (c) { return c.replace(/[.*+?^${}()|[\]\\\-]/g, "\\$&"); };
      return isHangul(t) ? t.split("").map(esc).join("\\s?") : esc(t);
    }).join("|"), "gi") : null;
    var flat = this.flat[d], size = this.index.rules.snippet_chars, lead = this.index.rules.lead_chars;
    var first = pattern ? flat.search(pattern) : -1, start = 0;
    if (first > lead) {
      start = first - lead;
      var space = flat.indexOf(" ", start);
      if (space !== -1 && space < first) start = space + 1;
    }
    var end = Math.min(flat.length, start + size);
    if (end < flat.length) {
      var cut = flat.lastIndexOf(" ", end - 1);
      if (cut >= start + size / 2) end = cut;
    }
    var win = flat.slice(start, end), out = start > 0 ? "…" : "", pos = 0, m;
    if (pattern) {
      pattern.lastIndex = 0;
      while ((m = pattern.exec(win)) !== null) {
        if (!m[0]) { pattern.lastIndex++; continue; }
        out += escapeHtml(win.slice(pos, m.index)) + "<mark>" + escapeHtml(m[0]) + "</mark>";
        pos = m.index + m[0].length;
      }
    }
    return out + escapeHtml(win.slice(pos)) + (end < flat.length ? "…" : "");
  };

  E.hit = function (d, score, plan) {
    var docs = this.docs, game = this.index.games[docs.game[d]];
    return { id: docs.id[d], title: docs.title[d], url: docs.url[d], game: game.id,
      game_name: game.name, game_short: game.short, where: docs.where[d],
      context: game.short + " · " + docs.where[d], score: Math.round(score * 1e4) / 1e4,
      snippet: plan && this.texts ? this.snippet(d, plan) : "" };
  };

  /* SearchIndex.search: {query, total, hits, synonyms, corrected}. Needs `addTexts`. */
  E.search = function (query, options) {
    options = options || {};
    if (!this.texts) throw new Error("search needs the texts: call addTexts first");
    var typed = this.an.clean(query), game = options.game || "", limit = options.limit || 10;
    var rewrite = options.typed ? { text: typed, synonyms: [] } : this.rewrite(typed, game);
    var plan = this.plan(rewrite.text, !options.typed), self = this;
    var corrected = plan.words.some(function (x) { return x.corrections.length && !x.known; }) ?
      plan.words.map(function (x) { return x.corrections.length && !x.known ? x.corrections[0] : x.text; }).join(" ") : null;
    var result = { query: typed, total: 0, hits: [], synonyms: rewrite.synonyms, corrected: corrected };
    if (!plan.words.length && !plan.initials) return result;
    var allowed = null;
    if (game) {
      if (!has(this.gamesById, game)) return result;
      allowed = {};
      this.docs.game.forEach(function (g, d) { if (g === self.gamesById[game]) allowed[d] = 1; });
    }
    var ranked = this.rank(plan, allowed);
    result.total = ranked.length;
    result.hits = ranked.slice(options.offset || 0, (options.offset || 0) + limit).map(function (r) {
      return self.hit(r[0], r[1], plan);
    });
    return result;
  };

  /* SearchIndex.suggest: the titles best matching what is typed so far (no texts needed). */
  E.suggest = function (query, limit) {
    var an = this.an, text = an.clean(query), words = an.words(text), typed = words.join(""), self = this;
    limit = limit === undefined ? 8 : limit;
    if (!typed || !limit) return [];
    var matches = this.prefixMatches(typed);
    var stemmed = words.map(function (w) { return an.stem(w); }).join("");
    if (stemmed !== typed) matches = matches.concat(this.prefixMatches(stemmed));
    if (/^[\x00-\x7f]*$/.test(typed)) matches = matches.concat(this.aliasPrefixMatches(an.aliasKey(text)));
    if (!matches.length) matches = this.fuzzyMatches(stemmed);
    var best = {};
    matches.forEach(function (m) { best[m[0]] = Math.min(has(best, m[0]) ? best[m[0]] : 99, m[1]); });
    return Object.keys(best).map(Number).sort(function (a, b) {
      if (best[a] !== best[b]) return best[a] - best[b];
      var ka = self.sortKey[a], kb = self.sortKey[b];
      for (var i = 0; i < ka.length; i++) if (ka[i] !== kb[i]) return ka[i] - kb[i];
      return 0;
    }).slice(0, limit).map(function (d) { return self.hit(d, 0, null); });
  };
  E.aliasPrefixMatches = function (typed) {
    var t = this.titles, out = [];
    if (typed.length < 2) return out;
    t.alias.forEach(function (alias, d) {
      if (!alias) return;
      if (alias === typed) out.push([d, C.EXACT]);
      else if (alias.indexOf(typed) === 0) out.push([d, C.START]);
      else if (t.alias_words[d].some(function (x) { return x.indexOf(typed) === 0; })) out.push([d, C.PART_START]);
    });
    return out;
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
