// trunk post_build hook (Trunk.toml): writes the service worker of the built site, sw.js, from the template
// web/sw.js with the list of files to cache and the cache version filled in. Runs in every trunk build
// (scripts/build-site.sh, the plain stable `trunk build --release`, `trunk serve`) after trunk has staged
// every output, so the list holds this build's hashed names and whatever copied folders (examples/, icons/)
// hold, with no list kept by hand. The version is a hash of every staged file's path and bytes and of the
// template: any change to the site gives a new sw.js, which is how the browser learns of a deploy.
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const stage = process.env.TRUNK_STAGING_DIR;
const source = process.env.TRUNK_SOURCE_DIR;
if (!stage || !source) {
  console.error('web/build-sw.mjs is a trunk post_build hook (TRUNK_STAGING_DIR and TRUNK_SOURCE_DIR unset)');
  process.exit(2);
}
const SW = 'sw.js';

/** Site-relative paths ('/'-separated) of every file under `dir`, in byte order; dot files left out. */
function files(dir, prefix = '') {
  const out = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name.startsWith('.')) continue;
    const rel = prefix + entry.name;
    if (entry.isDirectory()) out.push(...files(join(dir, entry.name), rel + '/'));
    else if (entry.isFile() && rel !== SW) out.push(rel);
  }
  return out.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

const template = readFileSync(join(source, SW), 'utf8');
const staged = files(stage);
if (!staged.includes('index.html')) {
  console.error(`web/build-sw.mjs: no index.html in ${stage}`);
  process.exit(1);
}
// A debug build (`trunk serve`) caches nothing: its worker only deletes what a release build cached, so each
// rebuild shows at the next load instead of the one after.
const release = process.env.TRUNK_PROFILE === 'release';
const list = release ? staged : [];
const version = createHash('sha256').update(template);
for (const rel of staged) {
  version.update(`${rel}\0`).update(createHash('sha256').update(readFileSync(join(stage, rel))).digest());
}
const urls = list.map((rel) => rel.split('/').map(encodeURIComponent).join('/'));

function fill(text, marker, value) {
  const parts = text.split(marker);
  if (parts.length !== 2) throw new Error(`web/sw.js must hold ${marker} exactly once`);
  // The marker is followed by the template's placeholder value up to the end of the statement.
  return parts[0] + value + parts[1].replace(/^[^;]*;/, ';');
}
// Comments stay in the template: the built worker counts in the page's transfer budget.
const code = template.split('\n').filter((line) => !line.trimStart().startsWith('//')).join('\n');
let out = fill(code, "/*@VERSION*/", JSON.stringify(version.digest('hex').slice(0, 16)));
out = fill(out, '/*@FILES*/', JSON.stringify(urls));
writeFileSync(join(stage, SW), out);
console.log(`web/build-sw.mjs: ${SW} caches ${list.length} files${release ? '' : ' (a debug build caches nothing)'}`);
