// 룰사전: permalinks, the offline banner and the service worker. Progressive enhancement:
// every page works without this script.
(function () {
  "use strict";

  var status = document.getElementById("live-status");

  function announce(text) {
    if (!status) return;
    status.textContent = "";
    window.setTimeout(function () { status.textContent = text; }, 50);
  }

  function copy(text) {
    if (navigator.clipboard && window.isSecureContext) {
      return navigator.clipboard.writeText(text);
    }
    // Plain-http self-hosting: fall back to a hidden textarea and execCommand.
    return new Promise(function (resolve, reject) {
      var area = document.createElement("textarea");
      area.value = text;
      area.setAttribute("readonly", "");
      area.className = "visually-hidden";
      document.body.appendChild(area);
      area.select();
      var ok = false;
      try { ok = document.execCommand("copy"); } catch (e) { ok = false; }
      document.body.removeChild(area);
      if (ok) { resolve(); } else { reject(new Error("copy failed")); }
    });
  }

  function say(button, text) {
    var label = button.querySelector(".copy-label");
    if (label) label.textContent = text;
  }

  function copyInto(button, url) {
    copy(url).then(function () {
      button.classList.add("copied");
      say(button, "복사됨");
      announce("링크를 복사했습니다: " + url);
      window.setTimeout(function () {
        button.classList.remove("copied");
        say(button, "링크 복사");
      }, 2000);
    }, function () {
      announce("복사하지 못했습니다. 주소창의 링크를 쓰세요.");
    });
  }

  // A sub-section's button holds its path (that part of the page is rendered once for every
  // host): the link shared is that path on the page's canonical address, which names the
  // public host even behind a proxy.
  function shared(url) {
    var canonical = document.querySelector('link[rel="canonical"]');
    try {
      return new URL(url, canonical ? canonical.getAttribute("href") || "" : location.href).href;
    } catch (e) {
      return url;
    }
  }

  // On a phone (a coarse pointer), the system share sheet sends the link to a chat or a
  // forum app directly; elsewhere, or when sharing is refused, the link is copied.
  var shareSheet = typeof navigator.share === "function" && window.matchMedia &&
    window.matchMedia("(pointer: coarse)").matches;

  Array.prototype.forEach.call(document.querySelectorAll("button.copy-link"), function (button) {
    if (shareSheet) say(button, "링크 공유");
    button.addEventListener("click", function () {
      var url = shared(button.getAttribute("data-url") || "");
      if (shareSheet) {
        navigator.share({ title: button.getAttribute("data-title") || document.title, url: url })
          .catch(function (error) {
            if (!error || error.name !== "AbortError") copyInto(button, url);
          });
        return;
      }
      copyInto(button, url);
    });
  });

  // 보유 게임: tick or untick every collection at once.
  Array.prototype.forEach.call(document.querySelectorAll("[data-check]"), function (button) {
    button.addEventListener("click", function () {
      var on = button.getAttribute("data-check") === "all";
      Array.prototype.forEach.call(
        document.querySelectorAll('.owned-form input[name="owned"]'),
        function (box) { box.checked = on; });
    });
  });

  // Search filters apply as soon as they change; the chosen game is remembered, and the
  // search box on every page searches that game until the player picks "모든 게임".
  var GAME_KEY = "rules-game";
  function stored() {
    try { return window.localStorage.getItem(GAME_KEY) || ""; } catch (e) { return ""; }
  }
  var filters = document.querySelector("form.filters");
  if (filters) {
    Array.prototype.forEach.call(filters.querySelectorAll("select"), function (select) {
      select.addEventListener("change", function () {
        if (select.name === "game") {
          try { window.localStorage.setItem(GAME_KEY, select.value); } catch (e) { /* private */ }
        }
        filters.submit();
      });
    });
  }
  // The scope chip's "모든 게임" forgets the remembered game, so later searches see it all
  // (delegated: the offline page adds its chip after the engine answers).
  document.addEventListener("click", function (event) {
    var target = /** @type {Element | null} */ (event.target);
    if (target && target.closest && target.closest("[data-clear-game]")) {
      try { window.localStorage.removeItem(GAME_KEY); } catch (e) { /* private */ }
    }
  });
  Array.prototype.forEach.call(document.querySelectorAll("form.search-form"), function (form) {
    form.addEventListener("submit", function () {
      var game = stored();
      if (game && !form.querySelector('input[name="game"]')) {
        var hidden = document.createElement("input");
        hidden.type = "hidden";
        hidden.name = "game";
        hidden.value = game;
        form.appendChild(hidden);
      }
    });
  });

  // Jump bars (the 가나다 bar, /timing's pills) scroll sideways on a phone: a fade and an arrow
  // show on the side that has more, and the section being read stays marked and in view.
  Array.prototype.forEach.call(document.querySelectorAll(".jumpbar, .phase-jump"), function (bar) {
    var list = bar.querySelector("ul");
    if (!list) return;
    var links = Array.prototype.filter.call(list.querySelectorAll('a[href^="#"]'), function (a) {
      return document.getElementById(decodeURIComponent(a.hash.slice(1)));
    });
    var current = null;
    function edges() {
      var more = [];
      if (list.scrollLeft > 2) more.push("start");
      if (list.scrollLeft + list.clientWidth < list.scrollWidth - 2) more.push("end");
      bar.setAttribute("data-more", more.join(" "));
    }
    function reading() {
      // The last section whose top has passed just below the bar is the one being read.
      // At the foot of the page, the last section on screen (a short one never reaches the
      // line).
      var line = bar.getBoundingClientRect().bottom + 24;
      var root = document.documentElement;
      if (window.innerHeight + window.scrollY >= root.scrollHeight - 2) line = window.innerHeight;
      var found = null;
      links.forEach(function (a) {
        var target = document.getElementById(decodeURIComponent(a.hash.slice(1)));
        if (target && target.getBoundingClientRect().top <= line) found = a;
      });
      if (found === current) return;
      if (current) current.removeAttribute("aria-current");
      current = found;
      if (!found) return;
      found.setAttribute("aria-current", "location");
      var box = list.getBoundingClientRect(), at = found.getBoundingClientRect();
      if (at.left < box.left || at.right > box.right) {
        list.scrollLeft += at.left - box.left - (box.width - at.width) / 2;
      }
    }
    var queued = false;
    window.addEventListener("scroll", function () {
      if (queued) return;
      queued = true;
      window.requestAnimationFrame(function () { queued = false; reading(); });
    }, { passive: true });
    list.addEventListener("scroll", edges, { passive: true });
    window.addEventListener("resize", edges);
    edges();
    reading();
  });

  var banner = document.getElementById("offline-banner");
  function showConnection() {
    if (banner) banner.hidden = navigator.onLine;
  }
  window.addEventListener("online", showConnection);
  window.addEventListener("offline", showConnection);
  showConnection();

  // Once the whole reference is on this device, the footer says so (per data version).
  var SAVED_KEY = "rules-saved";
  var savedNote = document.getElementById("saved-note");
  function showSaved() {
    try {
      if (savedNote && window.localStorage.getItem(SAVED_KEY)) savedNote.hidden = false;
    } catch (e) { /* private browsing */ }
  }
  showSaved();

  // While the service worker saves the reference (after the page has loaded), a small notice
  // shows how far it has got, then "오프라인 준비 완료" for a few seconds: once per data
  // version, on the device that saved it.
  var progress = document.getElementById("offline-progress");
  var hideTimer = 0;
  function savedAlready(data) {
    try { return window.localStorage.getItem(SAVED_KEY) === data; } catch (e) { return false; }
  }
  function notify(text, done) {
    if (!progress) return;
    progress.textContent = text;
    progress.hidden = false;
    progress.classList.toggle("done", done);
    window.clearTimeout(hideTimer);
    if (done) hideTimer = window.setTimeout(function () { progress.hidden = true; }, 6000);
  }

  var worker = document.documentElement.getAttribute("data-sw");
  if (worker && "serviceWorker" in navigator) {
    navigator.serviceWorker.addEventListener("message", function (event) {
      var data = event.data;
      if (!data) return;
      if (data.type === "saving") {
        if (!savedAlready(data.data) && data.total) {
          notify("오프라인 저장 중 " + Math.floor(100 * data.done / data.total) + "%", false);
        }
        return;
      }
      if (data.type !== "saved") return;
      var first = !savedAlready(data.data);
      try { window.localStorage.setItem(SAVED_KEY, data.data); } catch (e) { /* ok */ }
      showSaved();
      if (first) notify("✓ 오프라인 준비 완료 · 인터넷 없이도 열립니다", true);
      announce("규칙 " + data.pages + "쪽을 이 기기에 저장했습니다. 인터넷 없이도 열립니다.");
    });
    window.addEventListener("load", function () {
      navigator.serviceWorker.register(worker, {
        scope: document.documentElement.getAttribute("data-root") || "/"
      }).catch(function () { /* offline use is optional */ });
      // The worker saves a translation's pages only for a browser that reads its language.
      navigator.serviceWorker.ready.then(function (registration) {
        if (registration.active) {
          registration.active.postMessage({ type: "languages", accept: Array.from(navigator.languages || []) });
        }
      }).catch(function () { /* ok */ });
    });
  }
})();
