// The dashboard judges a gate's series by that gate's configured thresholds, as its
// history (and so its issues) does: a step the config tolerates is drawn quiet and is no
// open regression on the page, while another gate's series of the same benchmark keep the
// built-in thresholds, since this run does not have that gate's config.
import { describe, expect, it } from 'vitest';
import { ATTENTION_SHAPE, recordsOfNight } from '../../bench/history-sim.js';
import { dashboardInput } from '../../src/dashboard/build.js';
import type { DashboardInput } from '../../src/dashboard/page-data.js';
import { withRecordPaths } from '../../src/history/series.js';

const nights = (gateKey: string) =>
  Array.from({ length: ATTENTION_SHAPE.nights }, (_, night) =>
    recordsOfNight({ ...ATTENTION_SHAPE, gateKey }, night),
  ).flat();
const stored = withRecordPaths([...nights('nightly'), ...nights('other-gate')]);

/** model-2's series of a gate and metric, with its change points. */
function seriesOf(input: DashboardInput, gate: string, metric: string) {
  const built = input.series.find(
    (s) => s.gateKey === gate && s.benchmark === 'model-2' && s.metric === metric,
  );
  expect(built, `${gate} model-2 ${metric}`).toBeDefined();
  return built!;
}

/** Whether the page lists an open regression that moved model-2 of that gate. */
function openRegressionOf(input: DashboardInput, gate: string): boolean {
  return (input.regressions ?? []).some((r) =>
    r.changes.some((c) => {
      const s = input.series.find((series) => series.id === c.seriesId);
      return s?.gateKey === gate && s.benchmark === 'model-2';
    }),
  );
}

describe("the dashboard and the gate's configured thresholds", () => {
  const builtIn = dashboardInput({ records: stored, source: 'test' });
  // model-2 slowed 10% at night 33: past 5% (built in), inside a configured 25%.
  const tolerant = {
    throughput: 0.25,
    latency_p50: 0.25,
    latency_p95: 0.25,
    latency_p99: 0.25,
    mfu: 0.25,
  };
  const configured = dashboardInput({
    records: stored,
    source: 'test',
    thresholdsOf: (benchmark, gate) =>
      gate === 'nightly' && benchmark === 'model-2' ? tolerant : undefined,
  });

  it('with the built-in thresholds, both gates show model-2 as an open regression', () => {
    expect(openRegressionOf(builtIn, 'nightly')).toBe(true);
    expect(openRegressionOf(builtIn, 'other-gate')).toBe(true);
  });

  it("uses the configured threshold for the gate's own series: no open regression", () => {
    const throughput = seriesOf(configured, 'nightly', 'throughput');
    expect(throughput.threshold).toBe(0.25);
    expect(openRegressionOf(configured, 'nightly')).toBe(false);
    // The step is still drawn, quiet: inside the threshold the config gives it.
    const steps = (configured.changes ?? []).filter((c) => c.seriesId === throughput.id);
    expect(steps.length).toBeGreaterThan(0);
    expect(steps.every((c) => c.quiet)).toBe(true);
  });

  it("leaves another gate's series of the same benchmark at the built-in thresholds", () => {
    expect(seriesOf(configured, 'other-gate', 'throughput').threshold).toBe(0.05);
    expect(openRegressionOf(configured, 'other-gate')).toBe(true);
  });
});
