// Renders the web app's PNG icons from web/icons/icon.svg with Debian's headless Chromium (playwright-core of
// tests/browser; no network, no image library): icon-192.png and icon-512.png (purpose "any": the rounded
// tile on a transparent background) and maskable-512.png (purpose "maskable": the tile's blue to every
// edge, the mark scaled to 80 % so it stays inside the safe circle of radius 40 % that launchers keep).
// Run after changing the SVG, then commit the PNGs:  node scripts/make-icons.mjs
// The committed PNGs were made by Chromium 156.0.8078.114 (Debian 12); another Chromium may differ by a few
// anti-aliased pixels, never in size or layout.
import { readFileSync, writeFileSync } from 'node:fs';

const { chromium } = await import(new URL('../tests/browser/node_modules/playwright-core/index.mjs', import.meta.url));
const DIR = new URL('../web/icons/', import.meta.url);
const svg = readFileSync(new URL('icon.svg', DIR), 'utf8');
const TILE = '#0a58ca'; // the tile's fill in icon.svg (web/style.css --link)
if (!svg.includes(`fill="${TILE}"`)) throw new Error(`icon.svg no longer fills its tile with ${TILE}: update TILE`);
const src = 'data:image/svg+xml;base64,' + Buffer.from(svg).toString('base64');

const ICONS = [
  { file: 'icon-192.png', size: 192, scale: 1, background: 'transparent' },
  { file: 'icon-512.png', size: 512, scale: 1, background: 'transparent' },
  { file: 'maskable-512.png', size: 512, scale: 0.8, background: TILE },
];

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
});
try {
  for (const { file, size, scale, background } of ICONS) {
    const page = await browser.newPage({ viewport: { width: size, height: size }, deviceScaleFactor: 1 });
    const side = Math.round(size * scale);
    await page.setContent(`<!DOCTYPE html><html><body style="margin:0;width:${size}px;height:${size}px;
      background:${background};display:grid;place-items:center"><img alt="" src="${src}"
      width="${side}" height="${side}"></body></html>`);
    await page.waitForFunction(() => document.querySelector('img').complete);
    if (!(await page.evaluate(() => document.querySelector('img').naturalWidth > 0))) {
      throw new Error('Chromium could not decode web/icons/icon.svg (is it well-formed XML?)');
    }
    const png = await page.screenshot({ omitBackground: background === 'transparent', type: 'png' });
    writeFileSync(new URL(file, DIR), png);
    console.log(`web/icons/${file}: ${size}x${size}, ${png.length} bytes`);
    await page.close();
  }
} finally {
  await browser.close();
}
