// neuron-monitor reports every runtime of the host: only those whose pid is one of the
// run's processes count, built on the docs' excerpt (test/fixtures/
// neuron-monitor/excerpt.json) with the pids a runner shared by two jobs would show.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseNeuronMonitorStream } from '../../src/formats/neuron-monitor.js';
import { runtimesOfRun } from '../../src/observe/run-runtimes.js';

const EXCERPT = JSON.parse(
  readFileSync(new URL('../fixtures/neuron-monitor/excerpt.json', import.meta.url), 'utf8'),
) as { neuron_runtime_data: Record<string, unknown>[] };
const RUNTIME = EXCERPT.neuron_runtime_data[0]!;
/** The excerpt's runtime: 3105088000 bytes of device memory. */
const DEVICE = 3105088000;

/** A report line with one runtime per pid (and tag), the second with twice the memory. */
function line(pids: number[], tags: string[] = []): string {
  const runtimes = pids.map((pid, i) => {
    const copy = structuredClone(RUNTIME) as {
      pid: number;
      neuron_runtime_tag: string;
      report: { memory_used: { neuron_runtime_used_bytes: { neuron_device: number } } };
    };
    copy.pid = pid;
    if (tags[i] !== undefined) copy.neuron_runtime_tag = tags[i];
    copy.report.memory_used.neuron_runtime_used_bytes.neuron_device = DEVICE * (i + 1);
    return copy;
  });
  return `${JSON.stringify({ ...EXCERPT, neuron_runtime_data: runtimes })}\n`;
}

describe('runtimesOfRun', () => {
  it("counts only the runtimes of the run's processes when neuron-monitor names one of them", () => {
    const text = line([4242, 777]).repeat(3);
    const stream = runtimesOfRun(text, 'm.jsonl', { here: [4240, 4242, 12], inner: [] });
    expect(stream.warnings).toEqual([]);
    expect(stream.runtimePids).toEqual([777, 4242]);
    expect(stream.samples.map((s) => s.deviceBytes)).toEqual([DEVICE, DEVICE, DEVICE]);
    // Without the filter both are summed: the other job's twice as much on top.
    expect(parseNeuronMonitorStream(text, 'm.jsonl').samples[0]!.deviceBytes).toBe(3 * DEVICE);
  });

  it('matches a runtime known by its pid inside the sandbox (NSpid), the host pid first', () => {
    // host-rss.ts gives each process's pid here (98765) and inside its sandbox (3).
    const pids = { here: [98765], inner: [3] };
    expect(runtimesOfRun(line([3, 777]), 'm.jsonl', pids).samples[0]!.deviceBytes).toBe(DEVICE);
    // Another sandbox's runtime may be pid 3 inside it too: the host pid, when named, wins.
    expect(runtimesOfRun(line([3, 98765]), 'm.jsonl', pids).samples[0]!.deviceBytes).toBe(
      2 * DEVICE,
    );
  });

  it('counts every runtime, saying so, when several report and none is the run’s', () => {
    const stream = runtimesOfRun(line([555, 777]), 'm.jsonl', { here: [4242], inner: [] });
    expect(stream.samples[0]!.deviceBytes).toBe(3 * DEVICE);
    expect(stream.warnings).toEqual([
      "neuron-monitor saw 2 Neuron runtimes (pids 555, 777; tags my_app_1), none of them a process or tag of this run (another PID namespace, a tag the benchmark set?): all of them are counted, so device memory may include another job's",
    ]);
  });

  it('counts a lone runtime it cannot place, and runtimes without a pid, as before', () => {
    expect(runtimesOfRun(line([555]), 'm.jsonl', { here: [4242], inner: [] }).warnings).toEqual([]);
    expect(
      runtimesOfRun(line([555]), 'm.jsonl', { here: [4242], inner: [] }).samples[0]!.deviceBytes,
    ).toBe(DEVICE);
    // The excerpt's pid 0: unknown, so always counted, beside the run's own runtime.
    const stream = runtimesOfRun(line([4242, 0]), 'm.jsonl', { here: [4242], inner: [] });
    expect(stream.runtimePids).toEqual([4242]);
    expect(stream.samples[0]!.deviceBytes).toBe(3 * DEVICE);
  });

  it("tells the runtimes apart by the run's NEURON_PROCESS_TAG where every pid is 0", () => {
    const pids = { here: [4242], inner: [] };
    const text = line([0, 0], ['perf-gate-ab12-rerank-clean-2', 'another-job']).repeat(2);
    const stream = runtimesOfRun(text, 'm.jsonl', pids, 'perf-gate-ab12-rerank-clean-2');
    expect(stream.warnings).toEqual([]);
    expect(stream.samples.map((s) => s.deviceBytes)).toEqual([DEVICE, DEVICE]);
    // The other job's runtime is the one with twice the memory: without the tag, both.
    expect(runtimesOfRun(text, 'm.jsonl', pids).samples[0]!.deviceBytes).toBe(3 * DEVICE);
  });

  it("leaves out a pid-0 runtime of another tag beside the run's own pid", () => {
    const text = line([4242, 0], ['perf-gate-x-b-clean-1', 'another-job']);
    const tagged = runtimesOfRun(
      text,
      'm.jsonl',
      { here: [4242], inner: [] },
      'perf-gate-x-b-clean-1',
    );
    expect(tagged.samples[0]!.deviceBytes).toBe(DEVICE);
  });

  it('says so when neither a pid nor the tag names the run', () => {
    const text = line([0, 0], ['job-a', 'job-b']);
    const stream = runtimesOfRun(text, 'm.jsonl', { here: [4242], inner: [] }, 'perf-gate-z');
    expect(stream.samples[0]!.deviceBytes).toBe(3 * DEVICE);
    expect(stream.warnings[0]).toMatch(/saw 2 Neuron runtimes \(pids all 0; tags job-a, job-b\)/);
  });
});
