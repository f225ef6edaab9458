// trunk build hook (Trunk.toml): copies the example files of the "Try an example" buttons from the test
// fixtures into the built site, tests/fixtures/<path> -> examples/<path>, for every path of web/examples.txt.
// The fixtures stay the one copy in git; the page fetches examples/<path> from its own origin on click. Runs in
// the `build` stage (beside the asset pipelines), so every post_build hook (the service worker's file list)
// sees the copied files. A listed fixture that is missing fails the build, naming it.
import { copyFileSync, mkdirSync, readFileSync, existsSync } from 'node:fs';
import { dirname, join, normalize, sep } from 'node:path';

const stage = process.env.TRUNK_STAGING_DIR;
const source = process.env.TRUNK_SOURCE_DIR;
if (!stage || !source) {
  console.error('web/copy-examples.mjs is a trunk build hook (TRUNK_STAGING_DIR and TRUNK_SOURCE_DIR unset)');
  process.exit(2);
}
const fixtures = join(source, '..', 'tests', 'fixtures');
const list = readFileSync(join(source, 'examples.txt'), 'utf8')
  .split('\n')
  .map((line) => line.trim())
  .filter((line) => line && !line.startsWith('#'));
for (const rel of list) {
  if (normalize(rel).split(sep).includes('..') || rel.startsWith('/')) {
    console.error(`web/examples.txt: ${rel} is not a path under tests/fixtures/`);
    process.exit(1);
  }
  const from = join(fixtures, rel);
  if (!existsSync(from)) {
    console.error(`web/examples.txt: tests/fixtures/${rel} does not exist`);
    process.exit(1);
  }
  const to = join(stage, 'examples', rel);
  mkdirSync(dirname(to), { recursive: true });
  copyFileSync(from, to);
}
console.log(`web/copy-examples.mjs: ${list.length} example files in examples/`);
