// The package in a browser with no bundler: a plain HTML page served locally loads it through an import
// map (`import * as kg from 'kgadvise'`), calls `await init()`, fetches nvidia-smi logs as bytes (a real
// one from tests/fixtures/realdata, and one in UTF-16 as PowerShell writes it) and answers `diagnose` on
// each as the CLI does on the same file. It also shows a refusal (code 2) and a trap (code 3) followed by
// an answer. Headless Debian Chromium through playwright-core, flags as
// tests/browser/harness.mjs; any console error, page error, failed request or other host fails it.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { copyFileSync, mkdtempSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { basename, join } from 'node:path';
import { test } from 'node:test';
import { chromium } from 'playwright-core';
import { APP, CLOCK, FIXTURES, runCli } from './harness.mjs';

const ARGS = ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync'];
/** The page's files: a real nvidia-smi CSV (228 s of a training run, the header repeated), and UTF-16. */
const LOGS = {
  'real.csv': join(FIXTURES, 'realdata/nvidia-smi-csv/rtx2070-repeated-header-units-1s_gpu-usage.csv'),
  'utf16.csv': join(FIXTURES, 'diagnose/input-bound-utf16le.csv'),
};

const PAGE = `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>kgadvise in a page</title><link rel="icon" href="data:,">
<script type="importmap">{ "imports": { "kgadvise": "../node_modules/kgadvise/index.js" } }</script>
<script type="module">
import * as kg from 'kgadvise';
const out = {};
try { kg.cap({ measured: 1 }); } catch (e) { out.beforeInit = e.code; }
await kg.init();
out.reports = {};
for (const name of ${JSON.stringify(Object.keys(LOGS))}) {
  const log = new Uint8Array(await (await fetch('./' + name)).arrayBuffer());
  out.reports[name] = kg.diagnose({ log, now: '${CLOCK}' });
}
try { kg.cap({ measured: -1 }); } catch (e) { out.refusal = { name: e.name, code: e.code, field: e.field, message: e.message }; }
try { kg.__trapForTests(); } catch (e) { out.trap = e.code; }
out.after = kg.cap({ measured: 3, now: '${CLOCK}' }).cap_hours;
document.querySelector('#out').textContent = JSON.stringify(out);
</script></head><body><pre id="out"></pre></body></html>
`;

async function freePort() {
  return new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

test('a plain HTML page loads the package and answers as the CLI does', { timeout: 120_000 }, async () => {
  const dir = mkdtempSync(join(APP(), 'page-'));
  writeFileSync(join(dir, 'index.html'), PAGE);
  for (const [name, path] of Object.entries(LOGS)) copyFileSync(path, join(dir, name));
  const port = await freePort();
  const server = spawn('python3', ['-m', 'http.server', String(port), '--bind', '127.0.0.1', '--directory', APP()], { stdio: 'ignore' });
  const browser = await chromium.launch({ executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium', args: ARGS });
  try {
    const url = `http://127.0.0.1:${port}/${basename(dir)}/index.html`;
    for (let i = 0; i < 100; i++) {
      if (await fetch(url).then((r) => r.ok, () => false)) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    const page = await browser.newPage();
    const problems = [];
    page.on('pageerror', (e) => problems.push(`pageerror: ${e}`));
    page.on('console', (m) => { if (m.type() === 'error') problems.push(`console error: ${m.text()}`); });
    page.on('request', (r) => { if (new URL(r.url()).host !== `127.0.0.1:${port}`) problems.push(`request to another host: ${r.url()}`); });
    page.on('response', (r) => { if (r.status() >= 400) problems.push(`HTTP ${r.status()}: ${r.url()}`); });
    await page.goto(url);
    await page.waitForFunction(() => document.querySelector('#out')?.textContent, null, { timeout: 30_000 });
    const out = JSON.parse(await page.textContent('#out'));
    assert.deepEqual(problems, []);
    assert.equal(out.beforeInit, 3, 'a call before init() says to call it');
    assert.deepEqual(Object.keys(out.reports).sort(), Object.keys(LOGS).sort());
    for (const [name, path] of Object.entries(LOGS)) {
      const cli = runCli(['diagnose', path]);
      assert.deepEqual(out.reports[name], cli.json, `diagnose of ${name} in the page = the CLI's --json`);
      assert.ok(out.reports[name].verdicts.includes('input-bound'), `${name}: ${JSON.stringify(out.reports[name].verdicts)}`);
    }
    assert.ok(out.reports['real.csv'].span_s > 200, 'the real log is read whole');
    assert.deepEqual(out.refusal, { name: 'KgadviseError', code: 2, field: 'measured', message: 'measured -1: expected a positive number of hours' });
    assert.equal(out.trap, 3);
    assert.equal(out.after, 4.2);
  } finally {
    await browser.close();
    server.kill();
  }
});
