/* 룰사전 browser engine, matching half: title matching (titles.TitleTable), synonyms
 * (rewrite.Rewriter), the re-rank features (rank.Reranker), snippets (snippet.py) and
 * suggestions (SearchIndex.suggest), as methods static/engine.js puts on its Engine. Split
 * from engine.js only to keep each file readable; see engine.js's header for the design.
 * A global `RulesMatching` in the browser (load after analysis.js, before engine.js),
 * `module.exports` in Node.
 */
(function (root, factory) {
  "use strict";
  if (typeof module === "object" && module.exports) module.exports = factory(require("./analysis.js"));
  else root.RulesMatching = factory(root.RulesAnalysis);
})(this, function (R) {
  "use strict";

  var H = R.helpers, C = R.consts, has = H.has, isHangul = H.isHangul, isLatin = H.isLatin;
  var unique = H.unique, shortest = H.shortest, dict = H.dict;
  var M = {};

  /* rewrite.Rewriter: players' words → the official terms. */
  /* corpus.lookup.merged_terms: the tables per game, and under "" all of them, first game first. */
  function withMerged(tables) {
    var out = dict(), merged = dict();
    Object.keys(tables).forEach(function (game) {
      out[game] = tables[game];
      Object.keys(tables[game]).forEach(function (k) { if (!has(merged, k)) merged[k] = tables[game][k]; });
    });
    out[""] = merged;
    return out;
  }
  M.setUpSynonyms = function (synonyms, related, names, spellingDistance) {
    var an = this.an, self = this;
    this.spellingDistance = spellingDistance;
    this.gameNames = names;
    this.relTables = withMerged(related);
    this.synTables = withMerged(synonyms);
    this.synNear = dict();
    Object.keys(this.synTables).forEach(function (game) {
      var freq = dict();
      Object.keys(self.synTables[game]).forEach(function (k) {
        if (k.length >= 3 && isHangul(k)) freq[k] = 1;
      });
      self.synNear[game] = new R.Vocabulary(an, freq, null);
    });
  };
  M.synonymAt = function (words, start, table) {
    for (var length = Math.min(4, words.length - start); length > 0; length--) {
      var run = words.slice(start, start + length), last = run[run.length - 1];
      var lasts = unique([last].concat(this.an.variants(last), this.an.looseStems(last)));
      for (var i = 0; i < lasts.length; i++) {
        var key = this.an.compact(run.slice(0, -1).join("") + lasts[i]);
        if (has(table, key)) return [length, table[key], run.slice(0, -1).concat([lasts[i]]).join(" ")];
      }
    }
    return null;
  };
  M.rewrite = function (text, game) {
    var an = this.an, self = this, table = this.synTables[game || ""] || this.synTables[""];
    var near = this.synNear[game || ""] || this.synNear[""];
    var related = this.relTables[game || ""] || this.relTables[""];
    var korean = an.words(text).some(isHangul);
    var asks = 6, words = an.words(text), out = [], synonyms = [], i = 0, joined = [], named = null;
    function known(w) { return self.knows(w); }
    while (i < words.length) {
      if (i >= 16) { out = out.concat(words.slice(i)); break; }
      // rewrite.py: a game's name in a longer query is taken out and reported.
      var name = this.synonymAt(words, i, this.gameNames);
      if (name && name[0] < words.length && !named) {
        named = [name[2], name[1][0]];
        i += name[0];
        continue;
      }
      var found = this.synonymAt(words, i, table), word = words[i];
      if (!found && asks > 0 && isHangul(word) && !an.isFunctionWord(word) &&
          !an.variants(word).some(known)) {
        asks -= 1;
        var close = near.corrections(an.stem(word), 1);
        // rewrite.SPELLING_DISTANCE: one jamo apart is a spelling, two another word.
        if (close.length && R.closest(an.decompose(an.stem(word)), [an.decompose(close[0])],
            this.spellingDistance, 1).length) found = [1, table[close[0]], an.stem(word)];
      }
      // rewrite.py: an English variant counts as the whole query or inside a Korean one.
      if (found && /^[\x00-\x7f]*$/.test(word) && ((found[0] !== words.length && !korean) ||
          words.slice(i, i + found[0]).every(function (w) { return an.variants(w).some(known); }))) found = null;
      if (found) {
        var typed = words.slice(i, i + found[0]).join(" ");
        out = out.concat(found[1]);
        if (/^[\x00-\x7f]*$/.test(typed)) out.push(typed);
        // rewrite.py: the notice quotes the words as they matched, without the particle.
        found[1].forEach(function (o) { synonyms.push([found[2], o]); });
        i += found[0];
        continue;
      }
      // rewrite.py: a related word stays, and the rules' word joins it, unannounced.
      var also = this.synonymAt(words, i, related);
      if (also) {
        out = out.concat(words.slice(i, i + also[0]));
        var typedLast = words[i + also[0] - 1];
        also[1].forEach(function (o) {
          if (out.indexOf(o) < 0) { out.push(o); joined.push([o, typedLast]); }
        });
        i += also[0];
        continue;
      }
      out.push(words[i]);
      i += 1;
    }
    return synonyms.length || joined.length || named ?
      { text: out.join(" "), synonyms: synonyms, game: named, related: joined } :
      { text: text, synonyms: [], game: null, related: [] };
  };


  /* titles.TitleTable.prefix_matches / fuzzy_matches: [doc, rank] pairs. */
  M.prefixMatches = function (typed) {
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
  M.fuzzyMatches = function (text, extra) {
    var allowed = this.an.maxDistance(text) + (extra || 0), self = this, best = {}, order = [];
    if (allowed <= 0 || text.length < 2) return [];
    R.closest(this.an.decompose(text), this.partsJamo, allowed, 20).forEach(function (f) {
      var d = self.partRows[f[1]];
      if (!has(best, d)) { order.push(d); best[d] = f[0]; } else best[d] = Math.min(best[d], f[0]);
    });
    order.sort(function (a, b) { return best[a] - best[b]; });
    return order.map(function (d) { return [d, C.FUZZY + best[d]]; });
  };


  /* rank.Reranker: coordination, proximity, title coverage, authority. */
  M.prepare = function (plan) {
    var an = this.an, groups = [], joins = dict(), at = dict();
    (plan.related || []).forEach(function (p) { joins[p[0]] = p[1]; });
    plan.words.forEach(function (word) {
      if (an.isFunctionWord(word.text)) return;
      var forms = [word.stem].concat(word.corrections).filter(Boolean);
      if (!forms.length) return;
      var weight = word.stem.length === 1 && word.hangul ? 0.5 : 1;
      // rank._word_groups: a related word the rewrite added is a form of the typed word's group.
      if (has(joins, word.text) && has(at, joins[word.text])) {
        var g = groups[at[joins[word.text]]];
        g[0] = unique(g[0].concat(forms));
        g[1] = Math.max(g[1], weight);
        return;
      }
      at[word.text] = groups.length;
      groups.push([forms, weight]);
    });
    var forms = dict();
    plan.words.forEach(function (x) { x.variants.concat(x.corrections).forEach(function (f) { forms[f] = 1; }); });
    var pairs = [];
    for (var i = 0; i + 1 < groups.length; i++) pairs.push([groups[i][0], groups[i + 1][0]]);
    return { groups: groups, pairs: pairs, forms: forms, joined: plan.stemCompact + plan.compact };
  };
  M.near = function (text, first, then) {
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
  M.factor = function (q, d) {
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
    var coord = found / total, passage = 0;
    if (q.groups.length >= w.PASSAGE_MIN_WORDS) passage = this.passage(q.groups, d) / total;
    return Math.max(w.COORD_FLOOR, coord * coord) * (1 + w.PROXIMITY * proximity) *
      (1 + w.TITLE_COVERAGE * coverage) * (1 + w.PASSAGE * passage * passage) * this.authority[d];
  };
  /* rank._passage: the largest weight of groups found together in one Hangul line. */
  M.passage = function (groups, d) {
    var text = this.rerankText[d], starts = this.rerankStarts[d], perLine = dict(), best = 0;
    function lineOf(at) {
      var lo = 0, hi = starts.length;  /* bisect_right(starts, at) - 1 */
      while (lo < hi) { var mid = (lo + hi) >> 1; if (starts[mid] <= at) lo = mid + 1; else hi = mid; }
      return lo - 1;
    }
    groups.forEach(function (g) {
      var lines = dict();
      g[0].forEach(function (form) {
        if (isLatin(form)) return;
        for (var at = text.indexOf(form); at !== -1;) {
          var line = lineOf(at);  /* a line counts once: skip to the next */
          lines[line] = 1;
          if (line + 1 >= starts.length) break;
          at = text.indexOf(form, starts[line + 1]);
        }
      });
      Object.keys(lines).forEach(function (line) {
        perLine[line] = (perLine[line] || 0) + g[1];
        if (perLine[line] > best) best = perLine[line];
      });
    });
    return best;
  };


  /* Plan.highlight_terms + snippet.term_pattern/make_snippet. */
  function escapeHtml(s) {
    return s.replace(/[&<>"']/g, function (c) { return "&#" + c.charCodeAt(0) + ";"; });
  }
  M.snippet = function (d, plan) {
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


  /* SearchIndex.suggest: the titles best matching what is typed so far (no texts needed). */
  M.suggest = function (query, limit) {
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
  M.aliasPrefixMatches = function (typed) {
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

  return M;
});
