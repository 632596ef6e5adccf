// What the pictures are rendered from, made without a browser: the markdown of today's
// demo comment and the dashboard page of the generated history. `npm run pictures` renders
// them; the staleness test makes them the same way and compares their fingerprints.

import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { historyDashboard } from './history.js';
import type { PictureInput } from './shots.js';

export type PictureInputs = Record<PictureInput, string>;

/**
 * The comment.md of the demo (scripts/demo.mjs, the bundled gate in dist/ on the simulator),
 * run in a folder of its own so that a developer's demo-output/ is left alone. Its paths are
 * shown from that folder (`demo-output/...`), as a run from the clone shows them.
 */
export function demoComment(root: string): string {
  const workspace = realpathSync(mkdtempSync(join(tmpdir(), 'perf-gate-pictures-demo-')));
  try {
    const demo = spawnSync(
      process.execPath,
      [join(root, 'scripts', 'demo.mjs'), '--workspace', workspace],
      { cwd: root, encoding: 'utf8', stdio: ['ignore', 'ignore', 'pipe'] },
    );
    if (demo.status !== 0) {
      throw new Error(
        `scripts/demo.mjs failed (exit code ${demo.status}); its log:\n${demo.stderr.slice(-4000)}`,
      );
    }
    const markdown = readFileSync(join(workspace, 'demo-output', 'comment.md'), 'utf8');
    return markdown.replaceAll(`${workspace}/`, '');
  } finally {
    rmSync(workspace, { recursive: true, force: true });
  }
}

/** The inputs named in `needed` (all by default); the demo, a few seconds, only when asked. */
export function makeInputs(
  root: string,
  needed: readonly PictureInput[] = ['demo-comment', 'history-dashboard'],
): Partial<PictureInputs> {
  const inputs: Partial<PictureInputs> = {};
  if (needed.includes('demo-comment')) inputs['demo-comment'] = demoComment(root);
  if (needed.includes('history-dashboard')) inputs['history-dashboard'] = historyDashboard();
  return inputs;
}

/** The version of Mermaid that draws the comment's charts (node_modules/mermaid). */
export function mermaidVersion(root: string): string {
  const manifest = JSON.parse(
    readFileSync(join(root, 'node_modules', 'mermaid', 'package.json'), 'utf8'),
  ) as { version: string };
  return manifest.version;
}
