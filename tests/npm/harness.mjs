// Shared set-up of the npm package's tests. scripts/test-npm.sh builds and packs the package, installs the
// tarball offline into a fresh folder and sets:
//   KGADVISE_NPM_APP  that folder (its kg.mjs is `export * from 'kgadvise'`, resolved as a user's would be)
//   KGADVISE_BIN      the kgadvise CLI that cargo built (found through cargo, never a fixed target/ path)
// A case is { fn, request, files }: the package's function, the request's plain values, and its text
// inputs as files (request key -> path; the package gets their bytes, the CLI their paths). translate()
// turns it into the CLI's arguments and the package's request. Both sides answer at CLOCK unless the
// request has its own `now`.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
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
 * `--set name=value`. `whole`: how the CLI names the request as a whole in an error (an empty field);
 * `names`: keys the CLI names otherwise than by their flag ('' for a positional it leaves unnamed);
 * `words`: what the CLI adds to a message of its own (a pointer to another command line).
 */
export const CLI = {
  matrix: { argv: ['matrix'] },
  defaults: { argv: ['defaults'], positional: 'domain' },
  worthGpu: { argv: ['worth-gpu'] },
  inference: { argv: ['inference'] },
  diagnose: { argv: ['diagnose'], positional: 'log', files: ['log'] },
  quota: { argv: ['quota'], positional: 'quota', files: ['quota', 'runs'] },
  plan: { argv: ['plan'], files: ['quota', 'runs'] },
  cap: { argv: ['cap'] },
  tpu: { argv: ['tpu'], files: ['quota'] },
  check: { argv: ['check'], positional: 'metadata', files: ['metadata', 'quota', 'runs'] },
  collect: { argv: ['collect'], positional: 'report', files: ['report', 'status', 'log'] },
  compare: {
    argv: ['compare'],
    files: ['idea', 'control', 'folds', 'truth'],
    whole: (p) => `--idea ${p.idea ?? p.ideaArtifacts} / --control ${p.control ?? p.controlArtifacts}`,
  },
  prune: { argv: ['prune'], files: ['baseline', 'current', 'folds'], whole: (p) => `--baseline ${p.baseline} / --current ${p.current}` },
  fidelity: { argv: ['fidelity'], positional: 'backlog', files: ['backlog'] },
  explain: {
    argv: ['explain'],
    positional: 'id',
    names: { id: '' },
    words: (m) => (m.includes('expected a rule code like') ? `${m} (kgadvise explain --list, docs/rules.md)` : m),
  },
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

/**
 * A kernel folder for the CLI when a case pairs a metadata file with a code file from elsewhere: the
 * metadata, and the case's code file under the name the metadata gives it. Its metadata file's path.
 */
function kernelFolderFor(metadataPath, codePath, codeName) {
  scratch ??= mkdtempSync(join(tmpdir(), 'kgadvise-npm-'));
  const dir = mkdtempSync(join(scratch, 'kernel-'));
  const metadata = join(dir, 'kernel-metadata.json');
  copyFileSync(metadataPath, metadata);
  mkdirSync(dirname(join(dir, codeName)), { recursive: true });
  copyFileSync(codePath, join(dir, codeName));
  return metadata;
}

/** A file's text as the CLI reads JSON (UTF-8 or UTF-16, a BOM dropped), to find what the CLI looks for. */
function textOfFile(path) {
  const b = readFileSync(path);
  if (b[0] === 0xef && b[1] === 0xbb && b[2] === 0xbf) return b.subarray(3).toString('utf8');
  if (b[0] === 0xff && b[1] === 0xfe) return new TextDecoder('utf-16le').decode(b.subarray(2));
  if (b[0] === 0xfe && b[1] === 0xff) return new TextDecoder('utf-16be').decode(b.subarray(2));
  return b.toString('utf8');
}

/**
 * What `kgadvise check` reads next to the metadata file and gives its request (cli/src/commands/check.rs):
 * `input` (the metadata as named), and the code file its `code_file` names, relative to the metadata's
 * folder, as written or with forward slashes (core's `code_file_paths`): `code` and `codeBytes` when it is
 * there, else `codePath`, where it was looked for.
 */
function checkFiles(metadataPath) {
  const out = { input: metadataPath };
  let meta;
  try {
    meta = JSON.parse(textOfFile(metadataPath));
  } catch {
    return { out };
  }
  const written = meta && typeof meta === 'object' && !Array.isArray(meta) ? (meta.code_file ?? meta.codeFile) : undefined;
  if (typeof written !== 'string' || written.trim() === '' || written.includes('INSERT_')) return { out };
  const folder = dirname(metadataPath);
  const at = (rel) => (rel.startsWith('/') ? rel : `${folder}/${rel}`);
  const candidates = [...new Set([written, written.replaceAll('\\', '/')])].map(at);
  const found = candidates.find((p) => existsSync(p) && statSync(p).isFile());
  const named = written.replaceAll('\\', '/');
  if (!found) return { out: { ...out, codePath: candidates[0] }, named };
  return { out: { ...out, code: readFileSync(found), codeBytes: statSync(found).size, codePath: found }, code: found, named };
}

/** A file's modification time as the CLI words it (RFC 3339, as many decimals as it takes: SecondsFormat::AutoSi). */
function modifiedAt(path) {
  const ns = statSync(path, { bigint: true }).mtimeNs;
  const secs = ns / 1000000000n;
  const frac = ns % 1000000000n;
  const base = new Date(Number(secs) * 1000).toISOString().slice(0, 19);
  if (frac === 0n) return `${base}Z`;
  const digits = frac % 1000000n === 0n ? 3 : frac % 1000n === 0n ? 6 : 9;
  return `${base}.${String(frac).padStart(9, '0').slice(0, digits)}Z`;
}

const translations = new WeakMap();

/**
 * A case as the CLI and the package each take it: `args` (the CLI's, without --json and --now), `request`
 * (the package's: the case's values, its files' bytes, `now` = CLOCK by default, and the fields the CLI
 * derives from the files it reads, which a JavaScript caller gives itself), and `names` (how the CLI names
 * each request key in an error: a file by its path). One translation per case, so both sides see the
 * same scratch files.
 */
export function translate(kase) {
  if (!translations.has(kase)) translations.set(kase, translateOnce(kase));
  return translations.get(kase);
}

function translateOnce({ fn, request = {}, files = {} }) {
  const how = CLI[fn];
  assert.ok(how, `no CLI translation for ${fn}: add it to CLI in tests/npm/harness.mjs`);
  const fileFlags = Array.isArray(how.files) ? Object.fromEntries(how.files.map((k) => [k, `--${kebab(k)}`])) : (how.files ?? {});
  const js = { ...request };
  const paths = {};
  for (const [key, path] of Object.entries(files)) {
    // a folder (kgkit's artifacts): its .npy arrays by name, base64, as the package takes a folder
    js[key] = isDir(path) ? folderBase64(path) : readFileSync(path);
    paths[key] = path;
  }
  for (const [key, value] of Object.entries(request)) {
    if (key in fileFlags && typeof value === 'string') paths[key] = fileFor(key, value);
  }
  const names = { ...how.names, ...paths };
  if (fn === 'check') {
    // The CLI reads the code file the metadata names, next to it; the case's own are what it would find.
    for (const key of ['input', 'code', 'codeBytes', 'codePath']) delete js[key];
    let found = checkFiles(paths.metadata);
    assert.ok(!('code' in request), 'check: inline code cannot be given to the CLI (write the kernel folder)');
    if ('code' in paths) {
      if (paths.code !== found.code) {
        // The case pairs the metadata with another code file: the CLI reads them as one kernel folder.
        assert.ok(found.named && !found.named.startsWith('/'), `check: ${paths.metadata} names no relative code file for ${paths.code}`);
        paths.metadata = kernelFolderFor(paths.metadata, paths.code, found.named);
        names.metadata = paths.metadata;
        found = checkFiles(paths.metadata);
      }
      delete paths.code;
    }
    Object.assign(js, found.out);
    if (found.out.codePath) names.code = found.out.codePath;
  }
  if (fn === 'collect' && paths.report) js.input = paths.report;
  // A quota file that is not live is as old as its modification time (unless readAt says when).
  if ((fn === 'quota' || fn === 'plan') && paths.quota && !request.live && request.readAt === undefined) {
    js.readAt = modifiedAt(paths.quota);
  }
  js.now ??= CLOCK;

  const args = [...how.argv];
  if (how.positional && how.positional in paths) args.push(paths[how.positional]);
  else if (how.positional && how.positional in request) args.push(String(request[how.positional]));
  for (const [key, path] of Object.entries(paths)) {
    if (key !== how.positional) args.push(fileFlags[key] ?? `--${kebab(key)}`, path);
  }
  for (const [key, value] of Object.entries(request)) {
    if (key === 'now' || key === how.positional || key in paths || value === null || value === undefined || value === false) continue;
    if (fn === 'check' && ['input', 'code', 'codeBytes', 'codePath'].includes(key)) continue;
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
  if (how.whole && Object.keys(paths).length) names[''] = how.whole(paths);
  return { args, request: js, names, now: request.now ?? CLOCK, words: how.words ?? ((m) => m) };
}

/** The request the package gets for a case. */
export function jsRequest(kase) {
  return translate(kase).request;
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

/**
 * The message the CLI gives for the package's error: the field said as the CLI says it (a flag, a path,
 * nothing for a positional it leaves unnamed; core's RequestError::render with another name).
 */
export function asCliWords(error, names) {
  if (!error.field) return names[''] ? `${names['']}: ${error.message}` : error.message;
  if (!error.message.startsWith(error.field)) return error.message;
  const name = names[error.field] ?? `--${kebab(error.field)}`;
  const rest = error.message.slice(error.field.length);
  if (name !== '') return name + rest;
  return rest.startsWith(': ') ? rest.slice(2) : rest.trimStart();
}

/**
 * Asserts the package and the CLI agree on a case: the same report, or both refuse it (the package with
 * a KgadviseError of code 2, the CLI with exit 2) with the same message in their own words. `answer`:
 * what the package did ({ report } or { error }).
 */
export function assertParity(kase, answer) {
  const { args, names, now, words } = translate(kase);
  const cli = runCli(args, now);
  const label = `kgadvise ${args.join(' ')}`;
  if (answer.error) {
    const e = answer.error;
    assert.equal(e.name, 'KgadviseError', `${label}: ${e.stack}`);
    assert.equal(e.code, 2, `${label}: ${e.message}`);
    assert.equal(cli.status, 2, `${label}: the package refused (${e.message}) but the CLI answered (exit ${cli.status})`);
    assert.equal(cli.json.schema, 'kgadvise.error/1');
    assert.equal(words(asCliWords(e, names)), cli.json.error, `${label}: the package's message, in the CLI's words`);
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

/** A folder input of the package (kgkit's artifacts): its .npy files by name, each file's bytes in base64. */
function folderBase64(dir) {
  return Object.fromEntries(
    readdirSync(dir).sort().filter((name) => name.endsWith('.npy')).map((name) => [name, readFileSync(join(dir, name)).toString('base64')]),
  );
}
