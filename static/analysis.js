// @ts-check
/* 룰사전 browser engine, analysis half: clean, words, particle and ending stripping, bigrams,
 * title forms, 초성, jamo, typo allowances and corrections (stages 1 and 3 of docs/search.md,
 * whose table names the Python function of each). Every list, pattern and number comes from
 * the client index (`rules`: the analysis tables; `contract`: app/search/contract.py), never
 * from here; the only numbers written below are Unicode arithmetic.
 * A plain script: it defines the global `RulesAnalysis` (Node loads the three engine files
 * as scripts too: tests/node/engine.js).
 */
"use strict";
/* exported RulesAnalysis */

var RulesAnalysis = (function () {
  "use strict";

  // Unicode arithmetic: a syllable is BASE + (initial × 21 + medial) × 28 + final.
  const BASE = 0xAC00, LAST = 0xD7A3, PER_INITIAL = 588, PER_MEDIAL = 28;
  const LETTER = /\p{L}/u;
  const HANGUL = /[\uAC00-\uD7A3]/;
  // Python's casefold() where it is not toLowerCase(): the characters that change when
  // case-folded, looked up in the shipped table first (scripts.casefold_table, whose
  // characters are matched too: ǰ folds to j + ̌ though its decomposed form does not change).
  const CASED = "\\p{Changes_When_Casefolded}";
  const MARK = /\p{Mn}/gu;
  // Text of ASCII and Hangul never folds (scripts.unfolded): answered first.
  const UNFOLDED = /^[\t\n\r !-~\uAC00-\uD7A3\u3131-\u3163]*$/;
  const HANGUL_LETTER = /\p{Script=Hangul}/u;
  // eslint-disable-next-line no-control-regex -- ASCII is U+0000 to U+007F
  const ASCII = /^[\x00-\x7f]*$/;

  /** @template T @param {Record<string, T>} map @param {string} key */
  function has(map, key) { return Object.prototype.hasOwnProperty.call(map, key); }
  /** @param {string} c */
  function isSyllable(c) { const n = c.charCodeAt(0); return n >= BASE && n <= LAST; }
  /** @param {string} w */
  function isHangul(w) {
    if (!w) return false;
    for (let i = 0; i < w.length; i++) if (!isSyllable(w.charAt(i))) return false;
    return true;
  }
  /** @param {string} w */
  function isLatin(w) { return /^[A-Za-z]+$/.test(w); }
  /** @param {string} w */
  function isAscii(w) { return ASCII.test(w); }
  /** @param {string[]} items @returns {string[]} `items` without repeats, first kept. */
  function unique(items) { return Array.from(new Set(items)); }
  /** Maps keyed by words have no prototype: "constructor" or "__proto__" stay plain keys.
   * @template T @returns {Record<string, T>} */
  function dict() { return Object.create(null); }
  /** @param {string[]} items @returns {Record<string, number>} */
  function set(items) { const s = dict(); items.forEach(function (x) { s[x] = 1; }); return /** @type {Record<string, number>} */ (s); }
  /** @param {string[]} forms */
  function shortest(forms) {
    return forms.reduce(function (a, b) { return b.length < a.length ? b : a; });
  }
  /** @param {string} a @param {string} b */
  function compare(a, b) { return a < b ? -1 : a > b ? 1 : 0; }
  /** The edits of the last [from this many, edits] step `count` reaches, else 0.
   * @param {number} count @param {[number, number][]} steps */
  function editsFor(count, steps) {
    let allowed = 0;
    steps.forEach(function (step) { if (count >= step[0]) allowed = step[1]; });
    return allowed;
  }

  class Analysis {
    /** @param {Rules} rules @param {Contract} contract */
    constructor(rules, contract) {
      this.r = rules;
      this.c = contract;
      this.spaces = new RegExp(rules.spaces, "g");
      this.word = new RegExp(rules.word, "gu");
      this.otherWord = new RegExp(rules.other_word, "u");
      this.hanWord = new RegExp(rules.han_word, "u");
      /** @type {Record<string, string>} */
      this.casefolds = rules.casefold || dict();
      const special = Object.keys(this.casefolds).map(function (c) {
        return c.replace(/[\\\]^-]/g, "\\$&");
      }).join("");
      this.cased = new RegExp(CASED + (special ? "|[" + special + "]" : ""), "gu");
      this.foldTable = rules.fold;
      this.spelledTable = rules.spelled;
      /** The characters of texts folded so far (`foldText`): bounded by the corpus's. */
      this.charFolds = new Map();
      this.jamoRun = new RegExp("^(?:" + rules.jamo_run + ")$");
      this.aliasSeparators = new RegExp(rules.alias_separators, "g");
      this.aliasWord = new RegExp(rules.alias_word, "g");
      this.numbering = new RegExp(rules.numbering);
      this.appendix = new RegExp(rules.appendix);
      this.aside = new RegExp(rules.aside, "g");
      this.alternatives = new RegExp(rules.alternatives, "g");
      this.plurals = contract.stems.english_suffixes.map(function ([least, pattern, added]) {
        return /** @type {[number, RegExp, string]} */ ([least, new RegExp(pattern), added]);
      });
      this.particles = set(rules.particles);
      this.shortStemEndings = set(rules.short_stem_endings);
      this.suffixSet = set(rules.suffixes);
      this.light = set(rules.light);
      this.counts = set(rules.counts);
      /** @type {Record<string, string[]>} */
      this.byLast = dict();
      rules.suffixes.forEach((s) => {
        const last = s.charAt(s.length - 1);
        (this.byLast[last] = this.byLast[last] || []).push(s);
      });
      this.initials = set(rules.choseong.split(""));
      /** @type {Map<string, string>} */
      this.layoutKeys = new Map(contract.layout.keys);
      // The blank code points of `clean`, as [first, last] ranges (contract.blank_ranges).
      /** @type {number[]} */
      this.blankFirst = [];
      /** @type {number[]} */
      this.blankLast = [];
      let end = 0;
      for (const [gap, span] of contract.clean.blank_ranges) {
        const first = end + gap;
        end = first + span;
        this.blankFirst.push(first);
        this.blankLast.push(end);
      }
    }

    /** NFC, case-folded as Python's casefold(), every run of spaces one space.
     * @param {string} t */
    normalize(t) { return this.casefold(t.normalize("NFC").replace(this.spaces, " ").trim()); }
    /** Python's casefold(). @param {string} t */
    casefold(t) {
      const folds = this.casefolds;
      return t.replace(this.cased, function (c) { return has(folds, c) ? folds[c] : c.toLowerCase(); });
    }
    /** Whether `text` has a letter `spelled` spells out, in either case. @param {string} text */
    hasUmlaut(text) {
      return Object.keys(this.spelledTable).some(function (c) {
        return text.indexOf(c) >= 0 || text.indexOf(c.toUpperCase()) >= 0;
      });
    }
    /** A word without accents: marks (Mn) dropped, the letters without a decomposition
     * spelled plainly (scripts.fold). @param {string} w */
    fold(w) {
      const table = this.foldTable;
      return Array.from(w.normalize("NFKD").replace(MARK, "").normalize("NFC"), function (c) {
        return has(table, c) ? table[c] : c;
      }).join("");
    }
    /** The word with umlauts spelled out (scripts.spelled). @param {string} w */
    spelled(w) {
      const table = this.spelledTable;
      return Array.from(w, function (c) { return has(table, c) ? table[c] : c; }).join("");
    }
    /** A word as written, folded and spelled out (scripts.letter_forms). @param {string} w */
    letterForms(w) {
      const forms = [w, this.fold(w)];
      if (Array.from(w).some((c) => has(this.spelledTable, c))) forms.push(this.fold(this.spelled(w)));
      return forms;
    }
    /** `text` with each character folded to one character (scripts.fold_text): as long as
     * the text. @param {string} text */
    foldText(text) {
      if (UNFOLDED.test(text)) return text;
      const cache = this.charFolds;
      return text.replace(/[\u0080-\u{10FFFF}]/gu, (c) => {
        let found = cache.get(c);
        if (found === undefined) {
          // Compatibility jamo are Korean letters, not a compatibility form (fold_char).
          const f = HANGUL_LETTER.test(c) ? c : this.fold(c);
          found = Array.from(f).length === 1 ? f : c;
          cache.set(c, found);
        }
        return found;
      });
    }
    /** A word without a Cyrillic case ending (scripts.light_stem). @param {string} word */
    lightStem(word) {
      let w = word;
      for (const [longer, endings] of this.r.cyrillic_endings) {
        if (w.length > longer) {
          const found = endings.find(function (e) { return w.slice(-e.length) === e; });
          if (found !== undefined) { w = w.slice(0, -found.length); break; }
        }
      }
      const [longer, finals] = this.r.cyrillic_final, [double, single] = this.r.cyrillic_double;
      if (w.length > longer && finals.indexOf(w.slice(-1)) >= 0) return w.slice(0, -1);
      if (w.length > longer && w.slice(-double.length) === double) return w.slice(0, -double.length) + single;
      return w;
    }
    /** @param {string} w */
    isHan(w) { return this.hanWord.test(w); }
    /** A Han word's character grams (analysis.han_grams), [] for any other.
     * @param {string} w @returns {string[]} */
    hanGrams(w) {
      if (!this.isHan(w)) return [];
      const size = this.c.scripts.han_gram, chars = Array.from(w);
      if (chars.length <= size) return [w];
      const out = [];
      for (let i = 0; i + size <= chars.length; i++) out.push(chars.slice(i, i + size).join(""));
      return out;
    }
    /** @param {string} t */
    compact(t) { return this.normalize(t).replace(/ /g, ""); }
    /** @param {string} t @returns {string[]} */
    words(t) { return this.normalize(t).match(this.word) || []; }

    /** analysis.is_light_as_typed: listed as light itself (막, 맞아요), not only by a light
     * stem and an ending (막을 is 막 + 을, but also 막다, to block). @param {string} w */
    isLightAsTyped(w) { return has(this.suffixSet, w) || has(this.light, w); }
    /** @param {string} w */
    isFunctionWord(w) {
      if (this.isLightAsTyped(w)) return true;
      if (!isHangul(w)) return false;
      for (let i = 1; i < w.length; i++) {
        if (has(this.light, w.slice(0, i)) && has(this.suffixSet, w.slice(i))) return true;
      }
      return false;
    }
    /** analysis.is_count: a native numeral and a counter written together (한장도, 두번),
     * never a misspelt term. @param {string} w */
    isCount(w) {
      return this.variants(w).some((f) => has(this.counts, f));
    }
    /** A verb form (빠지면, 죽거나), never a misspelt term. @param {string} w */
    isInflected(w) {
      if (!isHangul(w)) return false;
      const r = this.r;
      return r.verb_endings.some(function (e) {
        return w.length > e.length && w.slice(w.length - e.length) === e;
      }) || this.variants(w).some(function (f) {
        // A light noun after an adnominal form, written together, with a particle too
        // (살때, 보는것도).
        return r.after_adnominal.some(function (n) {
          return f.length > n.length && f.slice(f.length - n.length) === n &&
            r.adnominal_finals.indexOf((f.charCodeAt(f.length - n.length - 1) - BASE) % PER_MEDIAL) >= 0;
        });
      });
    }
    /** QueryWord.english_words: the words a loanword was heard as, stemmed as the index
     * stems them. @param {string} english */
    englishWords(english) { return english.split(/\s+/).filter(Boolean).map((w) => this.englishStem(w)); }
    /** analysis.is_particle: one of the particles (조사) the analysis strips. @param {string} text */
    isParticle(text) { return has(this.particles, text); }
    /** @param {string} word */
    englishStem(word) {
      let w = word.toLowerCase(), changed = true;
      while (changed) {
        changed = false;
        for (const [least, pattern, added] of this.plurals) {
          const found = w.length >= least ? pattern.exec(w) : null;
          if (found) { w = found[1] + added; changed = true; break; }
        }
      }
      return w;
    }
    /** Each stem left after removing one known suffix from `form`. @param {string} form */
    stripped(form) {
      const out = [], list = this.byLast[form.charAt(form.length - 1)] || [], st = this.c.stems;
      for (const s of list) {
        if (form.length > s.length && form.slice(-s.length) === s) {
          const base = form.slice(0, -s.length);
          // 다 after a final ㄴ is -ㄴ다 or a noun's end (analysis._ENDING_NOT_AFTER_FINAL).
          const last = base.charAt(base.length - 1);
          if (has(this.r.ending_not_after_final, s) && isSyllable(last) &&
              (last.charCodeAt(0) - BASE) % PER_MEDIAL === this.r.ending_not_after_final[s]) continue;
          if (base.length >= st.short_ending_stem || s.length > 1 || has(this.particles, s) ||
              has(this.shortStemEndings, s)) out.push(base);
        }
      }
      // The ㅂ of -ㅂ니다, the ㄴ of -ㄴ다 and the ㅁ of -ㅁ sit in the stem's last syllable.
      const n = form.length;
      for (const [tail, fin, only] of this.r.jamo_endings) {
        const at = n - tail.length - 1;
        if (at >= 0 && form.endsWith(tail) &&
            form.charAt(at) !== st.jamo_ending_not_after && isSyllable(form.charAt(at)) &&
            (!only || only.indexOf(form.charAt(at)) >= 0)) {
          const code = form.charCodeAt(at) - BASE;
          if (code % PER_MEDIAL === fin && n >= st.jamo_ending_min) {
            out.push(form.slice(0, at) + String.fromCharCode(BASE + code - fin));
          }
        }
      }
      // A merged -아/-어 form (세워서 → 세우, 버렸다 → 버리).
      for (const suffix of this.r.after_merged) this.restore(form, suffix, 0, out);
      for (const suffix of this.r.after_past) this.restore(form, suffix, this.r.ss_final, out);
      // A merged syllable undone bare (쓰러져 → 쓰러지).
      const last = form.charAt(n - 1);
      if (n > 1 && has(this.r.bare_merged, last)) out.push(form.slice(0, -1) + this.r.bare_merged[last]);
      return out;
    }
    /** @param {string} form @param {string} suffix @param {number} fin @param {string[]} out */
    restore(form, suffix, fin, out) {
      const n = form.length, k = suffix.length;
      if (n <= k || (k > 0 && form.slice(-k) !== suffix) || !isSyllable(form.charAt(n - k - 1))) return;
      const code = form.charCodeAt(n - k - 1) - BASE;
      const vowel = Math.floor((code % PER_INITIAL) / PER_MEDIAL);
      let to = has(this.r.contracted, String(vowel)) ? this.r.contracted[String(vowel)] : -1;
      // In the past, ㅏ ㅓ ㅐ ㅔ keep their vowel (만났다면 → 만나).
      if (to < 0 && fin === this.r.ss_final && this.r.past_same_vowel.indexOf(vowel) >= 0) to = vowel;
      if (code % PER_MEDIAL !== fin || to < 0) return;
      out.push(form.slice(0, n - k - 1) +
        String.fromCharCode(BASE + code - code % PER_INITIAL + to * PER_MEDIAL));
    }
    /** The word and the stems left after stripping particles and endings.
     * @param {string} word @returns {string[]} */
    variants(word) {
      if (!isHangul(word)) {
        if (isAscii(word)) return [isLatin(word) ? this.englishStem(word) : word];
        if (!this.otherWord.test(word)) return [word];  // bare jamo; a Han word (its grams)
        return unique(this.letterForms(word).map((f) => this.lightStem(this.englishStem(f))));
      }
      const found = [word];
      let frontier = [word];
      for (let pass = 0; pass < this.c.stems.passes; pass++) {
        /** @type {string[]} */
        const next = [];
        for (const form of frontier) {
          for (const base of this.stripped(form)) {
            if (found.indexOf(base) < 0) { found.push(base); next.push(base); }
          }
        }
        frontier = next;
      }
      return found;
    }
    /** The stems a verb or adjective form may have, for telling a real word from a typo
     * (analysis.verb_stems: 미쳤어 → 미치, 아파요 → 아프). @param {string} word @returns {string[]} */
    verbStems(word) {
      if (!isHangul(word) || word.length <= 1) return [];
      // Not a noun before its particle (춰가 → 춰 would be undone into 추, a verb's stem).
      const r = this.r, pool = this.variants(word).filter((f) => f === word ||
        !(word.slice(0, f.length) === f && has(this.particles, word.slice(f.length))));
      if (r.spoken_endings.indexOf(word.charAt(word.length - 1)) >= 0) {
        this.variants(word.slice(0, -1)).forEach(function (f) { if (pool.indexOf(f) < 0) pool.push(f); });
      }
      // The merged syllable before -서, -요, -었다 …, bare (아파서 → 아파).
      r.after_merged.concat(r.after_past).forEach((s) => {
        const base = word.slice(0, -s.length);
        if (word.length > s.length && word.slice(-s.length) === s && !has(this.particles, s) &&
            pool.indexOf(base) < 0) pool.push(base);
      });
      // -아도/-어도 (골라도, 써도): 도 is a noun's particle too, so only a syllable with no final.
      r.merged_before_particle.forEach((s) => {
        const base = word.slice(0, -s.length), merged = base.charAt(base.length - 1);
        if (word.length > s.length && word.slice(-s.length) === s && isSyllable(merged) &&
            !((merged.charCodeAt(0) - BASE) % PER_MEDIAL) && pool.indexOf(base) < 0) pool.push(base);
      });
      // -기 makes a noun of a verb (잡기, 줍기): the stem is before it.
      r.nominal_endings.forEach((s) => {
        const base = word.slice(0, -s.length);
        if (word.length > s.length && word.slice(-s.length) === s && pool.indexOf(base) < 0) pool.push(base);
      });
      this.nounFormStems(word).forEach(function (f) { if (pool.indexOf(f) < 0) pool.push(f); });
      // An adnominal form (깔아둔 → 깔아두), also before a clause ending (어려운데 → 어려우).
      const clause = r.after_adnominal_clause.indexOf(word.charAt(word.length - 1)) >= 0 &&
        word.length > this.c.stems.short_ending_stem ? this.adnominalStem(word.slice(0, -1)) : "";
      [this.adnominalStem(word), clause, this.droppedLStem(word)].forEach(function (f) {
        if (f && pool.indexOf(f) < 0) pool.push(f);
      });
      for (let i = 0; i < pool.length; i++) {  // grows while it is read
        /** @type {string[]} */
        const found = [];
        this.restore(pool[i], "", 0, found);
        this.restore(pool[i], "", r.ss_final, found);
        this.irregular(pool[i], found);
        this.mainVerb(pool[i], found);
        found.forEach(function (f) { if (pool.indexOf(f) < 0) pool.push(f); });
      }
      return pool.filter((f) => f !== word);
    }
    /** The main verb's form before an auxiliary verb (analysis._main_verb: 깔아두 → 깔, 나눠주 →
     * 나눠). @param {string} form @param {string[]} out */
    mainVerb(form, out) {
      const r = this.r;
      for (const auxiliary of r.auxiliaries) {
        if (form.length <= auxiliary.length || form.slice(-auxiliary.length) !== auxiliary) continue;
        const before = form.slice(0, -auxiliary.length);
        if (before.length > 1) {
          // 붙여 is 붙이 + 어 merged (undone by verbStems), or 붙 + 여 linked.
          if (r.auxiliary_links.indexOf(before.charAt(before.length - 1)) >= 0) out.push(before.slice(0, -1));
          out.push(before);
        } else if (!has(this.particles, auxiliary)) {
          // One merged syllable (써보 → 써 → 쓰), never before a particle (춰가 is 추가 misspelt).
          this.restore(before, "", 0, out);
          this.irregular(before, out);
        }
      }
    }
    /** The stem of the noun form -ㅁ/-음 (때림 → 때리, 붙음 → 붙), if `word` may be one
     * (analysis._noun_form_stems). @param {string} word @returns {string[]} */
    nounFormStems(word) {
      const r = this.r, head = word.slice(0, -1), last = word.charCodeAt(head.length) - BASE;
      if (last % PER_MEDIAL === r.m_final && word.charAt(head.length) !== r.noun_form) {
        return [head + String.fromCharCode(BASE + last - r.m_final)];
      }
      if (word.charAt(head.length) === r.noun_form &&
          (head.charCodeAt(head.length - 1) - BASE) % PER_MEDIAL) return [head];
      return [];
    }
    /** analysis.is_verb_form: a form of a listed verb's stem that is no listed word itself
     * (때림 of 때리-; not 파기). @param {string} word @param {Set<string>} everyday */
    isVerbForm(word, everyday) {
      if (!everyday.size || !isHangul(word) || this.variants(word).some((f) => everyday.has(f))) return false;
      const mark = this.r.stem_mark;
      return this.verbStems(word).some((f) => everyday.has(f + mark));
    }
    /** The regular stem behind `form`'s last syllable (ㅡ, ㅂ, 르 stems).
     * @param {string} form @param {string[]} out */
    irregular(form, out) {
      const r = this.r, last = form.charAt(form.length - 1);
      if (!isSyllable(last)) return;
      const code = last.charCodeAt(0) - BASE;
      const vowel = Math.floor((code % PER_INITIAL) / PER_MEDIAL), fin = code % PER_MEDIAL;
      if (r.eu_vowels.indexOf(vowel) >= 0 && (fin === 0 || fin === r.ss_final) &&
          Math.floor(code / PER_INITIAL) !== r.no_initial) {
        out.push(form.slice(0, -1) + String.fromCharCode(BASE + code - code % PER_INITIAL + r.eu * PER_MEDIAL));
      }
      const at = form.length - 1;  // the syllable before the last, at at - 1
      if (at >= 1 && isSyllable(form.charAt(at - 1))) {
        const before = form.charCodeAt(at - 1) - BASE, head = form.slice(0, at - 1);
        if (last === "우" && before % PER_MEDIAL === 0) {
          out.push(head + String.fromCharCode(BASE + before + r.b_final));
        }
        if (r.reu.indexOf(last) >= 0 && before % PER_MEDIAL === r.l_final) {
          out.push(head + String.fromCharCode(BASE + before - r.l_final) + "르");
        }
      }
    }
    /** analysis.listed: a word of `everyday`, without its particle or ending, or a form of
     * one of its verb stems (먹-: 먹었어요). @param {string} word @param {Set<string>} everyday */
    listed(word, everyday) {
      if (!everyday.size || !isHangul(word)) return false;
      const mark = this.r.stem_mark;
      return this.variants(word).some((f) => everyday.has(f)) ||
        this.verbStems(word).some((f) => everyday.has(f + mark));
    }
    /** This analysis with `variants` remembered per word, for deriving the body postings
     * from the corpus (whose words repeat): bounded by the corpus's vocabulary. */
    memoised() {
      const memo = new Map(), copy = Object.create(this);
      /** @param {string} w */
      copy.variants = (w) => {
        let found = memo.get(w);
        if (!found) { found = this.variants(w); memo.set(w, found); }
        return found;
      };
      return /** @type {Analysis} */ (copy);
    }
    /** @param {string} w */
    looseStems(w) {
      const cut = (this.byLast[w.charAt(w.length - 1)] || []).filter(function (s) {
        return w.length > s.length && w.slice(-s.length) === s;
      }).map(function (s) { return w.slice(0, -s.length); });
      // Or the noun form -ㅁ/-음 (때림 → 때리).
      if (w.length > 1 && isHangul(w)) {
        this.nounFormStems(w).forEach(function (f) { if (cut.indexOf(f) < 0) cut.push(f); });
      }
      return cut;
    }
    /** @param {string} w */
    stem(w) { return shortest(this.variants(w)); }
    /** @param {string} text */
    bigrams(text) {
      let s = "";
      for (const c of text) if (isSyllable(c)) s += c;
      const out = [];
      for (let i = 0; i + 1 < s.length; i++) out.push(s.charAt(i) + s.charAt(i + 1));
      return out;
    }
    /** @param {string} text */
    indexBigrams(text) { return this.bigramTokens(this.words(text)); }
    /** index_words from a text's `words`. @param {string[]} words */
    wordTokens(words) {
      /** @type {string[]} */
      const out = [];
      for (const w of words) {
        const grams = this.hanGrams(w);
        for (const form of grams.length ? grams : this.variants(w)) out.push(form);
      }
      return out;
    }
    /** index_bigrams from a text's `words`. @param {string[]} words */
    bigramTokens(words) {
      const hangul = words.filter(isHangul);
      const raw = this.bigrams(hangul.join(""));
      const seen = new Set(raw);
      const stems = this.bigrams(hangul.map((w) => this.stem(w)).join(""));
      return raw.concat(stems.filter(function (b) { return !seen.has(b); }));
    }
    /** @param {string} title */
    titleParts(title) {
      const text = this.normalize(title).replace(this.numbering, "").replace(this.appendix, "");
      let parts = [text, text.replace(this.aside, " ")];
      parts = parts.concat(parts[1].split(this.alternatives));
      const out = unique(parts.map((p) => (p.match(this.word) || []).join("")).filter(Boolean));
      // A title in another script answers to its plain spelling too.
      out.filter(function (k) { return !UNFOLDED.test(k); }).forEach((k) => {
        this.letterForms(k).forEach(function (f) { if (out.indexOf(f) < 0) out.push(f); });
      });
      return out;
    }
    /** @param {string} t */
    compactTitle(t) { return (this.compact(t).match(this.word) || []).join(""); }
    /** @param {string} text */
    aliasKey(text) {
      const t = this.normalize(text.replace(this.aliasSeparators, " "));
      return (t.match(this.aliasWord) || []).map((w) => this.englishStem(w)).join("");
    }
    /** @param {string} text */
    choseong(text) {
      return text.replace(/[\uAC00-\uD7A3]/g, (c) => {
        return this.r.choseong.charAt(Math.floor((c.charCodeAt(0) - BASE) / PER_INITIAL));
      });
    }
    /** The Hangul a run of Latin letters types on the 2-set keyboard (app/search/layout.py
     * from_qwerty), or null when it is no run of whole syllables. @param {string} word
     * @returns {string | null} */
    fromQwerty(word) {
      const L = this.c.layout, r = this.r;
      if (word.length < L.min_letters || !/^[A-Za-z]+$/.test(word)) return null;
      const keys = this.layoutKeys;
      const vowels = new Map(L.vowels), finals = new Map(L.finals);
      /** @type {Map<string, string[]>} */
      const split = new Map(L.finals.map(function (p) { return [p[1], p[0].split("")]; }));
      /** @type {string[]} */
      const out = [];
      let cho = "", jung = "", jong = "";
      function flush() {
        if (cho || jung) {
          if (!(cho && jung)) return false;
          out.push(String.fromCharCode(BASE + r.choseong.indexOf(cho) * PER_INITIAL +
            r.jungseong.indexOf(jung) * PER_MEDIAL + r.jongseong.indexOf(jong)));
        }
        cho = ""; jung = ""; jong = "";
        return true;
      }
      for (const letter of word) {
        const j = keys.get(letter) || keys.get(letter.toLowerCase()) || "";
        if (!j) return null;
        if (r.jungseong.indexOf(j) >= 0) {
          if (cho && !jung) jung = j;
          else if (jung && !jong && vowels.has(jung + j)) jung = /** @type {string} */ (vowels.get(jung + j));
          else if (jong) {
            const parts = split.get(jong) || ["", jong];
            jong = parts[0];
            if (!flush()) return null;
            cho = parts[1]; jung = j;
          } else return null;
        } else if (cho && jung && !jong && r.jongseong.indexOf(j) > 0) jong = j;
        else if (jong && finals.has(jong + j)) jong = /** @type {string} */ (finals.get(jong + j));
        else {
          if (!flush()) return null;
          cho = j;
        }
      }
      return flush() && out.length ? out.join("") : null;
    }
    /** What a word still being typed in the other layout may be becoming, for suggestions
     * (layout.py typing_forms): the whole word; a final as the next syllable's initial
     * (틈색, 틈새ㄱ); a vowel the next key may join (주사우, 주사위); a trailing consonant
     * no syllable takes (틈ㅅ). @param {string} word @returns {string[]} */
    typingForms(word) {
      const L = this.c.layout, r = this.r;
      const whole = this.fromQwerty(word);
      if (whole !== null) {
        const code = whole.charCodeAt(whole.length - 1) - BASE, head = whole.slice(0, -1);
        const final = r.jongseong[code % PER_MEDIAL];
        if (!final) {
          const vowel = r.jungseong[Math.floor((code % PER_INITIAL) / PER_MEDIAL)];
          return [whole].concat(L.vowels.filter((p) => p[0].charAt(0) === vowel).map((p) =>
            head + String.fromCharCode(BASE + code - code % PER_INITIAL + r.jungseong.indexOf(p[1]) * PER_MEDIAL)));
        }
        const pair = L.finals.find((p) => p[1] === final);
        const kept = pair ? pair[0].charAt(0) : "", moved = pair ? pair[0].charAt(1) : final;
        return [whole, head + String.fromCharCode(BASE + code - code % PER_MEDIAL + r.jongseong.indexOf(kept)) + moved];
      }
      const last = this.layoutKeys.get(word.slice(-1)) || this.layoutKeys.get(word.slice(-1).toLowerCase()) || "";
      const head = this.fromQwerty(word.slice(0, -1));
      return head !== null && r.choseong.indexOf(last) >= 0 ? [head + last] : [];
    }
    /** The keys that type `text` on the 2-set keyboard (layout.py to_qwerty). @param {string} text */
    toQwerty(text) {
      const L = this.c.layout, r = this.r;
      /** @type {Map<string, string>} */
      const byJamo = new Map();
      for (let i = L.keys.length - 1; i >= 0; i--) byJamo.set(L.keys[i][1], L.keys[i][0]);
      /** @type {Map<string, string>} */
      const parts = new Map();
      L.vowels.concat(L.finals).forEach(function (p) { parts.set(p[1], p[0]); });
      let out = "";
      for (const c of text) {
        let jamo = [c];
        if (isSyllable(c)) {
          const code = c.charCodeAt(0) - BASE;
          jamo = [r.choseong.charAt(Math.floor(code / PER_INITIAL)),
            r.jungseong.charAt(Math.floor((code % PER_INITIAL) / PER_MEDIAL)), r.jongseong[code % PER_MEDIAL]];
        }
        for (const part of jamo) {
          for (const j of (parts.get(part) || part).split("")) out += byJamo.get(j) || j;
        }
      }
      return out;
    }
    /** Whether `rest` begins as a form of the light verbs 하다 or 되다 does (할까, 돼요): joined
     * to the word before it, the two are one verb (analysis.makes_a_verb).
     * @param {string} rest */
    makesAVerb(rest) {
      if (!rest || !isSyllable(rest.charAt(0))) return false;
      const code = rest.charCodeAt(0) - BASE;
      return this.r.light_verb_syllables.indexOf(String.fromCharCode(BASE + code - code % PER_MEDIAL)) >= 0;
    }
    /** The stem of a ㄹ verb whose ㄹ an ending dropped (까는 → 깔, 드나요 → 들), or ""
     * (analysis.dropped_l_stem). @param {string} word */
    droppedLStem(word) {
      for (const ending of this.r.l_dropping) {
        const cut = word.length - ending.length, before = word.charAt(cut - 1);
        if (cut >= 1 && word.slice(cut) === ending && isSyllable(before)) {
          // 하다 and 되다 have no ㄹ to lose (하나요, 되나요).
          if ((before.charCodeAt(0) - BASE) % PER_MEDIAL || this.r.light_verb_syllables.indexOf(before) >= 0) return "";
          return word.slice(0, cut - 1) + String.fromCharCode(before.charCodeAt(0) + this.r.l_final);
        }
      }
      return "";
    }
    /** The verb stem of an adnominal form (빠져나간 → 빠져나가), or "" (analysis.adnominal_stem).
     * @param {string} word */
    adnominalStem(word) {
      if (word.length < this.c.stems.short_ending_stem || !isHangul(word)) return "";
      if (this.r.adnominal_syllables.indexOf(word.charAt(word.length - 1)) >= 0) return word.slice(0, -1);
      const code = word.charCodeAt(word.length - 1) - BASE;
      if (this.r.adnominal_finals.indexOf(code % PER_MEDIAL) < 0) return "";
      return word.slice(0, -1) + String.fromCharCode(BASE + code - code % PER_MEDIAL);
    }
    /** @param {string} text */
    decompose(text) {
      const r = this.r;
      let out = "";
      for (const c of text) {
        if (!isSyllable(c)) { out += c; continue; }
        const code = c.charCodeAt(0) - BASE;
        out += r.choseong.charAt(Math.floor(code / PER_INITIAL)) +
          r.jungseong.charAt(Math.floor((code % PER_INITIAL) / PER_MEDIAL)) +
          r.jongseong[code % PER_MEDIAL];
      }
      return out;
    }
    /** @param {string} text */
    isInitials(text) {
      const chars = text.replace(/\s/g, "").split("");
      return chars.length > 0 && chars.every((c) => has(this.initials, c));
    }
    /** Jamo (or letter) edits a typo in `word` may carry. @param {string} word */
    maxDistance(word) {
      let syllables = 0, letters = 0;
      for (const c of word) {
        if (isSyllable(c)) syllables++;
        else if (LETTER.test(c)) letters++;
      }
      const t = this.c.typos;
      if (syllables) return editsFor(syllables, t.hangul_edits);
      if (this.isHan(word)) return editsFor(Array.from(word).length, t.han_edits);
      return editsFor(letters, t.letter_edits);
    }
    /** The source of a regex over compact titles that `text` starts, or null.
     * @param {string} text @returns {string | null} */
    prefixPattern(text) {
      const chars = Array.from(text.replace(/\s/g, ""));
      if (!chars.length || !chars.every((c) => isSyllable(c) || has(this.initials, c) ||
          LETTER.test(c))) return null;
      return chars.map((c, i) => {
        if (has(this.initials, c)) {
          const first = BASE + this.r.choseong.indexOf(c) * PER_INITIAL;
          return "[" + String.fromCharCode(first) + "-" +
            String.fromCharCode(first + PER_INITIAL - 1) + "]";
        }
        const code = c.charCodeAt(0);
        if (i === chars.length - 1 && isSyllable(c) && (code - BASE) % PER_MEDIAL === 0) {
          return "[" + c + "-" + String.fromCharCode(code + PER_MEDIAL - 1) + "]";
        }
        return c.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
      }).join("");
    }
    /** True for a code point of the contract's blank categories. @param {number} code */
    isBlank(code) {
      let lo = 0, hi = this.blankFirst.length;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if (this.blankFirst[mid] <= code) lo = mid + 1; else hi = mid;
      }
      return lo > 0 && code <= this.blankLast[lo - 1];
    }
    /** The query as a safe string: its first `read` code points, NFC, blank categories as
     * spaces, at most `max_query` code points. @param {unknown} text */
    clean(text) {
      const c = this.c.clean, read = [];
      for (const ch of String(text)) {
        if (read.length >= c.read) break;
        read.push(ch);
      }
      const out = [];
      for (const ch of read.join("").normalize("NFC")) {
        if (out.length >= c.max_query) break;
        out.push(this.isBlank(/** @type {number} */ (ch.codePointAt(0))) ? " " : ch);
      }
      return out.join("");
    }
  }

  /** The script a correction must share with its word (fuzzy.script_of).
   * @param {string} w */
  function scriptOf(w) { return HANGUL.test(w) ? "hangul" : isAscii(w) ? "ascii" : "other"; }

  /** Jamo Levenshtein with a cutoff (rapidfuzz's Levenshtein.distance, score_cutoff): the
   * distance, or cutoff + 1 when it is larger.
   * @param {string} a @param {string} b @param {number} cutoff */
  function levenshtein(a, b, cutoff) {
    if (Math.abs(a.length - b.length) > cutoff) return cutoff + 1;
    /** @type {number[]} */
    let prev = [];
    for (let j = 0; j <= b.length; j++) prev.push(j);
    for (let i = 1; i <= a.length; i++) {
      const cur = [i];
      let best = i;
      for (let j = 1; j <= b.length; j++) {
        const v = Math.min(prev[j] + 1, cur[j - 1] + 1,
          prev[j - 1] + (a.charCodeAt(i - 1) === b.charCodeAt(j - 1) ? 0 : 1));
        cur.push(v);
        if (v < best) best = v;
      }
      if (best > cutoff) return cutoff + 1;
      prev = cur;
    }
    return prev[b.length];
  }
  /** Items of `jamo` within `cutoff` of `query`: [distance, index], closest first.
   * @param {string} query @param {string[]} jamo @param {number} cutoff @param {number} limit
   * @returns {[number, number][]} */
  function closest(query, jamo, cutoff, limit) {
    /** @type {[number, number][]} */
    const found = [];
    jamo.forEach(function (item, i) {
      const d = levenshtein(query, item, cutoff);
      if (d <= cutoff) found.push([d, i]);
    });
    found.sort(function (x, y) { return x[0] - y[0] || x[1] - y[1]; });
    return found.slice(0, limit);
  }

  /** Known terms (with frequencies) and corrections towards `targets`: the terms in
   * `freq`'s order, which breaks ties among the closest as the server does. */
  class Vocabulary {
    /** @param {Analysis} an @param {Record<string, number>} freq
     * @param {Record<string, number> | null} targets */
    constructor(an, freq, targets) {
      this.an = an;
      this.freq = freq;
      this.terms = Object.keys(freq).filter(function (t) { return !targets || has(targets, t); });
      this.jamo = this.terms.map(function (t) { return an.decompose(t); });
      this.longest = this.terms.reduce(function (m, t) { return Math.max(m, t.length); }, 0);
      /** @type {Record<string, Correction[]>} */
      this.memo = dict();
    }
    /** @param {string} t */
    knows(t) { return has(this.freq, t); }
    /** The closest known terms to `word`, best first. @param {string} word
     * @param {number} [limit] @returns {Correction[]} */
    corrections(word, limit) {
      const t = this.an.c.typos;
      if (word.length > this.longest + t.length_slack) return [];
      if (!has(this.memo, word)) this.memo[word] = this.closest(word);
      return this.memo[word].slice(0, limit === undefined ? t.kept : limit);
    }
    /** @param {string} word @returns {Correction[]} */
    closest(word) {
      const allowed = this.an.maxDistance(word), t = this.an.c.typos;
      if (!allowed || !this.terms.length) return [];
      const script = scriptOf(word);
      const best = closest(this.an.decompose(word), this.jamo, allowed, t.candidates)
        .map((f) => ({ term: this.terms[f[1]], distance: f[0] }))
        .filter(function (c) {
          return script === scriptOf(c.term) &&
            Math.abs(c.term.length - word.length) <= t.length_slack;
        });
      if (!best.length) return [];
      const least = Math.min.apply(null, best.map(function (c) { return c.distance; }));
      return best.filter(function (c) { return c.distance === least; }).sort((a, b) => {
        return ((this.freq[b.term] || 0) - (this.freq[a.term] || 0)) || compare(a.term, b.term);
      });
    }
  }

  /** Postings as the client index writes them: [docnums, term frequencies].
   * @param {string} encoded @param {number} radix @returns {[number[], number[]]} */
  function decodePostings(encoded, radix) {
    /** @type {number[]} */
    const docs = [];
    /** @type {number[]} */
    const tfs = [];
    let doc = -1;
    for (const item of encoded.split(",")) {
      if (!item) continue;
      const dot = item.indexOf(".");
      doc += parseInt(dot < 0 ? item : item.slice(0, dot), radix);
      docs.push(doc);
      tfs.push(dot < 0 ? 1 : parseInt(item.slice(dot + 1), radix));
    }
    return [docs, tfs];
  }

  return {
    Analysis: Analysis, Vocabulary: Vocabulary, levenshtein: levenshtein, closest: closest,
    decodePostings: decodePostings,
    helpers: { has: has, isHangul: isHangul, isLatin: isLatin, isAscii: isAscii,
      isSyllable: isSyllable, unique: unique, set: set, dict: dict, shortest: shortest,
      compare: compare }
  };
})();

