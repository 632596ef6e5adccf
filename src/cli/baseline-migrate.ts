// `baseline migrate --from STORE --to STORE`: moves a history between record stores and
// checks it arrived. STORE is `git-branch` (the data branch of --repo, --remote and
// --branch, as for `baseline list`), `dir:PATH`, or a --store URL.

import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { resolveRemote } from '../baseline/git/remote.js';
import { migrateRecords, type Migration } from '../baseline/migrate.js';
import { openRecordBackend, type StoreSpec } from '../baseline/open-backend.js';
import type { RecordBackend } from '../baseline/record-backend.js';
import { parseStoreUrl } from '../baseline/store-url.js';
import { EXIT, usageError } from '../errors.js';
import { TOOL_NAME } from '../version.js';
import { single, type FlagSpec, type ParsedArgs } from './args.js';
import type { CliIo } from './io.js';

export const MIGRATE_FLAGS = {
  from: { takes: 'one' },
  to: { takes: 'one' },
  repo: { takes: 'one' },
  branch: { takes: 'one' },
  remote: { takes: 'one' },
} as const satisfies Record<string, FlagSpec>;

export async function migrateCommand(args: ParsedArgs, io: CliIo): Promise<number> {
  if (args.command !== undefined) {
    throw usageError(`baseline migrate takes no argument ('${args.command}'); see --help`);
  }
  const from = single(args, 'from');
  const to = single(args, 'to');
  if (from === undefined || to === undefined) {
    throw usageError(
      'baseline migrate needs --from STORE and --to STORE: git-branch, dir:PATH or a store URL (s3://…, postgres://…, git+REMOTE#BRANCH)',
    );
  }
  const scratch = await mkdtemp(join(tmpdir(), 'perf-gate-migrate-'));
  const opened: RecordBackend[] = [];
  try {
    const source = await openRecordBackend(specOf(from, '--from', args, io.cwd, scratch));
    opened.push(source);
    const target = await openRecordBackend(specOf(to, '--to', args, io.cwd, scratch));
    opened.push(target);
    if (source.description === target.description) {
      throw usageError(`--from and --to are the same store (${source.description})`);
    }
    io.stderr(`${TOOL_NAME}: migrating ${source.description} → ${target.description}\n`);
    const migration = await migrateRecords(source, target);
    return report(migration, source, target, io);
  } finally {
    for (const backend of opened) await backend.close?.();
    await rm(scratch, { recursive: true, force: true });
  }
}

/** The counts per gate on stdout; a mismatch on stderr, with a non-zero exit. */
function report(migration: Migration, source: RecordBackend, target: RecordBackend, io: CliIo) {
  for (const warning of migration.warnings) io.stderr(`${TOOL_NAME}: warning: ${warning}\n`);
  for (const gate of migration.gates) {
    io.stdout(
      `${gate.gateKey}: ${gate.source} record(s) in the source, ${gate.added} added, ${gate.target} in the target\n`,
    );
  }
  const missing = migration.gates.flatMap((gate) => gate.missing);
  if (missing.length > 0) {
    const shown = missing.slice(0, 5).join(', ');
    io.stderr(
      `${TOOL_NAME}: error: ${missing.length} record(s) of ${source.description} are not in ${target.description} as they are in the source (${shown}${missing.length > 5 ? ', …' : ''}). The source is unchanged; check the target and run migrate again: records already there are not added twice.\n`,
    );
    return EXIT.regression;
  }
  const total = migration.gates.reduce((sum, gate) => sum + gate.source, 0);
  io.stderr(
    `${TOOL_NAME}: ${total} record(s) of ${migration.gates.length} gate(s) are in ${target.description}, each under its source path\n`,
  );
  return EXIT.ok;
}

/** A store named by --from or --to, opened with its own scratch folder where it needs one. */
function specOf(
  text: string,
  flag: '--from' | '--to',
  args: ParsedArgs,
  cwd: string,
  scratch: string,
): StoreSpec {
  const workDir = join(scratch, flag.slice(2));
  if (text === 'git-branch') {
    const branch = single(args, 'branch');
    const remote = single(args, 'remote');
    return {
      kind: 'git-branch',
      repoDir: resolve(cwd, single(args, 'repo') ?? '.'),
      workDir,
      ...(branch !== undefined ? { branch } : {}),
      ...(remote !== undefined ? { remote: resolveRemote(remote, cwd) } : {}),
    };
  }
  const parsed = parseStoreUrl(text, cwd, flag);
  return parsed.kind === 'git-branch' ? { ...parsed, repoDir: cwd, workDir } : parsed;
}
