// Shared set-up of the browser tests: Debian's headless Chromium through playwright-core, the served
// web/dist at $APP_URL (scripts/test-browser.sh), and guards that fail a test on any console error, any
// uncaught page error (a panic included) or any request to a host other than the local server.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { chromium } from 'playwright-core';

export const APP_URL = process.env.APP_URL ?? 'http://127.0.0.1:8765/';

// The CLI binary as cargo built it (scripts/test-browser.sh asks cargo for its path: no fixed target/ folder,
// so CARGO_TARGET_DIR works); the parity tests compare the page with its --json.
export function cliBin() {
  const bin = process.env.KGADVISE_BIN;
  if (!bin || !existsSync(bin)) {
    throw new Error(`KGADVISE_BIN is ${bin ? `${bin}, which does not exist` : 'not set'}: run the browser tests with ` +
      'scripts/test-browser.sh, which builds the kgadvise CLI with cargo and exports its path');
  }
  return bin;
}
const ARGS = ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync'];

export async function launch() {
  return chromium.launch({ executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium', args: ARGS });
}

/** A browser with a profile in `dir` instead of an incognito context (what installing needs). */
export async function launchPersistent(dir, options = {}) {
  return chromium.launchPersistentContext(dir, {
    executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium', args: ARGS, ...options });
}

/** Puts the guards on a page: what goes wrong is pushed to the returned list. */
export function guard(page, site = APP_URL) {
  const problems = [];
  const local = new URL(site).host;
  page.on('pageerror', e => problems.push(`pageerror: ${e}`));
  page.on('console', m => { if (m.type() === 'error') problems.push(`console error: ${m.text()}`); });
  page.on('request', r => {
    const u = new URL(r.url());
    if (u.protocol !== 'data:' && u.host !== local) problems.push(`request to another host: ${r.url()}`);
  });
  page.on('response', r => { if (r.status() >= 400) problems.push(`HTTP ${r.status()}: ${r.url()}`); });
  return problems;
}

/** A new page with the guards on; `check()` asserts nothing went wrong so far. `contextOptions` (e.g.
 * clipboard permissions) opens it in a context of its own. */
export async function openPage(browser, search = '', contextOptions = null) {
  const page = await (contextOptions ? await browser.newContext(contextOptions) : browser).newPage();
  const problems = guard(page);
  await page.goto(new URL(search, APP_URL).href);
  await page.waitForSelector('#page-title', { timeout: 20000 });
  const check = () => assert.deepEqual(problems, []);
  return { page, check, problems };
}

/** The visible text of a selector, whitespace collapsed. */
export async function text(page, selector) {
  return (await page.locator(selector).first().innerText()).replace(/\s+/g, ' ').trim();
}

/** Waits until the address bar's query string contains `part`. */
export async function waitForQuery(page, part) {
  await page.waitForFunction(p => location.search.includes(p), part);
}
