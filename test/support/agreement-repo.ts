// A scratch repository for the agreement check's end-to-end tests: the example config of
// a served Qwen3-0.6B with `accuracy:` (examples/agreement/perf-gate.yml) on a free port,
// and the simulator settings that make its runs take seconds.
import { mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT } from './bundled.js';
import { freePort } from './ports.js';

/** 20× faster than inf2's time, 40 requests a run, ready after 0.5 s. */
export const SERVE = { SIM_SERVE_SPEEDUP: '20', SIM_SERVE_PROMPTS: '40', SIM_SERVE_STARTUP: '0.5' };

/** A new folder with `.github/perf-gate.yml`; `port` replaces the example's 8000. */
export async function agreementRepo(prefix: string): Promise<{ repo: string; port: string }> {
  const repo = await mkdtemp(join(tmpdir(), prefix));
  await mkdir(join(repo, '.github'));
  const port = `${await freePort()}`;
  const example = await readFile(join(ROOT, 'examples', 'agreement', 'perf-gate.yml'), 'utf8');
  await writeFile(join(repo, '.github/perf-gate.yml'), example.replaceAll('8000', port));
  return { repo, port };
}
