// Local files: every page that takes a paste also takes a file, chosen with its labelled file input
// (`setInputFiles`) or dropped on the box (a synthetic DataTransfer). The file is read in the page, shown
// with its name and size, never put in the URL; a big log is read in chunks with a progress bar while the
// page keeps answering, and gives the same answer as the whole text.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { launch, openPage, text } from './harness.mjs';

let browser;
before(async () => { browser = await launch(); });
after(async () => { await browser?.close(); });

const REALDATA = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../fixtures/realdata');
const FIXTURES = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../fixtures');
const real = p => path.join(REALDATA, p);
const L40S = 'nvidia-smi-csv/l40s-595.80_all-fields_header-units_load_nvgpuexp.csv';

function utf16le(s) {
  return Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(s, 'utf16le')]);
}

test('diagnose: a picked log file gives the answer of the same log pasted; UTF-16 and binary files too', async () => {
  const { page, check } = await openPage(browser, '?page=diagnose');
  await page.fill('#log-paste', readFileSync(real(L40S), 'utf8'));
  await page.waitForSelector('.verdicts li');
  const pasted = await text(page, '#answer');

  await page.setInputFiles('#log-paste-file', real(L40S));
  await page.waitForSelector('#log-file-note');
  await page.waitForSelector('.verdicts li');
  assert.equal(await page.inputValue('#log-paste'), '', 'the file replaces the paste');
  assert.match(await text(page, '#log-file-note'), /l40s-595\.80_all-fields.*\(\d+(\.\d)? KiB, 2 lines\) in this page, in chunks; nothing was uploaded/);
  assert.equal(await text(page, '#answer'), pasted);
  assert.ok(!page.url().includes('l40s') && !page.url().includes('utilization'), 'nothing of the file in the URL');

  // PowerShell's `>` writes UTF-16LE with a BOM (and CRLF): decoded by core's text decoder.
  const csv = readFileSync(real(L40S), 'utf8').replace(/\r?\n/g, '\r\n');
  await page.setInputFiles('#log-paste-file', { name: 'gpu-ps.csv', mimeType: 'text/csv', buffer: utf16le(csv) });
  await page.waitForFunction(() => /gpu-ps\.csv/.test(document.querySelector('#log-file-note')?.textContent ?? ''));
  await page.waitForSelector('.verdicts li');
  assert.equal(await text(page, '#answer'), pasted);

  // A binary file: no panic, the unreadable lines are listed with their numbers.
  const binary = Buffer.alloc(4096);
  for (let i = 0; i < binary.length; i++) binary[i] = (i * 7919) % 256;
  await page.setInputFiles('#log-paste-file', { name: 'model.bin', mimeType: 'application/octet-stream', buffer: binary });
  await page.waitForFunction(() => /model\.bin/.test(document.querySelector('#log-file-note')?.textContent ?? ''));
  await page.waitForSelector('.verdict-no-data');
  assert.match(await text(page, '.diagnostics'), /line \d+: /);
  check();
});

test('kernel check: a dropped kernel-metadata.json and a picked code file are checked and sized', async () => {
  const meta = readFileSync(real('kernel-metadata/cube555-2xT4_machine_shape-NvidiaTeslaT4_Erlemar.json'), 'utf8');
  const { page, check } = await openPage(browser, '?page=kernel');
  // A synthetic drop: the DataTransfer a browser builds when a file is dragged from the desktop.
  await page.evaluate(async (json) => {
    const dt = new DataTransfer();
    dt.items.add(new File([json], 'kernel-metadata.json', { type: 'application/json' }));
    const zone = document.querySelector('#metadata-paste').closest('.drop-zone');
    zone.dispatchEvent(new DragEvent('dragover', { dataTransfer: dt, bubbles: true, cancelable: true }));
    zone.dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
  }, meta);
  await page.waitForSelector('#answer .verdict');
  assert.match(await text(page, '#metadata-paste-file-note'), /kernel-metadata\.json \((\d+ bytes|[\d.]+ KiB)\)/);
  assert.match(await text(page, '#answer .shape'), /NvidiaTeslaT4/);

  const notebook = JSON.stringify({ cells: [{ cell_type: 'code', source: ['print(1)\n'], outputs: [] }], metadata: {}, nbformat: 4, nbformat_minor: 5 });
  await page.setInputFiles('#code-paste-file', { name: 'main.ipynb', mimeType: 'application/json', buffer: Buffer.from(notebook) });
  await page.waitForFunction(n => (document.querySelector('#answer .code-size')?.textContent ?? '').includes(`${n} bytes`), Buffer.byteLength(notebook));
  assert.match(await text(page, '#code-paste-file-note'), /main\.ipynb/);

  // A broken file: its parse error, with the file's name.
  await page.setInputFiles('#metadata-paste-file', { name: 'broken.json', mimeType: 'application/json', buffer: Buffer.from('{"id": ') });
  await page.waitForSelector('.error');
  assert.match(await text(page, '.error'), /^broken\.json line 1: not valid JSON/);
  assert.ok(!page.url().includes('kernel-metadata'), 'nothing of the file in the URL');
  check();
});

test('quota & plan: a picked real quota file (CRLF, Windows) plans; typing replaces it', async () => {
  const { page, check } = await openPage(browser, '?page=plan&deadline=2099-12-17');
  await page.setInputFiles('#quota-paste-file', real('kaggle-quota/quota-csv-CRLF-windows-2026-08_unknown-csharp-repo.csv'));
  await page.waitForSelector('.quota-form');
  assert.match(await text(page, '#quota-paste-file-note'), /quota-csv-CRLF-windows/);
  assert.match(await text(page, '.quota-state'), /GPU: .* remaining/);
  // The same file as PowerShell writes it (UTF-16LE): the same plan (the answer also quotes the clock, so
  // only the reading and the budget are compared).
  const plan = async () => `${await text(page, '.quota-state')} | ${await text(page, '.plan-headline')}`;
  const first = await plan();
  const csv = readFileSync(real('kaggle-quota/quota-csv-CRLF-windows-2026-08_unknown-csharp-repo.csv'), 'utf8');
  await page.setInputFiles('#quota-paste-file', { name: 'quota-ps.csv', mimeType: 'text/csv', buffer: utf16le(csv) });
  await page.waitForFunction(() => /quota-ps\.csv/.test(document.querySelector('#quota-paste-file-note')?.textContent ?? ''));
  assert.equal(await plan(), first);
  await page.setInputFiles('#quota-paste-file', { name: 'photo.png', mimeType: 'image/png', buffer: Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 0, 0xff, 0xfe, 1, 2]) });
  await page.waitForFunction(() => /quota file photo\.png: /.test(document.querySelector('.error')?.textContent ?? ''));
  await page.fill('#quota-paste', 'not a quota at all');
  assert.equal(await page.locator('#quota-paste-file-note').count(), 0, 'typing replaces the file');
  assert.match(await text(page, '.error'), /pasted quota line 1: /);
  check();
});

test('compare and bench history: picked files', async () => {
  const { page, check } = await openPage(browser, '?page=compare&metric=auc&resamples=100');
  await page.setInputFiles('#idea-paste-file', path.join(FIXTURES, 'stats/binary_idea.csv'));
  await page.setInputFiles('#control-paste-file', path.join(FIXTURES, 'stats/binary_control.csv'));
  await page.waitForSelector('.decision-key');
  assert.match(await text(page, '#answer'), /400 by id/);
  await page.setInputFiles('#control-paste-file', { name: 'bad.csv', mimeType: 'text/csv', buffer: Buffer.from([0x61, 0x0a, 0xff, 0xfe, 0xfd]) });
  await page.waitForSelector('.error');
  assert.match(await text(page, '.error'), /^bad\.csv: line 2: not UTF-8 text/);
  check();

  const bench = await openPage(browser, '?page=bench');
  const history = [
    '{"name":"img","time":"2026-11-30T10:00:00Z","command":"python t.py --bs 64","wall_s":400,"exit_code":0}',
    '{"name":"img","time":"2026-11-30T11:00:00Z","command":"python t.py --bs 128","wall_s":200,"exit_code":0}',
  ].join('\n');
  await bench.page.setInputFiles('#history-paste-file', { name: 'bench.jsonl', mimeType: 'application/jsonl', buffer: Buffer.from(history) });
  await bench.page.waitForSelector('table.history');
  assert.match(await text(bench.page, 'table.history'), /2\.00x/);
  assert.match(await text(bench.page, '#history-paste-file-note'), /bench\.jsonl \(\d+ bytes\)/);
  bench.check();
});

test('diagnose: a big paste by Ctrl+V is read in chunks, the box shows its head; editing and Clear work', async () => {
  // The real clipboard: written by the page (granted), pasted with the keyboard into the focused box.
  const { page, check } = await openPage(browser, '?page=diagnose',
    { permissions: ['clipboard-read', 'clipboard-write'] });
  // About 3 MB made in the page (no transfer through the test driver).
  const rows = 30000;
  const head = await page.evaluate(async n => {
    const lines = ['timestamp, index, name, utilization.gpu [%], memory.used [MiB], memory.total [MiB]'];
    for (let i = 0; i < n; i++) {
      const t = new Date(Date.UTC(2026, 10, 1) + i * 1000).toISOString().replace('T', ' ').replace('Z', '').replaceAll('-', '/');
      lines.push(`${t}, 0, Tesla T4, ${50 + (i % 50)}, 9000, 15360`, `${t}, 1, Tesla T4, 0, 3, 15360`);
    }
    await navigator.clipboard.writeText(lines.join('\n') + '\n');
    return lines.slice(0, 20).join('\n');
  }, rows);
  const paste = async () => {
    await page.focus('#log-paste');
    await page.keyboard.press('Control+V');
    await page.waitForSelector('#log-file-note');
    await page.waitForSelector('.verdicts li');
  };
  await paste();
  assert.equal(await page.inputValue('#log-paste'), head, 'the box shows the first 20 lines, not megabytes');
  assert.match(await text(page, '#log-file-note'),
    /^Read the pasted log \(\d\.\d MiB, 60,001 lines\) in this page, in chunks: the box shows its first 20 lines/);
  const samples = async () => page.$$eval('table.gpus tbody tr', trs => trs.map(tr => tr.children[2].textContent.trim()));
  assert.deepEqual(await samples(), [String(rows), String(rows)]);
  assert.ok(!page.url().includes('Tesla'), 'nothing of the paste in the URL');
  // The charts: time along the x axis (8 h 20 min at 1 Hz), labels at the page's text size, not scaled
  // with the chart's width.
  assert.match(await text(page, '.timeline figcaption'),
    /^GPU 0 utilisation \(%\) by time since its first sample, 128 samples per point;/);
  assert.deepEqual(await page.$$eval('.timeline:first-of-type .x-tick', ts => ts.map(t => t.textContent)),
    ['0', '2 h', '4 h', '6 h', '8 h']);
  const sizes = await page.$eval('.timeline', fig => ({
    tick: fig.querySelector('.x-tick').getBoundingClientRect().height,
    text: parseFloat(getComputedStyle(fig.querySelector('figcaption')).fontSize),
  }));
  assert.ok(sizes.tick > 0.8 * sizes.text && sizes.tick < 1.6 * sizes.text, JSON.stringify(sizes));

  // Editing the box goes back to the box: its 20 lines (the header and 19 rows) and what was typed.
  await page.focus('#log-paste');
  await page.keyboard.press('Control+End');
  await page.keyboard.type('\n');
  await page.waitForFunction(() => !document.querySelector('#log-file-note'));
  assert.equal(await page.inputValue('#log-paste'), head + '\n');
  await page.waitForFunction(() => document.querySelector('table.gpus tbody tr td:nth-child(3)')?.textContent.trim() === '10');
  assert.deepEqual(await samples(), ['10', '9']);

  // Clear empties the box and the answer.
  await paste();
  assert.deepEqual(await samples(), [String(rows), String(rows)]);
  await page.getByRole('button', { name: 'Clear' }).click();
  await page.waitForFunction(() => !document.querySelector('#log-file-note'));
  assert.equal(await page.inputValue('#log-paste'), '');
  assert.match(await text(page, '#answer'), /Paste a log/);
  check();
});

test('diagnose: a big text that arrives by an input event (dragged, a script, autofill) takes the paste\'s path', async () => {
  const { page, check } = await openPage(browser, '?page=diagnose');
  const rows = 30000;
  const head = await page.evaluate(n => {
    const lines = ['timestamp, index, name, utilization.gpu [%], memory.used [MiB], memory.total [MiB]'];
    for (let i = 0; i < n; i++) {
      const t = new Date(Date.UTC(2026, 10, 1) + i * 1000).toISOString().replace('T', ' ').replace('Z', '').replaceAll('-', '/');
      lines.push(`${t}, 0, Tesla T4, ${50 + (i % 50)}, 9000, 15360`, `${t}, 1, Tesla T4, 0, 3, 15360`);
    }
    const box = document.querySelector('#log-paste');
    box.value = lines.join('\n') + '\n';
    box.dispatchEvent(new InputEvent('input', { bubbles: true, inputType: 'insertFromDrop' }));
    return lines.slice(0, 20).join('\n');
  }, rows);
  await page.waitForSelector('#log-file-note');
  await page.waitForSelector('.verdicts li');
  assert.equal(await page.inputValue('#log-paste'), head, 'the box shows the first 20 lines, as for Ctrl+V');
  assert.match(await text(page, '#log-file-note'), /^Read the pasted log \(\d\.\d MiB, 60,001 lines\) in this page, in chunks/);
  const samples = await page.$$eval('table.gpus tbody tr', trs => trs.map(tr => tr.children[2].textContent.trim()));
  assert.deepEqual(samples, [String(rows), String(rows)]);
  check();
});

/** A 2-GPU, 1 Hz `--query-gpu` CSV log of about `bytes` bytes; returns its path and rows per GPU. */
function bigLog(dir, bytes) {
  const header = 'timestamp, index, name, utilization.gpu [%], memory.used [MiB], memory.total [MiB]\n';
  const parts = [header];
  let size = header.length;
  let rows = 0;
  const t0 = Date.UTC(2026, 10, 1);
  while (size < bytes) {
    const d = new Date(t0 + rows * 1000).toISOString().replace('T', ' ').replace('Z', '').replaceAll('-', '/');
    const block = `${d}, 0, Tesla T4, ${60 + (rows % 40)}, 9000, 15360\n${d}, 1, Tesla T4, ${rows % 97 === 0 ? 30 : 0}, 3, 15360\n`;
    parts.push(block);
    size += block.length;
    rows++;
  }
  const file = path.join(dir, 'big-gpu.csv');
  writeFileSync(file, parts.join(''));
  return { file, rows };
}

test('diagnose: a 64 MB log is read in chunks with progress, the page answers meanwhile, Cancel stops it', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'kgadvise-big-'));
  try {
    const { file, rows } = bigLog(dir, 64 << 20);
    const { page, check } = await openPage(browser, '?page=diagnose');
    await page.setInputFiles('#log-paste-file', file);
    // While the log is read, the page answers (an evaluate round trip) and shows the progress.
    const seen = [];
    for (;;) {
      const s = await page.evaluate(() => {
        const p = document.querySelector('#log-progress');
        return { value: p ? p.value : null, max: p ? p.max : null, done: !!document.querySelector('.verdicts li') };
      });
      if (s.done) break;
      seen.push(s);
    }
    const midway = seen.filter(s => s.value !== null && s.value > 0 && s.value < s.max);
    assert.ok(midway.length >= 1, `progress seen midway while the page answered: ${JSON.stringify(seen.slice(-3))}`);
    assert.equal(await page.locator('#log-progress').count(), 0, 'the progress bar goes when done');
    assert.match(await text(page, '#log-file-note'), /big-gpu\.csv \(64\.0 MiB, [\d,]+ lines\)/);
    const samples = await page.$$eval('table.gpus tbody tr', trs => trs.map(tr => tr.children[2].textContent.trim()));
    assert.deepEqual(samples, [String(rows), String(rows)]);
    assert.ok(await page.locator('.verdicts li').count() >= 1);

    // Cancel: the read stops, no verdict, and the page says so.
    await page.reload();
    await page.waitForSelector('#log-paste-file');
    await page.setInputFiles('#log-paste-file', file);
    await page.click('#log-cancel');
    await page.waitForSelector('#log-cancelled');
    assert.match(await text(page, '#log-cancelled'), /Cancelled: read .* of 64\.0 MiB of big-gpu\.csv/);
    assert.equal(await page.locator('.verdicts li').count(), 0);
    check();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
