// A benchmark's operator diff: its profile against the base's (the baseline record's in
// stored mode, the base side's in A/B), by op and by op kind. An op slowed in one layer shows
// by op; an engine or kernel slower in every layer shows by kind, where each layer's copy
// alone would stay in the noise. The view that explains more of the change leads.

import type { OpDiff, ProfileDiff, ProfileSummary } from '../../model.js';
import { alignedOps } from './bounded-ops.js';
import { diffOps } from './op-diff.js';
import { byKind } from './op-times.js';

/** What a base profile must hold for a diff: its ops, and what else it has. */
export type DiffableProfile = Pick<
  ProfileSummary,
  'ops' | 'collectives' | 'roofline' | 'contamination'
>;

/** The diff of `head` against `base`; undefined unless both have operator times. */
export function profileDiffOf(
  base: DiffableProfile | undefined,
  head: DiffableProfile | undefined,
  baseName: string,
): ProfileDiff | undefined {
  if (!base?.ops?.length || !head?.ops?.length) return undefined;
  // A record keeps only its largest ops (bounded-ops.ts): both sides on that footing.
  const [baseOps, headOps] = alignedOps(base.ops, head.ops);
  const ops = diffOps(baseOps, headOps);
  const kinds = diffOps(byKind(baseOps), byKind(headOps));
  const caveats = [
    ...(base.contamination ?? []).map((c) => `base: ${c}`),
    ...(head.contamination ?? []).map((c) => `head: ${c}`),
  ];
  return {
    base: baseName,
    ops,
    kinds,
    // The precise view unless the coarse one explains clearly more: one slowed op is also
    // in its kind's line, with every other copy's noise besides.
    lead: explained(kinds) > explained(ops) + KIND_MARGIN ? 'kinds' : 'ops',
    ...(base.collectives || head.collectives
      ? { collectives: { base: base.collectives ?? [], head: head.collectives ?? [] } }
      : {}),
    ...(base.roofline || head.roofline
      ? {
          roofline: {
            ...(base.roofline ? { base: base.roofline } : {}),
            ...(head.roofline ? { head: head.roofline } : {}),
          },
        }
      : {}),
    ...(caveats.length > 0 ? { caveats } : {}),
  };
}

/** How much more of the change the kind view must explain to lead (bench:opdiff). */
const KIND_MARGIN = 0.2;

/** How much of the change the named ops account for (shares of the same sign as the change). */
function explained(diff: OpDiff): number {
  return diff.named.reduce((sum, change) => sum + Math.max(0, change.share), 0);
}
