// Works offline and installs (issue 17): after one visit the service worker (web/sw.js, written by trunk's
// hook web/build-sw.mjs) has cached every file of the site, so with the network off the page reloads and
// diagnoses a log pasted through the real clipboard (Ctrl+V, never `fill`); no request leaves the site; the
// manifest parses (Chromium's own parser) and its icons load at their declared sizes.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { APP_URL, guard, launch, launchPersistent, text } from './harness.mjs';

const SITE = new URL(APP_URL).origin;
const LOG = readFileSync(new URL('../fixtures/diagnose/second-gpu-idle.csv', import.meta.url), 'utf8');
// The rules' long prose, which the wasm leaves out: the site's rules-prose.json (web/rules-prose.json).
const PROSE = JSON.parse(readFileSync(new URL('../../web/rules-prose.json', import.meta.url), 'utf8'));
const SECTIONS = ['What it checks', 'Why it matters', 'Example', 'Fix', 'Thresholds', 'Source'];
/** Markdown as the page shows it: no backticks or stars, whitespace collapsed. */
const plain = md => md.replace(/[`*]/g, '').replace(/\s+/g, ' ').trim();

let browser;
before(async () => { browser = await launch(); });
after(async () => { await browser?.close(); });

/** Requests outside the site fail and are recorded (the page's and the worker's). */
async function siteOnly(context, site = APP_URL) {
  const outside = [];
  const origin = new URL(site).origin;
  const isOutside = url => !['data:', 'blob:'].includes(url.protocol) && url.origin !== origin;
  await context.route(isOutside, route => { outside.push(route.request().url()); return route.abort(); });
  context.on('request', r => { if (isOutside(new URL(r.url()))) outside.push(r.url()); });
  return outside;
}

/** Loads the page and waits until its service worker is activated and controls it. */
async function firstVisit(context, search = '', site = APP_URL) {
  const page = await context.newPage();
  const problems = guard(page, site);
  await page.goto(new URL(search, site).href);
  await page.waitForSelector('#page-title', { timeout: 20000 });
  await page.waitForFunction(() => navigator.serviceWorker.controller?.state === 'activated', null, { timeout: 30000 });
  return { page, problems };
}

test('offline: after one visit the page reloads with the network off and diagnoses a log pasted with Ctrl+V', async () => {
  const context = await browser.newContext({ permissions: ['clipboard-read', 'clipboard-write'] });
  const outside = await siteOnly(context);
  try {
    const { page, problems } = await firstVisit(context, '?page=diagnose');

    // The worker's list is this build's files, and the cache holds every one of them.
    const { files, cached, referenced } = await page.evaluate(async () => {
      const sw = await (await fetch('sw.js')).text();
      const files = JSON.parse(sw.match(/const FILES = (\[.*?\]);/s)[1]);
      const names = await caches.keys();
      const cached = [];
      for (const name of names) for (const r of await (await caches.open(name)).keys()) cached.push(r.url);
      const base = document.baseURI;
      const referenced = [...document.querySelectorAll('script[src], link[href]')]
        .map(e => e.src || e.href)
        .concat(Object.values(document.querySelector('script[data-kg-js]').dataset).map(u => new URL(u, base).href));
      return { files: files.map(f => new URL(f, base).href), cached, referenced };
    });
    assert.deepEqual([...cached].sort(), [...files].sort(), 'the cache holds exactly the listed files');
    for (const url of referenced) assert.ok(files.includes(url), `index.html's ${url} is cached`);
    for (const f of ['index.html', 'boot.js', 'manifest.webmanifest', 'icons/icon-192.png', 'icons/icon-512.png',
      'icons/maskable-512.png']) {
      assert.ok(files.includes(new URL(f, APP_URL).href), `${f} is cached`);
    }
    // trunk writes its 64-bit file hash in hex without leading zeros: 16 digits, or fewer (1 build in 16)
    for (const ext of ['_bg.wasm', '.js', '.css']) {
      assert.ok(files.some(u => /-[0-9a-f]{12,16}(_bg)?\.[a-z]+$/.test(u) && u.endsWith(ext)), `a hashed *${ext} is cached`);
    }
    assert.ok(!files.some(u => u.endsWith('/sw.js')), 'the worker does not cache itself');

    await context.setOffline(true);
    // The network is really off: a site file the worker does not hold (sw.js itself) no longer loads.
    const probe = await context.newPage();
    await assert.rejects(probe.goto(new URL('sw.js', APP_URL).href), /ERR_INTERNET_DISCONNECTED/);
    await probe.close();

    const served = [];
    page.on('response', r => served.push([r.url(), r.fromServiceWorker()]));
    await page.reload();
    await page.waitForSelector('#page-title', { timeout: 20000 });
    assert.ok(served.length >= 4, `the page, boot.js, glue, wasm and css were requested (${served.length})`);
    assert.deepEqual(served.filter(([, sw]) => !sw), [], 'every response came from the service worker');

    await page.evaluate(text => navigator.clipboard.writeText(text), LOG);
    await page.focus('#log-paste');
    await page.keyboard.press('Control+V');
    await page.waitForSelector('.verdicts .verdict-second-gpu-idle', { timeout: 20000 });
    assert.ok(await page.locator('table.gpus tbody tr').count() >= 2, 'a row per GPU');

    assert.deepEqual(outside, [], 'no request left the site');
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});

test('offline: the rule docs show what a rule checks, why and its example, and the controls their hints, from the cache', async () => {
  const context = await browser.newContext();
  const outside = await siteOnly(context);
  const answered = page => page.waitForFunction(() => /Why it matters/.test(document.querySelector('#answer')?.textContent ?? ''),
    null, { timeout: 20000 });
  try {
    const { page, problems } = await firstVisit(context, '?page=rules&id=KM007');
    await answered(page);
    assert.deepEqual(await page.locator('#answer h4').allInnerTexts(), SECTIONS);
    const cached = await page.evaluate(async () => {
      const urls = [];
      for (const name of await caches.keys()) for (const r of await (await caches.open(name)).keys()) urls.push(r.url);
      return urls;
    });
    assert.ok(cached.includes(new URL('rules-prose.json', APP_URL).href), 'the worker caches rules-prose.json');

    await context.setOffline(true);
    const served = [];
    page.on('response', r => served.push([r.url(), r.fromServiceWorker()]));
    await page.goto(new URL('?page=rules&id=KV005', APP_URL).href);
    await page.waitForSelector('#page-title', { timeout: 20000 });
    await answered(page);
    assert.deepEqual(await page.locator('#answer h4').allInnerTexts(), SECTIONS);
    const shown = await text(page, '#answer');
    for (const section of ['what', 'why', 'example']) assert.ok(shown.includes(plain(PROSE.KV005[section])), section);
    assert.ok(served.some(([url]) => url.endsWith('/rules-prose.json')), 'the page read rules-prose.json');
    // The controls' hints (field-docs.json) come from the cache too.
    await page.goto(new URL('?page=cap', APP_URL).href);
    await page.waitForFunction(() => /^Measured runtime of a kernel of your own, hours\.$/
      .test(document.querySelector('#measured-hint')?.textContent ?? ''), null, { timeout: 20000 });
    assert.ok(served.some(([url]) => url.endsWith('/field-docs.json')), 'the page read field-docs.json');
    assert.deepEqual(served.filter(([, sw]) => !sw), [], 'every response came from the service worker');
    assert.deepEqual(outside, [], 'no request left the site');
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});

test('the rule docs say so when rules-prose.json cannot be read, and still show the fix, thresholds and source', async () => {
  // No worker (it would cache the file): the page's own fetch is answered 404.
  const context = await browser.newContext({ serviceWorkers: 'block' });
  await context.route(url => url.pathname.endsWith('/rules-prose.json'), route => route.fulfill({ status: 404, body: 'gone' }));
  try {
    const page = await context.newPage();
    const problems = guard(page);
    await page.goto(new URL('?page=rules&id=KM007', APP_URL).href);
    await page.waitForSelector('#answer [role=alert]', { timeout: 20000 });
    assert.equal(await text(page, '#answer [role=alert]'),
      'What KM007 checks, why it matters and its example could not be loaded (rules-prose.json: HTTP 404). ' +
      'Its fix, thresholds and source are below.');
    assert.deepEqual(await page.locator('#answer h4').allInnerTexts(), SECTIONS.slice(3));
    // The 404 itself is what this test asks for; nothing else may go wrong.
    assert.deepEqual(problems.filter(p => !/404/.test(p)), []);
  } finally {
    await context.close();
  }
});

/**
 * The site at APP_URL behind a server of this test, on its own origin (so its own worker and caches), whose
 * `deploy()` switches it to the next deploy: a changed index.html and the sw.js trunk's hook would write for
 * it (a new version). The browser's update check of sw.js is not seen by Playwright's routing, hence a server.
 */
async function deployableSite() {
  let deployed = false;
  const server = createServer(async (req, res) => {
    const upstream = await fetch(new URL(req.url.slice(1), APP_URL));
    let body = Buffer.from(await upstream.arrayBuffer());
    const path = new URL(req.url, APP_URL).pathname;
    if (deployed && path.endsWith('/sw.js')) {
      body = Buffer.from(body.toString().replace(/const VERSION = "[0-9a-f]{16}";/, 'const VERSION = "next-deploy";'));
    } else if (deployed && (path.endsWith('/') || path.endsWith('/index.html'))) {
      body = Buffer.from(body.toString().replace('<title>', '<meta name="kg-deploy" content="next" /><title>'));
    }
    res.writeHead(upstream.status, { 'content-type': upstream.headers.get('content-type') ?? 'application/octet-stream' });
    res.end(body);
  });
  await new Promise(resolve => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}/`,
    deploy: () => { deployed = true; },
    close: () => new Promise(resolve => server.close(resolve)),
  };
}

test('a new deploy: the changed sw.js caches the new files, deletes the old cache, and the next load is the new site', async () => {
  const site = await deployableSite();
  const context = await browser.newContext();
  const outside = await siteOnly(context, site.url);
  try {
    const { page, problems } = await firstVisit(context, '', site.url);
    const before = await page.evaluate(() => caches.keys());
    assert.equal(before.length, 1);
    assert.equal(before[0].replace(/ [0-9a-f]{16}$/, ''), `kgadvise ${site.url}`, 'named by the site folder and a version');

    site.deploy();
    await page.evaluate(async () => {
      const taken = new Promise(resolve => navigator.serviceWorker.addEventListener('controllerchange', resolve, { once: true }));
      await (await navigator.serviceWorker.getRegistration()).update();
      await taken;
    });
    // The page changes hands when the new worker activates; the old cache goes once its activation is done.
    await page.waitForFunction(() => navigator.serviceWorker.controller?.state === 'activated');
    assert.deepEqual(await page.evaluate(() => caches.keys()), [`kgadvise ${site.url} next-deploy`], 'the new cache only');

    await context.setOffline(true);
    await page.reload();
    await page.waitForSelector('#page-title', { timeout: 20000 });
    assert.equal(await page.locator('meta[name="kg-deploy"]').count(), 1, 'the reload is the new deploy, from the cache');
    assert.deepEqual(outside, [], 'no request left the site');
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
    await site.close();
  }
});

test('installs: the manifest parses, its icons load at their sizes, Chromium finds the page installable', async () => {
  // A profile on disk: Chromium never offers to install from an incognito context (Playwright's default).
  const profile = mkdtempSync(join(tmpdir(), 'kgadvise-install-'));
  const context = await launchPersistent(profile);
  const outside = await siteOnly(context);
  try {
    const { page, problems } = await firstVisit(context);
    const cdp = await context.newCDPSession(page);
    const { url, errors, data } = await cdp.send('Page.getAppManifest');
    assert.equal(url, new URL('manifest.webmanifest', APP_URL).href);
    assert.deepEqual(errors, [], "Chromium's manifest parser reports nothing");
    const manifest = JSON.parse(data);
    assert.equal(manifest.short_name, 'kgadvise');
    assert.equal(manifest.display, 'standalone');
    for (const key of ['start_url', 'scope', 'id']) {
      assert.equal(new URL(manifest[key], url).href, APP_URL, `${key} is the site folder, relative`);
    }
    const css = readFileSync(new URL('../../web/style.css', import.meta.url), 'utf8');
    for (const key of ['theme_color', 'background_color']) assert.ok(css.includes(manifest[key]), `${key} is a style.css colour`);

    const purposes = new Set();
    for (const icon of manifest.icons) {
      const src = new URL(icon.src, url).href;
      assert.ok(src.startsWith(APP_URL), `${icon.src} is on the site`);
      const size = await page.evaluate(src => new Promise((resolve, reject) => {
        const img = new Image();
        img.onload = () => resolve(`${img.naturalWidth}x${img.naturalHeight}`);
        img.onerror = () => reject(new Error(`${src} did not load`));
        img.src = src;
      }), src);
      if (icon.sizes !== 'any') assert.equal(size, icon.sizes, `${icon.src} is ${icon.sizes}`);
      purposes.add(`${icon.purpose} ${icon.sizes}`);
    }
    for (const p of ['any 192x192', 'any 512x512', 'maskable 512x512']) assert.ok(purposes.has(p), `an icon ${p}`);

    const { installabilityErrors } = await cdp.send('Page.getInstallabilityErrors');
    assert.deepEqual(installabilityErrors, [], 'Chromium finds the page installable');
    assert.deepEqual(outside, [], 'no request left the site');
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
    rmSync(profile, { recursive: true, force: true });
  }
});
