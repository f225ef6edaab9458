// Paste-to-verdict time of the web advisor in headless Chromium (bench/web.sh runs it).
// Usage: APP_URL=http://127.0.0.1:PORT/ node bench/web-paste.mjs LOG_FILE [RUNS]
// Sets the Diagnose page's textarea to the whole log, dispatches one `input` event and measures, in the page,
// the time until the verdicts are rendered (performance.now(), polled every animation frame). Best and median.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
const require = createRequire(new URL('../tests/browser/package.json', import.meta.url));
const { chromium } = require('playwright-core');

const [file, runsArg] = process.argv.slice(2);
const runs = Number(runsArg ?? 5);
const log = readFileSync(file, 'utf8');
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update'] });
const times = [];
let verdicts = '';
for (let i = 0; i < runs; i++) {
  const page = await browser.newPage();
  await page.goto(new URL('?page=diagnose', process.env.APP_URL).href);
  await page.waitForSelector('#log-paste');
  const r = await page.evaluate(async (text) => {
    const ta = document.querySelector('#log-paste');
    const t0 = performance.now();
    ta.value = text;
    ta.dispatchEvent(new Event('input', { bubbles: true }));
    await new Promise(res => { const poll = () => document.querySelector('.verdicts li') ? res() : requestAnimationFrame(poll); poll(); });
    return { ms: performance.now() - t0, verdicts: document.querySelector('.verdicts').textContent };
  }, log);
  times.push(r.ms); verdicts = r.verdicts;
  await page.close();
}
await browser.close();
times.sort((a, b) => a - b);
const lines = log.split('\n').filter(l => l.trim()).length - 1;
console.log(JSON.stringify({ rows: lines, bytes: log.length, runs, best_ms: +times[0].toFixed(1),
  median_ms: +times[Math.floor(times.length / 2)].toFixed(1), verdicts }));
