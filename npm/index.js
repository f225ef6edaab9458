// kgadvise for JavaScript: one function per advisor over the WebAssembly core (js/ in the repository).
// This file is the browser and bundler entry (call `await init()` once first); node.js instantiates the
// WebAssembly synchronously and re-exports it. A request is one plain object whose keys are the CLI's
// long flags in camelCase; the answer is the object `kgadvise <command> --json` prints.
import load, {
  initSync as loadSync,
  advise,
  advisors as answered,
  text,
} from './kgadvise_wasm.js';
import * as glue from './kgadvise_wasm.js';

/**
 * A request kgadvise cannot answer (`code` 2: the field at fault, the value, the line of a text input, and
 * what was expected, as the CLI says it with exit code 2), or an internal error (`code` 3).
 */
export class KgadviseError extends Error {
  constructor(message, { code = 2, field = '', value, line, cause } = {}) {
    super(message, cause === undefined ? undefined : { cause });
    this.name = 'KgadviseError';
    this.code = code;
    this.field = field;
    if (value !== undefined) this.value = value;
    if (line !== undefined) this.line = line;
  }
}

let ready = false;

/**
 * Loads the WebAssembly (browsers and bundlers; in Node it is loaded on import and this does nothing).
 * `source`: where the .wasm is (a URL, a Response, bytes or a WebAssembly.Module); by default the file
 * next to this module. Safe to call more than once.
 */
export async function init(source) {
  if (ready) return;
  await load(source === undefined ? undefined : { module_or_path: source });
  ready = true;
}

/** Loads the WebAssembly synchronously from its bytes or a WebAssembly.Module. */
export function initSync(source) {
  if (ready) return;
  loadSync({ module: source });
  ready = true;
}

/**
 * The advisor functions of this package that its core answers: every one (the CLI's `bench`, which times
 * processes, has no function here).
 */
export function advisors() {
  const core = new Set(guarded(() => answered()).split(','));
  return FUNCTIONS.filter((f) => core.has(f.command)).map((f) => f.name);
}

function camel(command) {
  return command.replace(/-([a-z])/g, (_, c) => c.toUpperCase());
}

function isBytes(v) {
  return v instanceof ArrayBuffer || ArrayBuffer.isView(v);
}

function bytesOf(v) {
  return v instanceof ArrayBuffer ? new Uint8Array(v) : new Uint8Array(v.buffer, v.byteOffset, v.byteLength);
}

/**
 * The request of the advisor `command` as JSON. A text input given as bytes (a file's contents) is
 * decoded by the core's decoding of that field, the CLI's for the same file; a Date is its ISO 8601 time.
 * What JSON cannot say (NaN, an invalid Date, a BigInt) is an error naming the field, never dropped in
 * silence.
 */
function encode(command, request) {
  const plain = request === undefined ? {} : request;
  if (plain === null || typeof plain !== 'object' || Array.isArray(plain) || isBytes(plain) || plain instanceof Date) {
    const found = plain === null ? 'null' : Array.isArray(plain) ? 'a list' : isBytes(plain) ? 'bytes'
      : plain instanceof Date ? 'a Date' : `a ${typeof plain === 'bigint' ? 'BigInt' : typeof plain}`;
    throw new KgadviseError(`the request is ${found}: expected an object of its fields (the CLI's long flags in camelCase)`);
  }
  const fields = [];
  for (const [key, value] of Object.entries(plain)) {
    if (value === undefined) continue;
    const v = isBytes(value) ? fail(() => text(command, key, bytesOf(value))) : value;
    fields.push(`${JSON.stringify(key)}:${json(key, v)}`);
  }
  return `{${fields.join(',')}}`;
}

function json(field, value) {
  const name = field === '' ? 'the request' : field;
  let out;
  try {
    out = JSON.stringify(value, (key, v) => {
      if (typeof v === 'number' && !Number.isFinite(v)) {
        throw new KgadviseError(`${name}: ${v} is not a finite number; expected a number`, { field, value: String(v) });
      }
      return v;
    });
  } catch (e) {
    if (e instanceof KgadviseError) throw e;
    throw new KgadviseError(`${name}: ${e.message}; expected JSON values (text, numbers, booleans, lists, objects)`, { field, cause: e });
  }
  if (out === undefined || (value instanceof Date && out === 'null')) {
    let shown;
    try {
      shown = String(value);
    } catch {
      shown = typeof value;
    }
    throw new KgadviseError(`${name}: ${shown} cannot be sent; expected text, a number, a Date or an object`, { field });
  }
  return out;
}

/** Runs a call into the WebAssembly, turning what it throws into a KgadviseError. */
function fail(call) {
  try {
    return call();
  } catch (e) {
    if (typeof e === 'string') {
      const r = JSON.parse(e);
      throw new KgadviseError(r.text, { field: r.field, value: r.value, line: r.line });
    }
    throw e;
  }
}

/**
 * A trap (a panic, running out of memory, a stack overflow) loses the call but not the library: it is
 * reported as an internal error and the next call runs in a fresh instance.
 */
function guarded(call) {
  if (!ready) {
    throw new KgadviseError('kgadvise is not loaded yet: call `await init()` once first (browsers and bundlers)', { code: 3 });
  }
  try {
    return call();
  } catch (e) {
    if (e instanceof WebAssembly.RuntimeError || e instanceof RangeError) {
      glue.__wbg_reset_state();
      throw new KgadviseError(`kgadvise: internal error in its WebAssembly core (${e.message}); this call is lost, the next one starts afresh. Please report it with the request.`, { code: 3, cause: e });
    }
    throw e;
  }
}

function advisor(command) {
  const f = (request) => {
    const json = guarded(() => encode(command, request));
    return JSON.parse(guarded(() => fail(() => advise(command, json, Date.now()))));
  };
  Object.defineProperty(f, 'name', { value: camel(command) });
  Object.defineProperty(f, 'command', { value: command });
  return f;
}

/**
 * Traps in the WebAssembly, as a panic would, through the same guard as every advisor: the package's
 * tests prove with it that a trap is an error (`code` 3) and that the next call answers. Not API.
 */
export function __trapForTests() {
  return guarded(() => glue.__trapForTests());
}

// Generated from core's table of advisors: KGADVISE_BLESS=1 cargo test -p kgadvise-tests --test surfaces
export const matrix = advisor('matrix');
export const defaults = advisor('defaults');
export const worthGpu = advisor('worth-gpu');
export const diagnose = advisor('diagnose');
export const quota = advisor('quota');
export const plan = advisor('plan');
export const cap = advisor('cap');
export const tpu = advisor('tpu');
export const check = advisor('check');
export const collect = advisor('collect');
export const compare = advisor('compare');
export const prune = advisor('prune');
export const fidelity = advisor('fidelity');
export const explain = advisor('explain');
export const benchHistory = advisor('bench-history');
export const inference = advisor('inference');

const FUNCTIONS = [
  matrix, defaults, worthGpu, diagnose, quota, plan, cap, tpu, check, collect, compare, prune, fidelity,
  explain, benchHistory, inference,
];
// End of the generated part.
