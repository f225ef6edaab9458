// The Node entry (Node >= 18, ESM): the WebAssembly next to this file is instantiated synchronously on
// import, so `import * as kg from 'kgadvise'` is ready to answer with no set-up call.
import { readFileSync } from 'node:fs';
import { initSync } from './index.js';

initSync(readFileSync(new URL('./kgadvise_wasm_bg.wasm', import.meta.url)));

export * from './index.js';
