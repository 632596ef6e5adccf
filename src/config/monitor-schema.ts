// `monitor:` in a benchmark entry: watch its clean runs with neuron-monitor (device memory
// by kind, NeuronCore use) and /proc (the benchmark's host peak RSS) (src/observe/).
// `true` takes the defaults; a mapping names another neuron-monitor (the simulator's, a
// wrapper) or another sampling period.

import { z } from 'zod';
import { readDurationSeconds } from './duration.js';
import { reissue, strictMapping } from './strict-mapping.js';
import type { MonitorSpec } from './types.js';

/** What `monitor: true` means: neuron-monitor on PATH (or in /opt/aws/neuron/bin), every second. */
export const DEFAULT_MONITOR: MonitorSpec = { command: 'neuron-monitor', periodSeconds: 1 };

const PERIOD = { min: 0.1, max: 60 };

export const MONITOR_ALLOWED = {
  monitor:
    'allowed: true, false, or a mapping with command (the neuron-monitor to run) and period, such as { command: tools/neuron-monitor, period: 1s }',
  command:
    'allowed: the neuron-monitor executable: a name found on PATH (and in /opt/aws/neuron/bin), or a path relative to the working directory',
  period: `allowed: a duration from ${PERIOD.min} s to ${PERIOD.max} s, such as 1s or 0.5s`,
} as const;

const commandSchema = z.unknown().transform((value, context): string => {
  const text = typeof value === 'string' ? value.trim() : '';
  if (text !== '' && !/[\r\n\0]/.test(text)) return text;
  context.addIssue({ code: 'custom', message: MONITOR_ALLOWED.command, input: value });
  return z.NEVER;
});

const periodSchema = z.unknown().transform((value, context): number => {
  const seconds = readDurationSeconds(value);
  if (seconds !== undefined && seconds >= PERIOD.min && seconds <= PERIOD.max) return seconds;
  context.addIssue({ code: 'custom', message: MONITOR_ALLOWED.period, input: value });
  return z.NEVER;
});

const mappingSchema = strictMapping({
  command: commandSchema.optional(),
  period: periodSchema.optional(),
}).transform((monitor): MonitorSpec => ({
  command: monitor.command ?? DEFAULT_MONITOR.command,
  periodSeconds: monitor.period ?? DEFAULT_MONITOR.periodSeconds,
}));

/**
 * `monitor:` as its MonitorSpec, or undefined for `false`. Not a zod union: a union would
 * say "found a mapping" for a mapping with one wrong field instead of naming the field.
 */
export const monitorSchema = z.unknown().transform((value, context): MonitorSpec | undefined => {
  if (value === true) return DEFAULT_MONITOR;
  if (value === false) return undefined;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    context.addIssue({ code: 'custom', message: MONITOR_ALLOWED.monitor, input: value });
    return z.NEVER;
  }
  const parsed = mappingSchema.safeParse(value);
  if (parsed.success) return parsed.data;
  reissue(context, parsed.error.issues);
  return z.NEVER;
});
