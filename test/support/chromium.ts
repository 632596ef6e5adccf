// Debian's headless Chromium (`apt-get install chromium`, done by .ci/run), driven with
// puppeteer-core, which never downloads a browser of its own. Each launch gets a fresh
// profile folder and no background networking, so a page can reach nothing but what the
// test gives it.

import { mkdtemp, rm } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import puppeteer, { type Browser, type Page } from 'puppeteer-core';
import { CHROMIUM, CHROMIUM_FLAGS } from '../../scripts/chromium.mjs';

export { CHROMIUM };

export interface Chromium {
  browser: Browser;
  /** A new page that records console errors and uncaught exceptions in `errors`. */
  page(): Promise<{ page: Page; errors: string[] }>;
  close(): Promise<void>;
}

export async function launchChromium(): Promise<Chromium> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(
      `${CHROMIUM} not found: the browser tests need Debian's chromium (apt-get install -y chromium, as .ci/run does) or PERF_GATE_CHROMIUM=/path/to/chromium`,
    );
  }
  const profile = await mkdtemp(join(tmpdir(), 'perf-gate-chromium-'));
  const browser = await puppeteer.launch({
    executablePath: CHROMIUM,
    headless: true,
    userDataDir: profile,
    args: [...CHROMIUM_FLAGS],
  });
  return {
    browser,
    async page() {
      const page = await browser.newPage();
      const errors: string[] = [];
      page.on('console', (message) => {
        if (message.type() === 'error') errors.push(message.text());
      });
      page.on('pageerror', (error) => errors.push(String(error)));
      // Nothing may be fetched from the network: every request but the page's own fails.
      await page.setRequestInterception(true);
      page.on('request', (request) => {
        const url = request.url();
        if (url.startsWith('file:') || url.startsWith('data:') || url === 'about:blank') {
          void request.continue();
        } else {
          errors.push(`network request attempted: ${url}`);
          void request.abort();
        }
      });
      return { page, errors };
    },
    async close() {
      await browser.close();
      await rm(profile, { recursive: true, force: true });
    },
  };
}
