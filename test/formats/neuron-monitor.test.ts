// neuron-monitor's stream, in the shape of the Neuron docs' user guide
// (test/fixtures/neuron-monitor/excerpt.json), and streams gone wrong: each bad
// line is named with its file and line and skipped, the others are read.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseNeuronMonitorStream } from '../../src/formats/neuron-monitor.js';

const fixture = (name: string) =>
  readFileSync(new URL(`../fixtures/neuron-monitor/${name}`, import.meta.url), 'utf8');
const CORE0 = {
  constants: 1261766864,
  model_code: 101295008,
  scratchpad: 268435456,
  runtime: 43216,
  tensors: 20971520,
};
const CORE0_TOTAL = 1652512064;

describe('parseNeuronMonitorStream', () => {
  it('reads the excerpt of the docs: the device total, each kind over the cores, the utilisation', () => {
    const stream = parseNeuronMonitorStream(fixture('excerpt.json'), 'excerpt.json');
    expect(stream.warnings).toEqual([]);
    expect(stream.reports).toBe(1);
    // neuron_device counts more than the breakdown (DMA rings, ...): the total is its own.
    expect(stream.samples).toEqual([
      { line: 1, deviceBytes: 3105088000, kinds: CORE0, utilization: 42.01 },
    ]);
  });

  it('reads one report a line; a report without a runtime is counted, not sampled', () => {
    const stream = parseNeuronMonitorStream(fixture('stream.jsonl'), 'm.jsonl');
    expect(stream.warnings).toEqual([]);
    expect(stream.reports).toBe(4);
    expect(stream.samples.map((s) => s.line)).toEqual([2, 3, 4]);
    expect(stream.samples.map((s) => s.deviceBytes)).toEqual([
      CORE0_TOTAL,
      Math.round(1261766864 * 1.1) +
        Math.round(101295008 * 1.1) +
        Math.round(268435456 * 1.1) +
        Math.round(43216 * 1.1) +
        Math.round(20971520 * 1.1),
      expect.any(Number),
    ]);
    expect(stream.samples.map((s) => s.utilization)).toEqual([40, 50, 60]);
    expect(stream.samples[1]!.kinds.scratchpad).toBe(Math.round(268435456 * 1.1));
  });

  it('sums the runtimes of one report', () => {
    const doc = JSON.parse(fixture('excerpt.json')) as { neuron_runtime_data: unknown[] };
    doc.neuron_runtime_data = [doc.neuron_runtime_data[0], doc.neuron_runtime_data[0]];
    const [sample] = parseNeuronMonitorStream(`${JSON.stringify(doc)}\n`, 'two').samples;
    expect(sample!.deviceBytes).toBe(2 * 3105088000);
    expect(sample!.kinds.constants).toBe(2 * CORE0.constants);
    expect(sample!.utilization).toBe(42.01);
  });

  it('takes the total alone from a runtime that breaks nothing down (older SDKs: loaded_models)', () => {
    const stream = parseNeuronMonitorStream(fixture('totals-only.jsonl'), 'old.jsonl');
    expect(stream.warnings).toEqual([]);
    expect(stream.samples).toEqual([
      { line: 1, deviceBytes: 3105088000, kinds: {}, utilization: 42.01 },
    ]);
  });

  it('names a group that reports an error instead of data, once, with its first line', () => {
    const stream = parseNeuronMonitorStream(fixture('group-error.jsonl'), 'runs/b/m.jsonl');
    expect(stream.warnings).toEqual([
      'runs/b/m.jsonl line 1: neuron-monitor reported a memory_used error: failed to read memory stats',
    ]);
    expect(stream.samples.map((s) => s.deviceBytes)).toEqual([undefined, CORE0_TOTAL]);
    expect(stream.samples[0]!.utilization).toBe(42.01);
  });

  it('skips a line that is not JSON, naming the file and line, and reads the rest', () => {
    const stream = parseNeuronMonitorStream(fixture('malformed.jsonl'), 'runs/b/m.jsonl');
    expect(stream.warnings).toHaveLength(1);
    expect(stream.warnings[0]).toMatch(
      /^runs\/b\/m\.jsonl line 3: not a JSON report \(.+\); the line is skipped$/,
    );
    expect(stream.samples.map((s) => s.line)).toEqual([1, 2, 4]);
    expect(stream.samples[2]!.utilization).toBe(45);
  });

  it('says a stream that ends in the middle of a report was cut off, and keeps the reports before', () => {
    const stream = parseNeuronMonitorStream(fixture('truncated.jsonl'), 'm.jsonl');
    expect(stream.warnings).toEqual([
      'm.jsonl line 3: cut off (the stream ended in the middle of a report); the line is skipped',
    ]);
    expect(stream.samples.map((s) => s.utilization)).toEqual([40, 50]);
  });

  it('names a JSON line that is not a report, and counts lines beyond five', () => {
    const text = ['[]', '{"a":1}', '1', 'x', 'y', 'z', 'w'].join('\n');
    const stream = parseNeuronMonitorStream(`${text}\n`, 'm.jsonl');
    expect(stream.warnings[0]).toBe(
      'm.jsonl line 1: no neuron_runtime_data list (not a neuron-monitor report); the line is skipped',
    );
    expect(stream.warnings).toHaveLength(6);
    expect(stream.warnings[5]).toBe('m.jsonl: 2 more lines skipped');
    expect(stream.reports).toBe(0);
  });

  it('reads nothing from an empty stream, without a warning', () => {
    expect(parseNeuronMonitorStream('', 'm.jsonl')).toEqual({
      samples: [],
      reports: 0,
      runtimePids: [],
      runtimeTags: [],
      health: { executionErrors: {}, eccEvents: {} },
      warnings: [],
    });
  });
});
