// The package answers as the CLI does: every case of cases.mjs (the rule fixtures, the CLI's examples,
// every shared fixture file) gives the object `kgadvise <command> --json` prints, or the same refusal
// (code 2 / exit 2, the same message in each surface's words). A function whose advisor this build's
// core does not answer yet has its cases skipped, saying so, and must refuse with "unknown advisor".
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fixtureCases, ruleCases } from './cases.mjs';
import { answer, assertParity, kgadvise } from './harness.mjs';

const kg = await kgadvise();
const answered = new Set(kg.advisors());
const cases = [...ruleCases(), ...fixtureCases()];
const FUNCTIONS = ['matrix', 'defaults', 'worthGpu', 'diagnose', 'quota', 'plan', 'cap', 'tpu', 'check',
  'collect', 'compare', 'prune', 'fidelity', 'explain', 'benchHistory'];

test('every function of the package has cases, and every advisor core answers is a function', () => {
  const missing = FUNCTIONS.filter((f) => !cases.some((c) => c.fn === f));
  assert.deepEqual(missing, [], 'functions without a parity case in tests/npm/cases.mjs');
  for (const f of answered) assert.ok(FUNCTIONS.includes(f), `core answers ${f}, which the package does not export`);
});

test('an advisor core does not answer yet is refused as unknown, with code 2', () => {
  for (const f of FUNCTIONS.filter((f) => !answered.has(f))) {
    assert.throws(() => kg[f]({}), (e) => e.name === 'KgadviseError' && e.code === 2 && e.message.includes('unknown advisor'), f);
  }
});

for (const c of cases) {
  const skip = answered.has(c.fn) ? false : `core does not answer ${c.fn} by request yet`;
  test(`parity: ${c.name}`, { skip }, () => assertParity(c, answer(kg, c)));
}
