// withSideAgreement: the check's passes in order (base, head, base again), each on a server
// of its side, bounded in time; a head without a server, or a pass that fails, an error
// that names the side and the pass.
import { describe, expect, it } from 'vitest';
import { withSideAgreement, type SideServers } from '../../src/ab/ab-agreement.js';
import type { AccuracySpec, BenchmarkSpec } from '../../src/config/types.js';
import type { Logger } from '../../src/log.js';
import { benchmark } from '../report/support.js';

const quiet = { info: () => undefined, warning: () => undefined } as unknown as Logger;
const accuracy: AccuracySpec = {
  prompts: ['a', 'b'],
  promptsSource: 'test',
  maxTokens: 4,
  topK: 2,
  origin: 'http://127.0.0.1:1',
  margins: { flips: 0.005, distance: 0.01 },
  requestTimeoutSeconds: 1,
};
const spec = (extra: Partial<BenchmarkSpec>): BenchmarkSpec =>
  ({
    name: 'serve',
    command: 'true',
    format: 'auto',
    runs: 1,
    confirmRuns: 0,
    profile: 'false',
    profileMode: 'auto',
    thresholds: {},
    workingDirectory: '/tmp',
    env: {},
    timeoutMinutes: 1,
    ...extra,
  }) as BenchmarkSpec;
const server = {
  command: 'vllm serve m',
  readiness: { url: 'http://127.0.0.1:1/health' },
  startTimeoutSeconds: 1,
  stopSignal: 'SIGTERM' as const,
  stopGraceSeconds: 1,
  env: {},
};
const options = { log: quiet, baseLabel: 'main', confidence: 0.95, failOnInconclusive: false };

describe('withSideAgreement', () => {
  it('makes a head without a server an error that says so, starting no server', async () => {
    const started: string[] = [];
    const servers: SideServers = {
      served: (side, purpose, use) => {
        started.push(`${side}: ${purpose}`);
        return use();
      },
    };
    const [report] = await withSideAgreement(
      [benchmark('serve')],
      { base: spec({ server, accuracy }), head: spec({}) },
      servers,
      options,
    );
    expect(started).toEqual([]);
    expect(report!.verdict).toBe('error');
    expect(report!.error).toBe(
      "the agreement check could not run: the head side's serve has no server: block, and the base's accuracy: asks a server of each side",
    );
  });

  it('names the pass and the side of a server that did not start', async () => {
    const started: string[] = [];
    const servers: SideServers = {
      served: (side, purpose) => {
        started.push(`${side}: ${purpose}`);
        return Promise.reject(new Error(`the ${side} side's server did not start`));
      },
    };
    const [report] = await withSideAgreement(
      [benchmark('serve')],
      { base: spec({ server, accuracy }), head: spec({ server }) },
      servers,
      options,
    );
    expect(started).toEqual(["base: the base's reference answers"]);
    expect(report!.error).toBe(
      "the agreement check could not run: the base's reference answers: the base side's server did not start",
    );
  });

  it('leaves a benchmark without accuracy: alone', async () => {
    const servers: SideServers = { served: () => Promise.reject(new Error('started')) };
    const reports = [benchmark('serve')];
    expect(
      await withSideAgreement(
        reports,
        { base: spec({ server }), head: spec({ server }) },
        servers,
        options,
      ),
    ).toBe(reports);
  });
});
