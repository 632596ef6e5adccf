// A/B mode with monitor: each side's runs are watched alike (the simulator's neuron-monitor
// beside each), so device memory is judged paired within the blocks like any metric: the
// head side's 20% more device memory is a regression of device_memory_peak.

import { describe, expect, it } from 'vitest';
import { abIn, abProject, nodeEnv, sidesIn } from '../support/ab-in-process.js';
import { livePidsWith } from '../support/processes.js';
import { BIN } from '../simulator/helpers.js';

const BENCH = `setTimeout(() => require('node:fs').writeFileSync(process.env.PERF_GATE_OUTPUT,
  JSON.stringify([{ name: 'request', unit: 'ms', value: 10 + Math.random() }])), 500);
`;

const WATCHED = [
  'benchmarks:',
  '  - name: watched',
  '    command: node bench.cjs',
  '    format: custom-smaller-is-better',
];

describe('A/B with monitor', () => {
  it('watches both sides and judges device memory paired', async () => {
    const root = await abProject('perf-gate-ab-monitor-', { 'bench.cjs': BENCH }, [
      ...WATCHED,
      '    monitor: { period: 0.1s }',
    ]);
    const sides = sidesIn(root, { base: {}, head: { SIM_DEVICE_MEMORY_GROWTH: '1.2' } });
    const measured = await abIn(
      root,
      sides,
      { blocks: 2, confirmBlocks: 0 },
      nodeEnv(root, {}, BIN),
    );

    const report = measured.reports[0]!;
    expect(report.verdict).toBe('regression');
    const device = report.metrics.find((m) => m.id === 'device_memory_peak')!;
    expect(device.method).toBe('paired-t');
    expect(device.verdict).toBe('regression');
    expect(device.change).toBeCloseTo(0.2, 3);
    const head = report.result!.metrics.find((m) => m.id === 'device_memory_peak');
    expect(head?.blocks).toEqual([0, 0, 1, 1]);
    expect(livePidsWith(root)).toEqual([]);
  });

  it("surfaces each side's observer warnings: a neuron-monitor that cannot start", async () => {
    const root = await abProject('perf-gate-ab-monitor-missing-', { 'bench.cjs': BENCH }, [
      ...WATCHED,
      '    monitor: { period: 0.1s, command: no-such-neuron-monitor }',
    ]);
    const sides = sidesIn(root, { base: {}, head: { SIM_SLOWDOWN: '1' } });
    const measured = await abIn(root, sides, { blocks: 1, confirmBlocks: 0 }, nodeEnv(root));

    const report = measured.reports[0]!;
    for (const side of ['base', 'head']) {
      expect(report.warnings).toContainEqual(
        expect.stringMatching(
          new RegExp(
            `^${side}: clean run 1, 2: neuron-monitor \\(no-such-neuron-monitor\\) was not found or is not executable`,
          ),
        ),
      );
    }
    // Not measured rather than missing: the row says why.
    const device = report.metrics.find((m) => m.id === 'device_memory_peak');
    expect(device?.reason).toMatch(/not measured in clean run 1 \(see the warnings\)/);
    expect(livePidsWith(root)).toEqual([]);
  });
});
