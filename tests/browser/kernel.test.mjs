import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { launch, openPage, text } from './harness.mjs';

let browser;
before(async () => { browser = await launch(); });
after(async () => { await browser?.close(); });

const REALDATA = new URL('../fixtures/realdata/kernel-metadata/', import.meta.url);

test('kernel check: a pasted real kernel-metadata.json gives the stored shape and findings', async () => {
  const meta = readFileSync(new URL('cube555-2xT4_machine_shape-NvidiaTeslaT4_Erlemar.json', REALDATA), 'utf8');
  const { page, check } = await openPage(browser, '?page=kernel');
  assert.match(await text(page, '#answer'), /Paste a kernel-metadata.json/);
  await page.fill('#metadata-paste', meta);
  await page.waitForSelector('#answer .verdict');
  assert.match(await text(page, '#answer .shape'), /NvidiaTeslaT4/);
  await page.fill('#metadata-paste', '{"id": ');
  assert.match(await text(page, '.error'), /kernel-metadata\.json line 1: not valid JSON/);
  check();
});
