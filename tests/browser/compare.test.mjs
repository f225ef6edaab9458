import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { launch, openPage, text, waitForQuery } from './harness.mjs';

let browser;
before(async () => { browser = await launch(); });
after(async () => { await browser?.close(); });

const FIXTURES = new URL('../fixtures/stats/', import.meta.url);

test('compare: two pasted prediction CSVs give a seeded decision with z and interval', async () => {
  const idea = readFileSync(new URL('binary_idea.csv', FIXTURES), 'utf8');
  const control = readFileSync(new URL('binary_control.csv', FIXTURES), 'utf8');
  const { page, check } = await openPage(browser, '?page=compare');
  await page.selectOption('#metric', 'auc');
  await page.fill('#resamples', '100');
  await waitForQuery(page, 'resamples=100');
  await page.fill('#idea-paste', idea);
  await page.fill('#control-paste', control);
  await page.waitForSelector('.decision-key');
  const first = await text(page, '#answer');
  assert.match(await text(page, '.decision-key'), /^(promote|inconclusive|discard)$/);
  assert.match(first, /400 by id/);
  // seeded: the same inputs give the same answer
  await page.fill('#seed', '42');
  await page.waitForFunction(() => location.search.includes('seed=42'));
  assert.equal(await text(page, '#answer'), first);
  check();
});
