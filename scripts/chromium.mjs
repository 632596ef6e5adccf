// Debian's headless Chromium as every tool of this repository starts it: the browser tests
// (test/support/chromium.ts, with puppeteer-core), bench:dashboard and the docs' pictures
// (scripts/pictures.mjs). Plain JavaScript so that the scripts can import it
// as they are; the types are in chromium.d.mts.

/** `apt-get install chromium` puts it here; PERF_GATE_CHROMIUM names another. */
export const CHROMIUM = process.env.PERF_GATE_CHROMIUM ?? '/usr/bin/chromium';

/**
 * No sandbox (root in CI), no GPU, /tmp instead of a small /dev/shm in containers, and
 * nothing that talks to the network on its own (updates, sync, field trials).
 */
export const CHROMIUM_FLAGS = Object.freeze([
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-dev-shm-usage',
]);
