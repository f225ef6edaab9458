// trunk's post_build hook web/build-sw.mjs on a staging folder of its own (no browser): the service worker lists
// every staged file, folders included (the examples/ of a later page need no change to the worker), with
// URL-safe names, never itself or dot files; its version follows the files' bytes; a debug build lists none.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Script } from 'node:vm';

const WEB = new URL('../../web/', import.meta.url).pathname;

function build(stage, profile = 'release') {
  execFileSync('node', [join(WEB, 'build-sw.mjs')], {
    cwd: WEB, env: { ...process.env, TRUNK_STAGING_DIR: stage, TRUNK_SOURCE_DIR: WEB, TRUNK_PROFILE: profile },
    stdio: 'pipe',
  });
  const sw = readFileSync(join(stage, 'sw.js'), 'utf8');
  new Script(sw); // valid JavaScript
  return {
    sw,
    version: JSON.parse(sw.match(/^const VERSION = (".*");$/m)[1]),
    files: JSON.parse(sw.match(/^const FILES = (\[.*\]);$/m)[1]),
  };
}

test('build-sw: every staged file is listed, examples/ included, and a changed file changes the version', () => {
  const stage = mkdtempSync(join(tmpdir(), 'kgadvise-stage-'));
  try {
    for (const [path, text] of [['index.html', '<!DOCTYPE html>'], ['boot.js', '//'], ['app-0123456789abcdef_bg.wasm', 'w'],
      ['examples/2xT4 idle.csv', 'a,b'], ['examples/quota/reset.csv', 'c'], ['.hidden', 'x'], ['sw.js', 'old']]) {
      mkdirSync(join(stage, path, '..'), { recursive: true });
      writeFileSync(join(stage, path), text);
    }
    const first = build(stage);
    assert.deepEqual(first.files, ['app-0123456789abcdef_bg.wasm', 'boot.js', 'examples/2xT4%20idle.csv',
      'examples/quota/reset.csv', 'index.html']);
    assert.match(first.version, /^[0-9a-f]{16}$/);
    assert.ok(!/^\s*\/\//m.test(first.sw), 'the template comments are left out of the built worker');
    assert.equal(build(stage).version, first.version, 'the same files give the same version');

    writeFileSync(join(stage, 'examples/quota/reset.csv'), 'd');
    const second = build(stage);
    assert.notEqual(second.version, first.version, 'a changed example file is a new deploy');

    const debug = build(stage, 'debug');
    assert.deepEqual(debug.files, [], 'a debug build (trunk serve) caches nothing');
    assert.equal(debug.version, second.version);
  } finally {
    rmSync(stage, { recursive: true, force: true });
  }
});
