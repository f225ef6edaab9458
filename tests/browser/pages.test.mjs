// Every advisor on the page: each page's "Try an example" fills its form from a fixture served by the site
// itself (examples/, fetched from the same origin) and answers; the new pages (quota, tpu, cap, collect,
// prune, fidelity) are filled from their example and from local files (setInputFiles), and what they show is
// compared with the CLI's --json for the same input: the finding rule IDs (as a set) and the headline value.
// The harness's guards fail a test on any console error or any request to another host.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { launch, openPage, text, APP_URL, cliBin } from './harness.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const FIXTURES = path.join(ROOT, 'tests', 'fixtures');
const fixture = p => path.join(FIXTURES, p);
const BIN = cliBin();

let browser;
before(async () => { browser = await launch(); });
after(async () => { await browser?.close(); });

/** The CLI's JSON answer (exit 0 or 1); `stdin`: a fixture piped in (what `kaggle quota | kgadvise ... -` does). */
function cli(args, stdin) {
  const r = spawnSync(BIN, [...args, '--json'], {
    encoding: 'utf8', input: stdin === undefined ? undefined : readFileSync(fixture(stdin)),
  });
  assert.ok(r.status === 0 || r.status === 1, `kgadvise ${args.join(' ')} exited ${r.status}: ${r.stderr}`);
  return JSON.parse(r.stdout);
}

/** The query of the link `kgadvise ... --share-url` prints for the same typed values, as an object. */
function sharedQuery(args, stdin) {
  const r = spawnSync(BIN, [...args, '--json', '--share-url', APP_URL], {
    encoding: 'utf8', input: stdin === undefined ? undefined : readFileSync(fixture(stdin)),
  });
  const m = /share: (\S+)/.exec(r.stderr ?? '');
  assert.ok(m, `kgadvise ${args.join(' ')} printed no link: ${r.stderr}`);
  return Object.fromEntries(new URL(m[1]).searchParams);
}

/** The page's own query, as an object. */
const pageQuery = page => Object.fromEntries(new URL(page.url()).searchParams);

const ruleSet = json => [...new Set((json.findings ?? []).map(f => f.rule))].sort();

/** The rule IDs of the findings the page shows, once it shows its answer. */
async function pageRules(page) {
  await page.waitForSelector('#answer .findings, #answer .no-findings', { timeout: 20000 });
  const ids = await page.$$eval('#answer .findings .finding-head a', as =>
    as.map(a => new URL(a.href).searchParams.get('id')));
  return [...new Set(ids)].sort();
}

/** Clicks "Try an example" and waits for its note and the answer. */
async function tryExample(page) {
  await page.getByRole('button', { name: 'Try an example' }).click();
  await page.waitForFunction(() => /^Example: /.test(document.querySelector('.example-note')?.textContent ?? ''),
    null, { timeout: 20000 });
  await page.waitForSelector('#answer:not(.hint)', { timeout: 20000 });
}

/** Picks a fixture with the labelled file input of the box `id` and waits until the page has read it. */
async function pick(page, id, file) {
  await page.setInputFiles(`#${id}-file`, fixture(file));
  await page.waitForFunction(([note, name]) => document.querySelector(note)?.textContent.includes(name),
    [`#${id}-file-note`, path.basename(file)], { timeout: 20000 });
}

/** The rows of a table of the answer. */
const rowCount = (page, table) => page.$$eval(`#answer table.${table} tbody tr`, rows => rows.length);

/** The value cell of a two-column summary table's row. */
async function summaryValue(page, table, head) {
  return page.$eval(`#answer table.${table}`, (t, h) => {
    const row = [...t.querySelectorAll('tr')].find(r => r.querySelector('th')?.textContent.trim() === h);
    return row?.querySelector('td')?.textContent.trim();
  }, head);
}

test('Try an example: every page fills its form from the site\'s own example files and answers', async () => {
  const pages = ['matrix', 'defaults', 'worth-gpu', 'inference', 'diagnose', 'plan', 'quota', 'tpu', 'cap', 'kernel', 'collect',
    'compare', 'prune', 'fidelity', 'bench', 'rules'];
  // every page of the navigation has one
  const { page: home, check: homeCheck } = await openPage(browser, '');
  const nav = await home.$$eval('nav[aria-label=Advisors] a', as => as.map(a => new URL(a.href).searchParams.get('page')).filter(Boolean));
  assert.deepEqual([...new Set(nav)].sort(), [...pages].sort(), 'the navigation reaches every page');
  homeCheck();
  await home.close();
  for (const key of pages) {
    const { page, check } = await openPage(browser, `?page=${key}`);
    const fetched = [];
    page.on('request', r => { if (r.url().includes('/examples/')) fetched.push(new URL(r.url()).pathname); });
    const button = page.getByRole('button', { name: 'Try an example' });
    // the button is described by what the example is (screen readers read it with the button)
    const described = await button.getAttribute('aria-describedby');
    assert.ok((await text(page, `#${described}`)).length > 10, `${key}: the example says what it is`);
    await tryExample(page);
    assert.equal(await page.$('#answer [role=alert], section > [role=alert]'), null, `${key}: no error`);
    for (const p of fetched) assert.match(p, /\/examples\/[a-z]/, `${key}: ${p}`);
    if (['diagnose', 'plan', 'quota', 'kernel', 'collect', 'compare', 'prune', 'fidelity', 'bench'].includes(key)) {
      assert.ok(fetched.length > 0, `${key}: its example files come from the site`);
      assert.ok(!/examples|\.csv|\.json/.test(new URL(page.url()).search), `${key}: no file in the URL`);
    }
    check();
    await page.close();
  }
  // The service worker caches the example files with the rest of the site (offline, an example still fills).
  const sw = await (await fetch(new URL('sw.js', APP_URL))).text();
  const listed = readFileSync(path.join(ROOT, 'web', 'examples.txt'), 'utf8').split('\n')
    .map(l => l.trim()).filter(l => l && !l.startsWith('#'));
  assert.ok(listed.length >= 10);
  for (const file of listed) assert.ok(sw.includes(`"examples/${file}"`), `sw.js caches examples/${file}`);
});

test('quota: the example (kgkit\'s cache and runs log) and a picked `kaggle quota` table answer as the CLI', async () => {
  const { page, check } = await openPage(browser, '?page=quota');
  await tryExample(page);
  let json = cli(['quota', '-', '--runs', fixture('quota/gpu_runs.jsonl'), '--now', '2026-09-15T10:00:00Z'],
    'quota/gpu_quota.json');
  assert.deepEqual(await pageRules(page), ruleSet(json));
  assert.equal(await summaryValue(page, 'quota-state', 'plannable'), `${json.gpu.plannable.toFixed(2)} h`);
  assert.equal(await summaryValue(page, 'quota-state', 'reserved'), `${json.gpu.reserved.toFixed(2)} h`);
  assert.equal(await rowCount(page, 'reservations'), json.gpu.reservations.length);
  assert.ok(json.gpu.reservations.length > 0);
  assert.match(await text(page, '.quota-form'), json.live ? /; LIVE/ : /NOT LIVE/);

  // A picked file replaces the example's paste; the runs log is emptied by hand.
  await page.fill('#runs-paste', '');
  await page.fill('#now', '2026-09-18T12:00:00Z');
  await pick(page, 'quota-paste', 'quota/table.txt');
  await page.waitForFunction(() => document.querySelector('#answer .quota-state') &&
    /27\.58 h/.test(document.querySelector('#answer')?.textContent ?? ''));
  json = cli(['quota', '-', '--now', '2026-09-18T12:00:00Z'], 'quota/table.txt');
  assert.deepEqual(await pageRules(page), ruleSet(json));
  assert.equal(await summaryValue(page, 'quota-state', 'plannable'), `${json.gpu.plannable.toFixed(2)} h`);
  assert.ok(!page.url().includes('27.58'), 'nothing of the file in the URL');
  check();
  await page.close();
});

test('tpu: the example and a picked quota file choose as the CLI does', async () => {
  const { page, check } = await openPage(browser, '?page=tpu');
  await tryExample(page);
  let json = cli(['tpu', '--t4-hours', '30', '--gpu-plannable', '4', '--now', '2026-09-15T10:00:00Z']);
  assert.deepEqual(await pageRules(page), ruleSet(json));
  assert.equal((await text(page, '#answer .verdict-key')).toLowerCase(), json.choice);
  assert.equal(json.choice, 'tpu');
  // the example's link is the one the CLI shares for the same answer
  assert.deepEqual(pageQuery(page),
    sharedQuery(['tpu', '--t4-hours', '30', '--gpu-plannable', '4', '--now', '2026-09-15T10:00:00Z']));

  // Six hours with the hours of a pasted quota: the GPU finishes first.
  await page.goto(new URL('?page=tpu&t4Hours=6&now=2026-09-18T12%3A00%3A00Z', page.url()).href);
  await pick(page, 'quota-paste', 'quota/cli.json');
  await page.waitForSelector('#answer .verdict-key');
  json = cli(['tpu', '--t4-hours', '6', '--quota', fixture('quota/cli.json'), '--now', '2026-09-18T12:00:00Z']);
  assert.deepEqual(await pageRules(page), ruleSet(json));
  assert.equal((await text(page, '#answer .verdict-key')).toLowerCase(), json.choice);
  check();
  await page.close();
});

test('cap: the example and typed values give the CLI\'s -t', async () => {
  const { page, check } = await openPage(browser, '?page=cap');
  await tryExample(page);
  let json = cli(['cap', '--fold-hours', '4', '--folds', '7']);
  assert.deepEqual(await pageRules(page), ruleSet(json));
  assert.equal(await text(page, '#answer .verdict-key'), String(json.timeout_seconds));
  assert.equal(await summaryValue(page, 'cap', 'sessions'), String(json.sessions));
  assert.deepEqual(pageQuery(page), sharedQuery(['cap', '--fold-hours', '4', '--folds', '7']));

  // typed with the keyboard: the measured hours of a TPU kernel
  await page.goto(new URL('?page=cap', page.url()).href);
  await page.getByLabel('Measured runtime (h)', { exact: true }).fill('3.5');
  await page.getByLabel('Session', { exact: true }).selectOption('true');
  await page.waitForFunction(() => /tpu=true/.test(location.search) && /measured=3\.5/.test(location.search));
  json = cli(['cap', '--measured', '3.5', '--tpu']);
  assert.deepEqual(pageQuery(page), sharedQuery(['cap', '--measured', '3.5', '--tpu']));
  assert.deepEqual(await pageRules(page), ruleSet(json));
  await page.waitForFunction(t => document.querySelector('#answer .verdict-key')?.textContent.trim() === t,
    String(json.timeout_seconds));
  check();
  await page.close();
});

test('inference: the example and typed values give the CLI\'s budget', async () => {
  const { page, check } = await openPage(browser, '?page=inference');
  await tryExample(page);
  const example = ['inference', '--item-seconds', '0.9', '--test-items', '40000', '--timed-items', '40000',
    '--limit-hours', '9', '--platform', 't4x2'];
  let json = cli(example);
  assert.deepEqual(await pageRules(page), ruleSet(json));
  assert.equal(await text(page, '#answer .verdict-key'), json.budget);
  assert.equal(await summaryValue(page, 'inference', 'items in the budget'), String(json.items_in_budget));
  assert.deepEqual(pageQuery(page), sharedQuery(example));

  // typed with the keyboard: per batch, within the limit
  await page.goto(new URL('?page=inference', page.url()).href);
  await page.getByLabel('Seconds per batch', { exact: true }).fill('2');
  await page.getByLabel('Items per batch', { exact: true }).fill('32');
  await page.getByLabel('Hidden test items', { exact: true }).fill('10000');
  await page.getByLabel('Run-time limit (h)', { exact: true }).fill('9');
  await page.waitForFunction(() => /limitHours=9/.test(location.search));
  json = cli(['inference', '--batch-seconds', '2', '--batch-size', '32', '--test-items', '10000', '--limit-hours', '9']);
  await page.waitForFunction(t => document.querySelector('#answer .verdict-key')?.textContent.trim() === t, json.budget);
  assert.deepEqual(await pageRules(page), ruleSet(json));
  check();
  await page.close();
});

test('collect: the example (kg_run.json) and Kaggle\'s status and log as files answer as the CLI', async () => {
  const { page, check } = await openPage(browser, '?page=collect');
  await tryExample(page);
  let json = cli(['collect', fixture('kernel/KR007/trigger/kg_run.json')]);
  assert.deepEqual(await pageRules(page), ruleSet(json));
  assert.equal(await rowCount(page, 'folds'), json.jobs.reduce((n, j) => n + j.folds.length, 0));
  assert.equal(await summaryValue(page, 'collect', 'folds done'), `${json.folds_done} of ${json.folds_total}`);

  // A kernel without kg_run.json: `collect --status status.txt --log <slug>.log --timeout-seconds 10800`.
  await page.goto(new URL('?page=collect&timeoutSeconds=10800', page.url()).href);
  const dir = 'kernel/KR011/trigger';
  await pick(page, 'status-paste', `${dir}/status.txt`);
  await pick(page, 'log-paste', `${dir}/effb0-512-infer.log`);
  await page.waitForSelector('#answer table.session');
  json = cli(['collect', '--status', fixture(`${dir}/status.txt`), '--log', fixture(`${dir}/effb0-512-infer.log`),
    '--timeout-seconds', '10800']);
  assert.deepEqual(await pageRules(page), ruleSet(json));
  assert.ok(ruleSet(json).includes('KR011'));
  assert.equal(await summaryValue(page, 'session', 'kernel'), json.session.kernel);
  assert.match(await summaryValue(page, 'session', 'status'), new RegExp(`^${json.session.outcome} `));
  check();
  await page.close();
});

test('prune: the example and two picked curve files decide as the CLI does', async () => {
  const { page, check } = await openPage(browser, '?page=prune');
  await tryExample(page);
  const curves = 'stats/curves';
  let json = cli(['prune', '--baseline', fixture(`${curves}/baseline_folds.json`),
    '--current', fixture(`${curves}/trailing.json`)]);
  assert.deepEqual(await pageRules(page), ruleSet(json));
  assert.equal(await text(page, '#answer .verdict-key'), json.decision);

  await pick(page, 'baseline-paste', `${curves}/baseline.json`);
  await pick(page, 'current-paste', `${curves}/keeping_up.json`);
  json = cli(['prune', '--baseline', fixture(`${curves}/baseline.json`),
    '--current', fixture(`${curves}/keeping_up.json`)]);
  await page.waitForFunction(d => document.querySelector('#answer .verdict-key')?.textContent.trim() === d,
    json.decision);
  assert.deepEqual(await pageRules(page), ruleSet(json));
  assert.match(await text(page, '#baseline-paste-file-note'), /baseline\.json/);
  check();
  await page.close();
});

test('fidelity: the example and a picked backlog judge as the CLI does', async () => {
  const { page, check } = await openPage(browser, '?page=fidelity');
  await tryExample(page);
  let json = cli(['fidelity', fixture('stats/fidelity_ideas.csv')]);
  assert.deepEqual(await pageRules(page), ruleSet(json));
  assert.equal(await summaryValue(page, 'fidelity', 'ideas judged'), String(json.ideas));
  assert.equal(await rowCount(page, 'ideas'), json.rows.length);

  // A picked backlog where the screens get the sign wrong.
  await pick(page, 'backlog-paste', 'stats/fidelity_bad.csv');
  json = cli(['fidelity', fixture('stats/fidelity_bad.csv')]);
  await page.waitForFunction(n => [...document.querySelectorAll('#answer table.fidelity td')]
    .some(td => td.textContent.trim() === n), String(json.ideas));
  assert.deepEqual(await pageRules(page), ruleSet(json));
  assert.ok(ruleSet(json).includes('KS020'));
  assert.match(await text(page, '#backlog-paste-file-note'), /fidelity_bad\.csv/);

  // Binary data: refused as the CLI refuses it (core's one decoding of file inputs), named by the file.
  const binary = Buffer.from([0x50, 0x4b, 0x03, 0x04, 0x00, 0x00, 0x08, 0x00]);
  await page.setInputFiles('#backlog-paste-file', { name: 'ideas.xlsx', mimeType: 'application/octet-stream', buffer: binary });
  await page.waitForSelector('main p.error[role=alert]');
  assert.match(await text(page, 'main p.error[role=alert]'), /^ideas\.xlsx: binary data \(a NUL at offset 4\); expected /);
  check();
  await page.close();
});

test('plan and diagnose: their examples answer as the CLI does on the same fixtures', async () => {
  let { page, check } = await openPage(browser, '?page=plan');
  await tryExample(page);
  let json = cli(['plan', '--deadline', '2026-10-06', '--quota', '-', '--fold-hours', '1.5', '--folds', '5',
    '--now', '2026-09-18T12:00:00Z'], 'quota/cli.json');
  assert.deepEqual(await pageRules(page), ruleSet(json));
  assert.ok(ruleSet(json).includes('KQ003'), 'use it or lose it: the reset is 12 h away');
  // the typed values of the example are those of the CLI's link (the quota is pasted, never in the URL)
  assert.deepEqual(pageQuery(page), sharedQuery(['plan', '--deadline', '2026-10-06', '--quota', '-',
    '--fold-hours', '1.5', '--folds', '5', '--now', '2026-09-18T12:00:00Z'], 'quota/cli.json'));
  check();
  await page.close();

  ({ page, check } = await openPage(browser, '?page=diagnose'));
  await tryExample(page);
  json = cli(['diagnose', fixture('diagnose/second-gpu-idle.csv')]);
  assert.deepEqual(await pageRules(page), ruleSet(json));
  assert.equal(await rowCount(page, 'gpus'), json.gpus.length);
  check();
  await page.close();
});
