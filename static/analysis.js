/* 룰사전 query analysis for the browser engine (static/engine.js): words, particle and ending
 * stripping, bigrams, title forms, 초성, jamo and typo distance — app/search/analysis.py,
 * app/corpus/hangul.py and app/search/fuzzy.py in JavaScript. Every list and pattern comes
 * from the client index's `rules` (generated from the Python constants), never from here;
 * tests/cases/query_analysis.json holds the cases both sides must agree on.
 * A global `RulesAnalysis` in the browser, `module.exports` in Node.
 */
(function (root, factory) {
  "use strict";
  if (typeof module === "object" && module.exports) module.exports = factory();
  else root.RulesAnalysis = factory();
})(this, function () {
  "use strict";

  var BASE = 0xAC00, LAST = 0xD7A3;
  var FUZZY = 5, EXACT = 0, INITIALS_EXACT = 1, START = 2, PART_START = 3, INSIDE = 4;

  function has(map, key) { return Object.prototype.hasOwnProperty.call(map, key); }
  function isSyllable(c) { var n = c.charCodeAt(0); return n >= BASE && n <= LAST; }
  function isHangul(w) {
    if (!w) return false;
    for (var i = 0; i < w.length; i++) if (!isSyllable(w.charAt(i))) return false;
    return true;
  }
  function isLatin(w) { return /^[A-Za-z]+$/.test(w); }
  function unique(items) {
    var seen = dict(), out = [];
    items.forEach(function (x) { if (!has(seen, x)) { seen[x] = 1; out.push(x); } });
    return out;
  }
  // Maps keyed by words use no prototype: an English word such as "constructor" or
  // "__proto__" in the data or a query must stay an ordinary key.
  function dict() { return Object.create(null); }
  function set(items) { var s = dict(); items.forEach(function (x) { s[x] = 1; }); return s; }
  function shortest(forms) {
    return forms.reduce(function (a, b) { return b.length < a.length ? b : a; });
  }

  /* ---- Analysis (app/search/analysis.py, app/corpus/hangul.py), from the index's rules --- */
  function Analysis(rules) {
    var self = this;
    this.r = rules;
    this.spaces = new RegExp(rules.spaces, "g");
    this.word = new RegExp(rules.word, "g");
    this.camel = new RegExp(rules.camel, "g");
    this.pluralEs = new RegExp(rules.plural_es);
    this.numbering = new RegExp(rules.numbering);
    this.appendix = new RegExp(rules.appendix);
    this.aside = new RegExp(rules.aside, "g");
    this.alternatives = new RegExp(rules.alternatives, "g");
    this.particles = set(rules.particles);
    this.shortStemEndings = set(rules.short_stem_endings);
    this.suffixSet = set(rules.suffixes);
    this.light = set(rules.light);
    this.byLast = dict();
    rules.suffixes.forEach(function (s) {
      var last = s.charAt(s.length - 1);
      (self.byLast[last] = self.byLast[last] || []).push(s);
    });
    this.initials = set(rules.choseong.split(""));
  }
  var A = Analysis.prototype;
  A.normalize = function (t) {
    return t.normalize("NFC").replace(this.spaces, " ").trim().toLowerCase();
  };
  A.compact = function (t) { return this.normalize(t).replace(/ /g, ""); };
  A.words = function (t) { return this.normalize(t).match(this.word) || []; };
  A.isFunctionWord = function (w) {
    if (has(this.suffixSet, w) || has(this.light, w)) return true;
    if (!isHangul(w)) return false;
    for (var i = 1; i < w.length; i++) {
      if (has(this.light, w.slice(0, i)) && has(this.suffixSet, w.slice(i))) return true;
    }
    return false;
  };
  /* analysis.is_inflected: a verb form (빠지면, 죽거나), never a misspelt term. */
  A.isInflected = function (w) {
    if (!isHangul(w)) return false;
    var ends = this.r.verb_endings;
    for (var i = 0; i < ends.length; i++) {
      if (w.length > ends[i].length && w.slice(w.length - ends[i].length) === ends[i]) return true;
    }
    return false;
  };
  A.englishStem = function (w) {
    w = w.toLowerCase();
    var n = w.length;
    if (n > 4 && /ies$/.test(w)) return w.slice(0, -3) + "y";
    if (n > 4 && this.pluralEs.test(w)) return w.slice(0, -2);
    if (n > 3 && /s$/.test(w) && !/(ss|us|is|os)$/.test(w)) return w.slice(0, -1);
    return w;
  };
  A.stripped = function (form) {
    var out = [], list = this.byLast[form.charAt(form.length - 1)] || [];
    for (var i = 0; i < list.length; i++) {
      var s = list[i];
      if (form.length > s.length && form.slice(-s.length) === s) {
        var base = form.slice(0, -s.length);
        if (base.length >= 2 || s.length >= 2 || has(this.particles, s) ||
            has(this.shortStemEndings, s)) out.push(base);
      }
    }
    /* analysis.py: the ㅂ of -ㅂ니다, the ㄴ of -ㄴ다 sit in the stem's last syllable. */
    var n = form.length, jamo = this.r.jamo_endings;
    for (var e = 0; e < jamo.length; e++) {
      var tail = jamo[e][0], fin = jamo[e][1], only = jamo[e][2], at = n - tail.length - 1;
      if (at >= 0 && form.slice(-tail.length) === tail && form.charAt(at) !== "습" &&
          isSyllable(form.charAt(at)) && (!only || only.indexOf(form.charAt(at)) >= 0)) {
        var code = form.charCodeAt(at) - BASE;
        if (code % 28 === fin && n >= 3) out.push(form.slice(0, at) + String.fromCharCode(BASE + code - fin));
      }
    }
    /* A merged -아/-어 form (세워서 → 세우, 버렸다 → 버리): analysis.py `_unmerged`. */
    var r = this.r;
    for (var m = 0; m < r.after_merged.length; m++) this.restore(form, r.after_merged[m], 0, out);
    for (var p = 0; p < r.after_past.length; p++) this.restore(form, r.after_past[p], r.ss_final, out);
    return out;
  };
  A.restore = function (form, suffix, fin, out) {
    var n = form.length, k = suffix.length;
    if (n <= k || form.slice(-k) !== suffix || !isSyllable(form.charAt(n - k - 1))) return;
    var code = form.charCodeAt(n - k - 1) - BASE, vowel = Math.floor((code % 588) / 28);
    var to = this.r.contracted[String(vowel)];
    // analysis._restore: in the past, ㅏ ㅓ ㅐ ㅔ keep their vowel (만났다면 → 만나).
    if (to === undefined && fin === this.r.ss_final && this.r.past_same_vowel.indexOf(vowel) >= 0) to = vowel;
    if (code % 28 !== fin || to === undefined) return;
    out.push(form.slice(0, n - k - 1) + String.fromCharCode(BASE + code - code % 588 + to * 28));
  };
  A.variants = function (word) {
    if (!isHangul(word)) return [isLatin(word) ? this.englishStem(word) : word];
    var found = [word], frontier = [word];
    for (var pass = 0; pass < 2; pass++) {
      var next = [];
      for (var i = 0; i < frontier.length; i++) {
        var bases = this.stripped(frontier[i]);
        for (var j = 0; j < bases.length; j++) {
          if (found.indexOf(bases[j]) < 0) { found.push(bases[j]); next.push(bases[j]); }
        }
      }
      frontier = next;
    }
    return found;
  };
  /* `variants` remembered per word, for deriving the body postings from the corpus (whose
   * words repeat): bounded by the corpus's vocabulary. Queries use `variants` itself. */
  A.memoised = function () {
    var self = this, memo = new Map(), copy = Object.create(this);
    copy.variants = function (w) {
      var found = memo.get(w);
      if (!found) { found = self.variants(w); memo.set(w, found); }
      return found;
    };
    return copy;
  };
  A.looseStems = function (w) {
    return (this.byLast[w.charAt(w.length - 1)] || []).filter(function (s) {
      return w.length > s.length && w.slice(-s.length) === s;
    }).map(function (s) { return w.slice(0, -s.length); });
  };
  A.stem = function (w) { return shortest(this.variants(w)); };
  A.bigrams = function (text) {
    var s = "", out = [];
    for (var i = 0; i < text.length; i++) if (isSyllable(text.charAt(i))) s += text.charAt(i);
    for (i = 0; i + 1 < s.length; i++) out.push(s.slice(i, i + 2));
    return out;
  };
  A.indexWords = function (text) { return this.wordTokens(this.words(text)); };
  A.indexBigrams = function (text) { return this.bigramTokens(this.words(text)); };
  /* index_words and index_bigrams from a text's `words` (computed once for both). */
  A.wordTokens = function (words) {
    var out = [];
    for (var i = 0; i < words.length; i++) {
      var forms = this.variants(words[i]);
      for (var j = 0; j < forms.length; j++) out.push(forms[j]);
    }
    return out;
  };
  A.bigramTokens = function (words) {
    var self = this, hangul = words.filter(isHangul);
    var raw = this.bigrams(hangul.join(""));
    var seen = new Set(raw);
    var stems = this.bigrams(hangul.map(function (w) { return self.stem(w); }).join(""));
    return raw.concat(stems.filter(function (b) { return !seen.has(b); }));
  };
  A.titleParts = function (title) {
    var text = this.normalize(title).replace(this.numbering, "").replace(this.appendix, "");
    var parts = [text, text.replace(this.aside, " ")];
    parts = parts.concat(parts[1].split(this.alternatives));
    var self = this;
    return unique(parts.map(function (p) { return (p.match(self.word) || []).join(""); })
      .filter(Boolean));
  };
  A.compactTitle = function (t) { return (this.compact(t).match(this.word) || []).join(""); };
  A.aliasKey = function (text) {
    var self = this, t = this.normalize(text.replace(/[_\-]+/g, " "));
    return (t.match(/[a-z]+|[0-9]+/g) || []).map(function (w) { return self.englishStem(w); })
      .join("");
  };
  A.choseong = function (text) {
    var r = this.r;
    return text.replace(/[\uAC00-\uD7A3]/g, function (c) {
      return r.choseong.charAt(Math.floor((c.charCodeAt(0) - BASE) / 588));
    });
  };
  A.decompose = function (text) {
    var r = this.r, out = "";
    for (var i = 0; i < text.length; i++) {
      var c = text.charAt(i);
      if (!isSyllable(c)) { out += c; continue; }
      var code = c.charCodeAt(0) - BASE;
      out += r.choseong.charAt(Math.floor(code / 588)) +
        r.jungseong.charAt(Math.floor((code % 588) / 28)) + r.jongseong[code % 28];
    }
    return out;
  };
  A.isInitials = function (text) {
    var chars = text.replace(/\s/g, "").split(""), self = this;
    return chars.length > 0 && chars.every(function (c) { return has(self.initials, c); });
  };
  /* fuzzy.max_distance: none for one syllable, one for two, two from three on. */
  A.maxDistance = function (word) {
    var syl = 0, letters = 0;
    for (var i = 0; i < word.length; i++) {
      var c = word.charAt(i);
      if (isSyllable(c)) syl++;
      else if (c.toLowerCase() !== c.toUpperCase() || /[\u3131-\u318E]/.test(c)) letters++;
    }
    if (syl) return syl <= 1 ? 0 : (syl === 2 ? 1 : 2);
    return letters <= 3 ? 0 : (letters <= 7 ? 1 : 2);
  };
  /* fuzzy.prefix_pattern: the source of a regex over compact titles, or null. */
  A.prefixPattern = function (text) {
    var chars = text.replace(/\s/g, "").split(""), self = this;
    if (!chars.length || !chars.every(function (c) {
      return isSyllable(c) || has(self.initials, c);
    })) return null;
    return chars.map(function (c, i) {
      if (has(self.initials, c)) {
        var first = BASE + self.r.choseong.indexOf(c) * 588;
        return "[" + String.fromCharCode(first) + "-" + String.fromCharCode(first + 587) + "]";
      }
      var code = c.charCodeAt(0);
      if (i === chars.length - 1 && (code - BASE) % 28 === 0) {
        return "[" + c + "-" + String.fromCharCode(code + 27) + "]";
      }
      return c;
    }).join("");
  };
  A.clean = function (text) {
    text = String(text).slice(0, this.r.max_query * 2).normalize("NFC");
    // query.clean: control, format, surrogate and unassigned characters become spaces.
    text = text.replace(/[\u0000-\u001f\u007f-\u009f\u00ad\u200b-\u200f\u202a-\u202e\u2060-\u206f\ufeff\ud800-\udfff\ue000-\uf8ff]/g, " ");
    return text.slice(0, this.r.max_query);
  };

  /* Jamo Levenshtein with a cutoff (rapidfuzz's Levenshtein.distance, score_cutoff). */
  function levenshtein(a, b, cutoff) {
    if (Math.abs(a.length - b.length) > cutoff) return cutoff + 1;
    var prev = [], cur, i, j;
    for (j = 0; j <= b.length; j++) prev.push(j);
    for (i = 1; i <= a.length; i++) {
      cur = [i];
      var best = i;
      for (j = 1; j <= b.length; j++) {
        var v = Math.min(prev[j] + 1, cur[j - 1] + 1,
          prev[j - 1] + (a.charCodeAt(i - 1) === b.charCodeAt(j - 1) ? 0 : 1));
        cur.push(v);
        if (v < best) best = v;
      }
      if (best > cutoff) return cutoff + 1;
      prev = cur;
    }
    return prev[b.length];
  }
  /* Items of `jamo` within `cutoff` of `query`: [distance, index], closest first, `limit`. */
  function closest(query, jamo, cutoff, limit) {
    var found = [];
    for (var i = 0; i < jamo.length; i++) {
      var d = levenshtein(query, jamo[i], cutoff);
      if (d <= cutoff) found.push([d, i]);
    }
    found.sort(function (x, y) { return x[0] - y[0] || x[1] - y[1]; });
    return found.slice(0, limit);
  }

  /* fuzzy.Vocabulary: corrections towards `targets` among known `freq` terms. */
  function Vocabulary(an, freq, targets) {
    this.an = an;
    this.freq = freq;
    this.terms = Object.keys(freq).filter(function (t) { return !targets || has(targets, t); })
      .sort();
    this.jamo = this.terms.map(function (t) { return an.decompose(t); });
    this.longest = this.terms.reduce(function (m, t) { return Math.max(m, t.length); }, 0);
    this.memo = dict();
  }
  Vocabulary.prototype.knows = function (t) { return has(this.freq, t); };
  Vocabulary.prototype.corrections = function (word, limit) {
    if (word.length > this.longest + 1) return [];
    if (!has(this.memo, word)) this.memo[word] = this.closest(word);
    return this.memo[word].slice(0, limit || 3);
  };
  Vocabulary.prototype.closest = function (word) {
    var allowed = this.an.maxDistance(word), self = this;
    if (!allowed || !this.terms.length) return [];
    var hangul = /[\uAC00-\uD7A3]/.test(word);
    var best = closest(this.an.decompose(word), this.jamo, allowed, 32).map(function (f) {
      return { term: self.terms[f[1]], distance: f[0] };
    }).filter(function (c) {
      return hangul === /[\uAC00-\uD7A3]/.test(c.term) && Math.abs(c.term.length - word.length) <= 1;
    });
    if (!best.length) return [];
    var least = Math.min.apply(null, best.map(function (c) { return c.distance; }));
    return best.filter(function (c) { return c.distance === least; }).sort(function (a, b) {
      return ((self.freq[b.term] || 0) - (self.freq[a.term] || 0)) ||
        (a.term < b.term ? -1 : a.term > b.term ? 1 : 0);
    }).map(function (c) { return c.term; });
  };

  function decode(encoded) {
    var docs = [], tfs = [], doc = -1;
    encoded.split(",").forEach(function (item) {
      if (!item) return;
      var dot = item.indexOf(".");
      doc += parseInt(dot < 0 ? item : item.slice(0, dot), 36);
      docs.push(doc);
      tfs.push(dot < 0 ? 1 : parseInt(item.slice(dot + 1), 36));
    });
    return [docs, tfs];
  }

  return {
    Analysis: Analysis, Vocabulary: Vocabulary, levenshtein: levenshtein, closest: closest,
    decode: decode,
    consts: { EXACT: EXACT, INITIALS_EXACT: INITIALS_EXACT, START: START,
      PART_START: PART_START, INSIDE: INSIDE, FUZZY: FUZZY },
    helpers: { has: has, isHangul: isHangul, isLatin: isLatin, isSyllable: isSyllable,
      unique: unique, set: set, dict: dict, shortest: shortest }
  };
});
