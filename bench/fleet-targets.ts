// The stores bench:fleet writes to, each started fresh in a scratch folder: the project's
// S3 test server, a throwaway PostgreSQL cluster, and a bare git origin with a data branch.

import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { StoreSpec } from '../src/baseline/open-backend.js';
import { startPostgres } from '../test/support/postgres.js';
import { startS3Server } from '../test/support/s3-server.js';
import { makeBenchRepos } from './data-branch.js';

export interface FleetTarget {
  kind: 's3' | 'postgres' | 'git';
  label: string;
  /** The store as writer `writer` opens it (a reader gets writer = the fleet's size). */
  spec(writer: number): StoreSpec;
  /** Variables the writers need (credentials). */
  env: NodeJS.ProcessEnv;
  /** What the store has served so far: requests, or transactions. */
  requests(): Promise<number>;
  close(): Promise<void>;
}

/** Starts one store, fresh. */
export function startFleetTarget(
  kind: string,
  root: string,
  writers: number,
): Promise<FleetTarget> {
  if (kind === 's3') return s3Target();
  if (kind === 'postgres') return postgresTarget(writers);
  if (kind === 'git') return gitTarget(root);
  throw new Error(`--stores: '${kind}' is not one of s3, postgres, git`);
}

async function s3Target(): Promise<FleetTarget> {
  const server = await startS3Server({ keepLog: false, accessKeyId: 'FLEETKEY' });
  return {
    kind: 's3',
    label: 'S3 (test server)',
    spec: () => ({
      kind: 's3',
      bucket: 'test-bucket',
      prefix: 'fleet',
      endpoint: server.url,
      region: 'us-east-1',
    }),
    env: {
      AWS_ACCESS_KEY_ID: 'FLEETKEY',
      AWS_SECRET_ACCESS_KEY: 'fleet-secret',
      AWS_REGION: 'us-east-1',
    },
    requests: () => Promise.resolve(server.requestCount),
    close: () => server.close(),
  };
}

async function gitTarget(root: string): Promise<FleetTarget> {
  await mkdir(join(root, 'git'), { recursive: true });
  const repos = await makeBenchRepos(join(root, 'git'));
  return {
    kind: 'git',
    label: 'git data branch',
    spec: (writer) => ({
      kind: 'git-branch',
      repoDir: repos.checkout,
      workDir: join(root, 'git', `w${writer}`),
    }),
    env: {},
    requests: () => Promise.resolve(NaN),
    close: async () => {},
  };
}

/** Room for every writer's connection and the reader's. */
async function postgresTarget(writers: number): Promise<FleetTarget> {
  const cluster = await startPostgres({ maxConnections: writers + 20 });
  const url = await cluster.createDatabase();
  const database = new URL(url).pathname.slice(1);
  // Every transaction the database saw, the writers' own retries included (a backend
  // reports its counts when it ends, and the writers have ended when this is read).
  const transactions = async () => {
    const result = await cluster.query<{ n: string }>(
      'postgres',
      'SELECT xact_commit + xact_rollback AS n FROM pg_stat_database WHERE datname = $1',
      [database],
    );
    return Number(result.rows[0]?.n ?? NaN);
  };
  return {
    kind: 'postgres',
    label: 'PostgreSQL',
    spec: () => ({ kind: 'postgres', connectionString: url }),
    env: {},
    requests: transactions,
    close: async () => cluster.remove(),
  };
}
