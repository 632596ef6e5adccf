// The device profile mode and warm-up of a profiled run. profile-mode `auto` is `session`
// for a serving format and `model` for any other, as the Neuron docs advise: `model`
// "captures first execution per NEFF per core ... Best for compiled-graph workloads",
// `session` "captures all device activity in a single NTFF file. Use for async workloads,
// continuous traces, or inference serving (e.g., vLLM)"
// (https://awsdocs-neuron.readthedocs-hosted.com/en/v2.33.0/tools/neuron-explorer/environment-variables.html).

import { WARMUP_VARIABLE } from '../config/profiler-variables.js';
import type { BenchmarkSpec } from '../config/types.js';
import { AUTO_FORMAT, isServingFormat, parseResultFile } from '../formats/index.js';
import type { ProfileCapture } from '../model.js';

/**
 * How the profiled run of `spec` records. A format left at `auto` is the one of the
 * benchmark's first clean result (`cleanResult`); unreadable, it counts as not serving.
 */
export async function chooseCapture(
  spec: Pick<BenchmarkSpec, 'format' | 'profileMode' | 'env'>,
  cleanResult: string,
): Promise<ProfileCapture> {
  const warmup = spec.env[WARMUP_VARIABLE]?.trim();
  const withWarmup = warmup === undefined ? {} : { warmup };
  if (spec.profileMode !== 'auto') {
    return { mode: spec.profileMode, modeFrom: 'profile-mode', ...withWarmup };
  }
  const format = spec.format === AUTO_FORMAT ? await formatOf(cleanResult) : spec.format;
  const serving = format !== undefined && isServingFormat(format);
  return {
    mode: serving ? 'session' : 'model',
    modeFrom: serving ? 'serving' : 'default',
    ...(format === undefined ? {} : { format }),
    ...withWarmup,
  };
}

async function formatOf(resultPath: string): Promise<string | undefined> {
  try {
    return (await parseResultFile(resultPath, AUTO_FORMAT)).format;
  } catch {
    return undefined; // the clean runs' parse says what is wrong with the file
  }
}

/** The capture in words, for the log. */
export function describeCapture(capture: ProfileCapture): string {
  const warmup =
    capture.warmup === undefined
      ? "the runtime's default"
      : `${capture.warmup} (${WARMUP_VARIABLE})`;
  return `device profile mode ${capture.mode} (${modeReason(capture)}), warm-up ${warmup}`;
}

function modeReason(capture: ProfileCapture): string {
  if (capture.modeFrom === 'profile-mode') return 'profile-mode';
  if (capture.format === undefined) return 'profile-mode auto; result format not known';
  const kind = capture.modeFrom === 'serving' ? 'a serving format' : 'not a serving format';
  return `profile-mode auto; ${capture.format} is ${kind}`;
}

/** The docs support the warm-up count in model mode only. */
export function captureWarning(capture: ProfileCapture): string | undefined {
  if (capture.warmup === undefined || capture.mode === 'model') return undefined;
  return (
    `${WARMUP_VARIABLE}=${capture.warmup} is set, but the Neuron docs support it in model mode ` +
    `only and this profiled run records a ${capture.mode} device profile; set profile-mode: model ` +
    'to profile an execution after the warm-up'
  );
}
