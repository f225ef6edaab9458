// Every entry of tests/malformed/ the package can be given (cases.mjs MALFORMED_KINDS): the package
// answers as the CLI does, refusing with a KgadviseError of code 2 exactly where the CLI exits 2, with
// the same message in its words; never a trap (code 3), never another exception, never a hang.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { malformedCases } from './cases.mjs';
import { answer, assertParity, kgadvise } from './harness.mjs';

const kg = await kgadvise();
const answered = new Set(kg.advisors());
const kinds = malformedCases();

test('every kind of tests/malformed/ has a translation to a request', () => {
  const missing = Object.entries(kinds).filter(([, cases]) => cases === null).map(([kind]) => kind);
  assert.deepEqual(missing, [], 'kinds with no entry in MALFORMED_KINDS (tests/npm/cases.mjs)');
});

for (const [kind, cases] of Object.entries(kinds)) {
  for (const c of cases ?? []) {
    const skip = answered.has(c.fn) ? false : `core does not answer ${c.fn} by request yet`;
    test(`malformed: ${c.name}`, { skip, timeout: 60_000 }, () => assertParity(c, answer(kg, c)));
  }
}
