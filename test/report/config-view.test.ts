import { describe, expect, it } from 'vitest';
import { configView } from '../../src/report/config-view.js';
import { gateConfig } from './support.js';

describe('configView', () => {
  const config = gateConfig(['llama', 'qwen']);
  config.benchmarks[0]!.sweep = { name: 'sweep', variant: 'bs8', params: { batch_size: 8 } };
  config.benchmarks[0]!.configHash = 'abc123';
  const view = configView(config);

  it('carries what a reader needs to reproduce each benchmark', () => {
    const [llama, qwen] = view.benchmarks;
    expect(llama).toMatchObject({
      name: 'llama',
      sweep: config.benchmarks[0]!.sweep,
      command: config.benchmarks[0]!.command,
      format: config.benchmarks[0]!.format,
      runs: config.benchmarks[0]!.runs,
      confirmRuns: config.benchmarks[0]!.confirmRuns,
      profile: config.benchmarks[0]!.profile,
      profileMode: config.benchmarks[0]!.profileMode,
      thresholds: config.benchmarks[0]!.thresholds,
      timeoutMinutes: config.benchmarks[0]!.timeoutMinutes,
      configHash: 'abc123',
    });
    expect(qwen).not.toHaveProperty('sweep');
    expect(qwen).not.toHaveProperty('configHash');
    expect(view).toMatchObject({
      source: config.source,
      confidence: config.confidence,
      baselineWindow: config.baselineWindow,
      failOnRegression: config.failOnRegression,
      failOnInconclusive: config.failOnInconclusive,
    });
  });

  it('lists variable names, sorted, and never their values', () => {
    expect(view.benchmarks[0]!.envNames).toEqual(Object.keys(config.benchmarks[0]!.env).sort());
    const json = JSON.stringify(view);
    for (const value of Object.values(config.benchmarks[0]!.env)) expect(json).not.toContain(value);
  });

  it('survives JSON and shares nothing with the config it came from', () => {
    expect(JSON.parse(JSON.stringify(view))).toEqual(view);
    view.benchmarks[0]!.thresholds.throughput = 0.5;
    view.baselinePaths.push('/elsewhere');
    expect(config.benchmarks[0]!.thresholds.throughput).toBe(0.05);
    expect(config.baselinePaths).toEqual(['/work/repo/baseline.json']);
  });
});
