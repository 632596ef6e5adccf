// A throwaway PostgreSQL cluster for the store's tests: Debian's real server, initdb'd into
// a temp folder and listening on a free loopback port, with password authentication (so
// the tests can check that a password never reaches a message). initdb and postgres
// refuse to run as root: as root they run as the `postgres` OS user the package creates.
import { execFileSync, spawnSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { freePort } from './ports.js';

export const POSTGRES_INSTALL_ADVICE =
  "PostgreSQL's server binaries (initdb, pg_ctl) were not found; the PostgreSQL store tests run a real server. Install Debian's postgresql: apt-get install -y --no-install-recommends postgresql";

export interface PostgresCluster {
  host: string;
  port: number;
  user: string;
  password: string;
  /** A connection string for `database` (default: the `postgres` maintenance database). */
  url(database?: string): string;
  /** Creates a new empty database and returns its connection string. */
  createDatabase(): Promise<string>;
  /** Runs one statement as the superuser on `database`. */
  query<R extends pg.QueryResultRow = pg.QueryResultRow>(
    database: string,
    text: string,
    values?: unknown[],
  ): Promise<pg.QueryResult<R>>;
  /** Stops the server (fast shutdown: open sessions are ended), keeping its data. */
  stop(): void;
  /** Starts it again on the same port. */
  start(): void;
  /** Stops it and removes its folder. */
  remove(): void;
}

/** The folder holding initdb and pg_ctl: pg_config's, else the newest Debian version's. */
export function postgresBinDir(where: { pgConfig?: string; debianRoot?: string } = {}): string {
  const fromConfig = spawnSync(where.pgConfig ?? 'pg_config', ['--bindir'], { encoding: 'utf8' });
  const candidates = fromConfig.status === 0 ? [fromConfig.stdout.trim()] : [];
  const debian = where.debianRoot ?? '/usr/lib/postgresql';
  if (existsSync(debian)) {
    const versions = readdirSync(debian)
      .filter((name) => /^\d+$/.test(name))
      .sort((a, b) => Number(b) - Number(a));
    candidates.push(...versions.map((version) => join(debian, version, 'bin')));
  }
  const found = candidates.find((dir) => existsSync(join(dir, 'initdb')));
  if (!found) throw new Error(POSTGRES_INSTALL_ADVICE);
  return found;
}

const asRoot = process.getuid?.() === 0;

/** Runs a server binary, as the `postgres` user when this process is root. */
function runServerTool(bin: string, args: string[]): void {
  const [file, argv] = asRoot ? ['runuser', ['-u', 'postgres', '--', bin, ...args]] : [bin, args];
  try {
    execFileSync(file, argv, { stdio: ['ignore', 'pipe', 'pipe'], cwd: tmpdir() });
  } catch (error) {
    const { stderr, stdout } = error as { stderr?: Buffer; stdout?: Buffer };
    throw new Error(
      `${bin} ${args.join(' ')} failed: ${String(stderr ?? '')}${String(stdout ?? '')}`,
      {
        cause: error,
      },
    );
  }
}

export async function startPostgres(): Promise<PostgresCluster> {
  const bin = postgresBinDir();
  const root = mkdtempSync(join(tmpdir(), 'perf-gate-pg-'));
  const data = join(root, 'data');
  const password = randomBytes(12).toString('hex');
  const pwfile = join(root, 'pwfile');
  writeFileSync(pwfile, `${password}\n`);
  if (asRoot) chownToPostgres(root);
  const port = await freePort();
  runServerTool(join(bin, 'initdb'), [
    '--pgdata',
    data,
    '--username',
    'postgres',
    '--pwfile',
    pwfile,
    '--auth',
    'scram-sha-256',
    '--encoding',
    'UTF8',
    '--locale',
    'C',
    '--no-sync',
  ]);
  // Speed over durability: the cluster lives for one test file.
  const serverOptions = [
    `-p ${port}`,
    '-c listen_addresses=127.0.0.1',
    `-k ${root}`,
    '-c fsync=off',
    '-c synchronous_commit=off',
    '-c full_page_writes=off',
    '-c shared_buffers=16MB',
    '-c max_connections=120',
  ].join(' ');
  const pgCtl = join(bin, 'pg_ctl');
  const start = () =>
    runServerTool(pgCtl, [
      'start',
      '-w',
      '-t',
      '60',
      '-D',
      data,
      '-l',
      join(root, 'log'),
      '-o',
      serverOptions,
    ]);
  const stop = () => runServerTool(pgCtl, ['stop', '-w', '-t', '60', '-m', 'fast', '-D', data]);
  start();
  const url = (database = 'postgres') =>
    `postgres://postgres:${password}@127.0.0.1:${port}/${database}`;
  let databases = 0;
  const query = async <R extends pg.QueryResultRow>(
    database: string,
    text: string,
    values?: unknown[],
  ) => {
    const client = new pg.Client({ connectionString: url(database) });
    await client.connect();
    try {
      return await client.query<R>(text, values);
    } finally {
      await client.end();
    }
  };
  return {
    host: '127.0.0.1',
    port,
    user: 'postgres',
    password,
    url,
    query,
    async createDatabase() {
      databases += 1;
      const name = `gate_${databases}`;
      await query('postgres', `CREATE DATABASE ${name}`);
      return url(name);
    },
    stop,
    start,
    remove() {
      try {
        stop();
      } finally {
        rmSync(root, { recursive: true, force: true });
      }
    },
  };
}

/** The folder and what is in it, owned by the `postgres` OS user (who runs the server). */
function chownToPostgres(dir: string): void {
  const id = (flag: string) => Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }));
  const [uid, gid] = [id('-u'), id('-g')];
  const walk = (path: string) => {
    chownSync(path, uid, gid);
    for (const entry of readdirSync(path, { withFileTypes: true })) {
      if (entry.isDirectory()) walk(join(path, entry.name));
      else chownSync(join(path, entry.name), uid, gid);
    }
  };
  walk(dir);
}
