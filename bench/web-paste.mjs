// Paste-to-verdict and file-to-verdict times of the Diagnose page in headless Chromium, the way a user gets
// a log in (bench/web.sh runs it):
//   paste  the log written to the clipboard (`navigator.clipboard.writeText`, in a context granted
//          clipboard-read/-write), the box focused, Ctrl+V pressed: timed from the page's `keydown` of the
//          key press, so the browser's own handling of the paste (reading the clipboard, laying out or not
//          laying out the text in the box) is inside the time;
//   pick   the log chosen in the file input (`setInputFiles` with its path): timed from the input's
//          `change` event;
//   drop   a File of the log dropped on the box (a DragEvent with a DataTransfer, as a drag from the
//          desktop): timed from just before the `drop` event is dispatched.
// Each time ends at the first animation frame after the verdicts are in the DOM (a MutationObserver sees
// `.verdicts li`), i.e. the frame that draws them. Several sites (e.g. the build before a change and the
// one after, each served on its own port) are measured interleaved, run by run, so both see the same load
// on the machine. Every measurement gets a fresh page (and context).
// Usage: node bench/web-paste.mjs LOG_FILE RUNS NAME=URL [NAME=URL ...]
//        (or APP_URL=http://127.0.0.1:PORT/ node bench/web-paste.mjs LOG_FILE [RUNS]: one site, "site")
// Prints one JSON line per site and mode (runs, best, median, every time in ms, the verdicts), then a
// Markdown table of the medians.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
const require = createRequire(new URL('../tests/browser/package.json', import.meta.url));
const { chromium } = require('playwright-core');

const [file, runsArg, ...siteArgs] = process.argv.slice(2);
const runs = Number(runsArg ?? 5);
const sites = siteArgs.length
  ? siteArgs.map(a => { const i = a.indexOf('='); return { name: a.slice(0, i), url: a.slice(i + 1) }; })
  : [{ name: 'site', url: process.env.APP_URL }];
const MODES = (process.env.MODES ?? 'paste,pick,drop').split(',');
const log = readFileSync(file, 'utf8');
const browser = await chromium.launch({ executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update'] });

/** In the page: resolves with the time (performance.now()) of the first frame after the verdicts appear. */
function armVerdictClock() {
  window.__verdictAt = new Promise(resolve => {
    const seen = () => requestAnimationFrame(() => resolve({ at: performance.now(),
      verdicts: document.querySelector('.verdicts').textContent }));
    const mo = new MutationObserver(() => { if (document.querySelector('.verdicts li')) { mo.disconnect(); seen(); } });
    mo.observe(document.body, { childList: true, subtree: true });
  });
}

async function openDiagnose(site) {
  const context = await browser.newContext({ permissions: ['clipboard-read', 'clipboard-write'] });
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', e => errors.push(String(e)));
  await page.goto(new URL('?page=diagnose', site.url).href);
  await page.waitForSelector('#log-paste');
  return { context, page, errors };
}

async function measure(site, mode) {
  const { context, page, errors } = await openDiagnose(site);
  try {
    await page.evaluate(armVerdictClock);
    if (mode === 'paste') {
      await page.evaluate(text => navigator.clipboard.writeText(text), log);
      await page.focus('#log-paste');
      await page.evaluate(() => document.addEventListener('keydown',
        () => { window.__t0 = performance.now(); }, { capture: true, once: true }));
      await page.keyboard.press('Control+V');
    } else if (mode === 'pick') {
      await page.evaluate(() => document.addEventListener('change',
        () => { window.__t0 = performance.now(); }, { capture: true, once: true }));
      await page.setInputFiles('#log-paste-file', file);
    } else {
      await page.evaluate(([text, name]) => {
        const dt = new DataTransfer();
        dt.items.add(new File([text], name, { type: 'text/csv' }));
        const zone = document.querySelector('#log-paste').closest('.drop-zone');
        window.__t0 = performance.now();
        zone.dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
      }, [log, path.basename(file)]);
    }
    const r = await page.evaluate(async () => { const v = await window.__verdictAt; return { ms: v.at - window.__t0, verdicts: v.verdicts }; });
    if (errors.length) throw new Error(`${site.name} ${mode}: ${errors.join('; ')}`);
    return r;
  } finally {
    await context.close();
  }
}

const times = new Map();
const verdicts = new Map();
for (let i = 0; i < runs; i++) {
  for (const mode of MODES) {
    for (const site of sites) {
      const key = `${site.name} ${mode}`;
      const r = await measure(site, mode);
      if (!times.has(key)) times.set(key, []);
      times.get(key).push(r.ms);
      verdicts.set(key, r.verdicts);
    }
  }
}
await browser.close();

const rows = log.split('\n').filter(l => l.trim()).length - 1;
const median = t => { const s = [...t].sort((a, b) => a - b); const m = s.length >> 1; return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2; };
const r1 = x => Math.round(x * 10) / 10;
for (const [key, t] of times) {
  const [site, mode] = key.split(' ');
  console.log(JSON.stringify({ site, mode, rows, bytes: Buffer.byteLength(log), runs, best_ms: r1(Math.min(...t)),
    median_ms: r1(median(t)), ms: t.map(r1), verdicts: verdicts.get(key) }));
}
console.log(`\n| how the log gets in | ${sites.map(s => `${s.name} median (best) ms`).join(' | ')} |`);
console.log(`|---|${sites.map(() => '---:').join('|')}|`);
for (const mode of MODES) {
  const cells = sites.map(s => { const t = times.get(`${s.name} ${mode}`); return `${Math.round(median(t)).toLocaleString('en-US')} (${Math.round(Math.min(...t)).toLocaleString('en-US')})`; });
  console.log(`| ${mode} | ${cells.join(' | ')} |`);
}
