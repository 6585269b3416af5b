// 룰사전: "changed since your last visit". The browser remembers the date of the newest rules
// it showed (localStorage only: no cookie, nothing on the server) and, once newer rules are
// served, marks what changed after that date: every element with a `data-changed` date later
// than the remembered one gets the class `changed-since` and its `.visit-mark` shown. The
// marks stay until the player clears them or the next data arrives. Works offline and on the
// static export (pages carry the dates; the script reads nothing else). A plain script: it
// defines the global `RulesVisits` (tests/test_visits.py loads it in Node the same way).
"use strict";
/* exported RulesVisits */

var RulesVisits = (function () {
  "use strict";

  /**
   * @typedef {{seen: string, before: string}} Visit
   * `seen`: the newest data date shown; `before`: the one shown before it (marks compare with it).
   */

  var DATE = /^\d{4}-\d{2}-\d{2}$/;

  /**
   * The visit after showing data of date `current`, given what was stored.
   * @param {unknown} stored
   * @param {string} current
   * @returns {Visit}
   */
  function advance(stored, current) {
    var s = /** @type {Partial<Visit> | null} */ (stored && typeof stored === "object" ? stored : null);
    if (!s || typeof s.seen !== "string" || !DATE.test(s.seen) ||
        typeof s.before !== "string" || !DATE.test(s.before)) {
      return { seen: current, before: current }; // a first visit marks nothing
    }
    if (s.seen === current) return { seen: s.seen, before: s.before };
    // Older data than last time (a restored backup, another copy of the site): start over.
    if (current < s.seen) return { seen: current, before: current };
    return { seen: current, before: s.seen };
  }

  /**
   * Whether something changed on `changed` is new to a visitor at `visit`.
   * @param {string | null} changed
   * @param {Visit} visit
   */
  function isNew(changed, visit) {
    return typeof changed === "string" && DATE.test(changed) && changed > visit.before;
  }

  /** @param {Visit} visit */
  function cleared(visit) { return { seen: visit.seen, before: visit.seen }; }

  /**
   * Mark the page. `doc` is the document, `storage` localStorage (or null when refused).
   * @param {Document} doc
   * @param {Storage | null} storage
   */
  function run(doc, storage) {
    var html = doc.documentElement;
    var current = html.getAttribute("data-changed");
    if (!current || !DATE.test(current)) return;
    var key = "rules-visit:" + (html.getAttribute("data-root") || "/");
    var stored = null;
    try { stored = storage ? JSON.parse(storage.getItem(key) || "null") : null; } catch (e) { stored = null; }
    var visit = advance(stored, current);
    /** @param {Visit} value */
    function save(value) {
      try { if (storage) storage.setItem(key, JSON.stringify(value)); } catch (e) { /* private mode */ }
    }
    save(visit);
    var marked = 0;
    Array.prototype.forEach.call(doc.querySelectorAll("[data-changed]"), function (/** @type {Element} */ el) {
      if (el === html || !isNew(el.getAttribute("data-changed"), visit)) return;
      el.classList.add("changed-since");
      marked += 1;
      var mark = /** @type {HTMLElement | null} */ (el.querySelector(".visit-mark"));
      if (mark) mark.hidden = false;
    });
    Array.prototype.forEach.call(doc.querySelectorAll("[data-visit-note]"), function (/** @type {HTMLElement} */ note) {
      note.hidden = marked === 0;
    });
    Array.prototype.forEach.call(doc.querySelectorAll("button[data-visit-clear]"), function (/** @type {HTMLElement} */ button) {
      button.addEventListener("click", function () {
        save(cleared(visit));
        Array.prototype.forEach.call(doc.querySelectorAll(".changed-since"), function (/** @type {Element} */ el) {
          el.classList.remove("changed-since");
          var mark = /** @type {HTMLElement | null} */ (el.querySelector(".visit-mark"));
          if (mark) mark.hidden = true;
        });
        Array.prototype.forEach.call(doc.querySelectorAll("[data-visit-note]"), function (/** @type {HTMLElement} */ note) {
          note.hidden = true;
        });
      });
    });
  }

  if (typeof document !== "undefined") {
    var storage = null;
    try { storage = window.localStorage; } catch (e) { storage = null; }
    run(document, storage);
  }
  return { advance: advance, isNew: isNew, cleared: cleared, run: run };
})();
