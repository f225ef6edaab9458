// Smoke test of a built site: it loads under the CSP with no error and one advisor answers typed input.
// Runs with every browser test on the release site, and alone on the stable fallback build
// (scripts/test-browser.sh --stable: plain `trunk build --release` on stable, no -Zbuild-std), so a broken
// or withdrawn nightly never leaves the project without a site known to work.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { launch, openPage, text } from './harness.mjs';

let browser;
before(async () => { browser = await launch(); });
after(async () => { await browser?.close(); });

test('smoke: the page loads and the GPU-worth-it advisor answers typed rows', async () => {
  const { page, check } = await openPage(browser, '?page=worth-gpu');
  assert.equal(await page.locator('#loading').count(), 0, 'the loader removed its message');
  assert.ok(await page.locator('#fatal').isHidden(), 'no internal-error banner');
  await page.selectOption('#task', 'gbdt');
  await page.fill('#rows', '50000');
  await page.waitForFunction(() => document.querySelector('.choice-key')?.textContent === 'cpu');
  await page.fill('#rows', '1,000,000');
  await page.waitForFunction(() => document.querySelector('.choice-key')?.textContent === 'gpu');
  assert.match(await text(page, '#page-title'), /GPU/);
  check();
});
