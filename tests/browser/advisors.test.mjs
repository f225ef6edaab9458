import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { launch, openPage, text, waitForQuery } from './harness.mjs';

// The rules' long prose as the site serves it (web/rules-prose.json, generated from rules/*.toml).
const PROSE = JSON.parse(readFileSync(new URL('../../web/rules-prose.json', import.meta.url), 'utf8'));
/** Markdown as the page shows it: no backticks or stars, whitespace collapsed. */
const plain = md => md.replace(/[`*]/g, '').replace(/\s+/g, ' ').trim();

let browser;
before(async () => { browser = await launch(); });
after(async () => { await browser?.close(); });

test('domain defaults resolve per platform, with what is left out and why', async () => {
  const { page, check } = await openPage(browser, '?page=defaults');
  assert.equal(await text(page, '#page-title'), 'Domain defaults');
  await page.selectOption('#domain', 'images');
  await page.selectOption('#platform', 't4x2');
  await waitForQuery(page, 'platform=t4x2');
  await page.waitForFunction(() => /GradScaler/.test(document.querySelector('.always')?.textContent ?? ''));
  assert.match(await text(page, '.always'), /channels_last/);

  await page.selectOption('#platform', 'p100');
  await page.waitForSelector('table.dropped');
  assert.match(await text(page, 'table.dropped'), /torch\.compile/);
  // findings link to their rule docs
  await page.click('.findings a[href="?page=rules&id=KH001"]');
  await page.waitForFunction(() => /What it checks/.test(document.querySelector('#answer')?.textContent ?? ''));
  await waitForQuery(page, 'id=KH001');

  // typed numbers: a bad value shows the parse error, a good one resolves num_workers
  const { page: p2, check: check2 } = await openPage(browser, '?page=defaults&domain=images&platform=linux');
  await p2.fill('#cores', 'lots');
  assert.match(await text(p2, '.error'), /CPU cores: expected a whole number/);
  await p2.fill('#cores', '16');
  await p2.fill('#processes', '2');
  await p2.waitForFunction(() => /num_workers=8/.test(document.querySelector('.always')?.textContent ?? ''));
  await waitForQuery(p2, 'cores=16');
  check2();
  check();
});

test('is the GPU worth it: rows and refits give the choice and the reason', async () => {
  const { page, check } = await openPage(browser, '?page=worth-gpu');
  await page.selectOption('#task', 'gbdt');
  await page.fill('#rows', '50000');
  await page.waitForSelector('.choice-key');
  assert.equal(await text(page, '.choice-key'), 'cpu');
  await page.fill('#rows', '1,000,000');
  await page.waitForFunction(() => document.querySelector('.choice-key')?.textContent === 'gpu');
  await page.fill('#rows', '300000');
  await page.fill('#refits', '200');
  await page.waitForFunction(() => document.querySelector('.choice-key')?.textContent === 'gpu');
  await waitForQuery(page, 'refits=200');
  assert.match(await text(page, '.findings'), /KH010/);
  await page.fill('#rows', '12k');
  assert.match(await text(page, '.error'), /Rows: expected a whole number/);
  // A control's hint is its request field's doc comment, from the site's field-docs.json.
  await page.waitForFunction(() => /^How many times the model is fit in the run: folds x seeds x tuning trials/
    .test(document.querySelector('#refits-hint')?.textContent ?? ''));
  assert.equal(await page.getAttribute('#refits', 'aria-describedby'), 'refits-hint');
  check();
});

test('rule docs explain any ID; typed text is shown as text, never markup', async () => {
  const { page, check } = await openPage(browser, '?page=rules&id=KH004');
  // What it checks, why it matters and the example come from the site's rules-prose.json (not the wasm).
  await page.waitForFunction(() => /What it checks/.test(document.querySelector('#answer')?.textContent ?? ''));
  const headings = await page.locator('#answer h4').allInnerTexts();
  assert.deepEqual(headings, ['What it checks', 'Why it matters', 'Example', 'Fix', 'Thresholds', 'Source']);
  const shown = await text(page, '#answer');
  for (const section of ['what', 'why', 'example']) assert.ok(shown.includes(plain(PROSE.KH004[section])), section);
  await page.fill('#rule-id', '<img src=x onerror="window.pwned=1">');
  await page.waitForSelector('.error');
  assert.match(await text(page, '.error'), /unknown rule `<img src=x/);
  assert.equal(await page.locator('main img').count(), 0);
  assert.equal(await page.evaluate(() => window.pwned), undefined);
  await page.fill('#rule-id', 'bf16.t4x2');
  await page.click('.suggestions a:has-text("matrix.bf16.t4x2")');
  await waitForQuery(page, 'id=matrix.bf16.t4x2');
  assert.match(await text(page, '#answer'), /bf16 on Kaggle T4 x2: no/);
  check();
});

test('the nav works by keyboard and Back restores the previous page', async () => {
  const { page, check } = await openPage(browser);
  await page.focus('nav a[href="?page=worth-gpu"]');
  await page.keyboard.press('Enter');
  await page.waitForFunction(() => document.querySelector('#page-title').textContent === 'Is the GPU worth it?');
  assert.equal(await page.getAttribute('nav a[href="?page=worth-gpu"]', 'aria-current'), 'page');
  await page.goBack();
  await page.waitForFunction(() => document.querySelector('#page-title').textContent === 'Hardware matrix');
  check();
});
