// `--isolation`: where the CLI runs the benchmark, the probe, the profiler and bisect's
// hook. `auto` takes the best the machine offers and says when it offers none; a named
// kind is required (an error when the machine lacks it).

import { usageError } from '../errors.js';
import type { Logger } from '../log.js';
import { createSandbox, rootRunnerWarning, type Sandbox } from '../runner/sandbox.js';
import { single, type ParsedArgs } from './args.js';
import type { CliIo } from './io.js';

export const ISOLATION_FLAGS = { isolation: { takes: 'one' } } as const;

const KINDS = ['auto', 'bubblewrap', 'unshare', 'none'] as const;

export async function cliSandbox(
  args: ParsedArgs,
  io: CliIo,
  options: { repositories: string[]; keep: string[]; log: Logger },
): Promise<Sandbox> {
  const given = single(args, 'isolation') ?? 'auto';
  const prefer = KINDS.find((kind) => kind === given);
  if (prefer === undefined) {
    throw usageError(
      `option '--isolation': found ${JSON.stringify(given)}; allowed: ${KINDS.join(', ')}`,
    );
  }
  const sandbox = await createSandbox({
    env: io.env,
    repositories: options.repositories,
    keep: options.keep,
    prefer,
  });
  const asRoot = rootRunnerWarning();
  if (asRoot !== undefined) options.log.warning(asRoot);
  if (sandbox.kind !== 'none') options.log.info(`isolation: ${sandbox.description}`);
  else if (prefer === 'auto') {
    options.log.warning(
      `the benchmark runs without isolation: ${sandbox.description}; install bubblewrap to isolate it`,
    );
  } else if (prefer !== 'none') {
    await sandbox.dispose();
    throw usageError(`option '--isolation ${prefer}': not available here: ${sandbox.description}`);
  }
  return sandbox;
}
