// 룰사전: search as you type. Progressive enhancement over the plain GET form: without this
// script the form still submits to /search. No framework, no other host.
(function () {
  "use strict";

  var INITIALS = "ㄱㄲㄴㄷㄸㄹㅁㅂㅃㅅㅆㅇㅈㅉㅊㅋㅌㅍㅎ";
  var titles = null;

  // Offline, suggestions come from the title list the service worker keeps: titles and
  // initial consonants (초성), including mixed input while typing (틈ㅅ).
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

  var results = document.getElementById("offline-results");
  if (results) {
    // The offline page: answer the search (?q=) or /go/… it stands in for, from titles only;
    // any other page it stands in for was simply not saved.
    var go = results.getAttribute("data-go") || "/go/";
    var path = window.location.pathname;
    var query = new URLSearchParams(window.location.search).get("q") || "";
    if (path.indexOf(go) === 0) {
      try { query = decodeURIComponent(path.slice(go.length)).replace(/_/g, " "); }
      catch (e) { query = path.slice(go.length); }
    } else if (!query) {
      document.getElementById("offline-search").hidden = true;
      document.getElementById("offline-page").hidden = false;
    }
    var heading = document.getElementById("offline-query");
    if (heading) heading.textContent = query;
    var box = document.getElementById("search-q");
    if (box && query) box.value = query;
    loadTitles(results.getAttribute("data-titles")).then(function () {
      var matches = offlineMatches(query, 50);
      results.textContent = "";
      matches.forEach(function (m) {
        var li = document.createElement("li");
        var a = document.createElement("a");
        a.href = m.url;
        a.textContent = m.title;
        li.appendChild(a);
        results.appendChild(li);
      });
      var none = document.getElementById("offline-none");
      if (none) none.hidden = matches.length > 0 || !query;
    }).catch(function () { /* nothing cached yet */ });
  }

  var form = document.querySelector("form.search-form[data-suggest]");
  if (!form) return;
  var input = form.querySelector("input[name=q]");
  var endpoint = form.getAttribute("data-suggest");
  var titlesUrl = form.getAttribute("data-titles");
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
        // Offline: match titles from the cached list instead.
        loadTitles(titlesUrl).then(function () {
          if (input.value.trim() === query) {
            render({ suggestions: offlineMatches(query, 8) });
          }
        }).catch(function () { /* no list cached either: the form still works */ });
      });
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
