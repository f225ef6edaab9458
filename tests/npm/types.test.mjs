// The generated declarations (index.d.ts, from core's Rust types) against the package's real answers:
// each parity case's request must type-check as the function's argument and its report as the
// function's return type (tsc --strict, with excess-property checks on the literal: a key of the JSON
// missing from the declarations fails, and so does a declared key the JSON lacks or a wrong type), and
// the package's runtime exports must be exactly the declared ones.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { fixtureCases, ruleCases } from './cases.mjs';
import { APP, answer, jsRequest, kgadvise } from './harness.mjs';

const TSC = join(dirname(fileURLToPath(import.meta.url)), 'node_modules/typescript/bin/tsc');

/** A request as a TypeScript literal: bytes as `new Uint8Array(n)`, the rest as JSON. */
function literal(value) {
  if (value instanceof Uint8Array) return `new Uint8Array(${value.length})`;
  if (value && typeof value === 'object' && !Array.isArray(value)) {
    return `{ ${Object.entries(value).map(([k, v]) => `${JSON.stringify(k)}: ${literal(v)}`).join(', ')} }`;
  }
  return JSON.stringify(value);
}

test('the declarations type every request and report the package gives, and every export', { timeout: 120_000 }, async () => {
  const kg = await kgadvise();
  const lines = ["import * as kg from 'kgadvise';", "import type { KgadviseError } from 'kgadvise';", ''];
  let n = 0;
  for (const c of [...ruleCases(), ...fixtureCases()]) {
    const a = answer(kg, c);
    lines.push(`// ${c.name.replace(/\n/g, ' ')}`);
    lines.push(`const q${n}: Parameters<typeof kg.${c.fn}>[0] = ${literal(jsRequest(c))};`);
    if (a.report) lines.push(`const r${n}: ReturnType<typeof kg.${c.fn}> = ${JSON.stringify(a.report)};`);
    n++;
  }
  assert.ok(n > 0, 'no case');
  const names = Object.keys(kg).filter((k) => k !== '__trapForTests');
  lines.push(`const exported: { [K in keyof typeof kg]: true } = { ${names.map((k) => `${k}: true`).join(', ')} };`);
  lines.push("const e: KgadviseError = new kg.KgadviseError('x'); const code: 2 | 3 = e.code; const field: string = e.field;");
  lines.push('const ready: Promise<void> = kg.init(); const list: string[] = kg.advisors();');
  lines.push('export {};');
  const dir = mkdtempSync(join(APP(), 'types-'));
  writeFileSync(join(dir, 'check.ts'), lines.join('\n'));
  const r = spawnSync(process.execPath, [TSC, '--noEmit', '--strict', '--exactOptionalPropertyTypes',
    '--target', 'es2022', '--module', 'nodenext', '--moduleResolution', 'nodenext', '--lib', 'es2022,dom', join(dir, 'check.ts')],
  { encoding: 'utf8', cwd: dir });
  assert.equal(r.status, 0, `tsc found the declarations wrong (${join(dir, 'check.ts')}):\n${r.stdout}${r.stderr}`);
});
