// 룰사전: search as you type. Progressive enhancement over the plain GET form: without this
// script the form still submits to /search. No framework, no other host.
(function () {
  "use strict";

  var INITIALS = "ㄱㄲㄴㄷㄸㄹㅁㅂㅃㅅㅆㅇㅈㅉㅊㅋㅌㅍㅎ";
  var titles = null;

  // The fallback when the engine is not saved: the title list the service worker keeps,
  // titles and initial consonants (초성), including mixed input while typing (틈ㅅ).
  function pattern(query) {
    var source = "";
    for (var i = 0; i < query.length; i++) {
      var ch = query.charAt(i);
      var initial = INITIALS.indexOf(ch);
      if (initial >= 0) {
        var first = String.fromCharCode(0xAC00 + initial * 588);
        var last = String.fromCharCode(0xAC00 + initial * 588 + 587);
        source += "[" + ch + first + "-" + last + "]";
      } else {
        source += ch.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
      }
    }
    return new RegExp(source);
  }

  function offlineMatches(query, limit) {
    var key = query.replace(/\s+/g, "").toLowerCase();
    if (!key || !titles) return [];
    var re;
    try { re = pattern(key); } catch (e) { return []; }
    var found = [];
    titles.forEach(function (t) {
      var at = t.key.toLowerCase().search(re);
      if (at >= 0) found.push({ item: t, rank: (at === 0 ? 0 : 1) + t.key.length / 1000 });
    });
    found.sort(function (a, b) { return a.rank - b.rank; });
    return found.slice(0, limit).map(function (f) {
      return { title: f.item.title, url: f.item.url, context: f.item.context };
    });
  }

  function loadTitles(url) {
    if (titles || !url) return Promise.resolve(titles);
    return fetch(url).then(function (r) { return r.json(); }).then(function (data) {
      titles = data.titles;
      return titles;
    });
  }

  // The browser engine (static/analysis.js + static/engine.js), loaded on demand from the
  // URLs in `el`'s data attributes: offline searches and suggestions, and a static export's
  // search page, are answered by it from the client index (and, for searches, the texts).
  var scripts = null;
  function loadScripts(list) {
    if (window.RulesEngine) return Promise.resolve();
    if (!scripts) {
      scripts = (list || "").split(/\s+/).filter(Boolean).reduce(function (previous, src) {
        return previous.then(function () {
          return new Promise(function (resolve, reject) {
            var script = document.createElement("script");
            script.src = src;
            script.onload = resolve;
            script.onerror = reject;
            document.head.appendChild(script);
          });
        });
      }, Promise.resolve());
      scripts.catch(function () { scripts = null; });
    }
    return scripts;
  }
  function loadEngine(el, withTexts) {
    return loadScripts(el.getAttribute("data-scripts")).then(function () {
      if (!window.RulesEngine) throw new Error("no engine");
      return window.RulesEngine.load(el.getAttribute("data-index"),
        withTexts ? el.getAttribute("data-texts") : null);
    });
  }

  function element(tag, className, text) {
    var el = document.createElement(tag);
    if (className) el.className = className;
    if (text) el.textContent = text;
    return el;
  }

  // One result as the search page shows it: title, game, where it sits and a snippet.
  function resultItem(hit) {
    var li = element("li", "result");
    var h2 = element("h2");
    var a = element("a", "", hit.title);
    a.href = hit.url;
    h2.appendChild(a);
    li.appendChild(h2);
    var meta = element("p", "result-meta");
    var badge = element("span", "badge game game-" + hit.game, hit.game_short);
    badge.title = hit.game_name;
    meta.appendChild(badge);
    meta.appendChild(element("span", "crumbs", hit.where));
    li.appendChild(meta);
    var snippet = element("p", "snippet");
    snippet.innerHTML = hit.snippet;  // the engine escapes the text; only <mark> is markup
    li.appendChild(snippet);
    return li;
  }

  var results = document.getElementById("offline-results");
  if (results) {
    // The offline page: answer the search (?q=) or /go/… it stands in for with the browser
    // engine; any other page it stands in for was simply not saved.
    var go = results.getAttribute("data-go") || "/go/";
    var path = window.location.pathname;
    var params = new URLSearchParams(window.location.search);
    var query = params.get("q") || "";
    var game = params.get("game") || "";  // the form adds the player's game, as online
    if (path.indexOf(go) === 0) {
      try { query = decodeURIComponent(path.slice(go.length)).replace(/_/g, " "); }
      catch (e) { query = path.slice(go.length); }
    } else if (!query && path !== results.getAttribute("data-self")) {
      document.getElementById("offline-search").hidden = true;
      document.getElementById("offline-page").hidden = false;
    }
    var heading = document.getElementById("offline-query");
    if (heading) heading.textContent = query;
    var box = document.getElementById("search-q");
    if (box && query) box.value = query;
    var none = document.getElementById("offline-none");
    var note = document.getElementById("offline-note");
    if (query && note) {
      note.textContent = "찾는 중…";  // the first search prepares the engine
      note.hidden = false;
    }
    if (query) {
      loadEngine(results, true).then(function (engine) {
        var found = engine.search(query, { limit: 20, game: game });
        results.textContent = "";
        found.hits.forEach(function (hit) { results.appendChild(resultItem(hit)); });
        if (note) {
          // What the search changed, as the server's results page says it: a player's word
          // → the official term, and a typo correction.
          var changes = found.synonyms.map(function (pair) {
            return " ‘" + pair[0] + "’ → 공식 용어 ‘" + pair[1] + "’.";
          });
          if (found.game_named) {
            var named = found.hits.filter(function (h) { return h.game === found.game_named[1]; })[0];
            if (named) changes.push(" ‘" + found.game_named[0] + "’ → " + named.game_name + " 규칙 먼저.");
          }
          // Like the server's notice, the words corrected, not the whole query.
          found.corrections.forEach(function (pair) {
            changes.push(" ‘" + pair[0] + "’ → ‘" + pair[1] + "’ (고쳐 찾은 말).");
          });
          note.textContent = note.getAttribute("data-found") + changes.join("");
          note.hidden = !found.hits.length;
        }
        if (none) none.hidden = found.hits.length > 0;
        if (none && found.suggestion) {
          // "Did you mean": the closest title, as the search page offers it.
          var p = element("p", "did-you-mean", "혹시 ");
          var a = element("a", "", found.suggestion.title);
          a.href = found.suggestion.url;
          p.appendChild(a);
          p.appendChild(document.createTextNode(" 규칙을 찾으셨나요?"));
          none.parentNode.insertBefore(p, none.nextSibling);
        }
        results.setAttribute("data-ready", "engine");
      }).catch(function () {
        // No engine or index saved (a worker from before it existed): titles only.
        loadTitles(results.getAttribute("data-titles")).then(function () {
          var matches = offlineMatches(query, 50);
          results.textContent = "";
          matches.forEach(function (m) {
            var li = element("li");
            var a = element("a", "", m.title);
            a.href = m.url;
            li.appendChild(a);
            results.appendChild(li);
          });
          if (none) none.hidden = matches.length > 0;
          results.setAttribute("data-ready", "titles");
        }).catch(function () { /* nothing cached yet */ });
      });
    }
  }

  var form = document.querySelector("form.search-form[data-suggest]");
  if (!form) return;
  var input = form.querySelector("input[name=q]");
  var endpoint = form.getAttribute("data-suggest");
  var titlesUrl = form.getAttribute("data-titles");
  function offlineSuggestions(query) {
    // Offline: the engine's title matching (초성, particles, typos); the title list if the
    // engine was never saved.
    return loadEngine(form, false).then(function (engine) {
      return engine.suggest(query, 8);
    }).catch(function () {
      return loadTitles(titlesUrl).then(function () { return offlineMatches(query, 8); });
    });
  }
  var list = document.createElement("ul");
  var items = [];
  var active = -1;
  var timer = 0;
  var pending = null;
  var shown = "";

  list.id = "search-suggestions";
  list.className = "suggestions";
  list.setAttribute("role", "listbox");
  list.setAttribute("aria-label", "추천 항목");
  list.hidden = true;
  input.parentNode.appendChild(list);
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

  function highlight(index) {
    if (!items.length) return;
    active = (index + items.length) % items.length;
    items.forEach(function (item, i) {
      item.el.setAttribute("aria-selected", i === active ? "true" : "false");
    });
    input.setAttribute("aria-activedescendant", items[active].el.id);
    items[active].el.scrollIntoView({ block: "nearest" });
  }

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
    var target = event.target;
    var typing = target && (target.isContentEditable ||
      /^(INPUT|TEXTAREA|SELECT)$/.test(target.tagName));
    if (event.key === "/" && !typing && !event.ctrlKey && !event.metaKey && !event.altKey) {
      event.preventDefault();
      input.focus();
      input.select();
    }
  });
})();
