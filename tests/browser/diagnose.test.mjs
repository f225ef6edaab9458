import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { launch, openPage, text, waitForQuery } from './harness.mjs';

let browser;
before(async () => { browser = await launch(); });
after(async () => { await browser?.close(); });

const REALDATA = new URL('../fixtures/realdata/', import.meta.url);

test('diagnose: a pasted real nvidia-smi CSV gives verdicts, a GPU table and timelines', async () => {
  const log = readFileSync(new URL('nvidia-smi-csv/l40s-595.80_all-fields_header-units_load_nvgpuexp.csv', REALDATA), 'utf8');
  const { page, check } = await openPage(browser, '?page=diagnose');
  assert.match(await text(page, '#answer'), /Paste a log/);
  await page.fill('#log-paste', log);
  await page.waitForSelector('.verdicts li');
  assert.ok(await page.locator('.verdicts li').count() >= 1);
  assert.ok(await page.locator('table.gpus tbody tr').count() >= 1);
  assert.match(await text(page, '.formats'), /csv/);
  assert.ok(!page.url().includes('utilization'), 'the log is not put in the URL');
  check();
});

test('diagnose: typed bench rates give the input-bound verdict, linked to its rule', async () => {
  const { page, check } = await openPage(browser, '?page=diagnose');
  await page.fill('#dataRate', '100');
  await page.fill('#computeRate', '1000');
  await page.fill('#loopRate', '95');
  await page.waitForSelector('.verdict-input-bound');
  await waitForQuery(page, 'loopRate=95');
  assert.ok(await page.locator('.findings a[href="?page=rules&id=KV005"]').count() >= 1);
  await page.fill('#dataRate', 'fast');
  assert.match(await text(page, '.error'), /Data rate \(samples\/s\): expected a number, got `fast`/);
  await page.fill('#dataRate', '-5');
  await waitForQuery(page, 'dataRate=-5');
  assert.match(await text(page, '.error'), /Data rate \(samples\/s\) -5: expected a positive rate in samples\/s/);
  // Hints: the request fields' doc comments (field-docs.json); the log box adds what only the page does.
  await page.waitForFunction(() => /^Data-only rate of the bench/
    .test(document.querySelector('#dataRate-hint')?.textContent ?? ''), null, { timeout: 20000 });
  assert.match(await text(page, '#log-paste-hint'), /^nvidia-smi output as text, any format: .* Big logs are read in chunks/);
  check();
});
