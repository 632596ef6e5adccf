// The simulated profile viewers, neuron-explorer and neuron-profile: `view --output-format
// summary-json` over the profiles the simulated benchmark writes (layouts A and B, one
// NEFF/NTFF pair), in the schema of the reference neuron_profile_summary.json, with figures
// that follow the NTFF files; plus the knobs, failures and usage errors.
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { profiledRun, runTool } from './helpers.js';
import type { ToolOutcome } from './helpers.js';

type GraphSummary = Record<string, number | string>;
type Summary = Record<string, GraphSummary>;

const TOOLS = ['neuron-explorer', 'neuron-profile'];
const JSON_FORMAT = ['--output-format', 'summary-json'];
const GRAPH_KEY = /^n_[0-9a-f]{40}$/;
const PEAK_FLOPS = 95e12;
const ENGINE_PERCENTS = ['tensor', 'vector', 'scalar', 'gpsimd', 'sync'].map(
  (e) => `${e}_engine_active_time_percent`,
);
const MFU_KEYS = [
  'mfu_estimated_percent',
  'mfu_max_achievable_estimated_percent',
  'mfu_hlo_estimated_percent',
  'mfu_inst_estimated_percent',
];
const VERSION_KEYS = ['instance_type', 'compiler_version', 'runtime_version', 'profiler_version'];

/** fixtures/neuron_profile_summary.json: `neuron-profile view --output-format summary-json` in the shape the Neuron docs give, reformatted by prettier. */
let referenceKeys: string[];

/** Runs one profiled benchmark; returns the folder that holds the NTFFs (the session). */
async function profiledSession(env: Record<string, string>): Promise<string> {
  const { processDir } = await profiledRun(env, 'sim-profiler-');
  // Layout B: one more level, the session's timestamp.
  if ((await readdir(processDir)).some((n) => n.endsWith('.ntff'))) return processDir;
  const [stamp] = await readdir(processDir);
  return join(processDir, stamp!);
}

async function files(folder: string, extension: string): Promise<string[]> {
  return (await readdir(folder))
    .filter((n) => n.endsWith(extension))
    .sort()
    .map((n) => join(folder, n));
}

function view(args: string[], env: Record<string, string> = {}, tool = 'neuron-explorer') {
  return runTool(tool, ['view', ...args], { env });
}

/** The outcome's stdout as a summary, after checking it is exactly one JSON document. */
function summaryOf(outcome: ToolOutcome): Summary {
  expect(outcome.code, outcome.stderr).toBe(0);
  expect(outcome.stdout.startsWith('{')).toBe(true);
  expect(outcome.stdout.endsWith('}\n')).toBe(true);
  return JSON.parse(outcome.stdout) as Summary;
}

const num = (graph: GraphSummary, key: string) => graph[key] as number;
const graphsOf = (summary: Summary) => Object.values(summary);
/** Context encoding has an MFU; token generation reports -1 (not available). */
const contextEncoding = (summary: Summary) =>
  graphsOf(summary).filter((g) => num(g, 'mfu_estimated_percent') >= 0);
const tokenGeneration = (summary: Summary) =>
  graphsOf(summary).filter((g) => num(g, 'mfu_estimated_percent') < 0);
/** MFU over every graph: Σ model flops / (Σ time × peak). */
function overallMfu(summary: Summary): number {
  const graphs = graphsOf(summary);
  const flops = graphs.reduce((sum, g) => sum + num(g, 'model_flops'), 0);
  const time = graphs.reduce((sum, g) => sum + num(g, 'total_time'), 0);
  return flops / (time * PEAK_FLOPS);
}

/** Every graph has the reference's keys in its order, and values of the documented kinds. */
function expectReferenceShape(summary: Summary) {
  for (const [key, graph] of Object.entries(summary)) {
    expect(key).toMatch(GRAPH_KEY);
    expect(Object.keys(graph)).toEqual(referenceKeys);
    for (const [name, value] of Object.entries(graph)) {
      if (VERSION_KEYS.includes(name)) {
        expect(typeof value, name).toBe('string');
        continue;
      }
      expect(typeof value, name).toBe('number');
      expect(Number.isFinite(value), name).toBe(true);
      if (name.endsWith('_percent')) {
        // A fraction 0..1, or -1: "not available".
        if (value !== -1) {
          expect(value, name).toBeGreaterThanOrEqual(0);
          expect(value, name).toBeLessThanOrEqual(1);
        }
      } else if (/_(bytes|flops|count)$/.test(name)) {
        expect(Number.isInteger(value), name).toBe(true);
      } else {
        expect(value, name).toBeGreaterThanOrEqual(0);
      }
    }
    expect(graph.instance_type).toBe('inf2.xlarge');
  }
}

let layoutA: string;
let layoutB: string;
let emptyA: string;
let slowPair: [string, string];

beforeAll(async () => {
  const reference = JSON.parse(
    await readFile(new URL('./fixtures/neuron_profile_summary.json', import.meta.url), 'utf8'),
  ) as Summary;
  referenceKeys = Object.keys(Object.values(reference)[0]!);
  const exact = { SIM_NOISE: '0' }; // no drift: the figures exactly as calibrated
  const seeded = { NEURON_RT_INSPECT_DEVICE_PROFILE: 'model', SIM_SEED: '3', PERF_GATE_RUN: '4' };
  let base: string;
  let slow: string;
  [layoutA, layoutB, emptyA, base, slow] = await Promise.all([
    profiledSession({ ...exact, NEURON_RT_INSPECT_DEVICE_PROFILE: 'model' }),
    profiledSession({ ...exact, NEURON_RT_INSPECT_DEVICE_PROFILE: 'session' }),
    profiledSession({}), // no device profile: 0-byte NTFFs
    profiledSession(seeded),
    profiledSession({ ...seeded, SIM_SLOWDOWN: '1.08' }),
  ]);
  slowPair = [base, slow];
});

describe('--version', () => {
  it.each(TOOLS)('%s prints a version line and exits 0', async (tool) => {
    const { code, stdout } = await runTool(tool, ['--version']);
    expect(code).toBe(0);
    expect(stdout).toMatch(new RegExp(`^${tool} \\d+\\.\\d+\\.\\d+\\.\\d+\\b.*\\n$`));
  });
});

describe('view -d SESSION_DIR --output-format summary-json', () => {
  it('layout A: every graph on every NeuronCore, in the reference schema', async () => {
    const outcome = await view(['-d', layoutA, ...JSON_FORMAT]);
    const summary = summaryOf(outcome);
    expect(Object.keys(summary)).toHaveLength(4); // 2 graphs × 2 NeuronCores
    expectReferenceShape(summary);
    // Logs go to stderr only.
    expect(outcome.stderr).toMatch(/^INFO: /m);
    expect(outcome.stdout).not.toMatch(/INFO/);
  });

  it('layout A: MFU 4.87% in context encoding, -1 in token generation, ~2.4% overall', async () => {
    const summary = summaryOf(await view(['-d', layoutA, ...JSON_FORMAT]));
    const cte = contextEncoding(summary);
    const tkg = tokenGeneration(summary);
    expect(cte).toHaveLength(2);
    expect(tkg).toHaveLength(2);
    for (const g of cte) {
      expect(num(g, 'mfu_estimated_percent')).toBeCloseTo(0.0487, 6);
      expect(num(g, 'mfu_estimated_percent')).toBeCloseTo(
        num(g, 'model_flops') / (num(g, 'total_time') * PEAK_FLOPS),
        12,
      );
      expect(num(g, 'hfu_estimated_percent')).toBeGreaterThan(num(g, 'mfu_estimated_percent'));
    }
    for (const g of tkg) {
      for (const key of MFU_KEYS) expect(num(g, key), key).toBe(-1);
      expect(num(g, 'dma_active_time_percent')).toBe(0.75);
      expect(num(g, 'hfu_estimated_percent')).toBeGreaterThan(0);
    }
    expect(overallMfu(summary)).toBeCloseTo(0.024, 3);
    // Engines and DMA, time-weighted over both graphs (the published profile).
    const weighted = (key: string) => {
      const graphs = graphsOf(summary);
      const time = graphs.reduce((s, g) => s + num(g, 'total_time'), 0);
      return graphs.reduce((s, g) => s + num(g, key) * num(g, 'total_time'), 0) / time;
    };
    expect(weighted('tensor_engine_active_time_percent')).toBeCloseTo(0.108, 2);
    expect(weighted('vector_engine_active_time_percent')).toBeCloseTo(0.34, 2);
    expect(weighted('dma_active_time_percent')).toBeCloseTo(0.525, 2);
  });

  it('layout B: a session NTFF per NeuronCore, both graphs each, every execution', async () => {
    const summaryA = summaryOf(await view(['-d', layoutA, ...JSON_FORMAT]));
    const summary = summaryOf(await view(['-d', layoutB, ...JSON_FORMAT]));
    expect(Object.keys(summary)).toHaveLength(4);
    expectReferenceShape(summary);
    const cte = contextEncoding(summary);
    expect(cte).toHaveLength(2);
    expect(tokenGeneration(summary)).toHaveLength(2);
    // 10 queries × 3 batches: 30 executions where the model profile has 1; same MFU.
    const [cteA] = contextEncoding(summaryA);
    for (const g of cte) {
      expect(num(g, 'total_time') / num(cteA!, 'total_time')).toBeCloseTo(30, 9);
      expect(num(g, 'mfu_estimated_percent')).toBeCloseTo(0.0487, 6);
    }
    expect(overallMfu(summary)).toBeCloseTo(overallMfu(summaryA), 12);
  });

  it('tells which folder to pass when given the process folder of layout B', async () => {
    const processDir = join(layoutB, '..');
    const { code, stdout, stderr } = await view(['-d', processDir, ...JSON_FORMAT]);
    expect(code).toBe(1);
    expect(stdout).toBe('');
    expect(stderr).toContain(layoutB);
  });
});

describe('view -n NEFF -s NTFF --output-format summary-json', () => {
  it('summarizes the one pair, with the key and values -d gives for it', async () => {
    const all = summaryOf(await view(['-d', layoutA, ...JSON_FORMAT]));
    const ntffs = await files(layoutA, '.ntff');
    for (const ntff of ntffs) {
      const id = ntff.split('/').pop()!.split('_')[0]!;
      const neff = join(layoutA, `neff_${id}.neff`);
      const summary = summaryOf(await view(['-n', neff, '-s', ntff, ...JSON_FORMAT]));
      expect(Object.keys(summary)).toHaveLength(1);
      expectReferenceShape(summary);
      const [key] = Object.keys(summary);
      expect(summary[key!]).toEqual(all[key!]);
    }
  });

  it('picks the NEFF graph out of a session NTFF (layout B), with either tool', async () => {
    const all = summaryOf(await view(['-d', layoutB, ...JSON_FORMAT]));
    const [ntff] = await files(layoutB, 'profile_nc_0_session_0.ntff');
    const neffs = await files(layoutB, '_vnc_0.neff');
    expect(neffs).toHaveLength(2);
    const seen = new Set<string>();
    for (const neff of neffs) {
      for (const tool of TOOLS) {
        const summary = summaryOf(await view(['-n', neff, '-s', ntff!, ...JSON_FORMAT], {}, tool));
        expect(Object.keys(summary)).toHaveLength(1);
        const [key] = Object.keys(summary);
        expect(summary[key!]).toEqual(all[key!]);
        seen.add(key!);
      }
    }
    expect(seen.size).toBe(2); // one graph per NEFF
  });

  it('takes the flags in any order, and --output-format=summary-json', async () => {
    const [ntff] = await files(layoutA, '.ntff');
    const neff = join(layoutA, `neff_${ntff!.split('/').pop()!.split('_')[0]}.neff`);
    const outcomes = await Promise.all([
      view(['-n', neff, '-s', ntff!, '--output-format', 'summary-json']),
      view(['--output-format=summary-json', '-s', ntff!, '-n', neff]),
      runTool('neuron-explorer', [
        '--output-format',
        'summary-json',
        'view',
        '-s',
        ntff!,
        '-n',
        neff,
      ]),
      runTool('neuron-explorer', ['view', '-n', neff, '-s', ntff!, ...JSON_FORMAT], {
        viaShebang: true,
      }),
    ]);
    const first = summaryOf(outcomes[0]!);
    for (const outcome of outcomes) expect(summaryOf(outcome)).toEqual(first);
  });

  it('rejects a NEFF whose graph the NTFF did not record (exit 1)', async () => {
    const ntffs = await files(layoutA, '.ntff');
    const neffs = await files(layoutA, '.neff');
    // The first NTFF belongs to one NEFF; pair it with the other.
    const id = ntffs[0]!.split('/').pop()!.split('_')[0]!;
    const other = neffs.find((n) => !n.endsWith(`neff_${id}.neff`))!;
    const { code, stdout, stderr } = await view(['-n', other, '-s', ntffs[0]!, ...JSON_FORMAT]);
    expect(code).toBe(1);
    expect(stdout).toBe('');
    expect(stderr).toMatch(/no trace of the graph/);
  });
});

describe('figures follow the files', () => {
  it('SIM_SLOWDOWN=1.08 lowers MFU by 1/1.08: same flops, more NeuronCore time', async () => {
    const [base, slow] = await Promise.all(
      slowPair.map(async (dir) => summaryOf(await view(['-d', dir, ...JSON_FORMAT]))),
    );
    // Same configuration, same compiled graphs: the same keys.
    expect(Object.keys(slow!).sort()).toEqual(Object.keys(base!).sort());
    for (const [key, b] of Object.entries(base!)) {
      const s = slow![key]!;
      expect(num(s, 'model_flops')).toBe(num(b, 'model_flops'));
      expect(num(s, 'total_time') / num(b, 'total_time')).toBeCloseTo(1.08, 9);
      if (num(b, 'mfu_estimated_percent') >= 0) {
        expect(num(b, 'mfu_estimated_percent') / num(s, 'mfu_estimated_percent')).toBeCloseTo(
          1.08,
          9,
        );
      } else {
        expect(num(s, 'mfu_estimated_percent')).toBe(-1);
      }
    }
    expect(overallMfu(base!) / overallMfu(slow!)).toBeCloseTo(1.08, 9);
    // With the default noise the run's drift moves MFU a little around the calibration.
    for (const g of contextEncoding(base!)) {
      expect(num(g, 'mfu_estimated_percent')).toBeGreaterThan(0.0487 * 0.95);
      expect(num(g, 'mfu_estimated_percent')).toBeLessThan(0.0487 * 1.05);
    }
  });
});

describe('knobs', () => {
  it('SIM_PROFILER_NAN=1 prints NaN for the engine percents (not valid JSON, on purpose)', async () => {
    const plain = summaryOf(await view(['-d', layoutA, ...JSON_FORMAT]));
    const { code, stdout } = await view(['-d', layoutA, ...JSON_FORMAT], { SIM_PROFILER_NAN: '1' });
    expect(code).toBe(0);
    expect(() => JSON.parse(stdout)).toThrow();
    for (const key of ENGINE_PERCENTS) expect(stdout).toContain(`"${key}": NaN`);
    const tolerant = JSON.parse(stdout.replace(/\bNaN\b/g, 'null')) as Summary;
    for (const [key, graph] of Object.entries(tolerant)) {
      for (const name of ENGINE_PERCENTS) expect(graph[name]).toBeNull();
      const rest = (g: GraphSummary) =>
        Object.entries(g).filter(([name]) => !ENGINE_PERCENTS.includes(name));
      expect(rest(graph)).toEqual(rest(plain[key]!));
    }
  });

  it('SIM_PROFILER_EXTRA_KEYS=1 adds keys a newer SDK might print, keeping all others', async () => {
    const summary = summaryOf(
      await view(['-d', layoutA, ...JSON_FORMAT], { SIM_PROFILER_EXTRA_KEYS: '1' }),
    );
    for (const graph of graphsOf(summary)) {
      const keys = Object.keys(graph);
      expect(keys.length).toBeGreaterThan(referenceKeys.length);
      for (const key of referenceKeys) expect(keys).toContain(key);
    }
  });

  it('SIM_PROFILER_FAIL=1: an error on stderr, nothing on stdout, exit 1', async () => {
    const { code, stdout, stderr } = await view(['-d', layoutA, ...JSON_FORMAT], {
      SIM_PROFILER_FAIL: '1',
    });
    expect(code).toBe(1);
    expect(stdout).toBe('');
    expect(stderr).toMatch(/ERROR/);
  });

  it('SIM_PROFILER_DELAY sleeps that long per call', async () => {
    const { code, durationMs } = await view(['-d', layoutA, ...JSON_FORMAT], {
      SIM_PROFILER_DELAY: '0.4',
    });
    expect(code).toBe(0);
    expect(durationMs).toBeGreaterThanOrEqual(400);
  });

  it('a bad knob value names the variable, exit 2', async () => {
    const bad: Record<string, string>[] = [
      { SIM_PROFILER_DELAY: 'soon' },
      { SIM_PROFILER_NAN: 'maybe' },
    ];
    for (const env of bad) {
      const { code, stderr } = await view(['-d', layoutA, ...JSON_FORMAT], env);
      expect(code).toBe(2);
      expect(stderr).toContain(Object.keys(env)[0]);
    }
  });
});

describe('failures', () => {
  it('a 0-byte NTFF (nothing captured) is an error, exit 1', async () => {
    const [ntff] = await files(emptyA, '.ntff');
    const id = ntff!.split('/').pop()!.split('_')[0]!;
    for (const args of [
      ['-d', emptyA],
      ['-n', join(emptyA, `neff_${id}.neff`), '-s', ntff!],
    ]) {
      const { code, stdout, stderr } = await view([...args, ...JSON_FORMAT]);
      expect(code).toBe(1);
      expect(stdout).toBe('');
      expect(stderr).toMatch(/contains no device trace/);
    }
  });

  // One test per tool: 15 processes each, within its own time limit on a busy host.
  it.each(TOOLS)('bad usage of %s: usage on stderr, nothing on stdout, exit 2', async (tool) => {
    const [ntff] = await files(layoutA, '.ntff');
    const [neff] = await files(layoutA, '.neff');
    const cases: string[][] = [
      [],
      ['view'],
      ['view', '-d', layoutA], // no --output-format
      ['view', '-d', layoutA, '--output-format', 'bogus'],
      ['view', '-d', layoutA, '--output-format=summary-yaml'],
      ['view', '-d', layoutA, '--output-format', 'json'], // real, not simulated
      ['view', '-d', join(layoutA, 'missing'), ...JSON_FORMAT],
      ['view', '-n', join(layoutA, 'missing.neff'), '-s', ntff!, ...JSON_FORMAT],
      ['view', '-n', neff!, '-s', join(layoutA, 'missing.ntff'), ...JSON_FORMAT],
      ['view', '-n', neff!, ...JSON_FORMAT], // no -s
      ['view', '-d', layoutA, '-n', neff!, '-s', ntff!, ...JSON_FORMAT],
      ['view', '-d', layoutA, '--frobnicate', ...JSON_FORMAT],
      ['view', '-d', ...JSON_FORMAT], // -d without a value
      ['capture', '-n', neff!],
      ['explode'],
    ];
    for (const args of cases) {
      const { code, stdout, stderr } = await runTool(tool, args);
      expect(code, `${tool} ${args.join(' ')}`).toBe(2);
      expect(stdout).toBe('');
      expect(stderr).toMatch(new RegExp(`usage: ${tool}`));
    }
  });

  it('--help prints the usage on stdout, exit 0', async () => {
    for (const args of [['--help'], ['view', '-h']]) {
      const { code, stdout } = await runTool('neuron-explorer', args);
      expect(code).toBe(0);
      expect(stdout).toMatch(/^usage: neuron-explorer/);
    }
  });
});
