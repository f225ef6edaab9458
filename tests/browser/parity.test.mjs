// Same core, same answers: each case runs the real `kgadvise` binary with --json --share-url, opens the
// printed link on the built site (pasting the same input where the CLI read a file), and compares what the
// page shows with the CLI's JSON: the finding rule IDs (as a set) and the headline value.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { launch, openPage, APP_URL, cliBin } from './harness.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const BIN = cliBin();

let browser;
before(async () => { browser = await launch(); });
after(async () => { await browser?.close(); });

/** Runs the CLI with --json --share-url: its JSON (exit 0 or 1) and the link it printed on stderr. */
function cliWithLink(args) {
  const r = spawnSync(BIN, [...args, '--json', '--share-url', APP_URL], { encoding: 'utf8' });
  assert.ok(r.status === 0 || r.status === 1, `kgadvise ${args.join(' ')} exited ${r.status}: ${r.stderr}`);
  const m = /share: (\S+)/.exec(r.stderr ?? '');
  return { json: JSON.parse(r.stdout), link: m?.[1] };
}

const ruleSet = json => [...new Set((json.findings ?? []).map(f => f.rule))].sort();

async function pageRules(page) {
  await page.waitForSelector('#answer .findings, #answer .no-findings', { timeout: 20000 });
  const ids = await page.$$eval('#answer .findings .finding-head a', as =>
    as.map(a => new URL(a.href).searchParams.get('id')));
  return [...new Set(ids)].sort();
}

test('parity: matrix, defaults and worth-gpu', async () => {
  for (const args of [
    ['matrix', '--platform', 't4x2', '--capability', 'bf16'],
    ['defaults', 'images', '--platform', 'p100'],
    ['worth-gpu', '--task', 'gbdt', '--rows', '600000'],
  ]) {
    const { json, link } = cliWithLink(args);
    const { page, check } = await openPage(browser, new URL(link).search);
    if (args[0] === 'matrix') {
      // the single cell's answer carries its support value
      await page.waitForSelector('#answer .cell-card .verdict span');
      assert.equal((await page.textContent('#answer .cell-card .verdict span')).trim(), json.support);
      assert.equal(json.support, 'no');
      assert.deepEqual(await pageRules(page), ruleSet(json));
    } else {
      assert.deepEqual(await pageRules(page), ruleSet(json), args.join(' '));
    }
    if (args[0] === 'worth-gpu') {
      await page.waitForSelector('.choice-key');
      assert.equal((await page.textContent('.choice-key')).trim(), json.choice);
    }
    check();
    await page.close();
  }
});

test('parity: diagnose a real log pasted into the page', async () => {
  for (const file of [
    path.join(ROOT, 'tests/fixtures/diagnose/second-gpu-idle.csv'),
    path.join(ROOT, 'tests/fixtures/realdata/nvidia-smi-table/kaggle-2xT4-580.159.04-cuda13.0_picchio.txt'),
  ]) {
    const args = ['diagnose', file, '--data-rate', '900', '--compute-rate', '1000', '--loop-rate', '950'];
    const { json, link } = cliWithLink(args);
    const { page, check } = await openPage(browser, new URL(link).search);
    await page.fill('#log-paste', readFileSync(file, 'utf8'));
    await page.waitForSelector('table.gpus');
    assert.deepEqual(await pageRules(page), ruleSet(json), file);
    const gpus = await page.$$eval('table.gpus tbody tr', rows => rows.length);
    assert.equal(gpus, json.gpus.length);
    check();
    await page.close();
  }
});

test('parity: the deadline plan from typed numbers', async () => {
  const day = ms => new Date(Date.now() + ms * 86400000).toISOString().slice(0, 10);
  const args = ['plan', '--deadline', day(24), '--gpu-remaining', '11.5', '--refresh-at', day(3),
    '--fold-hours', '1.5', '--folds', '5'];
  const { json, link } = cliWithLink(args);
  const { page, check } = await openPage(browser, new URL(link).search);
  assert.deepEqual(await pageRules(page), ruleSet(json));
  const answer = await page.textContent('#answer');
  assert.ok(answer.includes(String(json.total_hours)), `${json.total_hours} h not shown: ${answer.slice(0, 400)}`);
  check();
});

test('parity: kernel check of a pasted metadata file and its code', async () => {
  const dir = path.join(ROOT, 'tests/fixtures/kernel/KM021/clean');
  const { json } = cliWithLink(['check', dir]);
  const { page, check } = await openPage(browser, '?page=kernel');
  await page.fill('#metadata-paste', readFileSync(path.join(dir, 'kernel-metadata.json'), 'utf8'));
  await page.fill('#code-paste', readFileSync(path.join(dir, 'train.py'), 'utf8'));
  assert.deepEqual(await pageRules(page), ruleSet(json));
  check();
});
