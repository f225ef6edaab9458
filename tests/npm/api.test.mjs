// The package as a user gets it: installed offline from the packed tarball, no dependencies, ESM with no
// set-up call in Node, every function present, `now` from the JavaScript clock, bad input as a
// KgadviseError with code 2 naming the field, text inputs as strings or bytes, and a trap that loses one
// call and not the library.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { APP, CLOCK, ROOT, kgadvise } from './harness.mjs';

const kg = await kgadvise();
const FUNCTIONS = ['matrix', 'defaults', 'worthGpu', 'diagnose', 'quota', 'plan', 'cap', 'tpu', 'check',
  'collect', 'compare', 'prune', 'fidelity', 'explain', 'benchHistory', 'inference'];

const utf16le = (s) => Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(s, 'utf16le')]);

test('the installed package: name, the workspace version, ESM, no dependencies, exports per target', () => {
  const pkg = JSON.parse(readFileSync(join(APP(), 'node_modules/kgadvise/package.json'), 'utf8'));
  const cargo = readFileSync(join(ROOT, 'Cargo.toml'), 'utf8');
  const version = /\[workspace\.package\][^[]*?\nversion = "([^"]+)"/.exec(cargo)?.[1];
  assert.equal(pkg.name, 'kgadvise');
  assert.equal(pkg.version, version, 'npm/package.json version = the workspace version (Cargo.toml)');
  assert.equal(pkg.type, 'module');
  for (const deps of ['dependencies', 'peerDependencies', 'optionalDependencies', 'bundleDependencies']) {
    assert.equal(pkg[deps], undefined, `no ${deps}`);
  }
  assert.deepEqual(Object.keys(pkg.exports['.']), ['types', 'node', 'browser', 'default']);
  const installed = JSON.parse(readFileSync(join(APP(), 'package-lock.json'), 'utf8'));
  assert.deepEqual(Object.keys(installed.packages).filter((p) => p !== ''), ['node_modules/kgadvise'], 'the install brought nothing else');
});

test('every advisor is a function, ready on import, and init() is harmless in Node', async () => {
  for (const f of FUNCTIONS) assert.equal(typeof kg[f], 'function', f);
  await kg.init();
  assert.ok(kg.advisors().includes('cap'));
  for (const f of kg.advisors()) assert.ok(FUNCTIONS.includes(f), f);
});

test('now defaults to the JavaScript clock, read at each call', (t) => {
  const later = Date.parse('2031-01-01T00:00:00Z');
  t.mock.method(Date, 'now', () => later);
  const byClock = kg.cap({ measured: 10 });
  t.mock.restoreAll();
  assert.deepEqual(byClock, kg.cap({ measured: 10, now: '2031-01-01T00:00:00Z' }));
  assert.deepEqual(byClock, kg.cap({ measured: 10, now: new Date(later) }), 'a Date is its time');
  // The clock matters here: in 2031 the rules' facts are stale (KH004), at CLOCK they are not.
  assert.notDeepEqual(byClock, kg.cap({ measured: 10, now: CLOCK }));
  assert.ok(byClock.findings.some((f) => f.rule === 'KH004'));
});

/** The KgadviseError a call throws. */
function refusal(call) {
  try {
    call();
  } catch (e) {
    assert.equal(e.name, 'KgadviseError', String(e));
    assert.ok(e instanceof Error && e instanceof kg.KgadviseError);
    return e;
  }
  assert.fail('expected a KgadviseError');
}

test('bad input: code 2, the field by its JavaScript key, the value, what was expected', () => {
  let e = refusal(() => kg.cap({ measured: -1 }));
  assert.deepEqual([e.code, e.field, e.value, e.message], [2, 'measured', '-1', 'measured -1: expected a positive number of hours']);
  e = refusal(() => kg.cap({ measured: 1, mesured: 2 }));
  assert.deepEqual([e.code, e.field], [2, 'mesured']);
  assert.match(e.message, /^mesured: unknown field `mesured`, expected one of `measured`, `foldHours`/);
  e = refusal(() => kg.cap({ measured: 'lots' }));
  assert.deepEqual([e.code, e.field], [2, 'measured']);
  assert.match(e.message, /expected f64/);
  e = refusal(() => kg.cap({ foldHours: 1, folds: 2.5 }));
  assert.deepEqual([e.code, e.field], [2, 'folds']);
  e = refusal(() => kg.cap({ measured: 1, set: { 'no.such': 1 } }));
  assert.deepEqual([e.code, e.field], [2, 'set']);
  assert.match(e.message, /^set: `no.such` is not a threshold/);
});

test('a request that is not an object, or holds what JSON cannot say, is refused, not dropped', () => {
  for (const [request, found] of [[null, 'null'], ['measured=1', 'a string'], [3, 'a number'], [[1], 'a list'],
    [new Uint8Array(2), 'bytes'], [new Date(), 'a Date']]) {
    const e = refusal(() => kg.cap(request));
    assert.deepEqual([e.code, e.field], [2, ''], String(request));
    assert.match(e.message, new RegExp(`^the request is ${found}: expected an object of its fields`));
  }
  for (const [request, field] of [[{ measured: NaN }, 'measured'], [{ measured: 1, set: { 'cap.factor': Infinity } }, 'set'],
    [{ measured: 1, now: new Date('no') }, 'now'], [{ measured: 10n }, 'measured'], [{ measured: () => 1 }, 'measured']]) {
    const e = refusal(() => kg.cap(request));
    assert.deepEqual([e.code, e.field], [2, field], JSON.stringify(Object.keys(request)));
  }
  // An undefined key is left out, as if not given.
  assert.deepEqual(kg.cap({ measured: 3, gpus: undefined, now: CLOCK }), kg.cap({ measured: 3, now: CLOCK }));
});

test('a text input may be bytes: UTF-8 or UTF-16 decoded as the CLI decodes files, bad bytes refused with the line', () => {
  const asText = kg.cap({ measured: 3, now: '2026-12-01' });
  assert.deepEqual(kg.cap({ measured: 3, now: Buffer.from('2026-12-01') }), asText);
  assert.deepEqual(kg.cap({ measured: 3, now: utf16le('2026-12-01') }), asText);
  assert.deepEqual(kg.cap({ measured: 3, now: new Uint8Array(utf16le('2026-12-01')).buffer }), asText);
  const e = refusal(() => kg.cap({ measured: 3, now: Buffer.from([0x32, 0x0a, 0xe9]) }));
  assert.deepEqual([e.code, e.field, e.line], [2, 'now', 2]);
  assert.match(e.message, /^now line 2: not UTF-8 text \(byte offset 2\)/);
});

test('a trap loses the call, says so (code 3), and the next call answers in a fresh instance', () => {
  const before = kg.cap({ measured: 3, now: CLOCK });
  for (let i = 0; i < 20; i++) {
    const e = refusal(() => kg.__trapForTests());
    assert.equal(e.code, 3);
    assert.match(e.message, /internal error in its WebAssembly core \(unreachable\)/);
    assert.ok(e.cause instanceof WebAssembly.RuntimeError);
    assert.deepEqual(kg.cap({ measured: 3, now: CLOCK }), before);
  }
});

test('large inputs answer without hanging', { timeout: 60_000 }, () => {
  // A text input of 8 MiB crosses into the WebAssembly and back as an error naming the field.
  const big = 'x'.repeat(8 << 20);
  const e = refusal(() => kg.cap({ measured: 3, now: big }));
  assert.deepEqual([e.code, e.field], [2, 'now']);
});

test("the README's first example runs as written", () => {
  const readme = readFileSync(join(APP(), 'node_modules/kgadvise/README.md'), 'utf8');
  const example = /```js\n([\s\S]*?)```/.exec(readme)?.[1];
  assert.ok(example, 'no ```js block in npm/README.md');
  assert.ok(example.trim().split('\n').length <= 5, 'the first example is five lines at most');
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', example], { cwd: APP(), encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /^kaggle kernels push -t \d+\n/);
});
