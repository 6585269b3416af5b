// 룰사전: search as you type. Progressive enhancement over the plain GET form: without this
// script the form still submits to /search. No framework, no other host.
(function () {
  "use strict";

  var form = document.querySelector("form.search-form[data-suggest]");
  if (!form) return;
  var input = form.querySelector("input[name=q]");
  var endpoint = form.getAttribute("data-suggest");
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
      .catch(function () {
        /* offline or aborted: the form still works */
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
