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
  if (stored === "dark" || stored === "light") root.setAttribute("data-theme", stored);

  function current() {
    var chosen = root.getAttribute("data-theme");
    if (chosen) return chosen;
    return window.matchMedia && matchMedia("(prefers-color-scheme: dark)").matches ? "dark" : "light";
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
      try { localStorage.setItem("theme", next); } catch (e) { /* not remembered */ }
      label(button);
    });
  });
})();
