// A data branch for the benches that read one: a bare `origin` (uploadpack.allowFilter on,
// as GitHub has it) with a checkout of main, and every record written in one commit
// through `git fast-import`, far faster than a push per night.

import { spawn } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Git } from '../src/baseline/git/git.js';
import { type BaselineRecord } from '../src/baseline/record.js';
import { pathOfRecord } from '../src/baseline/record-paths.js';
import { serializeRecord } from '../src/baseline/record-text.js';

export interface BenchRepos {
  /** The bare repository that plays `origin`. */
  origin: string;
  /** A clone with one commit on main, its origin set: the workspace of a job. */
  checkout: string;
}

export async function makeBenchRepos(root: string): Promise<BenchRepos> {
  const origin = join(root, 'origin.git');
  const checkout = join(root, 'checkout');
  const git = new Git({ cwd: root });
  await git.run(['init', '--quiet', '--bare', '--initial-branch=main', origin]);
  await git.in(origin).run(['config', 'uploadpack.allowFilter', 'true']);
  await git.run(['init', '--quiet', '--initial-branch=main', checkout]);
  await writeFile(join(checkout, 'README.md'), '# code\n');
  await git.in(checkout).run(['add', 'README.md']);
  await git.in(checkout).run(['commit', '--quiet', '-m', 'code']);
  await git.in(checkout).run(['remote', 'add', 'origin', origin]);
  await git.in(checkout).run(['push', '--quiet', 'origin', 'main']);
  return { origin, checkout };
}

/**
 * One commit on `perf-gate-data` in `origin` with every record (`count` of them, for the
 * message), streamed into `git fast-import`; returns the bytes of record JSON written.
 */
export async function writeDataBranch(
  origin: string,
  records: Iterable<BaselineRecord>,
  count: number,
): Promise<{ bytes: number; count: number }> {
  const child = spawn('git', ['fast-import', '--quiet'], {
    cwd: origin,
    stdio: ['pipe', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((done) => child.on('close', done));
  const write = async (text: string) => {
    if (!child.stdin.write(text)) await new Promise((done) => child.stdin.once('drain', done));
  };
  const message = `perf-gate: ${count} records [skip ci]\n`;
  const when = Math.floor(Date.now() / 1000);
  await write(
    `commit refs/heads/perf-gate-data\n` +
      `committer neuron-perf-gate <neuron-perf-gate@users.noreply.github.com> ${when} +0000\n` +
      `data ${Buffer.byteLength(message)}\n${message}\n`,
  );
  let bytes = 0;
  let written = 0;
  for (const record of records) {
    const text = serializeRecord(record);
    bytes += Buffer.byteLength(text);
    written += 1;
    await write(
      `M 100644 inline ${pathOfRecord(record)}\ndata ${Buffer.byteLength(text)}\n${text}\n`,
    );
  }
  child.stdin.end();
  const code = await exited;
  if (code !== 0) throw new Error(`git fast-import failed (${code}): ${stderr}`);
  return { bytes, count: written };
}
