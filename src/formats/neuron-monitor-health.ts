// What neuron-monitor says about the health of a run, beside its memory: executions that
// ended in an error (`execution_stats.execution_summary` of the run's runtimes, counted per
// period, so added up) and ECC events on the devices (`system_data.neuron_hw_counters`:
// per device, counters since the driver loaded, so the run's are the last report's minus the
// first's). Neuron docs, "Neuron Monitor User Guide": execution_stats, neuron_hw_counters.

/** Outcomes of `execution_summary` that are errors. */
const ERROR_OUTCOMES = [
  'completed_with_err',
  'completed_with_num_err',
  'timed_out',
  'incorrect_input',
  'failed_to_queue',
] as const;

/** `neuron_hw_counters.neuron_devices[]` counters of ECC events. */
const ECC_COUNTERS = [
  'mem_ecc_corrected',
  'mem_ecc_uncorrected',
  'sram_ecc_corrected',
  'sram_ecc_uncorrected',
] as const;

export interface MonitorHealth {
  /** Executions of the run's runtimes that ended in an error, by outcome. */
  executionErrors: Record<string, number>;
  /** ECC events during the run, by counter, over every device. */
  eccEvents: Record<string, number>;
}

export class HealthTally {
  private readonly errors: Record<string, number> = {};
  private readonly firstEcc = new Map<string, number>();
  private readonly lastEcc = new Map<string, number>();

  /** A report's runtimes (those of the run). */
  addRuntimes(runtimes: readonly unknown[]): void {
    for (const runtime of runtimes) {
      const summary = at(runtime, 'report', 'execution_stats', 'execution_summary');
      if (!isObject(summary)) continue;
      for (const outcome of ERROR_OUTCOMES) {
        const count = summary[outcome];
        if (isCount(count) && count > 0) this.errors[outcome] = (this.errors[outcome] ?? 0) + count;
      }
    }
  }

  /** A report's system data: the devices' ECC counters. */
  addSystem(systemData: unknown): void {
    const devices = at(systemData, 'neuron_hw_counters', 'neuron_devices');
    if (!Array.isArray(devices)) return;
    devices.forEach((device, position) => {
      if (!isObject(device)) return;
      const index = isCount(device.neuron_device_index) ? device.neuron_device_index : position;
      for (const counter of ECC_COUNTERS) {
        const value = device[counter];
        if (!isCount(value)) continue;
        const key = `${counter}:${index}`;
        if (!this.firstEcc.has(key)) this.firstEcc.set(key, value);
        this.lastEcc.set(key, value);
      }
    });
  }

  result(): MonitorHealth {
    const ecc: Record<string, number> = {};
    for (const [key, last] of this.lastEcc) {
      const added = last - (this.firstEcc.get(key) ?? last);
      const counter = key.split(':')[0]!;
      if (added > 0) ecc[counter] = (ecc[counter] ?? 0) + added;
    }
    return { executionErrors: { ...this.errors }, eccEvents: ecc };
  }
}

/** Why a run's timings should not be judged, from its health; empty when healthy. */
export function healthProblems(health: MonitorHealth | undefined): string[] {
  if (!health) return [];
  const problems: string[] = [];
  const errors = Object.entries(health.executionErrors);
  if (errors.length > 0) {
    const total = errors.reduce((sum, [, n]) => sum + n, 0);
    problems.push(
      `${total} execution(s) ended in an error (${errors.map(([k, n]) => `${k} ${n}`).join(', ')})`,
    );
  }
  const ecc = Object.entries(health.eccEvents);
  if (ecc.length > 0) {
    problems.push(`new ECC events on the device (${ecc.map(([k, n]) => `${k} +${n}`).join(', ')})`);
  }
  return problems;
}

function at(value: unknown, ...path: string[]): unknown {
  let here = value;
  for (const key of path) {
    if (!isObject(here)) return undefined;
    here = here[key];
  }
  return here;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isCount(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0;
}
