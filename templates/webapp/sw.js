// Pan online's service worker (pan_site/webapp.py serves it at /sw.js, scope "/").
//
// It keeps the site's static files (their names carry their hash in production, so a
// kept file is never stale) and the offline page in each language, and nothing else:
// every page goes to the network and is never kept (a page holds its player's data),
// and a request that is not a GET (a move, a form) is left alone. It also shows the
// site's pushes and opens (or focuses) the page a tapped one is about.
"use strict";

const VERSION = "__VERSION__";
const CACHE = "pan-" + VERSION;
const PRECACHE = {{ precache|safe }};
const OFFLINE = {{ offline|safe }};  // language -> the offline page's URL
const DEFAULT_LANGUAGE = {{ default_language|safe }};
const HASHED = {{ hashed|safe }};  // static names carry their hash: a kept file never changes
const STATIC_URL = {{ static_url|safe }};
const ICON = {{ icon|safe }};
const BADGE = {{ badge|safe }};
// The reader's language, as the last page the network gave said it (Content-Language),
// kept in the cache beside the files so that it outlives the worker.
const LANGUAGE_KEY = "/offline/language";

self.addEventListener("install", (event) => {
  event.waitUntil((async () => {
    const cache = await caches.open(CACHE);
    // Fetched without cookies: what is kept was drawn for nobody in particular.
    const urls = PRECACHE.concat(Object.values(OFFLINE));
    await cache.addAll(urls.map((url) => new Request(url, { cache: "reload", credentials: "omit" })));
    await self.skipWaiting();
  })());
});

self.addEventListener("activate", (event) => {
  event.waitUntil((async () => {
    for (const name of await caches.keys()) {
      if (name.startsWith("pan-") && name !== CACHE) { await caches.delete(name); }
    }
    await self.clients.claim();
  })());
});

self.addEventListener("fetch", (event) => {
  const request = event.request;
  if (request.method !== "GET") { return; }  // a POST's answer is never kept
  const url = new URL(request.url);
  if (url.origin !== self.location.origin) { return; }
  if (request.mode === "navigate") {
    event.respondWith(navigate(request));
  } else if (url.pathname.startsWith(STATIC_URL)) {
    event.respondWith(staticFile(request));
  }
});

async function navigate(request) {
  try {
    const response = await fetch(request);
    const language = response.headers.get("Content-Language");
    if (language && OFFLINE[language]) { rememberLanguage(language); }
    return response;  // to the page, and never into the cache
  } catch (error) {
    const cache = await caches.open(CACHE);
    const page = await cache.match(OFFLINE[await readersLanguage(cache)]);
    return page || Response.error();
  }
}

async function staticFile(request) {
  const cache = await caches.open(CACHE);
  if (HASHED) {
    const kept = await cache.match(request);
    if (kept) { return kept; }
  }
  try {
    const response = await fetch(request);
    if (response.ok) { await cache.put(request, response.clone()); }
    return response;
  } catch (error) {
    const kept = await cache.match(request);
    if (kept) { return kept; }
    throw error;
  }
}

let language = null;

function rememberLanguage(code) {
  if (code === language) { return; }
  language = code;
  caches.open(CACHE).then((cache) => cache.put(LANGUAGE_KEY, new Response(code)));
}

async function readersLanguage(cache) {
  if (language) { return language; }
  const kept = await cache.match(LANGUAGE_KEY);
  const code = kept ? await kept.text() : (self.navigator.language || "").slice(0, 2);
  return OFFLINE[code] ? code : DEFAULT_LANGUAGE;
}

// A push (notifications.push): {title, body, url, tag, lang}, decrypted by the browser.
self.addEventListener("push", (event) => {
  let data = {};
  try { data = event.data ? event.data.json() : {}; } catch (error) { data = {}; }
  event.waitUntil(self.registration.showNotification(data.title || "Pan online", {
    body: data.body || "",
    lang: data.lang || "",
    tag: data.tag || "",
    renotify: Boolean(data.tag),  // a newer push about the same game replaces and rings
    icon: ICON,
    badge: BADGE,
    data: { url: data.url || "/" },
  }));
});

// A tap opens the game, or brings forward a window that shows it already.
self.addEventListener("notificationclick", (event) => {
  event.notification.close();
  const target = new URL((event.notification.data || {}).url || "/", self.location.origin);
  event.waitUntil((async () => {
    const windows = await self.clients.matchAll({ type: "window", includeUncontrolled: true });
    for (const client of windows) {
      const shown = new URL(client.url);
      if (shown.origin === target.origin && shown.pathname === target.pathname && "focus" in client) {
        return client.focus();
      }
    }
    return self.clients.openWindow(target.href);
  })());
});
