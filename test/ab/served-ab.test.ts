// A/B mode with a server: each run gets a server of its own, started before it and stopped
// after it, so the two sides' servers never run at once (the toy server binds one port: a
// second at the same time could not start) and each side's runs start equally cold. The
// start-up is then one value per run, judged paired within the blocks like any metric.

import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { abIn, sidesIn } from '../support/ab-in-process.js';
import { tempDir } from '../support/offline-result.js';
import { freePort } from '../support/ports.js';
import { isAlive, whileRunning } from '../support/processes.js';

const TOY = resolve(import.meta.dirname, '..', 'fixtures', 'server', 'toy-server.mjs');

const BENCH = `const response = await fetch('http://127.0.0.1:' + process.env.PORT + '/work');
if (response.status !== 200) process.exit(1);
await import('node:fs').then((fs) => fs.writeFileSync(process.env.PERF_GATE_OUTPUT,
  JSON.stringify([{ name: 'request', unit: 'ms', value: 10 + Math.random() }])));
`;

describe('A/B with a server', () => {
  it('starts a server for each run, one at a time, and pairs their start-ups', async () => {
    const root = await tempDir('perf-gate-ab-served-');
    const port = await freePort();
    await mkdir(join(root, '.github'));
    await writeFile(join(root, 'bench.mjs'), BENCH);
    await writeFile(join(root, 'pids'), '');
    await writeFile(
      join(root, '.github/perf-gate.yml'),
      [
        'benchmarks:',
        '  - name: served',
        '    command: node bench.mjs',
        '    format: custom-smaller-is-better',
        `    env: { PORT: "${port}" }`,
        '    server:',
        `      command: ${JSON.stringify([process.execPath, TOY, '--port', String(port), '--delay', '200', '--pids', 'pids'])}`,
        `      ready-url: http://127.0.0.1:${port}/health`,
      ].join('\n'),
    );
    const sides = sidesIn(root, { base: {}, head: {} });
    const measured = await abIn(
      root,
      sides,
      { blocks: 2, confirmBlocks: 0 },
      {
        PATH: process.env.PATH,
      },
    );

    const report = measured.reports[0]!;
    expect(report.verdict).not.toBe('error');
    // base head head base, twice: eight runs, eight servers (and their workers).
    const pids = (await readFile(join(root, 'pids'), 'utf8')).split('\n').filter(Boolean);
    expect(pids).toHaveLength(16);
    await whileRunning(() => pids.map(Number).some(isAlive));
    expect(pids.map(Number).filter(isAlive)).toEqual([]);

    const head = report.result!.metrics.find((m) => m.id === 'server_startup');
    const base = measured.base[0]!.metrics.find((m) => m.id === 'server_startup');
    expect(head?.values).toHaveLength(4);
    expect(head?.blocks).toEqual([0, 0, 1, 1]);
    expect(base?.blocks).toEqual([0, 0, 1, 1]);
    expect(Math.min(...head!.values, ...base!.values)).toBeGreaterThanOrEqual(0.2);
    const comparison = report.metrics.find((m) => m.id === 'server_startup');
    expect(comparison?.method).toBe('paired-t');
    // Each run's server log sits beside the run's own.
    const logs = await readFile(join(root, 'out/head/runs/served/run-1.clean.server.log'), 'utf8');
    expect(logs).toContain('toy server ready');
  });
});
