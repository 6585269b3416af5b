// @ts-check
/* 룰사전 browser engine, matching half: synonyms (stage 2 of docs/search.md), title matching
 * (stage 5), the re-rank features (stage 6) and snippets (stage 8), each a class or function
 * named after the Python one it mirrors (the table in docs/search.md). Numbers and lists come
 * from the client index's `contract`. A plain script, loaded after analysis.js and before
 * engine.js: it defines the global `RulesMatching`.
 */
"use strict";
/* exported RulesMatching */

var RulesMatching = (function (R) {
  "use strict";

  const H = R.helpers, has = H.has, isHangul = H.isHangul, isLatin = H.isLatin;
  /** Where each of `lines` starts once they are joined by line breaks.
   * @param {string[]} lines @returns {number[]} */
  function lineStarts(lines) {
    /** @type {number[]} */
    const starts = [];
    let at = 0;
    lines.forEach(function (line) { starts.push(at); at += line.length + 1; });
    return starts;
  }
  const unique = H.unique, shortest = H.shortest, dict = H.dict;


  /** Runs of one letter as one (loanwords._collapse). @param {string} text */
  function collapse(text) { return text.replace(/(.)\1+/g, "$1"); }

  /** rapidfuzz's `fuzz.ratio`, a percentage (`scale`): 1 − the Indel distance (the letters
   * of either string outside their longest common subsequence) / the lengths' sum.
   * @param {string} a @param {string} b @param {number} scale */
  function ratio(a, b, scale) {
    const total = a.length + b.length;
    if (!total) return scale;
    /** @type {number[]} */
    let previous = new Array(b.length + 1).fill(0);
    for (let i = 1; i <= a.length; i++) {
      const row = [0];
      for (let j = 1; j <= b.length; j++) {
        row.push(a.charAt(i - 1) === b.charAt(j - 1) ? previous[j - 1] + 1 : Math.max(previous[j], row[j - 1]));
      }
      previous = row;
    }
    const common = previous[b.length];
    return (1 - ((a.length - common) + (b.length - common)) / total) * scale;
  }

  /** Hangul loanwords heard by sound (loanwords.LoanwordTable and LoanwordVocabulary: 클루 →
   * clue, 디바우어 → devour → 집어삼켜짐). The English side is the shipped table; the Hangul
   * side is reduced here with the contract's tables, and candidates are chosen by the same
   * rule. */
  class Loanwords {
    /** @param {ClientLoanwords} shipped @param {ContractLoanwords} rules */
    constructor(shipped, rules) {
      this.skeletons = shipped.skeletons;
      this.listed = shipped.listed;
      this.officials = shipped.officials;
      this.r = rules;
      this.finals = new Set(rules.finals);
    }
    /** loanwords.hangul_skeleton: 클루 → kl ("" when a character is not a syllable).
     * @param {string} word */
    skeleton(word) {
      let out = "";
      for (const c of word) {
        if (!H.isSyllable(c)) return "";
        const code = c.charCodeAt(0) - 0xAC00;
        out += this.r.initial_sounds[Math.floor(code / 588)] + this.r.final_sounds[code % 28];
      }
      return collapse(out);
    }
    /** loanwords.romanise. @param {string} word */
    romanise(word) {
      let out = "";
      for (const c of word) {
        if (!H.isSyllable(c)) continue;
        const code = c.charCodeAt(0) - 0xAC00;
        out += this.r.roman_initial[Math.floor(code / 588)] +
          this.r.roman_medial[Math.floor((code % 588) / 28)] + this.r.roman_final[code % 28];
      }
      return out;
    }
    /** loanwords._as_korean_letters. @param {string} phrase */
    asKoreanLetters(phrase) {
      let text = phrase.split(" ").join("");
      this.r.korean_letters.forEach(function (pair) { text = text.split(pair[0]).join(pair[1]); });
      return text;
    }
    /** LoanwordTable.english: the English word or name the Hangul word sounds like, or null.
     * @param {string} hangul */
    english(hangul) {
      for (const c of hangul) {
        if (H.isSyllable(c) && !this.finals.has((c.charCodeAt(0) - 0xAC00) % 28)) return null;
      }
      const skeleton = this.skeleton(hangul);
      const candidates = skeleton.length >= this.r.least_skeleton && has(this.skeletons, skeleton) ? this.skeletons[skeleton] : null;
      if (!candidates || !candidates.length) return null;
      const spelled = this.romanise(hangul), bonus = this.r.name_bonus;
      /** @param {[number, string]} c */
      const likeness = (c) => ratio(spelled, this.asKoreanLetters(c[1]), this.r.ratio_scale);
      // The first of the most alike, a whole name a little before a word inside one, then
      // the shorter (Python's max over the same key).
      let best = candidates[0], bestLike = likeness(best) - bonus * (best[0] > 0 ? 1 : 0);
      for (let i = 1; i < candidates.length; i++) {
        const c = candidates[i], like = likeness(c) - bonus * (c[0] > 0 ? 1 : 0);
        if (like > bestLike || (like === bestLike && c[1].length < best[1].length)) {
          best = c;
          bestLike = like;
        }
      }
      return likeness(best) >= this.r.min_likeness ? best[1] : null;
    }
    /** LoanwordVocabulary.sounds_like: the English name, or the official term of a synonyms
     * file's English word. @param {string} hangul */
    soundsLike(hangul) {
      const found = this.english(hangul);
      return found ? (has(this.listed, found) ? this.listed[found] : found) : null;
    }
  }

  /** The tables per game, and under "" all of them merged, first game first.
   * @param {Tables} tables @returns {Tables} */
  function withMerged(tables) {
    /** @type {Tables} */
    const out = dict();
    /** @type {Record<string, string[]>} */
    const merged = dict();
    Object.keys(tables).forEach(function (game) {
      out[game] = tables[game];
      Object.keys(tables[game]).forEach(function (k) { if (!has(merged, k)) merged[k] = tables[game][k]; });
    });
    out[""] = merged;
    return out;
  }

  /** Players' words → the official terms, related words, game names. */
  class Rewriter {
    /** @param {Analysis} an @param {Tables} synonyms @param {Tables} related
     * @param {Record<string, string[]>} names @param {Record<string, string[]>} guards
     * @param {(word: string) => boolean} knows @param {Set<string>} everyday */
    constructor(an, synonyms, related, names, guards, knows, everyday) {
      this.an = an;
      this.c = an.c;
      this.names = names;
      /** A game name that is a title's word too → the words following it in titles
       * (rewrite.GameNames.guards). */
      this.guards = guards;
      this.knows = knows;
      /** Everyday words: never a near miss of a players' word (rewrite.Rewriter.rewrite). */
      this.everyday = everyday;
      this.related = withMerged(related);
      this.tables = withMerged(synonyms);
      /** @type {Record<string, Vocabulary>} */
      this.near = dict();
      Object.keys(this.tables).forEach((game) => {
        /** @type {Record<string, number>} */
        const freq = dict();
        Object.keys(this.tables[game]).forEach((k) => {
          if (k.length >= this.c.rewrite.spelling_min_length && isHangul(k)) freq[k] = 1;
        });
        this.near[game] = new R.Vocabulary(an, freq, null);
      });
    }
    /** Whether a synonyms or related-words line, or a game's name, lists `word` (any form).
     * @param {string} word */
    lists(word) {
      const forms = [word].concat(this.an.variants(word), this.an.looseStems(word));
      return forms.some((f) => has(this.tables[""], f) || has(this.related[""], f) || has(this.names, f));
    }
    /** Whether one of `tables` has `word` in one of its forms (rewrite.Rewriter._lists_in).
     * @param {string} word @param {Record<string, string[]>[]} tables */
    listsIn(word, tables) {
      const forms = [word].concat(this.an.variants(word));
      return forms.some((f) => tables.some((t) => has(t, f)));
    }
    /** The longest entry of `table` starting at `words[start]`, of several words when that
     * word is `light` (a function word: alone it is nobody's term): [words used, terms, the
     * words as they matched], or null. @param {string[]} words @param {number} start
     * @param {Record<string, string[]>} table @param {boolean} [light]
     * @returns {[number, string[], string] | null} */
    synonymAt(words, start, table, light = false) {
      for (let length = Math.min(this.c.rewrite.longest_run, words.length - start); length > (light ? 1 : 0); length--) {
        const run = words.slice(start, start + length), last = run[run.length - 1];
        const lasts = unique([last].concat(this.an.variants(last), this.an.looseStems(last),
          [this.an.adnominalStem(last), this.an.droppedLStem(last)]).filter(Boolean));
        for (const form of lasts) {
          const key = run.slice(0, -1).join("") + form;
          // A one-syllable term with an ending is a verb of its own when the index knows a
          // longer stem of the word (피하면: 피하; 탭된 is 탭).
          if (key.length === 1 && form !== last && this.an.r.particles.indexOf(last.slice(form.length)) < 0 &&
              lasts.some((f) => f.length > 1 && this.knows(f))) continue;
          if (has(table, key)) return [length, table[key], run.slice(0, -1).concat([form]).join(" ")];
        }
      }
      return null;
    }
    /** `word` as a players' word of `table` and the word typed after it without a space
     * (템사기 → 템, 사기; 몹잡기 → 몹, 잡기), or null (rewrite._glued): only a Hangul word the
     * search does not know in any form and no everyday word, at the longest listed start
     * whose rest is a word the search knows or an everyday word, never before a form of 하다
     * or 되다 (피할까 is the verb 피하다).
     * @param {string} word @param {Record<string, string[]>} table
     * @returns {[string, string] | null} */
    glued(word, table) {
      const an = this.an, known = this.knows;
      if (!isHangul(word) || an.listed(word, this.everyday) || an.variants(word).some(known)) return null;
      for (let cut = word.length - this.c.rewrite.glued_min_rest; cut > 0; cut--) {
        const head = word.slice(0, cut), rest = word.slice(cut);
        if (has(table, head) && !an.makesAVerb(rest) &&
            (an.listed(rest, this.everyday) || an.variants(rest).some(known))) {
          return [head, rest];
        }
      }
      return null;
    }
    /** Whether the game name `name` found at `words[start]` is a title's word that the next
     * word continues as the title does (엘드리치 토큰: rewrite.Rewriter._title_goes_on).
     * @param {[number, string[], string]} name @param {string[]} words @param {number} start */
    titleGoesOn(name, words, start) {
      const [length, , said] = name;
      const key = said.split(" ").join(""), after = start + length;
      if (!has(this.guards, key) || after >= words.length) return false;
      const guards = this.guards[key];
      return [words[after]].concat(this.an.variants(words[after])).some((f) => guards.indexOf(f) >= 0);
    }
    /** `text` with the synonyms of `game` ("" for every game) replaced by their terms.
     * @param {string} text @param {string} game @param {Contract["budget"]} budget
     * @returns {Rewrite} */
    rewrite(text, game, budget) {
      const an = this.an, known = this.knows;
      const table = this.tables[game] || this.tables[""], near = this.near[game] || this.near[""];
      const related = this.related[game] || this.related[""];
      const words = an.words(text);
      let asks = budget.corrections, i = 0;
      /** @type {string[]} */
      let out = [];
      /** @type {[string, string][]} */
      const synonyms = [];
      /** @type {[string, string][]} */
      const joined = [];
      /** @type {[string, string] | null} */
      let named = null;
      while (i < words.length) {
        if (i >= budget.words) { out = out.concat(words.slice(i)); break; }
        // A game's name in a longer query is taken out and reported.
        const name = Object.keys(this.names).length ? this.synonymAt(words, i, this.names) : null;
        if (name && name[0] < words.length && !named && !this.titleGoesOn(name, words, i)) {
          const [, games, said] = name;
          named = [said, games[0]];
          i += name[0];
          continue;
        }
        const word = words[i];
        // A light word alone is never a players' word for a term (말고 is not 말); it may
        // open one of several words (한 턴, 내 덱). A word light only by its stem and ending
        // that a line lists (막을: 막다; 게인) is that line's (rewrite.Rewriter.rewrite).
        const fn = an.isFunctionWord(word);
        const light = fn && (an.isLightAsTyped(word) || !this.listsIn(word, [table, related]));
        let found = this.synonymAt(words, i, table, light);
        const glued = found || fn ? null : this.glued(word, table);
        if (glued) {
          // 템사기 is 템 사기: the players' word is looked up again on its own.
          words.splice(i, 1, glued[0], glued[1]);
          continue;
        }
        if (!found && asks > 0 && isHangul(word) && !fn &&
            !an.variants(word).some((v) => known(v)) && !an.listed(word, this.everyday)) {
          asks -= 1;
          const close = near.corrections(an.stem(word), 1);
          if (close.length && close[0].distance <= this.c.rewrite.spelling_distance) {
            found = [1, table[close[0].term], an.stem(word)];
          }
        }
        // An English (or other non-Hangul) variant counts only when the index does not know
        // its words (an abbreviation: AoO, XP), in an English sentence too.
        if (found && !isHangul(word)) {
          const length = found[0];
          if (words.slice(i, i + length).every(function (w) {
            return an.variants(w).some(known);
          })) found = null;
        }
        if (found) {
          const [length, officials, said] = found;
          const typed = words.slice(i, i + length).join(" ");
          out = out.concat(officials);
          if (!words.slice(i, i + length).some(isHangul)) out.push(typed);
          officials.forEach(function (o) { synonyms.push([said, o]); });
          i += length;
          continue;
        }
        // A related word stays, and the rules' word joins it, unannounced.
        // A light word is never a related word's, nor opens one (맞아요? asks "is it right";
        // 다 떨어지다 is 다떨어지다 typed as one word).
        const also = Object.keys(related).length && !light ? this.synonymAt(words, i, related) : null;
        if (also) {
          out = out.concat(words.slice(i, i + also[0]));
          const typedLast = words[i + also[0] - 1];
          also[1].forEach(function (o) {
            if (out.indexOf(o) < 0) { out.push(o); joined.push([o, typedLast]); }
          });
          i += also[0];
          continue;
        }
        out.push(words[i]);
        i += 1;
      }
      if (!synonyms.length && !joined.length && !named) return { text: text, synonyms: [], game: null, related: [] };
      return { text: out.join(" "), synonyms: synonyms, game: named, related: joined };
    }
  }

  /** Every document's title forms, scanned per query. */
  class TitleTable {
    /** @param {Analysis} an @param {ClientTitles} titles
     * @param {Record<string, string[]>[]} [translated] per loaded language, docnum → the
     * title parts of the entry's translation in it (the titles it also answers to). */
    constructor(an, titles, translated) {
      this.an = an;
      this.c = an.c;
      this.t = titles;
      /** Each document's title parts, its translations' after its own (titles._Row.titles).
       * @type {string[][]} */
      this.parts = titles.parts.map(function (ps, d) {
        const out = ps.slice();
        (translated || []).forEach(function (language) {
          (language[String(d)] || []).forEach(function (p) { if (out.indexOf(p) < 0) out.push(p); });
        });
        return out;
      });
      /** @type {Record<string, number[]>} */
      this.exact = dict();
      /** @type {Record<string, number[]>} */
      this.full = dict();
      /** @type {number[]} */
      this.partRows = [];
      /** @type {string[]} */
      this.partsJamo = [];
      this.longest = 0;
      /** @param {Record<string, number[]>} map @param {string} key @param {number} d */
      function push(map, key, d) { (has(map, key) ? map[key] : (map[key] = [])).push(d); }
      this.parts.forEach((ps, d) => {
        // A step has no title of its own to match (documents.steps): no parts, no full title.
        if (titles.full[d] === "") return;
        push(this.full, titles.full[d], d);
        ps.concat(titles.alias[d] ? [titles.alias[d]] : []).forEach((p) => {
          push(this.exact, p, d);
          this.partRows.push(d);
          this.partsJamo.push(an.decompose(p));
        });
        ps.forEach((p) => { this.longest = Math.max(this.longest, Array.from(p).length); });
      });
    }
    /** Documents with a title part or English name equal to one of `keys`.
     * @param {string[]} keys @returns {number[]} */
    exactIds(keys) {
      /** @type {number[]} */
      const found = [];
      unique(keys).forEach((k) => { (this.exact[k] || []).forEach(function (d) { found.push(d); }); });
      return found;
    }
    /** Titles that `typed` (syllables and initial consonants) starts.
     * @param {string} typed @returns {TitleHit[]} */
    prefixMatches(typed) {
      const size = Array.from(typed.replace(/\s/g, "")).length, rank = this.c.title_rank;
      if (size > this.longest) return [];
      const source = this.an.prefixPattern(typed);
      if (source === null) return [];
      const anchored = new RegExp("^" + source, "u"), anywhere = new RegExp(source, "u");
      const initialsOnly = this.an.isInitials(typed);
      const inside = typed.length >= this.c.titles.inside_min_typed;
      /** @type {TitleHit[]} */
      const out = [];
      this.parts.forEach(function (ps, d) {
        let best = -1;
        ps.forEach(function (part, i) {
          let r;
          const m = anchored.exec(part);
          if (m) {
            r = m[0].length === part.length ? (initialsOnly ? rank.INITIALS_EXACT : rank.EXACT) :
              (i === 0 ? rank.START : rank.PART_START);
          } else if (inside && anywhere.test(part)) r = rank.INSIDE;
          else return;
          best = best < 0 ? r : Math.min(best, r);
        });
        if (best >= 0) out.push([d, best]);
      });
      return out;
    }
    /** Documents whose English name starts with `typed` (an alias key).
     * @param {string} typed @returns {TitleHit[]} */
    aliasPrefixMatches(typed) {
      const t = this.t, rank = this.c.title_rank;
      /** @type {TitleHit[]} */
      const out = [];
      if (typed.length < this.c.titles.alias_prefix_min) return out;
      t.alias.forEach(function (alias, d) {
        if (!alias) return;
        if (alias === typed) out.push([d, rank.EXACT]);
        else if (alias.indexOf(typed) === 0) out.push([d, rank.START]);
        else if (t.alias_words[d].some(function (x) { return x.indexOf(typed) === 0; })) out.push([d, rank.PART_START]);
      });
      return out;
    }
    /** Titles within the typo allowance of `text` (+ `extra`), closest first.
     * @param {string} text @param {number} [extra] @returns {TitleHit[]} */
    fuzzyMatches(text, extra) {
      const typos = this.c.typos, allowed = this.an.maxDistance(text) + (extra || 0);
      if (allowed <= 0 || text.length < typos.title_min_length) return [];
      /** @type {Map<number, number>} */
      const best = new Map();
      R.closest(this.an.decompose(text), this.partsJamo, allowed, typos.title_candidates).forEach((f) => {
        const d = this.partRows[f[1]], known = best.get(d);
        if (known === undefined || f[0] < known) best.set(d, f[0]);
      });
      const order = Array.from(best.keys());
      order.sort(function (a, b) { return /** @type {number} */ (best.get(a)) - /** @type {number} */ (best.get(b)); });
      return order.map((d) => /** @type {TitleHit} */ ([d, this.c.title_rank.FUZZY + /** @type {number} */ (best.get(d))]));
    }
    /** Best match per document, by rank, then by the document's place (`titles.position`
     * in the index).
     * @param {TitleHit[]} matches @returns {number[]} */
    ranked(matches) {
      /** @type {Map<number, number>} */
      const best = new Map();
      matches.forEach(function (m) {
        const known = best.get(m[0]);
        if (known === undefined || m[1] < known) best.set(m[0], m[1]);
      });
      const position = this.t.position;
      return Array.from(best.keys()).sort(function (a, b) {
        return /** @type {number} */ (best.get(a)) - /** @type {number} */ (best.get(b)) ||
          position[a] - position[b];
      });
    }
  }


  /** Per-document data for the features BM25 does not see. */
  class Reranker {
    /** @param {Analysis} an @param {ClientIndex} index */
    constructor(an, index) {
      this.an = an;
      this.r = an.c.rerank;
      const docs = index.docs, t = index.titles;
      // Accents folded on both sides (rank._prepare): `fatalite` is in a text saying fatalité.
      // The title searched where it is not the entry's (a step's heading, a repeated
      // passage title after its section's: documents.Document.title).
      this.titleText = t.full.map((x, d) => an.foldText(has(t.searched, String(d)) ? t.searched[String(d)] : x));
      this.titleWords = t.words.map((ws) => ws.map((forms) => forms.map((f) => an.foldText(f))));
      this.titleForms = this.titleWords.map(function (ws) { return H.set(ws.flat()); });
      this.authority = docs.backlinks.map((b, d) => (1 + this.r.authority * Math.log1p(b)) * docs.weight[d]);
      this.sentenceEnd = new RegExp(index.rules.sentence_end);
      // A worked example's paragraph start, and the names it quotes (rank._sentences).
      this.example = index.rules.example ? new RegExp(index.rules.example) : null;
      this.exampleName = new RegExp(index.rules.example_name, "g");
      /** @type {string[]} */
      this.text = [];
      /** @type {string[]} */
      this.latin = [];
      /** @type {number[][]} */
      this.starts = [];
      /** @type {number[][]} */
      this.latinStarts = [];
      /** The texts without the names worked examples quote (the same when there are none).
       * @type {string[]} */
      this.main = [];
      /** @type {string[]} */
      this.mainLatin = [];
    }
    /** Document `d`'s text for the features: one line per sentence (proximity stops at a line
     * break; passage counts per line), Hangul and Latin apart, and where each line starts.
     * @param {Analysis} an @param {number} d @param {string} text
     * @param {string[]} [translations] each added translation's title and text */
    addText(an, d, text, translations) {
      const folded = an.foldText(text);
      const sentences = folded.split(this.sentenceEnd).map(function (s) { return an.words(s); });
      // The same with the names worked examples quote taken out, if there are any.
      /** @type {string[][] | null} */
      let unnamed = null;
      if (this.example) {
        let named = false;
        const kept = folded.split("\n").map((p) => {
          if (!this.example || !this.example.test(p)) return p;
          const out = p.replace(this.exampleName, "");
          named = named || out !== p;
          return out;
        });
        if (named) unnamed = kept.join("\n").split(this.sentenceEnd).map(function (s) { return an.words(s); });
      }
      // The translations' sentences after the entry's own, without their numbers (numbers
      // are in every language, and a Korean query's only words that are not Hangul).
      /** @type {string[][]} */
      const translated = [];
      (translations || []).forEach((t) => {
        an.foldText(t).split(this.sentenceEnd).forEach(function (s) {
          translated.push(an.words(s).filter(function (w) { return !/^[0-9]+$/.test(w); }));
        });
      });
      const title = this.titleText[d];
      /** @param {string[][]} all */
      const hangul = function (all) {
        return [title].concat(all.map(function (ws) {
          return ws.filter(function (w) { return !isLatin(w); }).join("");
        })).filter(Boolean);
      };
      /** @param {string[][]} all */
      const latin = function (all) {
        // Each word by its stem: the query's forms are stems, and a stem is not always the
        // start of its word (`copies` → copy).
        return [title].concat(all.map(function (ws) {
          return ws.filter(isLatin).map(function (w) { return an.englishStem(w); }).join("");
        }));
      };
      const all = sentences.concat(translated);
      const lines = hangul(all);
      const latinLines = latin(all);
      this.text[d] = lines.join("\n");
      this.starts[d] = lineStarts(lines);
      this.latin[d] = latinLines.join("\n");
      this.latinStarts[d] = lineStarts(latinLines);
      this.main[d] = unnamed ? hangul(unnamed.concat(translated)).join("\n") : this.text[d];
      this.mainLatin[d] = unnamed ? latin(unnamed.concat(translated)).join("\n") : this.latin[d];
    }
    /** The query's side of the features. @param {Plan} plan @returns {Prepared} */
    prepare(plan) {
      const an = this.an;
      /** @type {[string[], number][]} */
      const groups = [];
      /** @type {Record<string, string>} */
      const joins = dict();
      /** @type {Record<string, number>} */
      const at = dict();
      plan.related.forEach(function (p) { joins[p[0]] = p[1]; });
      /** @type {number[]} the query word each group comes from */
      const from = [];
      plan.words.forEach((word, number) => {
        if (an.isFunctionWord(word.text)) return;
        if (word.grams.length) {
          // A Han word counts as much as another word, shared among its grams.
          word.grams.forEach(function (g) { groups.push([[g], 1 / word.grams.length]); from.push(number); });
          return;
        }
        // Folded, and a Latin form by its stem, as the text's Latin words are (`addText`).
        const forms = [word.stem].concat(word.corrections, an.englishWords(word.english))
          .filter(Boolean).map(function (f) {
            const folded = an.foldText(f);
            return isLatin(folded) ? an.englishStem(folded) : folded;
          });
        if (!forms.length) return;
        const weight = word.stem.length === 1 && word.hangul ? this.r.short_word : 1;
        // A related word the rewrite added is a form of the typed word's group.
        if (has(joins, word.text) && has(at, joins[word.text])) {
          const g = groups[at[joins[word.text]]];
          g[0] = unique(g[0].concat(forms));
          g[1] = Math.max(g[1], weight);
          return;
        }
        at[word.text] = groups.length;
        groups.push([forms, weight]);
        from.push(number);
      });
      /** @type {Record<string, number>} */
      const forms = dict();
      plan.words.forEach(function (x) { x.variants.concat(x.corrections).forEach(function (f) { forms[an.foldText(f)] = 1; }); });
      /** @type {[string[], string[]][]} */
      const pairs = [];
      /** @type {number[]} */
      const pairAt = [];
      // A Han word's grams overlap: they are never a pair.
      for (let i = 0; i + 1 < groups.length; i++) {
        if (from[i] !== from[i + 1]) { pairs.push([groups[i][0], groups[i + 1][0]]); pairAt.push(i); }
      }
      const total = groups.reduce(function (sum, g) { return sum + g[1]; }, 0);
      return { groups: groups, pairs: pairs, pairAt: pairAt, forms: forms,
        joined: an.foldText(plan.stemCompact + plan.compact), total: total };
    }
    /** Some form of `first` followed within `near_gap` characters (no line break) by one of
     * `then`. @param {string} text @param {string[]} first @param {string[]} then */
    near(text, first, then) {
      const gap = this.r.near_gap;
      if (!then.some(function (b) { return text.indexOf(b) >= 0; })) return false;
      const longest = Math.max.apply(null, then.map(function (b) { return b.length; }));
      for (const a of first) {
        for (let at = text.indexOf(a); at !== -1; at = text.indexOf(a, at + 1)) {
          const end = at + a.length, window = text.slice(end, end + gap + longest);
          for (const b of then) {
            const g = window.indexOf(b);
            if (g >= 0 && g <= gap && window.slice(0, g).indexOf("\n") < 0) return true;
          }
        }
      }
      return false;
    }
    /** The document's features for the prepared query. @param {Prepared} q @param {number} d
     * @returns {Features} */
    features(q, d) {
      const authority = this.authority[d];
      if (!q.groups.length) return { coordination: 1, proximity: 0, title_coverage: 0, authority: authority, passage: 0 };
      const text = this.text[d], latin = this.latin[d];
      const main = this.main[d], mainLatin = this.mainLatin[d], examples = main !== text;
      const present = q.groups.map(function (g) {
        return g[0].some(function (f) { return (isLatin(f) ? latin : text).indexOf(f) >= 0; });
      });
      const found = q.groups.filter(function (g, i) { return present[i]; });
      // A word only a worked example's card name has counts less (rank.Reranker.features).
      const share = this.r.example;
      const weight = q.groups.reduce(function (sum, g, i) {
        if (!present[i]) return sum;
        const full = !examples || g[0].some(function (f) { return (isLatin(f) ? mainLatin : main).indexOf(f) >= 0; });
        return sum + (full ? g[1] : g[1] * share);
      }, 0);
      let proximity = 0;
      if (q.pairs.length) {
        proximity = q.pairs.filter((p, k) => present[q.pairAt[k]] && present[q.pairAt[k] + 1] &&
          this.near(isLatin(p[0][0]) ? latin : text, p[0], p[1])).length / q.pairs.length;
      }
      let passage = 0;
      if (q.groups.length >= this.r.passage_min_words) {
        passage = (found.length > 1 ? this.passage(found, d) :
          found.reduce(function (m, g) { return Math.max(m, g[1]); }, 0)) / q.total;
      }
      return { coordination: weight / q.total, proximity: proximity,
        title_coverage: this.titleCoverage(q, d), authority: authority, passage: passage };
    }
    /** @param {Features} f */
    factor(f) {
      const r = this.r;
      return Math.max(r.coord_floor, f.coordination * f.coordination) *
        (1 + r.proximity * f.proximity) * (1 + r.title_coverage * f.title_coverage) *
        (1 + r.passage * f.passage * f.passage) * f.authority;
    }
    /** @param {Prepared} q @param {number} d */
    titleCoverage(q, d) {
      const titleWords = this.titleWords[d], forms = this.titleForms[d], text = this.titleText[d];
      if (!titleWords.length) return 0;
      const covered = titleWords.filter(function (ws) {
        const s = shortest(ws);
        return (s.length > 1 && q.joined.indexOf(s) >= 0) || ws.some(function (f) { return has(q.forms, f); });
      }).length;
      const explained = q.groups.filter(function (g) {
        return g[0].some(function (f) { return has(forms, f) || (f.length > 1 && text.indexOf(f) >= 0); });
      }).length;
      return covered / titleWords.length * explained / q.groups.length;
    }
    /** The largest weight of groups found together in one Hangul line.
     * @param {[string[], number][]} groups @param {number} d */
    passage(groups, d) {
      const hangul = this.text[d], hangulStarts = this.starts[d];
      const latin = this.latin[d], latinStarts = this.latinStarts[d];
      /** @type {Map<number, number>} */
      const perLine = new Map();
      /** @param {number[]} starts @param {number} at */
      function lineOf(starts, at) {
        let lo = 0, hi = starts.length;  // bisect_right(starts, at) - 1
        while (lo < hi) { const mid = (lo + hi) >> 1; if (starts[mid] <= at) lo = mid + 1; else hi = mid; }
        return lo - 1;
      }
      groups.forEach(function (g) {
        /** @type {Set<number>} */
        const lines = new Set();
        g[0].forEach(function (form) {
          // A Latin form is looked for in the English sentences, numbered after the Hangul ones.
          const inLatin = isLatin(form), text = inLatin ? latin : hangul;
          const starts = inLatin ? latinStarts : hangulStarts, offset = inLatin ? hangulStarts.length : 0;
          for (let at = text.indexOf(form); at !== -1;) {
            const line = lineOf(starts, at);  // a line counts once: skip to the next
            lines.add(offset + line);
            if (line + 1 >= starts.length) break;
            at = text.indexOf(form, starts[line + 1]);
          }
        });
        lines.forEach(function (line) { perLine.set(line, (perLine.get(line) || 0) + g[1]); });
      });
      let best = 0;
      perLine.forEach(function (w) { if (w > best) best = w; });
      return best;
    }
  }

  /** Stems, whole words, corrections and loanwords' English worth marking in a snippet.
   * @param {Plan} plan @param {number} minTerm @param {Analysis} an */
  function highlightTerms(plan, minTerm, an) {
    const only = plan.words.length === 1;
    // Light and question words are not marked unless the query is nothing else (query.py).
    const content = plan.words.filter(function (x) { return !an.isFunctionWord(x.text); });
    /** @type {string[]} */
    const terms = [];
    (content.length ? content : plan.words).forEach(function (x) {
      [x.text, x.stem].concat(x.corrections, an.englishWords(x.english), x.grams).forEach(function (f) {
        if (f.length >= minTerm || (only && f)) terms.push(f);
      });
    });
    return unique(terms);
  }
  /** No whitespace, lower case: what a term is looked for in. @param {string} text */
  function squash(text) { return text.replace(/\s+/g, "").toLowerCase(); }
  /** The terms that may match in one of `texts` (squashed), in
   * order, `maxChars` characters in all.
   * @param {string[]} terms @param {string[]} texts @param {number} maxChars */
  function presentTerms(terms, texts, maxChars) {
    let used = 0;
    return terms.filter(function (term) {
      if (!term || used + term.length > maxChars) return false;
      const folded = term.toLowerCase();
      if (!texts.some(function (t) { return t.indexOf(folded) >= 0; })) return false;
      used += term.length;
      return true;
    });
  }
  /** One pattern for the terms, longest first; Hangul may be split by spaces, and a term of
   * ASCII letters is marked from a word's start to its end (snippet.term_pattern).
   * @param {string[]} terms @param {Contract["snippet"]} sizes @returns {RegExp | null} */
  function termPattern(terms, sizes) {
    const sorted = unique(terms.filter(Boolean)).sort(function (a, b) { return b.length - a.length; });
    if (!sorted.length) return null;
    /** @param {string} c */
    function esc(c) { return c.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&"); }
    return new RegExp(sorted.map(function (t) {
      if (isHangul(t)) return t.split("").map(esc).join("\\s?");
      return /^[A-Za-z]+$/.test(t) ? sizes.word_head + esc(t) + sizes.word_tail : esc(t);
    }).join("|"), "giu");
  }
  /** `s` with & < > " ' as entities, as the server escapes them. @param {string} s */
  function escapeHtml(s) {
    /** @type {Record<string, string>} */
    const entities = { "&": "&amp;", "<": "&lt;", ">": "&gt;", "\"": "&quot;", "'": "&#x27;" };
    return s.replace(/[&<>"']/g, function (c) { return entities[c]; });
  }
  /** Where a window of `flat` from `start` ends: `chars` on, cut at a space.
   * @param {string} flat @param {number} start @param {Contract["snippet"]} sizes */
  function windowEnd(flat, start, sizes) {
    let end = Math.min(flat.length, start + sizes.chars);
    if (end < flat.length) {
      const cut = flat.lastIndexOf(" ", end - 1);
      if (cut >= start + sizes.min_cut) end = cut;
    }
    return end;
  }
  /** At most `chars` characters of the flat text around the first
   * match, escaped and marked. @param {string} flat @param {RegExp | null} pattern
   * @param {Contract["snippet"]} sizes @param {string} [folded] the flat text folded
   * @param {boolean} [opening] */
  function makeSnippet(flat, pattern, sizes, folded, opening) {
    // Matched in the folded text (as long as the flat one), shown from the text as written.
    const seen = folded !== undefined && folded.length === flat.length ? folded : flat;
    let first = pattern ? seen.search(pattern) : -1;
    // A title hit reads from the opening, unless the opening lacks the words (an English
    // title found the entry: its sentence is in the English original).
    if (opening && first < windowEnd(flat, 0, sizes)) first = -1;
    let start = 0;
    if (first > sizes.lead) {
      // From the start of the sentence holding the first match, when it is near enough.
      const reach = Math.max(0, first - sizes.sentence_reach);
      let sentence = -1, mark = "";
      sizes.sentence_ends.forEach(function (m) {
        const i = flat.lastIndexOf(m, first - 1);
        if (i >= reach && i > sentence) { sentence = i; mark = m; }
      });
      if (sentence !== -1) start = sentence + mark.length;
      else {
        start = first - sizes.lead;
        const space = flat.indexOf(" ", start);
        if (space !== -1 && space < first) start = space + 1;
      }
    }
    const end = windowEnd(flat, start, sizes);
    const win = flat.slice(start, end), seenWin = seen.slice(start, end);
    let out = start > 0 ? "…" : "", pos = 0;
    if (pattern) {
      pattern.lastIndex = 0;
      for (let m = pattern.exec(seenWin); m !== null; m = pattern.exec(seenWin)) {
        if (!m[0]) { pattern.lastIndex++; continue; }
        out += escapeHtml(win.slice(pos, m.index)) + "<mark>" + escapeHtml(win.slice(m.index, m.index + m[0].length)) + "</mark>";
        pos = m.index + m[0].length;
      }
    }
    return out + escapeHtml(win.slice(pos)) + (end < flat.length ? "…" : "");
  }

  return {
    Rewriter: Rewriter, TitleTable: TitleTable, Reranker: Reranker, Loanwords: Loanwords,
    snippets: { highlightTerms: highlightTerms, squash: squash, presentTerms: presentTerms,
      termPattern: termPattern, makeSnippet: makeSnippet }
  };
})(RulesAnalysis);
