// Whether a picture is stale, without a browser: docs/images/pictures.json keeps a sha256 of
// what each picture was rendered from; the test makes those inputs again and compares.
// (Pictures themselves differ by a pixel from one machine's fonts to the next; their
// inputs do not, once what changes from run to run is blanked.)

import { createHash } from 'node:crypto';
import { CMARK_GFM_ARGS, commentPage } from './comment-page.js';
import type { PictureInputs } from './inputs.js';
import { picturePath, type PictureInput, type Shot } from './shots.js';

export const MANIFEST_PATH = 'docs/images/pictures.json';
export const REMAKE = 'npm run pictures';

export interface Manifest {
  remake: string;
  /** By picture path: what it shows, and the sha256 of what it was rendered from. */
  pictures: Record<string, { from: string; sha256: string }>;
}

const FROM: Record<PictureInput, string> = {
  'demo-comment':
    "the demo's comment.md, run durations, time and sandbox blanked; page, cmark-gfm flags, Mermaid version",
  'history-dashboard': 'the dashboard page of the generated history (scripts/pictures/history.ts)',
};

/**
 * The demo's comment as the same on every run and machine: how long each run took, when
 * the gate ran and which sandbox this machine has are blanked. Nothing else of the demo
 * changes between runs: the simulator is seeded.
 */
export function comparableComment(markdown: string): string {
  return markdown
    .replace(/^(- run \d+ \([\w-]+\): (?:ok|failed) in ).+$/gm, '$1…')
    .replace(/^(<sub>.*? · )\d{4}-\d\d-\d\dT[\d:.]+Z( · isolation: [\w-]+)?(<\/sub>)$/gm, '$1…$3');
}

/** Everything a shot's picture depends on, but the browser and its fonts. */
export function renderedFrom(shot: Shot, inputs: Partial<PictureInputs>, mermaid: string): string {
  const input = inputs[shot.input];
  if (input === undefined) throw new Error(`the input ${shot.input} of ${shot.name} was not made`);
  const parts = [JSON.stringify(shot)];
  if (shot.input === 'demo-comment') {
    parts.push(commentPage('', 'mermaid', shot.viewport.width), CMARK_GFM_ARGS.join(' '));
    parts.push(`mermaid ${mermaid}`, comparableComment(input));
  } else {
    parts.push(input);
  }
  return parts.join('\n\0\n');
}

export function fingerprint(shot: Shot, inputs: Partial<PictureInputs>, mermaid: string): string {
  return createHash('sha256')
    .update(renderedFrom(shot, inputs, mermaid))
    .digest('hex');
}

/** The manifest's entry for a shot rendered from inputs with this fingerprint. */
export function manifestEntry(shot: Shot, sha256: string): Manifest['pictures'][string] {
  return { from: FROM[shot.input], sha256 };
}

/**
 * What is stale or out of place, one line each: a picture whose inputs changed since it was
 * rendered (or that was never recorded), a missing picture, an entry no shot makes.
 */
export function staleness(
  manifest: Manifest,
  shots: readonly Shot[],
  fingerprints: ReadonlyMap<string, string>,
  exists: (path: string) => boolean,
): string[] {
  const problems: string[] = [];
  for (const shot of shots) {
    const path = picturePath(shot);
    if (!exists(path)) problems.push(`${path} is missing: run \`${REMAKE}\``);
    else if (manifest.pictures[path]?.sha256 !== fingerprints.get(shot.name))
      problems.push(`${path} is stale: run \`${REMAKE}\``);
  }
  const made = new Set(shots.map(picturePath));
  for (const path of Object.keys(manifest.pictures).filter((p) => !made.has(p))) {
    problems.push(
      `${path} is in ${MANIFEST_PATH}, but no shot of scripts/pictures/shots.ts makes it: remove its entry`,
    );
  }
  return problems;
}
