// @ts-check
// 룰사전: search as you type. Progressive enhancement over the plain GET form: without this
// script the form still submits to /search. No framework, no other host. Offline (and on a
// static export) the browser engine answers: static/engine.js, loaded on demand. There is no
// second matcher: a page whose engine cannot load says so.
(function () {
  "use strict";

  // The browser engine (static/analysis.js, matching.js, engine.js), loaded on demand from
  // the URLs in `el`'s data attributes: offline searches and suggestions, and a static
  // export's search page, are answered by it from the client index (and, for searches, the
  // texts) of the analysis version the page names.
  /** @type {Promise<unknown> | null} */
  var scripts = null;
  /** @param {string} list */
  function loadScripts(list) {
    if (typeof RulesEngine !== "undefined") return Promise.resolve();
    if (!scripts) {
      /** @type {Promise<unknown>} */
      var chain = list.split(/\s+/).filter(Boolean).reduce(function (previous, src) {
        return previous.then(function () {
          return new Promise(function (resolve, reject) {
            var script = document.createElement("script");
            script.src = src;
            script.onload = resolve;
            script.onerror = reject;
            document.head.appendChild(script);
          });
        });
      }, /** @type {Promise<unknown>} */ (Promise.resolve()));
      scripts = chain;
      chain.catch(function () { scripts = null; });
    }
    return scripts;
  }
  /** The search files of the translations this browser reads ([index, texts] URLs): each
   * of navigator.languages that names one, by its whole tag or its language, as the service
   * worker saves them (templates/sw.js). @returns {[string, string][]} */
  function readLanguages() {
    var list = document.getElementById("offline-languages");
    if (!list) return [];
    /** @type {Record<string, [string, string]>} */
    var files = {};
    Array.prototype.forEach.call(list.querySelectorAll("a[data-lang]"), function (/** @type {HTMLAnchorElement} */ a) {
      files[a.getAttribute("data-lang") || ""] = [a.getAttribute("href") || "", a.getAttribute("data-texts") || ""];
    });
    /** @type {string[]} */
    var found = [];
    Array.from(navigator.languages || []).forEach(function (tag) {
      var lower = String(tag).toLowerCase();
      var lang = Object.prototype.hasOwnProperty.call(files, lower) ? lower : lower.split("-")[0];
      if (Object.prototype.hasOwnProperty.call(files, lang) && found.indexOf(lang) < 0) found.push(lang);
    });
    return found.map(function (lang) { return files[lang]; });
  }
  /** @param {Element} el @param {boolean} withTexts */
  function loadEngine(el, withTexts) {
    return loadScripts(el.getAttribute("data-scripts") || "").then(function () {
      if (typeof RulesEngine === "undefined") throw new Error("no engine");
      return RulesEngine.load(el.getAttribute("data-index") || "",
        withTexts ? el.getAttribute("data-texts") : null, el.getAttribute("data-analysis") || "",
        withTexts ? readLanguages() : []);
    });
  }

  /** @param {string} tag @param {string} className @param {string} [text] */
  function element(tag, className, text) {
    var el = document.createElement(tag);
    if (className) el.className = className;
    if (text) el.textContent = text;
    return el;
  }

  // One result as the search page shows it: title, game, where it sits and a snippet.
  /** @param {EngineHit} hit */
  function resultItem(hit) {
    var li = element("li", "result");
    var h2 = element("h2", "");
    var a = /** @type {HTMLAnchorElement} */ (element("a", "", hit.title));
    a.href = hit.url;
    h2.appendChild(a);
    li.appendChild(h2);
    if (hit.entry) {
      // Found in a translation's language: its title, and the entry beside it.
      h2.setAttribute("lang", hit.lang);
      var beside = element("p", "result-entry", hit.entry.lang_name + ": ");
      var entry = /** @type {HTMLAnchorElement} */ (element("a", "", hit.entry.title));
      entry.href = hit.entry.url;
      entry.setAttribute("lang", hit.entry.lang);
      beside.appendChild(entry);
      li.appendChild(beside);
    }
    var meta = element("p", "result-meta");
    var badge = element("span", "badge game game-" + hit.game, hit.game_short);
    badge.title = hit.game_name;
    meta.appendChild(badge);
    meta.appendChild(element("span", "crumbs", hit.where));
    li.appendChild(meta);
    var snippet = element("p", "snippet");
    if (hit.entry) snippet.setAttribute("lang", hit.lang);
    snippet.innerHTML = hit.snippet;  // the engine escapes the text; only <mark> is markup
    li.appendChild(snippet);
    return li;
  }

  var results = document.getElementById("offline-results");
  if (results) answerOffline(results);

  /** The offline page: answer the search (?q=) or /go/… it stands in for with the browser
   * engine; any other page it stands in for was simply not saved. @param {HTMLElement} results */
  function answerOffline(results) {
    var go = results.getAttribute("data-go") || "/go/";
    var path = window.location.pathname;
    var params = new URLSearchParams(window.location.search);
    var query = params.get("q") || "";
    var game = params.get("game") || "";  // the form adds the player's game, as online
    if (path.indexOf(go) === 0) {
      try { query = decodeURIComponent(path.slice(go.length)).replace(/_/g, " "); }
      catch (e) { query = path.slice(go.length); }
    } else if (!query && path !== results.getAttribute("data-self")) {
      show("offline-search", false);
      show("offline-page", true);
    }
    var heading = document.getElementById("offline-query");
    if (heading) heading.textContent = query;
    var box = /** @type {HTMLInputElement | null} */ (document.getElementById("search-q"));
    if (box && query) box.value = query;
    var none = document.getElementById("offline-none");
    var note = document.getElementById("offline-note");
    if (!query) return;
    if (note) {
      note.textContent = "찾는 중…";  // the first search prepares the engine
      note.hidden = false;
    }
    loadEngine(results, true).then(function (engine) {
      var found = engine.search(query, { limit: engine.c.limits.offline, game: game });
      results.textContent = "";
      var chosen = engine.index.games.filter(function (g) { return g.id === game; })[0];
      if (chosen && results.parentNode) results.parentNode.insertBefore(scopeChip(chosen.name), results);
      if (found.elsewhere) {
        // The best match outside the player's game, offered first, as online.
        var other = resultItem(found.elsewhere);
        other.className += " elsewhere";
        results.appendChild(other);
      }
      found.hits.forEach(function (hit) { results.appendChild(resultItem(hit)); });
      if (note) {
        // What the search changed, as the server's results page says it: a player's word
        // → the official term, and a typo correction.
        var changes = found.layout ? [" ‘" + found.layout[0] + "’ → ‘" + found.layout[1] + "’ (한/영 전환)."] : [];
        changes = changes.concat(found.synonyms.map(function (pair) {
          return " ‘" + pair[0] + "’ → 공식 용어 ‘" + pair[1] + "’.";
        }));
        // A loanword heard by sound (클루 → clue), as the server's page says it.
        changes = changes.concat(found.loanwords.map(function (heard) {
          return heard[2] ? " ‘" + heard[0] + "’ → 공식 용어 ‘" + heard[2] + "’." :
            " ‘" + heard[0] + "’ → ‘" + heard[1] + "’ (영어 낱말로 찾음).";
        }));
        var named = found.game_named;
        if (named) {
          var first = found.hits.filter(function (h) { return named && h.game === named[1]; })[0];
          if (first) changes.push(" ‘" + named[0] + "’ → " + first.game_name + " 규칙 먼저.");
        }
        // Like the server's notice, the words corrected, not the whole query.
        found.corrections.forEach(function (pair) {
          changes.push(" ‘" + pair[0] + "’ → ‘" + pair[1] + "’ (고쳐 찾은 말).");
        });
        found.fallback.forEach(function (pair) {
          changes.push(" ‘" + pair[0] + "’ 대신 본문의 비슷한 낱말 ‘" + pair[1] + "’로 찾았습니다.");
        });
        if (found.dropped.length && found.hits.length) {
          changes.push(" " + found.dropped.map(function (w) { return "‘" + w + "’"; }).join(", ") +
            (found.partial ? ": 이 말이 든 항목이 없어 글자 일부가 같은 항목을 보여 드립니다." :
              ": 어느 항목에도 없어 나머지 낱말로 찾았습니다."));
        }
        note.textContent = note.getAttribute("data-found") + changes.join("");
        note.hidden = !found.hits.length;
      }
      if (none) none.hidden = found.hits.length > 0;
      if (none && none.parentNode && found.suggestion) {
        // "Did you mean": the closest title, as the search page offers it.
        var p = element("p", "did-you-mean", "혹시 ");
        var a = /** @type {HTMLAnchorElement} */ (element("a", "", found.suggestion.title));
        a.href = found.suggestion.url;
        p.appendChild(a);
        p.appendChild(document.createTextNode(" 규칙을 찾으셨나요?"));
        none.parentNode.insertBefore(p, none.nextSibling);
      }
      results.setAttribute("data-ready", "engine");
    }).catch(function () {
      // No engine saved, or one of another version than this page (a worker mid-update).
      if (note) {
        note.textContent = note.getAttribute("data-unavailable");
        note.hidden = false;
      }
      results.setAttribute("data-ready", "none");
    });
  }

  /** The filter in force as a chip that removes it ("엘드리치 호러에서만 · 모든 게임"), as the
   * server's results page shows it: a remembered game never hides the answer silently.
   * @param {string} name */
  function scopeChip(name) {
    var params = new URLSearchParams(window.location.search);
    params.delete("game");
    var rest = params.toString();
    var url = window.location.pathname + (rest ? "?" + rest : "");
    var scope = element("p", "scope");
    var chip = element("span", "chip", name + "에서만");
    var clear = /** @type {HTMLAnchorElement} */ (element("a", "chip-clear"));
    clear.href = url;
    clear.setAttribute("data-clear-game", "");
    clear.setAttribute("aria-label", name + "에서만 해제: 모든 게임에서 찾기");
    var cross = element("span", "", "×");
    cross.setAttribute("aria-hidden", "true");
    clear.appendChild(cross);
    chip.appendChild(clear);
    scope.appendChild(chip);
    scope.appendChild(document.createTextNode(" · "));
    var all = /** @type {HTMLAnchorElement} */ (element("a", "", "모든 게임"));
    all.href = url;
    all.setAttribute("data-clear-game", "");
    scope.appendChild(all);
    return scope;
  }

  /** @param {string} id @param {boolean} visible */
  function show(id, visible) {
    var el = document.getElementById(id);
    if (el) el.hidden = !visible;
  }

  var form = document.querySelector("form.search-form[data-suggest]");
  var input = form && /** @type {HTMLInputElement | null} */ (form.querySelector("input[name=q]"));
  if (form && input) suggestAsYouType(form, input);

  /** Suggestions under the box while typing (↑/↓/Enter/Esc), and `/` to focus it.
   * @param {Element} form @param {HTMLInputElement} input */
  function suggestAsYouType(form, input) {
    var endpoint = form.getAttribute("data-suggest");
    /** @param {string} query */
    function offlineSuggestions(query) {
      // Offline: the engine's title matching (초성, particles, typos).
      return loadEngine(form, false).then(function (engine) { return engine.suggest(query); });
    }
    var list = document.createElement("ul");
    /** @type {{el: HTMLElement, url: string}[]} */
    var items = [];
    var active = -1;
    /** @type {ReturnType<typeof setTimeout> | undefined} */
    var timer;
    /** @type {AbortController | null} */
    var pending = null;
    var shown = "";

    list.id = "search-suggestions";
    list.className = "suggestions";
    list.setAttribute("role", "listbox");
    list.setAttribute("aria-label", "추천 항목");
    list.hidden = true;
    if (input.parentNode) input.parentNode.appendChild(list);
    input.setAttribute("role", "combobox");
    input.setAttribute("aria-autocomplete", "list");
    input.setAttribute("aria-expanded", "false");
    input.setAttribute("aria-controls", list.id);

    function close() {
      list.hidden = true;
      input.setAttribute("aria-expanded", "false");
      input.removeAttribute("aria-activedescendant");
      active = -1;
    }

    /** @param {number} index */
    function highlight(index) {
      if (!items.length) return;
      active = (index + items.length) % items.length;
      items.forEach(function (item, i) {
        item.el.setAttribute("aria-selected", i === active ? "true" : "false");
      });
      input.setAttribute("aria-activedescendant", items[active].el.id);
      items[active].el.scrollIntoView({ block: "nearest" });
    }

    /** @param {{suggestions: {title: string, url: string, context: string}[]}} data */
    function render(data) {
      list.textContent = "";
      items = data.suggestions.map(function (s, i) {
        var li = document.createElement("li");
        var link = document.createElement("a");
        var context = document.createElement("span");
        li.id = "suggestion-" + i;
        li.setAttribute("role", "option");
        li.setAttribute("aria-selected", "false");
        link.href = s.url;
        link.tabIndex = -1;
        link.textContent = s.title;
        context.className = "suggestion-context";
        context.textContent = s.context;
        link.appendChild(context);
        li.appendChild(link);
        list.appendChild(li);
        return { el: li, url: s.url };
      });
      active = -1;
      if (items.length) {
        list.hidden = false;
        input.setAttribute("aria-expanded", "true");
      } else {
        close();
      }
    }

    function fetchSuggestions() {
      var query = input.value.trim();
      if (query === shown) return;
      shown = query;
      if (pending) pending.abort();
      if (!query) {
        close();
        return;
      }
      if (!endpoint) {  // a static copy of the site has no server to ask: the engine answers
        showOffline(query);
        return;
      }
      pending = new AbortController();
      fetch(endpoint + "?q=" + encodeURIComponent(query), {
        signal: pending.signal,
        headers: { Accept: "application/json" }
      })
        .then(function (response) {
          return response.ok ? response.json() : { suggestions: [] };
        })
        .then(function (data) {
          if (input.value.trim() === query) render(data);
        })
        .catch(function (error) {
          if (error && error.name === "AbortError") return;
          showOffline(query);
        });
    }

    /** @param {string} query */
    function showOffline(query) {
      offlineSuggestions(query).then(function (suggestions) {
        if (input.value.trim() === query) render({ suggestions: suggestions });
      }).catch(function () { /* nothing cached: the form still works */ });
    }

    input.addEventListener("input", function () {
      clearTimeout(timer);
      timer = setTimeout(fetchSuggestions, 60);
    });

    input.addEventListener("keydown", function (event) {
      if (event.key === "ArrowDown" || event.key === "ArrowUp") {
        if (list.hidden && items.length) {
          list.hidden = false;
          input.setAttribute("aria-expanded", "true");
        }
        highlight(active + (event.key === "ArrowDown" ? 1 : -1));
        event.preventDefault();
      } else if (event.key === "Enter" && active >= 0 && !list.hidden) {
        event.preventDefault();
        window.location.href = items[active].url;
      } else if (event.key === "Escape") {
        if (!list.hidden) {
          close();
          event.preventDefault();
        }
      }
    });

    input.addEventListener("blur", function () {
      // Let a tap on a suggestion land before the list goes away.
      setTimeout(close, 150);
    });

    input.addEventListener("focus", function () {
      if (items.length && input.value.trim() === shown) {
        list.hidden = false;
        input.setAttribute("aria-expanded", "true");
      }
    });

    document.addEventListener("keydown", function (event) {
      var target = /** @type {HTMLElement | null} */ (event.target);
      var typing = target && (target.isContentEditable ||
        /^(INPUT|TEXTAREA|SELECT)$/.test(target.tagName));
      if (event.key === "/" && !typing && !event.ctrlKey && !event.metaKey && !event.altKey) {
        event.preventDefault();
        input.focus();
        input.select();
      }
    });
  }
})();
