// The hand-written part of the kgadvise declarations: loading, errors, and how a request may be given.
// index.d.ts (generated from the Rust types by js/build.rs) re-exports it with every advisor's types.

/**
 * A file's contents: text inputs also take bytes, decoded by the core's decoding of that field, the CLI's
 * for the same file (UTF-8 or UTF-16, with or without a BOM; JSON and CSV inputs refuse bytes that are not
 * text, logs and quota readings keep what they can read).
 */
export type Bytes = Uint8Array | ArrayBuffer | ArrayBufferView;

/**
 * What an advisor function takes: its request with every key optional (core applies the defaults),
 * text inputs as strings or bytes, times as RFC 3339 / date strings or `Date`s.
 */
export type Input<R> = {
  [K in keyof R]?: R[K] | (string extends R[K] ? Bytes | Date : never);
};

/**
 * A request kgadvise cannot answer: `code` 2, with the CLI's message (the field said by its JavaScript
 * key, the line of a text input, what was expected). `code` 3: an internal error (a trap in the
 * WebAssembly, or the library used before `init()` in a browser); the next call starts afresh.
 */
export class KgadviseError extends Error {
  constructor(
    message: string,
    options?: { code?: 2 | 3; field?: string; value?: string; line?: number; cause?: unknown },
  );
  name: 'KgadviseError';
  code: 2 | 3;
  /** The request key at fault (`foldHours`), or '' for the request as a whole. */
  field: string;
  /** The value given, when it is the problem. */
  value?: string;
  /** The line of a text input, when the problem is on one line. */
  line?: number;
}

/**
 * Loads the WebAssembly: needed once in browsers and bundlers before the first call (in Node the
 * package is ready on import and this resolves at once). `source`: the .wasm's URL, a Response, its
 * bytes or a compiled module; by default `kgadvise_wasm_bg.wasm` next to the module.
 */
export function init(
  source?: string | URL | Request | Response | Promise<Response> | BufferSource | WebAssembly.Module,
): Promise<void>;

/** Loads the WebAssembly synchronously from its bytes or a compiled module. */
export function initSync(source: BufferSource | WebAssembly.Module): void;

/** The advisor functions of the package that its core answers: all of them. */
export function advisors(): string[];
