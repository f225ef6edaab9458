// Starts the wasm app. External (not inline) so the Content-Security-Policy needs no 'unsafe-inline'.
// trunk writes the hashed file names into this script tag's data attributes (Trunk.toml pattern_script).
const tag = document.querySelector('script[data-kg-js]');
try {
  const { default: init } = await import(tag.dataset.kgJs);
  await init({ module_or_path: tag.dataset.kgWasm });
  document.getElementById('loading')?.remove();
} catch (err) {
  const box = document.getElementById('fatal');
  box.textContent = 'kgadvise could not start in this browser: ' + err;
  box.hidden = false;
  document.getElementById('loading')?.remove();
  throw err;
}
