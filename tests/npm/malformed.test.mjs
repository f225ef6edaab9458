// Every entry of tests/malformed/ (cases.mjs MALFORMED_KINDS): the package answers as the CLI does,
// refusing with a KgadviseError of code 2 exactly where the CLI exits 2, with the same message in its
// words; never a trap (code 3), never another exception, never a hang. The files are given as bytes, so
// the package decodes them with the CLI's decoding (core's request::text_of).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { malformedCases } from './cases.mjs';
import { answer, assertParity, kgadvise } from './harness.mjs';

const kg = await kgadvise();
const kinds = malformedCases();

test('every kind of tests/malformed/ has a translation to a request', () => {
  const missing = Object.entries(kinds).filter(([, cases]) => cases === null).map(([kind]) => kind);
  assert.deepEqual(missing, [], 'kinds with no entry in MALFORMED_KINDS (tests/npm/cases.mjs)');
});

for (const cases of Object.values(kinds)) {
  for (const c of cases ?? []) {
    test(`malformed: ${c.name}`, { timeout: 60_000 }, () => assertParity(c, answer(kg, c)));
  }
}
