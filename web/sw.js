// kgadvise's service worker (web/sw.js): the site works offline once visited, and installs as an app.
// This is the template: trunk's post_build hook (web/build-sw.mjs, Trunk.toml) writes the built site's sw.js
// from it with the two values below filled in: every file of the built site (index.html, boot.js, the hashed
// wasm, glue and css, the manifest, icons, and whatever a copied folder such as examples/ holds) and a
// version made from their contents (a debug build, `trunk serve`, lists no files: it caches nothing). A
// deploy that changes any file changes sw.js, so the browser installs the new worker, which caches the new
// files; it then takes over and deletes the old cache.
// Every site file is answered from the cache, the page included, so a page and its hashed files always come
// from one deploy; a new deploy shows from the load after the one that installed it. Nothing outside the
// site folder is touched: other requests go to the network as if there were no worker.
const VERSION = /*@VERSION*/ 'unbuilt';
const FILES = /*@FILES*/ [];

// The folder sw.js is served from: the site's root.
const SITE = new URL('./', self.location).href;
const INDEX = new URL('index.html', SITE).href;
// Cache storage is shared by the whole origin: the name carries the site folder, so two copies of the site
// in two folders of one server keep their own caches.
const PREFIX = `kgadvise ${SITE} `;
const CACHE = PREFIX + VERSION;
const URLS = new Set(FILES.map((f) => new URL(f, SITE).href));

self.addEventListener('install', (event) => {
  event.waitUntil((async () => {
    // All or nothing: a file that fails leaves the previous worker and its cache in charge.
    const responses = await Promise.all([...URLS].map(async (url) => {
      // Revalidated with the server: this deploy's bytes, and no second download of what the page has just
      // loaded (a 304 for the files in the HTTP cache).
      const response = await fetch(url, { cache: 'no-cache' });
      if (!response.ok) throw new Error(`kgadvise offline cache: ${url} answered ${response.status}`);
      // A server that redirects (index.html to ./, say) gives a response a navigation may not be answered with.
      return [url, response.redirected
        ? new Response(await response.blob(), { status: response.status, statusText: response.statusText, headers: response.headers })
        : response];
    }));
    const cache = await caches.open(CACHE);
    await Promise.all(responses.map(([url, response]) => cache.put(url, response)));
    await self.skipWaiting();
  })());
});

self.addEventListener('activate', (event) => {
  event.waitUntil((async () => {
    for (const name of await caches.keys()) {
      if (name.startsWith(PREFIX) && name !== CACHE) await caches.delete(name);
    }
    await self.clients.claim();
  })());
});

self.addEventListener('fetch', (event) => {
  const { request } = event;
  if (request.method !== 'GET') return;
  const url = new URL(request.url);
  url.search = '';
  url.hash = '';
  // Every page is the one document (?page=...): the site folder itself is index.html.
  const key = url.href === SITE ? INDEX : url.href;
  if (!URLS.has(key)) return;
  event.respondWith((async () => {
    const cached = await (await caches.open(CACHE)).match(key);
    // Evicted by the browser: the network, as without a worker.
    return cached ?? fetch(request);
  })());
});
