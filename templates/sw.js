/* 룰사전 service worker (generated per data version; see app/web/offline.py). */
"use strict";

const VERSION = {{ version|tojson }};
const CACHE = "rulesajeon-" + VERSION;
const SHELL = {{ shell|tojson }};
const PAGES = {{ pages|tojson }};
// A translation's search files and pages, saved only for a visitor whose browser reads it.
const LANGUAGES = {{ languages|tojson }};
const OFFLINE = {{ offline|tojson }};
const SEARCH = {{ search|tojson }};
const API = {{ api|tojson }};
const TITLES = {{ titles|tojson }};
const STATIC = {{ static|tojson }};
const DATA = {{ version_label|tojson }};
// Online but slow (a weak signal at the table): the saved copy after this long. Known to be
// offline: the saved copy at once, with no wait at all.
const NETWORK_TIMEOUT_MS = 1500;

// How far the install has got, told to the open pages at most every PROGRESS_MS.
const PROGRESS_MS = 500;
const TOTAL = SHELL.length + PAGES.length;
let fetched = 0;
let toldAt = 0;

async function tellProgress() {
  const now = Date.now();
  if (now - toldAt < PROGRESS_MS) return;
  toldAt = now;
  const clients = await self.clients.matchAll({ includeUncontrolled: true, type: "window" });
  for (const client of clients) {
    client.postMessage({ type: "saving", data: DATA, done: fetched, total: TOTAL });
  }
}

async function precache(cache, urls, parallel) {
  // One failed page must not cost the rest: fetch each, keep what arrives. Low priority: the
  // page the player opened, and the next one, come before the saved copy.
  let next = 0;
  async function worker() {
    while (next < urls.length) {
      const url = urls[next++];
      try {
        const response = await fetch(url, { credentials: "same-origin", priority: "low" });
        if (response.ok) await cache.put(url, response);
      } catch (error) {
        /* offline during install: the page is cached on its first visit instead */
      }
      fetched += 1;
      tellProgress();
    }
  }
  await Promise.all(Array.from({ length: parallel }, worker));
}

self.addEventListener("install", (event) => {
  // The whole reference is small: keep all of it after the first visit.
  event.waitUntil((async () => {
    const cache = await caches.open(CACHE);
    await precache(cache, SHELL, 4);
    await precache(cache, PAGES, 6);
    await self.skipWaiting();
  })());
});

async function tellSaved() {
  // Say (once per data version) that the whole reference is now on this device.
  const cache = await caches.open(CACHE);
  const saved = (await cache.keys()).length;
  const clients = await self.clients.matchAll({ includeUncontrolled: true, type: "window" });
  for (const client of clients) client.postMessage({ type: "saved", data: DATA, pages: saved });
}

// The translations this browser reads: each of its languages (navigator.languages, as the
// pages send them) that names one, by its whole tag (zh-CN) or its language (de-AT → de).
function readLanguages(accept) {
  const found = [];
  for (const tag of accept || []) {
    const lower = String(tag).toLowerCase();
    const lang = lower in LANGUAGES ? lower : lower.split("-")[0];
    if (lang in LANGUAGES && !found.includes(lang)) found.push(lang);
  }
  return found;
}

self.addEventListener("message", (event) => {
  const data = event.data;
  if (!data || data.type !== "languages") return;
  event.waitUntil((async () => {
    const cache = await caches.open(CACHE);
    for (const lang of readLanguages(data.accept)) {
      const missing = [];
      for (const url of LANGUAGES[lang]) if (!(await cache.match(url))) missing.push(url);
      await precache(cache, missing, 4);
    }
  })());
});

self.addEventListener("activate", (event) => {
  event.waitUntil((async () => {
    const names = await caches.keys();
    await Promise.all(names.filter((n) => n.startsWith("rulesajeon-") && n !== CACHE)
      .map((n) => caches.delete(n)));
    await self.clients.claim();
    await tellSaved();
  })());
});

function withTimeout(promise, ms) {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error("timeout")), ms);
    promise.then((value) => { clearTimeout(timer); resolve(value); },
                 (error) => { clearTimeout(timer); reject(error); });
  });
}

async function networkFirst(request) {
  const cache = await caches.open(CACHE);
  try {
    if (self.navigator && self.navigator.onLine === false) throw new Error("offline");
    const response = await withTimeout(fetch(request), NETWORK_TIMEOUT_MS);
    if (response.ok && request.method === "GET") cache.put(request, response.clone());
    return response;
  } catch (error) {
    const cached = await cache.match(request);
    if (cached) return cached;
    const url = new URL(request.url);
    if (request.mode === "navigate") {
      const fallback = await cache.match(OFFLINE);
      if (fallback) return fallback;
    }
    if (url.pathname === SEARCH) {
      const fallback = await cache.match(OFFLINE);
      if (fallback) return fallback;
    }
    throw error;
  }
}

async function cacheFirst(request) {
  const cache = await caches.open(CACHE);
  const cached = await cache.match(request);
  if (cached) return cached;
  const response = await fetch(request);
  if (response.ok) cache.put(request, response.clone());
  return response;
}

self.addEventListener("fetch", (event) => {
  const request = event.request;
  const url = new URL(request.url);
  if (request.method !== "GET" || url.origin !== self.location.origin) return;
  if (url.pathname.startsWith(STATIC)) {
    event.respondWith(cacheFirst(request));
  } else if (url.pathname.startsWith(API) && url.pathname !== TITLES) {
    return;  // live answers only; the page falls back to the title list offline
  } else {
    event.respondWith(networkFirst(request));
  }
});
