import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { launch, openPage, text, waitForQuery } from './harness.mjs';

let browser;
before(async () => { browser = await launch(); });
after(async () => { await browser?.close(); });

const REALDATA = new URL('../fixtures/realdata/kaggle-quota/', import.meta.url);

test('quota & plan: typed hours and a deadline give the budget and the week chart', async () => {
  const { page, check } = await openPage(browser, '?page=plan');
  assert.equal(await text(page, '#page-title'), 'Quota & plan');
  assert.match(await text(page, '#answer'), /Enter the deadline/);
  await page.fill('#deadline', '2099-12-17');
  await page.fill('#gpuRemaining', '11');
  await page.waitForSelector('.plan-headline');
  assert.match(await text(page, '.plan-headline'), /^11 h now \+ \d+ weekly resets/);
  assert.ok(await page.locator('svg.week-chart rect').count() > 4);
  await page.fill('#foldHours', '1.5');
  await page.fill('#folds', '5');
  await page.waitForSelector('.fold-plan');
  await waitForQuery(page, 'folds=5');
  assert.match(page.url(), /deadline=2099-12-17&gpuRemaining=11&foldHours=1\.5&folds=5/);
  await page.fill('#gpuRemaining', 'eleven');
  assert.match(await text(page, '.error'), /GPU hours remaining:/);
  // The hand-built page's hints are its request fields' doc comments (field-docs.json), as on the others;
  // the box adds what only the page does.
  await page.waitForFunction(() => /^GPU hours remaining now/
    .test(document.querySelector('#gpuRemaining-hint')?.textContent ?? ''), null, { timeout: 20000 });
  assert.match(await text(page, '#quota-paste-hint'), /^The quota as text, in any form .* It is read here and never leaves the page\.$/);
  check();
});

test('quota & plan: a pasted real `kaggle quota -v` CSV is read in the page', async () => {
  const csv = readFileSync(new URL('quota-csv-gpu-tpu-naive-refreshAt-2026-09_doanan293-thesis.csv', REALDATA), 'utf8');
  const { page, check } = await openPage(browser, '?page=plan&deadline=2099-12-17');
  await page.fill('#quota-paste', csv);
  await page.waitForSelector('.quota-form');
  assert.match(await text(page, '.quota-form'), /CSV/);
  assert.match(await text(page, '.quota-state'), /GPU: .* remaining/);
  assert.ok(!page.url().includes('Resource'), 'the paste is not put in the URL');
  await page.fill('#quota-paste', 'not a quota at all');
  assert.match(await text(page, '.error'), /pasted quota line 1: /);
  check();
});
