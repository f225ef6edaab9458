// Starts the wasm app. External (not inline) so the Content-Security-Policy needs no 'unsafe-inline'.
// trunk writes the hashed file names into this script tag's data attributes (Trunk.toml pattern_script).
const tag = document.querySelector('script[data-kg-js]');

function showFatal(message) {
  const box = document.getElementById('fatal');
  if (box.hidden) {
    box.textContent = message;
    box.hidden = false;
  }
  document.getElementById('loading')?.remove();
}

// The release wasm compiles a panic to a trap (scripts/build-site.sh), which reaches the page as a
// WebAssembly.RuntimeError thrown out of an event handler or a task: never a silent dead page.
function onTrap(event) {
  const err = event.error ?? event.reason;
  if (err instanceof WebAssembly.RuntimeError) {
    showFatal('kgadvise hit an internal error and stopped; reload the page. Details: ' + err);
  }
}
addEventListener('error', onTrap);
addEventListener('unhandledrejection', onTrap);

try {
  const { default: init } = await import(tag.dataset.kgJs);
  await init({ module_or_path: tag.dataset.kgWasm });
  document.getElementById('loading')?.remove();
  // Offline use: sw.js (trunk's hook writes it from web/sw.js) caches every file of the site once the page
  // runs. Missing outside a secure context (plain http to another host): the page works as before.
  navigator.serviceWorker?.register(new URL('sw.js', import.meta.url).href)
    .catch(err => console.warn('kgadvise: offline use unavailable:', err));
} catch (err) {
  showFatal('kgadvise could not start in this browser: ' + err);
  throw err;
}
