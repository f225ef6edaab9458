// Shared set-up of the npm package's tests. scripts/test-npm.sh builds and packs the package, installs the
// tarball offline into a fresh folder and sets:
//   KGADVISE_NPM_APP  that folder (its kg.mjs is `export * from 'kgadvise'`, resolved as a user's would be)
//   KGADVISE_BIN      the kgadvise CLI that cargo built (found through cargo, never a fixed target/ path)
// A case is { fn, request, files, cli }: the package's function, the request's plain values, its text
// inputs as files (request key -> path; the package gets their bytes, the CLI their paths), and the CLI's
// arguments when the generic translation (cliArgs) does not fit. Both sides answer at CLOCK unless the
// request has its own `now`.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
export const FIXTURES = join(ROOT, 'tests/fixtures');
export const MALFORMED = join(ROOT, 'tests/malformed');
/** The time of every case without a `now` of its own (as tests/tests/rule_fixtures.rs). */
export const CLOCK = '2026-12-01T00:00:00Z';

function need(name, what) {
  const value = process.env[name];
  if (!value || !existsSync(value)) {
    throw new Error(`${name} (${what}) is ${value ? `missing: ${value}` : 'unset'}; run the tests with bash scripts/test-npm.sh`);
  }
  return value;
}

export const APP = () => need('KGADVISE_NPM_APP', 'the folder the packed package is installed in');
export const BIN = () => need('KGADVISE_BIN', 'the kgadvise CLI built by cargo');

/** The installed package, imported as `import * as kg from 'kgadvise'` from the install folder. */
export async function kgadvise() {
  return import(pathToFileURL(join(APP(), 'kg.mjs')).href);
}

const camel = (command) => command.replace(/-([a-z])/g, (_, c) => c.toUpperCase());
export const kebab = (key) => key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
export { camel };

/**
 * How the CLI takes each function's request: its subcommand, the request key it reads as the positional
 * argument, and the text inputs it reads from files (a key -> its flag, when not `--<key>`). Every other
 * key is the flag `--<key in kebab-case>`: a boolean a bare flag, a list the flag repeated, `set` as
 * `--set name=value`.
 */
export const CLI = {
  matrix: { argv: ['matrix'] },
  defaults: { argv: ['defaults'], positional: 'domain' },
  worthGpu: { argv: ['worth-gpu'] },
  diagnose: { argv: ['diagnose'], positional: 'log', files: ['log'] },
  quota: { argv: ['quota'], positional: 'quota', files: ['quota', 'runs'] },
  plan: { argv: ['plan'], files: ['quota', 'runs'] },
  cap: { argv: ['cap'] },
  tpu: { argv: ['tpu'], files: ['quota'] },
  check: { argv: ['check'], positional: 'metadata', files: ['metadata'] },
  collect: { argv: ['collect'], positional: 'report', files: ['report', 'status', 'log'] },
  compare: { argv: ['compare'], files: ['idea', 'control', 'folds'] },
  prune: { argv: ['prune'], files: ['baseline', 'current', 'folds'] },
  fidelity: { argv: ['fidelity'], positional: 'backlog', files: ['backlog'] },
  explain: { argv: ['explain'], positional: 'rule' },
  benchHistory: { argv: ['bench', '--history'], files: { history: '--history-file' } },
};

let scratch;
/** A text input given inline, as a file for the CLI. */
function fileFor(key, text) {
  scratch ??= mkdtempSync(join(tmpdir(), 'kgadvise-npm-'));
  const path = join(scratch, `${key}-${Math.random().toString(36).slice(2)}`);
  writeFileSync(path, text);
  return path;
}

/** The CLI's arguments for a case (without --json and --now), and the paths of its text inputs. */
export function cliArgs({ fn, request = {}, files = {}, cli }) {
  if (cli) return { args: cli, paths: { ...files } };
  const how = CLI[fn];
  assert.ok(how, `no CLI translation for ${fn}: add it to CLI in tests/npm/harness.mjs`);
  const fileFlags = Array.isArray(how.files) ? Object.fromEntries(how.files.map((k) => [k, `--${kebab(k)}`])) : (how.files ?? {});
  const args = [...how.argv];
  const paths = { ...files };
  for (const [key, value] of Object.entries(request)) {
    if (key in fileFlags && typeof value === 'string') paths[key] = fileFor(key, value);
  }
  if (how.positional && how.positional in paths) args.push(paths[how.positional]);
  else if (how.positional && how.positional in request) args.push(String(request[how.positional]));
  for (const [key, path] of Object.entries(paths)) {
    if (key !== how.positional) args.push(fileFlags[key] ?? `--${kebab(key)}`, path);
  }
  for (const [key, value] of Object.entries(request)) {
    if (key === 'now' || key === how.positional || key in paths || value === null || value === undefined || value === false) continue;
    if (key === 'set') {
      const pairs = Array.isArray(value) ? value : Object.entries(value).map(([n, v]) => `${n}=${v}`);
      for (const p of pairs) args.push('--set', p);
    } else if (value === true) {
      args.push(`--${kebab(key)}`);
    } else if (Array.isArray(value)) {
      for (const v of value) args.push(`--${kebab(key)}`, String(v));
    } else {
      args.push(`--${kebab(key)}`, String(value));
    }
  }
  return { args, paths };
}

/** The request the package gets for a case: its values, its files' bytes, and `now` (CLOCK by default). */
export function jsRequest({ request = {}, files = {} }) {
  const out = { ...request };
  for (const [key, path] of Object.entries(files)) out[key] = readFileSync(path);
  out.now ??= CLOCK;
  return out;
}

/** Runs the CLI with --json: { status, json (stdout parsed), stderr }. A panic fails the test. */
export function runCli(args, now = CLOCK) {
  const r = spawnSync(BIN(), [...args, '--now', now, '--json'], { encoding: 'utf8', maxBuffer: 1 << 28 });
  assert.ok(!r.stderr.includes('panicked') && r.status !== 101, `kgadvise ${args.join(' ')}: a panic\n${r.stderr}`);
  let json;
  try {
    json = JSON.parse(r.stdout);
  } catch (e) {
    assert.fail(`kgadvise ${args.join(' ')} --json printed no JSON (exit ${r.status}): ${r.stdout}\n${r.stderr}`);
  }
  return { status: r.status, json, stderr: r.stderr };
}

/** The message the CLI gives for the package's error: the field said as the CLI says it (a flag, a path). */
export function asCliWords(error, paths) {
  if (!error.field || !error.message.startsWith(error.field)) return error.message;
  const name = paths[error.field] ?? `--${kebab(error.field)}`;
  return name + error.message.slice(error.field.length);
}

/**
 * Asserts the package and the CLI agree on a case: the same report, or both refuse it (the package with
 * a KgadviseError of code 2, the CLI with exit 2) with the same message in their own words. `answer`:
 * what the package did ({ report } or { error }).
 */
export function assertParity(kase, answer) {
  const { args, paths } = cliArgs(kase);
  const cli = runCli(args, kase.request?.now ?? CLOCK);
  const label = `kgadvise ${args.join(' ')}`;
  if (answer.error) {
    const e = answer.error;
    assert.equal(e.name, 'KgadviseError', `${label}: ${e.stack}`);
    assert.equal(e.code, 2, `${label}: ${e.message}`);
    assert.equal(cli.status, 2, `${label}: the package refused (${e.message}) but the CLI answered (exit ${cli.status})`);
    assert.equal(cli.json.schema, 'kgadvise.error/1');
    assert.equal(asCliWords(e, paths), cli.json.error, `${label}: the package's message, in the CLI's words`);
  } else {
    assert.ok(cli.status === 0 || cli.status === 1, `${label}: the CLI refused (${cli.json.error}) but the package answered`);
    assert.deepEqual(answer.report, cli.json, `${label}: the package's report differs from the CLI's --json`);
  }
}

/** What the package does with a case: { report } or { error }. Anything but a KgadviseError is thrown. */
export function answer(kg, kase) {
  const f = kg[kase.fn];
  assert.equal(typeof f, 'function', `the package has no function ${kase.fn}`);
  try {
    return { report: f(jsRequest(kase)) };
  } catch (error) {
    if (error?.name !== 'KgadviseError') throw error;
    return { error };
  }
}

/** Reads a TOML file as JSON (python3's tomllib: Node has no TOML reader). */
export function toml(path) {
  const r = spawnSync('python3', ['-c', 'import json, sys, tomllib; print(json.dumps(tomllib.load(open(sys.argv[1], "rb"))))', path], { encoding: 'utf8' });
  assert.equal(r.status, 0, `${path}: ${r.stderr}`);
  return JSON.parse(r.stdout);
}

/** The entries of a folder, sorted, as absolute paths. */
export function entries(dir) {
  return readdirSync(dir).sort().map((name) => join(dir, name));
}

export const isDir = (p) => statSync(p).isDirectory();
