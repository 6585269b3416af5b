// 룰사전: colour theme. Loaded in <head> (tiny, blocking) so a remembered dark theme applies
// before the first paint; the toggle button is wired once the page has loaded.
(function () {
  "use strict";
  var root = document.documentElement;
  var stored = null;
  // Script-only controls (theme toggle, copy buttons) are shown by CSS under .js, decided
  // before the first paint: no layout shift when the deferred scripts arrive.
  root.classList.add("js");
  try { stored = localStorage.getItem("theme"); } catch (e) { /* storage disabled */ }
  // The one place the theme is decided (style.css has a single dark palette, keyed on
  // data-theme): the visitor's stored choice, else the system's, followed while it changes.
  var system = window.matchMedia ? matchMedia("(prefers-color-scheme: dark)") : null;
  function follow() {
    root.setAttribute("data-theme", system && system.matches ? "dark" : "light");
  }
  if (stored === "dark" || stored === "light") {
    root.setAttribute("data-theme", stored);
  } else {
    follow();
    if (system && system.addEventListener) {
      system.addEventListener("change", function () { if (!stored) follow(); });
    }
  }

  function current() {
    return root.getAttribute("data-theme") === "dark" ? "dark" : "light";
  }

  function label(button) {
    var dark = current() === "dark";
    button.setAttribute("aria-pressed", dark ? "true" : "false");
    button.querySelector(".theme-label").textContent = dark ? "밝게" : "어둡게";
  }

  document.addEventListener("DOMContentLoaded", function () {
    var button = document.getElementById("theme-toggle");
    if (!button) return;
    label(button);
    button.addEventListener("click", function () {
      var next = current() === "dark" ? "light" : "dark";
      root.setAttribute("data-theme", next);
      stored = next;
      try { localStorage.setItem("theme", next); } catch (e) { /* not remembered */ }
      label(button);
    });
  });
})();
