import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { launch, openPage, text, waitForQuery, APP_URL } from './harness.mjs';

let browser;
before(async () => { browser = await launch(); });
after(async () => { await browser?.close(); });

test('the matrix page renders the whole table from the wasm build, under the CSP', async () => {
  const { page, check } = await openPage(browser);
  assert.equal(await text(page, '#page-title'), 'Hardware matrix');
  assert.equal(await page.locator('td[data-cell]').count(), 60);
  assert.equal(await page.locator('#loading').count(), 0, 'the loader removed its message');
  assert.ok(await page.locator('#fatal').isHidden());
  assert.match(await text(page, 'table.shapes'), /TpuV5E8/);
  check();
});

test('a cell shows its condition on keyboard focus and on hover', async () => {
  const { page, check } = await openPage(browser);
  await page.focus('td[data-cell="bf16.t4x2"]');
  await page.waitForFunction(() => /emulated/.test(document.querySelector('#cell-details').textContent));
  assert.match(await text(page, '#cell-details'), /bf16 on Kaggle T4 x2: no/);
  await page.hover('td[data-cell="torch-compile.p100"]');
  await page.waitForFunction(() => /sm_70/.test(document.querySelector('#cell-details').textContent));
  assert.match(await page.getAttribute('td[data-cell="bf16.t4x2"]', 'title'), /emulated/);
  // Tab moves between cells
  await page.focus('td[data-cell="fp16-amp.t4x2"]');
  await page.keyboard.press('Tab');
  assert.equal(await page.evaluate(() => document.activeElement.dataset.cell), 'fp16-amp.p100');
  check();
});

test('picking a platform and a capability answers one cell, and the link reproduces it', async () => {
  const { page, check } = await openPage(browser);
  await page.selectOption('#platform', 't4x2');
  await waitForQuery(page, 'platform=t4x2');
  assert.equal(await page.locator('td[data-cell]').count(), 10, 'one column');
  await page.selectOption('#capability', 'bf16');
  await waitForQuery(page, 'capability=bf16');
  await page.waitForSelector('.cell-card');
  assert.equal(await text(page, '.cell-card .support'), 'no');
  assert.match(await text(page, '.cell-card'), /fp16/);
  const link = page.url();
  assert.match(link, /\?platform=t4x2&capability=bf16$/);

  const again = await openPage(browser, new URL(link).search);
  await again.page.waitForSelector('.cell-card');
  assert.equal(await text(again.page, '.cell-card .support'), 'no');
  assert.equal(await again.page.inputValue('#platform'), 't4x2');
  assert.equal(await again.page.inputValue('#capability'), 'bf16');

  // the cell's rule link opens its documentation in place, and Back returns
  await again.page.click('.cell-card a[href*="id=matrix.bf16.t4x2"]');
  await again.page.waitForFunction(() => document.querySelector('#page-title').textContent === 'Rule docs');
  assert.match(await text(again.page, '#answer'), /matrix\.bf16\.t4x2/);
  await again.page.goBack();
  await again.page.waitForSelector('.cell-card');
  again.check();
  check();
});

test('an unknown platform in the URL shows the valid values', async () => {
  const { page, check } = await openPage(browser, '?page=matrix&platform=t4');
  assert.match(await text(page, '.error'), /unknown platform `t4`.*t4x2/);
  check();
});

test('the guards see a request to another host, and the CSP blocks it', async () => {
  const { page, problems } = await openPage(browser);
  const outcome = await page.evaluate(() =>
    fetch('http://example.invalid/x').then(() => 'fetched', e => `blocked: ${e}`));
  assert.match(outcome, /^blocked/);
  await page.waitForTimeout(200);
  assert.ok(problems.some(p => /example\.invalid/.test(p)), JSON.stringify(problems));
  assert.ok(APP_URL.startsWith('http://127.0.0.1:'), APP_URL);
});

test('a wasm trap (how the release build ends a panic) shows the internal-error banner', async () => {
  const { page } = await openPage(browser);
  const errors = [];
  page.on('pageerror', e => errors.push(String(e)));
  // A one-function module whose body is `unreachable`, called from a timer so the trap is uncaught.
  await page.evaluate(async () => {
    const bytes = new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0, 1, 4, 1, 96, 0, 0, 3, 2, 1, 0,
      7, 5, 1, 1, 116, 0, 0, 10, 5, 1, 3, 0, 0, 11]);
    const { instance } = await WebAssembly.instantiate(bytes);
    setTimeout(() => instance.exports.t());
  });
  await page.waitForSelector('#fatal:not([hidden])');
  assert.match(await text(page, '#fatal'), /internal error and stopped; reload the page. Details: RuntimeError/);
  assert.equal(errors.length, 1, 'the trap itself is still reported as an uncaught error');
});
