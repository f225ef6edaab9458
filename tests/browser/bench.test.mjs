import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { launch, openPage, text, waitForQuery } from './harness.mjs';

let browser;
before(async () => { browser = await launch(); });
after(async () => { await browser?.close(); });

test('a pasted bench.jsonl shows speed-ups and what changed', async () => {
  const { page, check } = await openPage(browser, '?page=bench');
  assert.equal(await text(page, '#page-title'), 'Bench history');
  const history = [
    '{"name":"img","time":"2026-11-30T10:00:00Z","command":"python t.py --bs 64","wall_s":400,"exit_code":0}',
    '{"name":"img","time":"2026-11-30T11:00:00Z","command":"python t.py --bs 128","wall_s":200,"exit_code":0}',
    'not json',
  ].join('\n');
  await page.fill('#history-paste', history);
  await page.waitForSelector('table.history');
  const table = await text(page, 'table.history');
  assert.match(table, /2\.00x/);
  assert.match(table, /--bs: 64 -> 128/);
  assert.match(await text(page, '#answer'), /line 3: expected a bench record/);
  await page.fill('#name', 'other');
  await waitForQuery(page, 'name=other');
  await page.waitForFunction(() => document.querySelectorAll('table.history tbody tr').length === 0);
  check();
});
