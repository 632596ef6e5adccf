// profileDiffOf: which view leads (one slowed op by op; an engine slowed in every layer by op
// kind), nothing named between two profiles of the same build, the collectives and roofline
// carried, and no diff without operator times on both sides.
import { describe, expect, it } from 'vitest';
import type { EngineName, OpTime, ProfileSummary } from '../../src/model.js';
import { profileDiffOf } from '../../src/profile/opdiff/profile-diff.js';

const LAYER: [string, number, EngineName][] = [
  ['input_layernorm/aten.rms_norm', 18, 'vector'],
  ['self_attn.qkv_proj/aten.mm', 95, 'tensor'],
  ['self_attn.core/aten.softmax', 25, 'scalar'],
  ['self_attn.o_proj/aten.mm', 70, 'tensor'],
  ['mlp.gate_up_proj/aten.mm', 190, 'tensor'],
  ['mlp.act_fn/aten.silu', 30, 'scalar'],
  ['mlp.down_proj/aten.mm', 120, 'tensor'],
];

/** A deterministic ±3% jitter per op and profile (a hash, not a generator: no shared state). */
function jitter(op: string, profile: string): number {
  let h = 2166136261;
  for (const c of `${profile}:${op}`) h = Math.imul(h ^ c.charCodeAt(0), 16777619) >>> 0;
  return 1 + ((h % 6001) / 6000 - 0.5) * 0.06;
}

function profile(name: string, slow: (op: string, engine: EngineName) => number = () => 1) {
  const ops: OpTime[] = [];
  for (let layer = 0; layer < 24; layer += 1) {
    for (const [kind, us, engine] of LAYER) {
      const op = `Layer[${layer}]/${kind}`;
      ops.push({
        op,
        deviceNs: us * 1000 * jitter(op, name) * slow(op, engine),
        calls: 1,
        hbmBytes: 1000,
        instructions: { [engine]: us },
      });
    }
  }
  return { ops } satisfies Pick<ProfileSummary, 'ops'>;
}

describe('profileDiffOf', () => {
  it("leads with the one op that was slowed, by op, whatever the other copies' jitter", () => {
    // Its kind's line holds the same change plus 23 other copies' noise: about half the
    // time that is more, and the precise view must still lead.
    for (let pair = 0; pair < 20; pair += 1) {
      const slowed = profileDiffOf(
        profile(`a${pair}`),
        profile(`b${pair}`, (op) => (op === 'Layer[7]/mlp.down_proj/aten.mm' ? 5 : 1)),
        'base',
      )!;
      expect(slowed.lead, `pair ${pair}`).toBe('ops');
    }
    const diff = profileDiffOf(
      profile('a'),
      profile('b', (op) => (op === 'Layer[7]/mlp.down_proj/aten.mm' ? 5 : 1)),
      'base',
    )!;
    expect(diff.ops.named[0]).toMatchObject({
      op: 'Layer[7]/mlp.down_proj/aten.mm',
      engine: 'tensor',
    });
    expect(diff.ops.named[0]!.share).toBeGreaterThan(0.9);
    // Its kind is named too, with every other layer's jitter besides.
    expect(diff.kinds.named[0]!.op).toBe('Layer[*]/mlp.down_proj/aten.mm');
  });

  it('leads by op kind when an engine is slower in every layer', () => {
    const diff = profileDiffOf(
      profile('a'),
      profile('b', (_, engine) => (engine === 'scalar' ? 1.5 : 1)),
      'base',
    )!;
    expect(diff.lead).toBe('kinds');
    expect(diff.kinds.named.map((c) => c.op).sort()).toEqual([
      'Layer[*]/mlp.act_fn/aten.silu',
      'Layer[*]/self_attn.core/aten.softmax',
    ]);
    const covered = diff.kinds.named.reduce((sum, c) => sum + c.share, 0);
    expect(covered).toBeGreaterThan(0.85);
  });

  it('names nothing between two profiles of the same build, and finds the shared factor', () => {
    const diff = profileDiffOf(
      profile('a'),
      profile('b', () => 1.04),
      'base',
    )!;
    expect(diff.ops.named).toEqual([]);
    expect(diff.kinds.named).toEqual([]);
    expect(diff.ops.shared.factor).toBeCloseTo(1.04, 2);
  });

  it("carries collectives, roofline and either side's contamination; none without ops", () => {
    const base = {
      ...profile('a'),
      roofline: { mfu: 4, maxAchievable: 20 },
      collectives: [
        {
          operation: 'AllReduce',
          algorithm: 'Ring',
          replicaGroup: '[[0,1]]',
          count: 48,
          totalMs: 2,
        },
      ],
    };
    const head = { ...profile('b'), contamination: ['NeuronCore 1 throttled for 2.00 ms'] };
    const diff = profileDiffOf(base, head, 'the base side')!;
    expect(diff.base).toBe('the base side');
    expect(diff.roofline).toEqual({ base: { mfu: 4, maxAchievable: 20 } });
    expect(diff.collectives).toEqual({ base: base.collectives, head: [] });
    expect(diff.caveats).toEqual(['head: NeuronCore 1 throttled for 2.00 ms']);
    expect(profileDiffOf({}, head, 'x')).toBeUndefined();
    expect(profileDiffOf(base, { ops: [] }, 'x')).toBeUndefined();
  });
});
