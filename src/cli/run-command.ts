import { resolve } from 'node:path';
import { fileBaselineStoreFor } from '../baseline/file-store.js';
import { resolveGateConfig } from '../config/load.js';
import type { RawSettings } from '../config/types.js';
import { runGate } from '../pipeline.js';
import { saveBaselineIfAllowed, writeReportFiles } from '../publish/files.js';
import { refuseLinkedOutDir } from '../fs/no-links.js';
import { StderrLogger } from '../publish/stderr-logger.js';
import { createProcessRunner } from '../runner/process.js';
import { single, type ParsedArgs } from './args.js';
import { exitCodeFor } from './exit-code.js';
import { cliSandbox, ISOLATION_FLAGS } from './isolation.js';
import type { CliIo } from './io.js';
import { THRESHOLD_FLAGS, thresholdText } from './thresholds.js';

/** Settings given as `--name value`, the same as the action input of that name. */
const SETTING_FLAGS = [
  'command',
  'name',
  'format',
  'runs',
  'profile',
  'profile-mode',
  'profiler-path',
  'confirm-runs',
  'confidence',
  'timeout-minutes',
  'working-directory',
] as const satisfies readonly (keyof RawSettings)[];

export const RUN_FLAGS = {
  ...Object.fromEntries(SETTING_FLAGS.map((flag) => [flag, { takes: 'one' } as const])),
  ...THRESHOLD_FLAGS,
  config: { takes: 'one' },
  baseline: { takes: 'many' },
  out: { takes: 'one' },
  'save-baseline': { takes: 'one' },
  quiet: { takes: 'none' },
  ...ISOLATION_FLAGS,
} as const;

/** `run`: runs the configured benchmarks and judges them, like the action does. */
export async function runCommand(args: ParsedArgs, io: CliIo): Promise<number> {
  const resolved = await resolveGateConfig(
    {
      ...Object.fromEntries(SETTING_FLAGS.map((flag) => [flag, single(args, flag) ?? ''])),
      thresholds: thresholdText(args) ?? '',
      config: single(args, 'config') ?? '',
      'baseline-path': (args.flags.get('baseline') ?? []).join('\n'),
      'out-dir': single(args, 'out') ?? '',
      'save-baseline': single(args, 'save-baseline') ?? '',
    },
    { workspace: io.cwd, origin: 'cli' },
  );
  // The CLI uploads nothing: the profiles stay in the out folder, and the report says so.
  const config = { ...resolved, uploadProfiles: false };
  const log = new StderrLogger({ showOutput: !args.flags.has('quiet') }, io.stderr);
  const sandbox = await cliSandbox(args, io, {
    repositories: [io.cwd, ...config.benchmarks.map((b) => b.workingDirectory)],
    keep: [config.outDir],
    log,
  });
  const report = await runGate(config, {
    runner: createProcessRunner({ sandbox }),
    log,
    baselineStore: fileBaselineStoreFor(config),
    env: io.env,
  }).finally(() => sandbox.dispose());
  await refuseLinkedOutDir(io.cwd, config.outDir);
  const files = await writeReportFiles(config.outDir, report, config);
  if (config.saveBaseline) {
    const saved = await saveBaselineIfAllowed(config.saveBaseline, report, io.cwd);
    log.info(
      saved.saved
        ? `baseline saved to ${config.saveBaseline}`
        : `baseline not saved: ${saved.reason}`,
    );
  }
  io.stdout(files.markdown);
  log.info(`neuron-perf-gate: ${report.verdict}; report in ${resolve(files.report)}`);
  return exitCodeFor(report.verdict);
}
