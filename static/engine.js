// @ts-check
/* 룰사전 browser search engine: the server's search (app/search/) over the client index.
 *
 * Why our own module and not MiniSearch, FlexSearch or lunr: their tokenizers split on spaces
 * (lunr, MiniSearch) or index CJK text character by character (FlexSearch); none strips
 * Korean particles and endings (조사자가 → 조사자), matches 초성 (ㅌㅅㄱㄱ) or corrects typos
 * at the jamo level (틈세 → 틈새), and each ranks with its own scoring rather than the
 * server's title tiers and re-rank. So this file ports the server's pipeline (clean → rewrite
 * → plan → lookups and BM25F → tiers → re-rank → order → snippets: docs/search.md, whose table
 * names the Python and JS function of each stage) and reads every rule table, pattern and
 * number from the index: `rules` (the analysis tables) and `contract` (app/search/contract.py,
 * shipped whole). Like lunr and MiniSearch, it refuses an index of another version than the
 * one its page names. The body fields' postings are derived from the texts file with the same
 * analysis (`addTexts`). tests/test_search_traces.py checks every stage against the server's
 * on a tiny corpus, tests/test_client_parity.py the rankings of the development queries.
 *
 * Not ported (the parity test names them): the owned-collections demotion and the source
 * filter. A plain script, loaded after
 * static/analysis.js and static/matching.js: it defines the global `RulesEngine`.
 */
"use strict";
/* exported RulesEngine */

var RulesEngine = (function (R, M) {
  "use strict";

  const H = R.helpers, has = H.has, isHangul = H.isHangul;
  const shortest = H.shortest, dict = H.dict, compare = H.compare;
  const S = M.snippets;
  const BODY = ["body_w", "body_bg"];
  /** The field of the questions a document answers (index.entry_fields' `ask_w`). */
  const ASK = "ask_w";
  const LETTERS = /^\p{L}+$/u;


  /** `tokens` as occurrences in document `d` (documents are added in ascending order).
   * @param {Field} field @param {string[]} tokens @param {number} d */
  function addPostings(field, tokens, d) {
    for (const token of tokens) {
      let post = field.decoded.get(token);
      if (!post) { post = [[], []]; field.decoded.set(token, post); }
      const last = post[0].length - 1;
      if (last >= 0 && post[0][last] === d) post[1][last] += 1;
      else if (last >= 0 && post[0][last] > d) {
        // A later language's title for an earlier document: keep the docnums ascending.
        const at = post[0].findIndex(function (x) { return x >= d; });
        if (post[0][at] === d) post[1][at] += 1;
        else { post[0].splice(at, 0, d); post[1].splice(at, 0, 1); }
      } else { post[0].push(d); post[1].push(1); }
    }
  }

  /** A length as the server's index stores it (one byte per field length): the first of
   * the 256 `steps` at or above it. @param {number[]} steps @param {number} length */
  function storedLength(steps, length) {
    let lo = 0, hi = steps.length - 1;
    if (length >= steps[hi]) return steps[hi];
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (steps[mid] < length) lo = mid + 1; else hi = mid;
    }
    return steps[lo];
  }

  class Engine {
    /** The engine over `index`, which must be of the `analysis` version the page names
     * (`index.ANALYSIS_VERSION` on the server that rendered it).
     * @param {ClientIndex} index @param {string} analysis */
    constructor(index, analysis) {
      if (!index || index.analysis !== analysis) {
        throw new Error("search index of analysis " + (index && index.analysis) +
          ", expected " + analysis);
      }
      const an = this.an = new R.Analysis(index.rules, index.contract);
      this.index = index;
      this.c = index.contract;
      this.docs = index.docs;
      this.n = index.docs.id.length;
      /** Per document, the docnum of the entry a result for it lands on (its own; its
       * entry's for a step: `ClientDocs.page`). @type {number[]} */
      this.page = index.docs.id.map(function (_, d) {
        return has(index.docs.page, String(d)) ? index.docs.page[String(d)] : d;
      });
      /** @type {Record<string, Field>} */
      this.fields = {};
      Object.keys(index.postings).forEach((f) => {
        this.fields[f] = { raw: index.postings[f], decoded: new Map(), lengths: index.lengths[f] };
      });
      /** @type {string[] | null} */
      this.texts = null;
      /** Per document, the questions it answers (`ClientTexts.asks`). @type {string[]} */
      this.asks = [];
      /** Per document, the texts a result may be shown in: its own (with English), then its
       * translation in each language added (`addLanguage`). @type {Segment[][]} */
      this.segments = [];
      /** The translation languages added, in the index's order. @type {string[]} */
      this.languages = [];
      /** Per language added: docnum → [entry id, title, URL] and → its text.
       * @type {Record<string, ClientLanguage>} */
      this.added = dict();
      /** @type {Record<string, ClientLanguageTexts>} */
      this.addedTexts = dict();
      /** Whether the index has translations other than English: their fields are looked up. */
      this.translations = (index.counts.title_tr || 0) > 0;
      this.titles = new M.TitleTable(an, index.titles);
      this.reranker = new M.Reranker(an, index);
      this.loanwords = new M.Loanwords(index.loanwords, index.contract.loanwords);
      this.listMark = new RegExp(index.rules.list_mark, "gm");
      /** @type {Record<string, number>} */
      this.gamesById = dict();
      index.games.forEach((g, i) => { this.gamesById[g.id] = i; });
      /** Everyday words, never taken for typos (`Corpus.words`, app/corpus/words.py). */
      this.everyday = new Set(index.words);
      /** The word an English stem is said as, where the stem is none (documents.english_surfaces). */
      this.surfaces = index.surfaces;
      this.rewriter = new M.Rewriter(an, index.synonyms, index.related, index.game_names,
        index.game_name_guards, (w) => this.knows(w), this.everyday);
      /** @type {Vocabulary} */
      this.hangul = new R.Vocabulary(an, {}, null);
      /** @type {Vocabulary} */
      this.english = this.hangul;
      /** @type {Vocabulary} */
      this.wideHangul = this.hangul;
      /** @type {Vocabulary} */
      this.wideEnglish = this.hangul;
      this.buildVocabularies();
    }

    /** The body fields' postings and the re-rank's and snippets' texts, from each
     * document's text. @param {ClientTexts} data */
    addTexts(data) {
      const an = this.an.memoised();
      if (data.version !== this.index.version || data.analysis !== this.index.analysis) {
        throw new Error("texts and index are of different data versions");
      }
      BODY.concat([ASK]).forEach((f) => { this.fields[f] = { decoded: new Map(), lengths: [] }; });
      const postings = [this.fields.body_w, this.fields.body_bg, this.fields[ASK]];
      const steps = this.index.rules.length_steps;
      data.texts.forEach((text, d) => {
        // The questions a document answers are a field of their own (index.entry_fields).
        const asks = data.asks ? data.asks[d] : "", words = an.words(text);
        const lists = [an.wordTokens(words), an.bigramTokens(words), asks ? an.wordTokens(an.words(asks)) : []];
        postings.forEach(function (field, f) {
          field.lengths.push(storedLength(steps, lists[f].length));
          addPostings(field, lists[f], d);
        });
        // Shown as its page's entry: a step's is its entry's (searcher._segments).
        this.segments[d] = this.docs.base[d] ? [this.segment(this.docs.id[this.page[d]], this.docs.title[d],
          this.docs.url[d], this.docs.lang[d], text)] : [];
      });
      this.texts = data.texts;
      this.asks = data.asks || [];
      this.rerankTexts(data.texts.map(function (_, d) { return d; }));
      this.buildVocabularies();
    }

    /** A text as snippets cut it (searcher._Segment). @param {string} id @param {string} title
     * @param {string} url @param {string} lang @param {string} text @returns {Segment} */
    segment(id, title, url, lang, text) {
      const an = this.an, flat = text.replace(this.listMark, "").replace(/\s+/g, " ").trim();
      const lower = an.casefold(text);
      const spelled = an.hasUmlaut(text) ? S.squash(an.fold(an.spelled(lower))) : "";
      return { shown: id, title: title, url: url, lang: lang, flat: flat, folded: an.foldText(flat),
        squashed: S.squash(an.casefold(an.foldText(text))), spelled: spelled };
    }

    /** The re-rank's texts of documents `ds`: their own, then each added translation's.
     * @param {number[]} ds */
    rerankTexts(ds) {
      const an = this.an.memoised(), texts = /** @type {string[]} */ (this.texts);
      ds.forEach((d) => {
        /** @type {string[]} */
        const parts = [];
        this.languages.forEach((lang) => {
          const entry = this.added[lang].entries[String(d)];
          if (entry) parts.push(entry[1] + "\n" + (this.addedTexts[lang].texts[String(d)] || ""));
        });
        // The questions a document answers are re-ranked with its text (Document.searched).
        const asks = this.asks[d] || "", searched = asks ? texts[d] + "\n" + asks : texts[d];
        this.reranker.addText(an, d, searched.trim(), parts);
      });
    }

    /** Search `lang` too: its titles and texts (`client_index.language_index` and
     * `language_texts`), after `addTexts`. @param {ClientLanguage} chunk
     * @param {ClientLanguageTexts} texts */
    addLanguage(chunk, texts) {
      if (!this.texts) throw new Error("addLanguage needs the texts: call addTexts first");
      if (chunk.version !== this.index.version || chunk.analysis !== this.index.analysis ||
          texts.version !== chunk.version || texts.lang !== chunk.lang) {
        throw new Error("language files of another data version or language");
      }
      const lang = chunk.lang, an = this.an.memoised();
      if (has(this.added, lang)) return;
      this.added[lang] = chunk;
      this.addedTexts[lang] = texts;
      const order = this.index.languages;
      this.languages = order.filter((l) => has(this.added, l));
      // Titles: postings summed into the field, lengths the server's (all languages).
      ["title_tr", "body_tr"].forEach((f) => {
        if (!this.fields[f]) this.fields[f] = { decoded: new Map(), lengths: this.index.lengths[f] };
      });
      const titleTr = this.fields.title_tr, bodyTr = this.fields.body_tr;
      Object.keys(chunk.postings.title_tr).forEach((term) => {
        const [docs, tfs] = R.decodePostings(chunk.postings.title_tr[term], this.index.rules.postings_radix);
        docs.forEach(function (d, i) { for (let k = 0; k < tfs[i]; k++) addPostings(titleTr, [term], d); });
      });
      const ds = Object.keys(chunk.entries).map(Number).sort(function (a, b) { return a - b; });
      ds.forEach((d) => {
        const text = texts.texts[String(d)] || "";
        addPostings(bodyTr, an.wordTokens(an.words(text)), d);
      });
      // Each document's segments in the index's language order, its own first.
      ds.forEach((d) => {
        const own = this.docs.base[d] && this.segments[d].length ? [this.segments[d][0]] : [];
        this.segments[d] = own.concat(this.languages.filter((l) => this.added[l].entries[String(d)])
          .map((l) => {
            const [id, title, url] = this.added[l].entries[String(d)];
            return this.segment(id, title, url, l, title + "\n" + (this.addedTexts[l].texts[String(d)] || ""));
          }));
      });
      this.titles = new M.TitleTable(this.an, this.index.titles,
        this.languages.map((l) => this.added[l].parts));
      this.rerankTexts(ds);
      this.buildVocabularies();
    }

    /** [docnums, tfs] of a term, or null. @param {string} field @param {string} term */
    postings(field, term) {
      const f = this.fields[field];
      if (!f) return null;
      const found = f.decoded.get(term);
      if (found) return found;
      if (!f.raw || !has(f.raw, term)) return null;
      const decoded = R.decodePostings(f.raw[term], this.index.rules.postings_radix);
      f.decoded.set(term, decoded);
      return decoded;
    }

    /** Known words with document frequencies, field by field in
     * the index's term order; corrections lead only to title words and English names. */
    buildVocabularies() {
      /** @type {Record<string, number>} */
      const hangul = dict(), english = dict(), targets = dict();
      const an = this.an, least = this.c.typos.target_min_length, typos = this.c.typos;
      // A title that is a sentence (a FAQ question) holds ordinary words, never a target
      // (searcher._sentence).
      const page = this.page;
      const sentence = this.docs.title.map(function (title, d) {
        const trimmed = title.trimEnd(), last = Array.from(trimmed).pop() || "";
        // A step's heading is a sentence too (documents.steps).
        return page[d] !== d || Array.from(title).length > typos.target_title_most ||
          (last !== "" && typos.question_marks.indexOf(last) >= 0);
      });
      ["title_w", "alias", "body_w", "title_tr", "body_tr", ASK].forEach((field) => {
        const f = this.fields[field];
        if (!f) return;
        const terms = (f.raw ? Object.keys(f.raw) : Array.from(f.decoded.keys())).sort(compare);
        terms.forEach((term) => {
          const docs = /** @type {[number[], number[]]} */ (this.postings(field, term))[0];
          const df = docs.length;
          if (isHangul(term)) hangul[term] = (hangul[term] || 0) + df;
          // Words of every other script (searcher._vocabularies): not bare jamo.
          else if (LETTERS.test(term) && !an.jamoRun.test(term)) english[term] = (english[term] || 0) + df;
          else return;
          if (field.indexOf("body") !== 0 && field !== ASK && Array.from(term).length >= least &&
              !an.isFunctionWord(term) && !an.isHan(term) &&
              (field !== "title_w" || !docs.every(function (d) { return sentence[d]; }))) targets[term] = 1;
        });
      });
      this.hangul = new R.Vocabulary(an, hangul, targets);
      this.english = new R.Vocabulary(an, english, targets);
      // Every indexed word as a target: the last resort of a search that found nothing.
      this.wideHangul = new R.Vocabulary(an, hangul, null);
      this.wideEnglish = new R.Vocabulary(an, english, null);
    }
    /** @param {string} w */
    knows(w) { return this.hangul.knows(w) || this.english.knows(w); }

    /** `text` with each word typed in the keyboard's other layout converted (xmatorhdrur →
     * 틈새공격), or null when no word was (searcher.SearchIndex.layout). @param {string} text
     * @returns {string | null} */
    layout(text) {
      const an = this.an;
      let changed = false;
      const out = text.replace(/[A-Za-z]+|[\uAC00-\uD7A3\u3131-\u3163]+/g, (word) => {
        if (H.isAscii(word)) {
          if (this.knows(an.englishStem(word))) return word;
          const hangul = an.fromQwerty(word);
          if (hangul === null || !this.knowsHangul(hangul)) return word;
          changed = true;
          return hangul;
        }
        if (this.knowsHangul(word)) return word;
        const latin = an.toQwerty(word).toLowerCase();
        if (latin.length < this.c.layout.min_letters || !/^[a-z]+$/.test(latin) || !this.english.knows(an.englishStem(latin))) return word;
        changed = true;
        return latin;
      });
      return changed ? out : null;
    }
    /** `text` as it reads while a player types it in the other layout, for suggestions
     * (searcher.SearchIndex.typing_layout): its last word stops mid-syllable (xmat → 틈ㅅ),
     * so it counts when a title starts that way; null when none does, or the word is English.
     * @param {string} text @returns {string | null} */
    typingLayout(text) {
      const an = this.an, last = /[A-Za-z]+$/.exec(text);
      if (!last || this.knows(an.englishStem(last[0])) ||
          this.titles.aliasPrefixMatches(an.aliasKey(last[0])).length) return null;
      const typed = text.slice(0, last.index), head = this.layout(typed) || typed;
      for (const form of an.typingForms(last[0])) {
        if (this.titles.prefixMatches(an.words(head + form).join("")).length) return head + form;
      }
      return null;
    }
    /** Hangul syllables the search knows as a word (bare jamo never are). @param {string} word */
    knowsHangul(word) {
      if (!isHangul(word)) return false;
      return this.an.variants(word).some((f) => this.hangul.knows(f)) ||
        has(this.titles.exact, this.an.compactTitle(word)) || this.rewriter.lists(word);
    }
    /** (word, closest indexed word) for each unknown content word of `plan` that has one among
     * all the words of the texts (searcher.SearchIndex.nearest_words). @param {Plan} plan
     * @returns {[string, string][]} */
    nearestWords(plan) {
      /** @type {[string, string][]} */
      const found = [];
      // The plan's corrections spent the budget first (a word's stem, then the word).
      let left = this.c.budget.corrections - plan.words.filter((w) => !w.known && !w.everyday && !this.an.isFunctionWord(w.text))
        .reduce(function (n, w) { return n + 1 + (w.stem !== w.text ? 1 : 0); }, 0);
      plan.words.forEach((w) => {
        // An everyday word (머리) is a word, not a misspelt one of the texts (버리).
        if (w.known || w.everyday || this.an.isFunctionWord(w.text) || left <= 0) return;
        left -= 1;
        // A short Hangul word falls back to the rules' words only (typos.wide_fallback_min).
        const vocab = !w.hangul ? this.wideEnglish :
          w.stem.length < this.c.typos.wide_fallback_min ? this.hangul : this.wideHangul;
        const near = vocab.corrections(w.hangul ? w.stem : w.variants[0], 1);
        if (near.length) found.push([w.text, near[0].term]);
      });
      return found;
    }
    /** The best document outside `allowed`, when it answers better than any inside
     * (ranking.Ranker.elsewhere). @param {Plan} plan @param {Set<number>} allowed
     * @param {Ranking} ranking @returns {number | null} */
    elsewhere(plan, allowed, ranking) {
      const T = this.c.tier, tiers = this.tiers(plan);
      const inside = ranking.order.length ? (ranking.tiers.get(ranking.order[0]) || T.NONE) : null;
      // When the filter finds something, only a title-level match outside it can be offered:
      // with none, every game's ranking would end in null anyway.
      if (inside !== null && ![...tiers].some(([n, tier]) => tier >= T.NAMES && tier > inside && !allowed.has(n))) return null;
      const best = this.ranking(plan, null).order;
      if (!best.length || allowed.has(best[0])) return null;
      const outside = tiers.get(best[0]) || T.NONE;
      return inside === null || (outside >= T.NAMES && outside > inside) ? this.page[best[0]] : null;
    }

    /** What the query means to the index. @param {string} text @param {boolean} correct
     * @param {[string, string][]} related @returns {Plan} */
    plan(text, correct, related) {
      const an = this.an, raw = an.words(text), jamoRun = an.jamoRun;
      const budget = this.c.budget;
      let initials = "";
      if (raw.some((w) => an.isInitials(w)) || raw.some((w) => jamoRun.test(w))) {
        initials = raw.filter((w) => isHangul(w) || an.isInitials(w)).join("");
      }
      /** @type {Map<string, QueryWord>} */
      const analysed = new Map();
      /** @type {string[]} */
      const considered = [];
      let left = correct ? budget.corrections : 0;
      const joined = new Set(related.map(function (p) { return p[1]; }));
      for (const token of raw) {
        if (jamoRun.test(token)) continue;
        if (!analysed.has(token)) {
          if (analysed.size >= budget.words) break;
          const hangul = isHangul(token), grams = an.hanGrams(token);
          // The variants are memoised: the ㄹ stem goes on a copy.
          const variants = an.variants(token), dropped = hangul ? an.droppedLStem(token) : "";
          const forms = dropped && variants.indexOf(dropped) < 0 ? variants.concat([dropped]) : variants;
          const stem = hangul ? shortest(forms) : forms[0];
          const vocab = hangul ? this.hangul : this.english;
          // A word a related-words line matched is a word players use: never a typo.
          const known = /^[0-9]+$/.test(token) || joined.has(token) ||
            (grams.length ? grams : forms).some((f) => vocab.knows(f));
          /** @type {string[]} */
          let corrections = [];
          // An everyday word, as typed, without its particle or ending, or a form of a listed
          // verb's stem (아파요 of 아프-), is never a typo.
          const real = hangul && !known && this.an.listed(token, this.everyday);
          const inflected = hangul && !known &&
            (an.isInflected(token) || an.isVerbForm(token, this.everyday));
          const attempted = !known && !real && left > 0 && !an.isFunctionWord(token) &&
            !an.isCount(token);
          if (attempted) {
            left -= 1;
            // A verb form is corrected only by a long stem (틈새공걱하면).
            if (!inflected || stem.length >= this.c.typos.inflected_stem) {
              corrections = vocab.corrections(hangul ? stem : forms[0]).map((c) => c.term);
            }
            if (hangul && !corrections.length && stem !== token && left > 0 && !inflected) {
              left -= 1;
              corrections = vocab.corrections(token).map((c) => c.term);
            }
          }
          let english = "";
          // An unknown word with no correction may be a loanword, heard by sound (query.make_plan):
          // a noun as typed or without its particle, never a verb's stem; in a sentence only
          // with three consonants or more; never an everyday word (고양이 is no "gaining").
          if (hangul && attempted && !corrections.length && !inflected &&
              (token.length > 1 || raw.length <= this.c.loanwords.short_query)) {
            const loan = this.loanwords, least = this.c.loanwords.sentence_skeleton;
            for (const f of forms) {
              if ((f !== token && !an.isParticle(token.slice(f.length))) ||
                  (raw.length > this.c.loanwords.short_query && loan.skeleton(f).length < least)) continue;
              const heard = loan.soundsLike(f);
              if (heard) { english = heard; break; }
            }
          }
          analysed.set(token, { text: token, variants: forms, stem: stem, hangul: hangul,
            known: known, corrections: corrections, english: english, grams: grams, everyday: real });
        }
        considered.push(token);
      }
      const words = Array.from(analysed.values());
      // An English reading only when the words that are not Hangul are all ASCII.
      const letters = words.filter((w) => !w.hangul && LETTERS.test(w.text)).map((w) => w.text);
      /** @param {string} t */
      const stemOf = (t) => /** @type {QueryWord} */ (analysed.get(t)).stem;
      return {
        text: text, words: words, initials: initials, compact: considered.join(""),
        stemCompact: considered.map(stemOf).join(""),
        alias: letters.length && letters.every(H.isAscii) ? an.aliasKey(text) : "",
        related: related
      };
    }

    /** The (field, term, boost) lookups, sorted, at most the budget's.
     * @param {Plan} plan @returns {[string, string, number][]} */
    weightedTerms(plan) {
      const b = this.c.boosts, an = this.an, translations = this.translations;
      /** @type {Map<string, {field: string, term: string, boost: number}>} */
      const boosts = new Map();
      /** @param {string} field @param {string} term @param {number} boost */
      function add(field, term, boost) {
        const key = field + "\u0000" + term, known = boosts.get(key);
        if (!known) boosts.set(key, { field: field, term: term, boost: boost });
        else if (boost > known.boost) known.boost = boost;
      }
      if (plan.words.length > 1) [plan.compact, plan.stemCompact].forEach(function (x) { add("title_w", x, b.title_whole); });
      if (plan.alias) add("alias", plan.alias, b.alias_whole);
      const added = new Set(plan.related.map(function (p) { return p[0]; }));
      const content = plan.words.filter(function (x) {
        return !an.isFunctionWord(x.text) && (x.known || x.corrections.length || x.english) && !added.has(x.text);
      }).length;
      const titleW = b.title_w * Math.min(1, b.long_query / Math.max(content, 1));
      plan.words.forEach(function (word) {
        if (an.isFunctionWord(word.text)) return;
        if (word.hangul) {
          word.variants.forEach(function (form) {
            const weight = form.length === 1 && word.text.length > 1 ? b.short_stem : 1;
            add("title_w", form, titleW * weight);
            add("body_w", form, b.body_w * weight);
            add(ASK, form, b.ask_w * weight);
          });
        } else if (word.grams.length) {
          word.grams.forEach(function (g) { add("title_w", g, titleW); add("body_w", g, b.body_w); add(ASK, g, b.ask_w); });
        } else {
          // As written, then folded: an ASCII word has one form.
          word.variants.forEach(function (form) {
            add("alias", form, b.alias);
            add("body_w", form, b.body_w);
            add(ASK, form, b.ask_w);
            add("title_w", form, titleW);
          });
        }
        // Numbers are in every language: only words are looked up in the translations.
        if (translations && !word.hangul && !/^[0-9]+$/.test(word.text)) {
          (word.grams.length ? word.grams : word.variants).forEach(function (form) {
            add("title_tr", form, titleW * b.title_tr);
            add("body_tr", form, b.body_w * b.body_tr);
          });
        }
        const english = an.englishWords(word.english);
        english.forEach(function (e) {
          add("alias", e, b.alias * b.corrected);
          add("title_w", e, b.title_w * b.corrected);
          add("body_w", e, b.body_w * b.corrected);
          add(ASK, e, b.ask_w * b.corrected);
        });
        if (english.length > 1) add("alias", an.aliasKey(word.english), b.alias_whole * b.corrected);
        word.corrections.forEach(function (fixed) {
          add("title_w", fixed, b.title_w * b.corrected);
          add("body_w", fixed, b.body_w * b.corrected);
          add(ASK, fixed, b.ask_w * b.corrected);
          if (!word.hangul) add("alias", fixed, b.alias * b.corrected);
        });
        if (word.hangul) {
          an.bigrams(word.stem.length > 1 ? word.stem : word.text).forEach(function (g) {
            add("title_bg", g, b.title_bg);
            add("body_bg", g, b.body_bg);
          });
          word.corrections.forEach(function (fixed) {
            an.bigrams(fixed).forEach(function (g) { add("title_bg", g, b.title_bg * b.corrected); });
          });
        }
      });
      return Array.from(boosts.values()).slice(0, Math.max(0, this.c.budget.lookups))
        .sort(function (x, y) { return compare(x.field, y.field) || compare(x.term, y.term); })
        .map(function (x) { return /** @type {[string, string, number]} */ ([x.field, x.term, x.boost]); });
    }

    /** BM25F summed over the lookups, per docnum.
     * @param {[string, string, number][]} terms @param {Set<number> | null} allowed */
    score(terms, allowed) {
      /** @type {Map<number, number>} */
      const scores = new Map();
      const k1 = this.c.bm25.k1, fieldB = this.c.bm25.field_b;
      terms.forEach(([field, term, boost]) => {
        const post = this.postings(field, term);
        if (!post) return;
        // BM25's N: the documents the field's statistics count (bm25.FieldStats).
        const n = this.index.counts[field];
        const docs = post[0], tfs = post[1], lengths = this.fields[field].lengths;
        const avg = Math.max(1, lengths.reduce(function (a, x) { return a + x; }, 0) / Math.max(1, n));
        const idf = (Math.log(n / (docs.length + 1)) + 1) * boost, b = fieldB[field];
        const norm = k1 * (1 - b), per = k1 * b / avg;
        for (let i = 0; i < docs.length; i++) {
          if (allowed && !allowed.has(docs[i])) continue;
          const tf = tfs[i];
          scores.set(docs[i], (scores.get(docs[i]) || 0) + idf * tf * (k1 + 1) / (tf + norm + per * lengths[docs[i]]));
        }
      });
      return scores;
    }

    /** Each document's title tier, from title matching alone. @param {Plan} plan */
    tiers(plan) {
      const T = this.c.tier, rank = this.c.title_rank, an = this.an, titles = this.titles;
      /** @type {Map<number, number>} */
      const tiers = new Map();
      let keys = [plan.compact, plan.stemCompact, plan.alias];
      if (plan.words.length === 1) keys = keys.concat(plan.words[0].variants);
      keys = keys.concat(an.titleParts(plan.text)).filter(Boolean);
      titles.exactIds(keys).forEach(function (d) { tiers.set(d, T.NAMES); });
      (titles.full[an.compactTitle(plan.text)] || []).forEach(function (d) { tiers.set(d, T.WHOLE); });
      if (plan.initials) {
        titles.prefixMatches(plan.initials).forEach(function (m) {
          const tier = m[1] <= rank.INITIALS_EXACT ? T.CLOSE : (m[1] <= rank.START ? T.STARTS : T.NONE);
          tiers.set(m[0], Math.max(tiers.get(m[0]) || T.NONE, tier));
        });
      }
      if (plan.words.some(function (x) { return !x.known; }) && !tiers.size) {
        titles.fuzzyMatches(plan.alias || plan.stemCompact).forEach(function (m) {
          // FUZZY + n: a title n edits away.
          const tier = m[1] === rank.FUZZY + 1 ? T.CLOSE : T.STARTS;
          tiers.set(m[0], Math.max(tiers.get(m[0]) || T.NONE, tier));
        });
        if (plan.compact !== plan.stemCompact && !plan.alias) {
          titles.fuzzyMatches(plan.compact).forEach(function (m) { if (!tiers.has(m[0])) tiers.set(m[0], T.STARTS); });
        }
      }
      return tiers;
    }

    /** Every document `plan` finds, best first, with what each stage decided; the best
     * `depth` BM25 candidates are re-ranked (the budget's `rerank` unless fewer are asked for).
     * @param {Plan} plan @param {Set<number> | null} allowed @param {number} [depth]
     * @returns {Ranking} */
    ranking(plan, allowed, depth) {
      const c = this.c, T = c.tier, docs = this.docs;
      const terms = this.weightedTerms(plan), bm25 = this.score(terms, allowed);
      const scores = new Map(bm25), tiers = this.tiers(plan), q = this.reranker.prepare(plan);
      if (q.groups.length < c.steps.min_words) {
        // A step answers a question on its own; a name or a few words are its entry's.
        Array.from(scores.keys()).forEach((d) => { if (this.page[d] !== d) scores.delete(d); });
      }
      if (allowed) Array.from(tiers.keys()).forEach(function (d) { if (!allowed.has(d)) tiers.delete(d); });
      let top = 1;
      if (scores.size) top = Math.max.apply(null, Array.from(scores.values()));
      tiers.forEach(function (_, d) { if (!scores.has(d)) scores.set(d, top * c.order.title_only); });
      /** @param {number} d */
      const score = (d) => /** @type {number} */ (scores.get(d));
      // Equal scores in reading order (the server's order too).
      const byScore = Array.from(scores.keys()).sort(function (a, b) { return score(b) - score(a) || a - b; });
      /** @type {Map<number, Features>} */
      const features = new Map();
      const deep = depth === undefined ? c.budget.rerank : Math.min(depth, c.budget.rerank);
      byScore.forEach((d, i) => {
        if (i < deep) {
          const f = this.reranker.features(q, d);
          features.set(d, f);
          scores.set(d, score(d) * this.reranker.factor(f));
        } else scores.set(d, score(d) * c.rerank.coord_floor);
      });
      scores.forEach(function (s, d) { if (docs.placeholder[d]) scores.set(d, s * c.order.placeholder); });
      /** @param {number} d */
      function tier(d) { return tiers.get(d) || T.NONE; }
      const order = Array.from(scores.keys()).sort(function (a, b) {
        const ga = tier(a) >= T.CLOSE ? docs.game[a] : 0, gb = tier(b) >= T.CLOSE ? docs.game[b] : 0;
        return (tier(b) - tier(a)) || (ga - gb) || (score(b) - score(a)) || (docs.order[a] - docs.order[b]);
      });
      return { terms: terms, bm25: bm25, tiers: tiers, features: features,
        order: this.onePerPage(this.placeholdersBelowTargets(order, allowed)) };
    }
    /** `order` with each entry's page once: where the entry or one of its steps first ranks
     * (ranking.Ranker.one_per_page). @param {number[]} order */
    onePerPage(order) {
      const page = this.page, seen = new Set();
      return order.filter(function (d) {
        if (seen.has(page[d])) return false;
        seen.add(page[d]);
        return true;
      });
    }
    /** Each "see X" document just below X when it ranked above it; X added if missing.
     * @param {number[]} order @param {Set<number> | null} allowed */
    placeholdersBelowTargets(order, allowed) {
      const see = this.docs.see;
      order.filter(function (d) { return has(see, String(d)); }).forEach(function (d) {
        const target = see[String(d)];
        if (allowed && !allowed.has(target)) return;
        const at = order.indexOf(d), there = order.indexOf(target);
        if (there >= 0 && there < at) return;
        order.splice(at, 1);
        if (there >= 0) order.splice(order.indexOf(target), 1);
        order.splice(at, 0, target, d);
      });
      return order;
    }

    /** A result; shown in `segment`'s language when it is a translation's (its title and
     * URL, the entry's beside it as `entry`). @param {number} d @param {string} snippet
     * @param {Segment} [segment] @returns {EngineHit} */
    hit(d, snippet, segment) {
      const docs = this.docs, game = this.index.games[docs.game[d]], page = docs.id[this.page[d]];
      const other = segment && segment.shown !== page ? segment : null;
      return { id: page, title: other ? other.title : docs.title[d],
        url: other ? other.url : docs.url[d], game: game.id,
        game_name: game.name, game_short: game.short, where: docs.where[d],
        context: game.short + " · " + docs.where[d], snippet: snippet,
        shown: other ? other.shown : page, lang: other ? other.lang : docs.lang[d],
        entry: other ? { title: docs.title[d], url: docs.url[d], lang: docs.lang[d],
          lang_name: this.index.language_names[docs.lang[d]] || docs.lang[d] } : null };
    }

    /** The language a result is shown in (searcher.SearchIndex.segment): the text holding
     * the most of the folded query terms, the entry's own on a tie. @param {number} d
     * @param {string[]} terms @returns {Segment} */
    chosenSegment(d, terms) {
      const segments = this.segments[d];
      if (segments.length === 1) return segments[0];
      const folded = terms.map((t) => this.an.casefold(t));
      const counts = segments.map(function (s) {
        return folded.filter(function (t) {
          return t && (s.squashed.indexOf(t) >= 0 || (s.spelled !== "" && s.spelled.indexOf(t) >= 0));
        }).length;
      });
      return segments[counts.indexOf(Math.max.apply(null, counts))];
    }

    /** A vocabulary term as the page says it: an English stem as its word
     * (searcher.SearchIndex.said). @param {string} term @returns {string} */
    said(term) {
      return has(this.surfaces, term) ? this.surfaces[term] : term;
    }

    /** Whether the corrected query's best document holds more of the query's words the index
     * has than the uncorrected query's best (searcher.SearchIndex.clearly_better).
     * @param {Plan} corrected @param {number} best @param {Plan} plain @param {number} plainBest */
    clearlyBetter(corrected, best, plain, plainBest) {
      return this.found(corrected, best) > this.found(plain, plainBest) + this.c.typos.gain_tolerance;
    }
    /** The total weight of the words of `plan` the index has (or corrected to one of its words)
     * that document `d` holds (searcher.SearchIndex._found). @param {Plan} plan @param {number} d */
    found(plan, d) {
      const words = plan.words.filter(function (w) { return w.known || w.corrections.length > 0; });
      const q = this.reranker.prepare(Object.assign({}, plan, { words: words }));
      return this.reranker.features(q, d).coordination * q.total;
    }

    /** (as typed, English heard, official term or "") per loanword of `plan`: what the page
     * says (searcher.SearchIndex._search's `loanwords`). @param {Plan} plan
     * @returns {[string, string, string][]} */
    heard(plan) {
      const officials = this.loanwords.officials;
      return plan.words.filter(function (w) { return w.english; }).map(function (w) {
        return /** @type {[string, string, string]} */ ([w.stem || w.text, w.english,
          has(officials, w.english) ? officials[w.english] : ""]);
      });
    }

    /** The content words of `plan` no document of `ranked` has: not known or corrected, not
     * replaced by a synonym, and in no result's text even with its spaces taken out (교전중 is
     * in "교전 중인") (searcher.SearchIndex._missing).
     * @param {Plan} plan @param {[string, string][]} synonyms @param {number[]} ranked */
    missing(plan, synonyms, ranked) {
      const replaced = new Set(synonyms.map(function (pair) { return S.squash(pair[0]); }));
      const segments = this.segments, an = this.an;
      return plan.words.filter((w) => !(w.known || w.corrections.length || w.english) &&
        !this.an.isFunctionWord(w.text) && !this.an.isCount(w.text) && !replaced.has(S.squash(w.text)) &&
        !ranked.some(function (d) {
          const wanted = an.foldText(S.squash(w.stem || w.text));
          return segments[d].some(function (s) { return s.squashed.indexOf(wanted) >= 0; });
        }))
        .map(function (w) { return w.text; });
    }

    /** The documents of `game` ("" : no filter), or null for no filter; undefined for a
     * game the index does not have. @param {string} game */
    allowed(game) {
      if (!game) return null;
      if (!has(this.gamesById, game)) return undefined;
      const wanted = this.gamesById[game];
      return new Set(this.docs.game.map(function (g, d) { return g === wanted ? d : -1; })
        .filter(function (d) { return d >= 0; }));
    }

    /** One page of results. Needs `addTexts`. @param {string} query @param {SearchOptions} [options]
     * @returns {EngineResults} */
    search(query, options) {
      const o = options || {}, c = this.c;
      if (!this.texts) throw new Error("search needs the texts: call addTexts first");
      const typed = this.an.clean(query), game = o.game || "";
      const limit = Math.max(0, Math.min(o.limit === undefined ? c.limits.search : o.limit, c.limits.most));
      const offset = Math.max(0, o.offset || 0);
      const meant = o.typed ? null : this.layout(typed), text = meant || typed;
      const rewrite = o.typed ? { text: text, synonyms: [], game: null, related: [] } :
        this.rewriter.rewrite(text, game, c.budget);
      let plan = this.plan(rewrite.text, !o.typed, rewrite.related);
      // A game named in the query comes first, unless a filter already chose the game.
      const named = game ? null : rewrite.game;
      /** @type {[string, string][]} */
      const corrections = plan.words.filter(function (x) { return x.corrections.length && !x.known; })
        .map((x) => [x.text, this.said(x.corrections[0])]);
      /** @type {EngineResults} */
      const result = { query: typed, total: 0, hits: [], synonyms: rewrite.synonyms,
        loanwords: this.heard(plan), corrections: corrections, suggestion: null, game_named: named,
        layout: meant ? [typed, meant] : null, dropped: [], partial: false, fallback: [], elsewhere: null };
      const allowed = this.allowed(game);
      if ((!plan.words.length && !plan.initials) || allowed === undefined) return result;
      let first = this.ranking(plan, allowed);
      if (first.order.length && corrections.length) {
        // A correction only where it clearly finds better (searcher.SearchIndex._search).
        const plain = this.plan(rewrite.text, false, rewrite.related);
        const found = this.ranking(plain, allowed);
        if (found.order.length && !this.clearlyBetter(plan, first.order[0], plain, found.order[0])) {
          plan = plain;
          first = found;
          result.corrections = [];
        }
      }
      if (allowed) {
        const other = this.elsewhere(plan, allowed, first);
        if (other !== null && !offset) result.elsewhere = this.hit(other, S.makeSnippet(this.segments[other][0].flat, null, c.snippet));
      }
      // In a short query a word that matched nothing is worth saying; in a sentence it is not.
      const short = !o.typed && plan.words.length <= c.limits.dropped_most;
      let missing = short ? this.missing(plan, rewrite.synonyms, first.order) : [];
      const content = plan.words.filter((w) => !this.an.isFunctionWord(w.text)).length;
      if (!o.typed && (!first.order.length || (missing.length && missing.length === content))) {
        // Nothing, or only entries sharing letters of the words: the closest word of any
        // rule's text, said so.
        const near = this.nearestWords(plan);
        if (near.length) {
          const swap = new Map(near);
          const nearPlan = this.plan(this.an.words(plan.text).map(function (w) { return swap.get(w) || w; }).join(" "), false, []);
          const found = this.ranking(nearPlan, allowed);
          if (found.order.length) {
            plan = nearPlan;
            first = found;
            missing = [];
            result.fallback = near.map((pair) => [pair[0], this.said(pair[1])]);
          }
        }
      }
      let ranked = first.order;
      if (!ranked.length) {
        // Did you mean: the closest title, with more edits than search allows; none when each
        // word is a word, one at least an everyday one (가방 is not 추방 misspelt).
        const an = this.an, words = plan.words;
        const allWords = words.some((w) => w.everyday) &&
          words.every((w) => w.known || w.everyday || an.isFunctionWord(w.text));
        const near = allWords ? [] : this.titles.fuzzyMatches(plan.alias || plan.stemCompact || plan.compact,
          c.typos.did_you_mean_extra).filter(function (m) { return !allowed || allowed.has(m[0]); });
        if (near.length) result.suggestion = this.hit(near[0][0], "");
        return result;
      }
      result.dropped = missing;
      result.partial = missing.length > 0 && missing.length === content;
      if (named) {
        const firstGame = this.gamesById[named[1]], games = this.docs.game;
        ranked = ranked.filter(function (d) { return games[d] === firstGame; })
          .concat(ranked.filter(function (d) { return games[d] !== firstGame; }));
      }
      const page = ranked.slice(offset, offset + limit);
      const terms = H.unique(S.highlightTerms(plan, c.snippet.min_term, this.an).map((t) => this.an.foldText(t)));
      const shown = page.map((d) => this.chosenSegment(d, terms));
      const pattern = S.termPattern(S.presentTerms(terms, shown.map(function (x) { return x.squashed; }),
        c.budget.highlight_chars), c.snippet);
      result.total = ranked.length;
      // A title hit reads from the rule's opening; a body hit from the sentence it matched.
      // The official term a players' word stood for is a title hit too (AoO → 틈새 공격).
      const tiers = first.tiers, an = this.an, titles = this.docs.title;
      const namedBy = new Set(rewrite.synonyms.map(function (pair) { return an.compactTitle(pair[1]); }));
      result.hits = page.map((d, i) => this.hit(d, S.makeSnippet(shown[i].flat, pattern, c.snippet,
        shown[i].folded, (tiers.get(d) || c.tier.NONE) >= c.tier.NAMES || namedBy.has(an.compactTitle(titles[d]))),
        shown[i]));
      return result;
    }

    /** The stages of `search(query, {game})`, as tests/cases/traces.json records them:
     * JSON data keyed by entry id. @param {string} query @param {string | null} game */
    trace(query, game) {
      const typed = this.an.clean(query), ids = this.docs.id;
      const rewrite = this.rewriter.rewrite(typed, game || "", this.c.budget);
      const plan = this.plan(rewrite.text, true, rewrite.related);
      const allowed = this.allowed(game || "");
      const ranking = (!plan.words.length && !plan.initials) || allowed === undefined ? null :
        this.ranking(plan, allowed === undefined ? null : allowed);
      const found = this.search(query, { game: game || "" });
      /** @template T @param {Map<number, T>} map @param {(value: T) => unknown} shape */
      function byId(map, shape) {
        /** @type {Record<string, unknown>} */
        const out = {};
        map.forEach(function (v, d) { out[ids[d]] = shape(v); });
        return out;
      }
      return {
        query: query, game: game, clean: typed,
        rewrite: rewrite,
        plan: { words: plan.words, initials: plan.initials, compact: plan.compact,
          stem_compact: plan.stemCompact, alias: plan.alias },
        terms: ranking ? ranking.terms : [],
        bm25: ranking ? byId(ranking.bm25, function (s) { return s; }) : {},
        tiers: ranking ? byId(ranking.tiers, function (t) { return t; }) : {},
        rerank: ranking ? byId(ranking.features, (f) => Object.assign({}, f, { factor: this.reranker.factor(f) })) : {},
        order: ranking ? ranking.order.map(function (d) { return ids[d]; }) : [],
        results: { total: found.total, ids: found.hits.map(function (h) { return h.id; }),
          snippets: found.hits.map(function (h) { return h.snippet; }), synonyms: found.synonyms,
          corrections: found.corrections, game_named: found.game_named,
          suggestion: found.suggestion ? found.suggestion.title : null }
      };
    }

    /** The titles best matching what is typed so far (no texts needed).
     * @param {string} query @param {number} [limit] @returns {EngineHit[]} */
    suggest(query, limit) {
      const an = this.an, cleaned = an.clean(query);
      let text = this.layout(cleaned) || cleaned;
      const most = Math.max(0, Math.min(limit === undefined ? this.c.limits.suggest : limit, this.c.limits.most));
      let words = an.words(text);
      if (!words.length || !most) return [];
      let hits = this.prefixHits(text, words);
      if (!hits.matches.length) {
        // Nothing starts so as typed: a word being typed in the other layout may (xmat → 틈ㅅ).
        const typing = this.typingLayout(text);
        if (typing !== null) {
          text = typing;
          words = an.words(typing);
          hits = this.prefixHits(text, words);
        }
      }
      const stemmed = hits.stemmed, titles = this.titles;
      let matches = hits.matches;
      // A title one typo away, unless a word is a real one (가방 is not 추방 misspelt).
      if (!matches.length && !words.some((w) => an.listed(w, this.everyday))) {
        matches = titles.fuzzyMatches(stemmed);
      }
      let found = titles.ranked(matches);
      // No title answers what is typed: the search's best results do (with the texts).
      if (!found.length && this.texts) found = this.best(text, most);
      return found.slice(0, most).map((d) => this.shortHit(d));
    }
    /** For `suggest`: the cleaned `text`'s `words`' stems run together, and the titles that
     * start as it does (searcher.SearchIndex._prefix_hits).
     * @param {string} text @param {string[]} words
     * @returns {{stemmed: string, matches: [number, number][]}} */
    prefixHits(text, words) {
      const an = this.an, titles = this.titles, rank = this.c.title_rank;
      const typed = words.join("");
      /** @type {[number, number][]} */
      let matches = [];
      // A player's word for an official term: that term's titles first.
      this.rewriter.rewrite(text, "", this.c.budget).synonyms.forEach(function (pair) {
        titles.prefixMatches(an.compactTitle(pair[1])).forEach(function (m) {
          if (m[1] <= rank.START) matches.push([m[0], rank.EXACT]);
        });
      });
      matches = matches.concat(titles.prefixMatches(typed));
      const stemmed = words.map(function (w) { return an.stem(w); }).join("");
      if (stemmed !== typed) matches = matches.concat(titles.prefixMatches(stemmed));
      if (H.isAscii(typed)) matches = matches.concat(titles.aliasPrefixMatches(an.aliasKey(text)));
      return { stemmed: stemmed, matches: matches };
    }
    /** The search's best `limit` documents for a cleaned `text`, for suggestions
     * (searcher.SearchIndex.best): no snippets, fallback or did-you-mean, and only the best
     * `limit` BM25 candidates re-ranked. @param {string} text @param {number} limit
     * @returns {number[]} */
    best(text, limit) {
      const rewrite = this.rewriter.rewrite(text, "", this.c.budget);
      const plan = this.plan(rewrite.text, true, rewrite.related);
      if ((!plan.words.length && !plan.initials) || limit <= 0) return [];
      let order = this.ranking(plan, null, limit).order;
      if (rewrite.game) {
        const firstGame = this.gamesById[rewrite.game[1]], games = this.docs.game;
        order = order.filter(function (d) { return games[d] === firstGame; })
          .concat(order.filter(function (d) { return games[d] !== firstGame; }));
      }
      // A step's page: its entry, as a title (documents.steps).
      return order.slice(0, limit).map((d) => this.page[d]);
    }
    /** A suggestion: a long title (a pasted FAQ question) cut at a space, with an ellipsis.
     * @param {number} d @returns {EngineHit} */
    shortHit(d) {
      const hit = this.hit(d, ""), most = this.c.limits.suggest_title;
      if (hit.title.length > most) {
        const cut = hit.title.lastIndexOf(" ", most - 1);
        hit.title = hit.title.slice(0, cut > 0 ? cut : most).replace(/[ ,]+$/, "") + "…";
      }
      return hit;
    }

    /** In the browser: the engine for the index at `indexUrl` of `analysis`, with the
     * texts at `textsUrl` when given, and each translation language's [index, texts] of
     * `languages` (only the languages the visitor reads). Each file is fetched once per page.
     * @param {string} indexUrl @param {string | null} textsUrl @param {string} analysis
     * @param {[string, string][]} [languages] @returns {Promise<Engine>} */
    static load(indexUrl, textsUrl, analysis, languages) {
      /** @param {string} url */
      function json(url) {
        return fetch(url, { credentials: "same-origin" }).then(function (r) {
          if (!r.ok) throw new Error(url + ": " + r.status);
          return r.json();
        });
      }
      const extra = textsUrl ? languages || [] : [];
      const key = [indexUrl, textsUrl || "", analysis].concat(extra.flat()).join(" ");
      let found = loading.get(key);
      if (!found) {
        const base = Promise.all([json(indexUrl), textsUrl ? json(textsUrl) : null]);
        const added = Promise.all(extra.map(function (pair) { return Promise.all(pair.map(json)); }));
        found = Promise.all([base, added]).then(function ([got, chunks]) {
          const engine = new Engine(got[0], analysis);
          if (got[1]) engine.addTexts(got[1]);
          chunks.forEach(function ([chunk, texts]) { engine.addLanguage(chunk, texts); });
          return engine;
        });
        found.catch(function () { loading.delete(key); });
        loading.set(key, found);
      }
      return found;
    }
  }
  /** @type {Map<string, Promise<Engine>>} */
  const loading = new Map();

  return Engine;
})(RulesAnalysis, RulesMatching);
