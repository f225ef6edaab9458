// The package answers as the CLI does: every case of cases.mjs (the rule fixtures, the CLI's examples,
// every shared fixture file, the real samples) gives the object `kgadvise <command> --json` prints, or the
// same refusal (code 2 / exit 2, the same message in each surface's words).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fixtureCases, ruleCases } from './cases.mjs';
import { answer, assertParity, kgadvise } from './harness.mjs';

const kg = await kgadvise();
const cases = [...ruleCases(), ...fixtureCases()];
const FUNCTIONS = ['matrix', 'defaults', 'worthGpu', 'diagnose', 'quota', 'plan', 'cap', 'tpu', 'check',
  'collect', 'compare', 'prune', 'fidelity', 'explain', 'benchHistory', 'inference'];

test('every function of the package has cases, and the core answers every function', () => {
  const missing = FUNCTIONS.filter((f) => !cases.some((c) => c.fn === f));
  assert.deepEqual(missing, [], 'functions without a parity case in tests/npm/cases.mjs');
  assert.deepEqual([...kg.advisors()].sort(), [...FUNCTIONS].sort(), 'kg.advisors() = the functions');
});

for (const c of cases) {
  test(`parity: ${c.name}`, () => assertParity(c, answer(kg, c)));
}
