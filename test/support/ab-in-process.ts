// A/B's run and judge phases in-process (src/ab/run-ab.ts) on a small project folder: the
// folder and its config, the two sides of it, and one benchmark measured with real
// processes. Shared by the test/ab files that call runAbBenchmarks directly.
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { runAbBenchmarks, type AbBenchmark, type AbSettings } from '../../src/ab/run-ab.js';
import type { AbSide } from '../../src/ab/schedule.js';
import type { PreparedSide } from '../../src/ab/sides.js';
import { resolveGateConfig } from '../../src/config/load.js';
import { MemoryLogger } from '../../src/log.js';
import type { Environment } from '../../src/model.js';
import { createProcessRunner } from '../../src/runner/process.js';
import type { ProcessRunner } from '../../src/runner/types.js';
import { tempDir } from './offline-result.js';

/** A fresh folder holding `files` and `.github/perf-gate.yml` made of `configLines`. */
export async function abProject(
  prefix: string,
  files: Record<string, string>,
  configLines: readonly string[],
): Promise<string> {
  const root = await tempDir(prefix);
  await mkdir(join(root, '.github'));
  for (const [name, text] of Object.entries(files)) await writeFile(join(root, name), text);
  await writeFile(join(root, '.github/perf-gate.yml'), configLines.join('\n'));
  return root;
}

/** Both sides in `root`, each with its own out-dir and variables (and found environment). */
export function sidesIn(
  root: string,
  env: Record<AbSide, Record<string, string>>,
  environments?: Record<AbSide, Environment>,
): Record<AbSide, PreparedSide> {
  const side = (name: AbSide): PreparedSide => ({
    side: name,
    label: name,
    dir: root,
    outDir: join(root, 'out', name),
    env: env[name],
    ...(environments ? { environment: environments[name] } : {}),
  });
  return { base: side('base'), head: side('head') };
}

/** PATH with `bin` (the simulator's) and this node first, HOME in the project, and `extra`. */
export function nodeEnv(root: string, extra: Record<string, string> = {}, bin?: string) {
  const path = `${bin ? `${bin}:` : ''}${dirname(process.execPath)}:/usr/bin:/bin`;
  return { PATH: path, HOME: root, ...extra };
}

/** The first configured benchmark measured and judged, head against base, in `root`. */
export async function abIn(
  root: string,
  sides: Record<AbSide, PreparedSide>,
  settings: AbSettings,
  env: Record<string, string | undefined>,
  runner: ProcessRunner = createProcessRunner(),
): Promise<AbBenchmark> {
  const config = await resolveGateConfig({}, { workspace: root });
  const [measured] = await runAbBenchmarks(config, sides, root, settings, {
    runner,
    log: new MemoryLogger(),
    env,
  });
  return measured!;
}
