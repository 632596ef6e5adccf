// The fleet's record stores end to end (issue 52): the bundled action with
// `baseline-store: s3` against the project's S3 test server and `baseline-store: postgres`
// against a real PostgreSQL cluster. A push to main stores its record, a slower pull request
// fails against it and stores nothing, the nightly opens a regression issue on the loopback
// GitHub from the store's history, and a store that cannot be reached fails the step naming
// the store and what to check, with every stored record still there.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RecordBackend, StoredRecord } from '../../src/baseline/record-backend.js';
import { PostgresRecordStore } from '../../src/baseline/postgres/postgres-record-store.js';
import { S3RecordStore } from '../../src/baseline/s3/s3-record-store.js';
import {
  pullRequestPayload,
  pushPayload,
  runActionProcess,
  simulatorInputs,
  type ActionEvent,
  type ActionRun,
  useActionGitHubApi,
} from '../support/action-run.js';
import { tempDir } from '../support/offline-result.js';
import { freePort } from '../support/ports.js';
import { startPostgres, type PostgresCluster } from '../support/postgres.js';
import { startS3Server, type S3TestServer } from '../support/s3-server.js';
import { earlierNights } from '../support/earlier-nights.js';

const TOKEN = 'ghs_fleetStoreToken';
const GATE = 'fleet-e2e';
const ACCESS_KEY = 'AKIAFLEETE2E00000001';
const SECRET_KEY = 'fleet-e2e-secret-key';
/** Seconds: the stores retry an unreachable server this long, not their own 120 s. */
const SHORT_LIMITS = { PERF_GATE_NETWORK_TIMEOUT: '2', PERF_GATE_PUBLISH_TIMEOUT: '4' };
/** Far below the 120 s a store retries without the limits, with room for a loaded machine. */
const UNREACHABLE_BOUND_MS = 60_000;

const mainSha = '1'.repeat(40);
const inputs = simulatorInputs({ 'comment-key': GATE, 'confirm-runs': '0' });

/** One store under test: how the action is pointed at it, and a fresh instance to read it. */
interface Fleet {
  name: string;
  start(): Promise<void>;
  stop(): Promise<void>;
  inputs(): Record<string, string>;
  env(): Record<string, string>;
  /** A new store instance on the same bucket or database, as another runner would open. */
  open(): RecordBackend;
  /** How messages name the store, e.g. s3://test-bucket/perf-gate/. */
  named: RegExp;
  /** Points the action at a store that cannot be reached: a closed port. */
  closedPort(): Promise<{ inputs: Record<string, string>; named: RegExp }>;
  /** Makes the running store unreachable, and returns the undoing of it. */
  outage(): Promise<() => Promise<void>>;
  /** Makes only its writes fail (reads answer), and returns the undoing of it. */
  writeOutage?(): () => void;
  /** Text that must never appear in any run's output (the postgres password). */
  secret?(): string;
}

const awsEnv = {
  AWS_ACCESS_KEY_ID: ACCESS_KEY,
  AWS_SECRET_ACCESS_KEY: SECRET_KEY,
  AWS_REGION: 'us-east-1',
  AWS_EC2_METADATA_DISABLED: 'true',
};

function s3Fleet(): Fleet {
  let server: S3TestServer | undefined;
  const s3 = () => server!;
  const storeInputs = (endpoint: string) => ({
    'baseline-store': 's3',
    'baseline-s3-bucket': 'test-bucket',
    'baseline-s3-region': 'us-east-1',
    'baseline-s3-endpoint': endpoint,
  });
  return {
    name: 's3',
    async start() {
      server = await startS3Server({ accessKeyId: ACCESS_KEY, secretAccessKey: SECRET_KEY });
    },
    stop: async () => server?.close(),
    inputs: () => storeInputs(s3().url),
    env: () => awsEnv,
    open() {
      for (const [name, value] of Object.entries(awsEnv)) process.env[name] = value;
      return new S3RecordStore({
        bucket: 'test-bucket',
        prefix: 'perf-gate',
        region: 'us-east-1',
        endpoint: s3().url,
        forcePathStyle: true,
      });
    },
    named: /s3:\/\/test-bucket\/perf-gate\//,
    async closedPort() {
      return { inputs: storeInputs(`http://127.0.0.1:${await freePort()}`), named: this.named };
    },
    async outage() {
      // 503 SlowDown on every request, for as long as the outage lasts.
      s3().fault({ times: Number.POSITIVE_INFINITY }, { kind: 'SlowDown' });
      return async () => s3().clearFaults();
    },
    writeOutage() {
      s3().fault({ method: 'PUT', times: Number.POSITIVE_INFINITY }, { kind: 'SlowDown' });
      return () => s3().clearFaults();
    },
  };
}

function postgresFleet(): Fleet {
  let cluster: PostgresCluster | undefined;
  let url = '';
  const pg = () => cluster!;
  return {
    name: 'postgres',
    async start() {
      cluster = await startPostgres();
      url = await cluster.createDatabase();
    },
    async stop() {
      cluster?.remove();
    },
    inputs: () => ({ 'baseline-store': 'postgres', 'baseline-postgres-url': url }),
    env: () => ({}),
    open: () => new PostgresRecordStore({ connectionString: url }),
    get named() {
      const database = new URL(url).pathname.slice(1);
      return new RegExp(`PostgreSQL database '${database}' on 127\\.0\\.0\\.1:${pg().port}`);
    },
    async closedPort() {
      const port = await freePort();
      const closed = new URL(url);
      closed.port = String(port);
      const database = closed.pathname.slice(1);
      return {
        inputs: { 'baseline-store': 'postgres', 'baseline-postgres-url': closed.toString() },
        named: new RegExp(`PostgreSQL database '${database}' on 127\\.0\\.0\\.1:${port}`),
      };
    },
    async outage() {
      pg().stop();
      return async () => pg().start();
    },
    secret: () => pg().password,
  };
}

describe.each([{ fleet: s3Fleet() }, { fleet: postgresFleet() }])(
  'the action with baseline-store $fleet.name',
  ({ fleet }) => {
    const github = useActionGitHubApi();
    const runs: ActionRun[] = [];
    let workspace: string;
    let runCount = 0;

    beforeAll(async () => {
      workspace = await tempDir(`perf-gate-fleet-${fleet.name}-`);
      await fleet.start();
    }, 120_000);
    afterAll(async () => {
      await fleet.stop();
    });

    async function run(
      event: ActionEvent,
      env: Record<string, string> = {},
      extra: Record<string, string> = {},
    ): Promise<ActionRun> {
      runCount += 1;
      const result = await runActionProcess({
        workspace,
        label: `${fleet.name}-${runCount}`,
        inputs: { ...inputs, ...fleet.inputs(), ...extra },
        event,
        env: {
          ...fleet.env(),
          GITHUB_API_URL: github.api.url,
          GITHUB_RUN_ID: String(7000 + runCount),
          SIM_SEED: String(300 + runCount),
          ...env,
        },
      });
      runs.push(result);
      return result;
    }

    const push = (): ActionEvent => ({
      name: 'push',
      payload: pushPayload('main', mainSha),
      ref: 'refs/heads/main',
      sha: mainSha,
    });
    const schedule: ActionEvent = {
      name: 'schedule',
      payload: { schedule: '0 3 * * *' },
      ref: 'refs/heads/main',
      sha: mainSha,
    };

    async function stored(): Promise<StoredRecord[]> {
      const store = fleet.open();
      try {
        return (await store.readStoredRecords(GATE)).records;
      } finally {
        await store.close?.();
      }
    }

    it('stores a push to main, and says where', async () => {
      const result = await run(push(), {}, { 'github-token': TOKEN });
      expect(result.code, result.stdout).toBe(0);
      expect(result.outputs.verdict).toBe('no-baseline');
      const records = await stored();
      expect(records).toHaveLength(1);
      expect(records[0]!.record).toMatchObject({
        gateKey: GATE,
        benchmark: 'qwen3-reranker',
        commit: mainSha,
        event: 'push',
        branch: 'main',
      });
      expect(records[0]!.path).toMatch(
        new RegExp(`^${GATE}/qwen3-reranker/\\d{8}T\\d{6}Z-1111111-7001-1\\.json$`),
      );
      expect(result.stdout).toMatch(
        new RegExp(`1 record\\(s\\) added to ${fleet.named.source}[^\\n]* \\(1 attempt\\(s\\)`),
      );
    }, 120_000);

    it('fails a slower pull request against that baseline and stores nothing', async () => {
      const before = await stored();
      const pr = await run(
        {
          name: 'pull_request',
          payload: pullRequestPayload({ number: 7, headSha: 'f'.repeat(40) }),
          ref: 'refs/pull/7/merge',
          sha: 'e'.repeat(40),
        },
        { SIM_SLOWDOWN: '1.15' },
        { 'github-token': '' },
      );
      expect(pr.code, pr.stdout).toBe(1);
      expect(pr.outputs.verdict).toBe('regression');
      expect(pr.stdout).toMatch(/::error title=qwen3-reranker\/throughput::/);
      expect(pr.stdout).toContain('a pull request never updates the baseline');
      // Compared with the push's record, read from the store.
      expect(pr.summary).toMatch(fleet.named);
      expect((await stored()).map((r) => r.path)).toEqual(before.map((r) => r.path));
    }, 120_000);

    it('opens a regression issue from the history the nights leave in the store', async () => {
      const openIssues = () =>
        github.api.state.issues.filter(
          (i) => !i.isPullRequest && i.labels.includes('performance-regression'),
        );
      const night = (env: Record<string, string> = {}) =>
        run(schedule, env, { 'github-token': TOKEN, 'nightly-issue': 'true' });
      // A night as usual compares with what the push stored; the week before it is seeded.
      const usual = await night();
      expect(usual.code, usual.stdout).toBe(0);
      expect(usual.outputs.verdict).toBe('pass');
      await seedEarlierNights(7);
      // The first slower night is one odd night; the second makes it a change point, and
      // the third opens the issue (two nights in a row).
      const first = await night({ SIM_SLOWDOWN: '1.15' });
      expect(first.stdout).toContain('history: 0 open regression(s)');
      const firstBadRun = `${7000 + runCount}-1`;
      const second = await night({ SIM_SLOWDOWN: '1.15' });
      expect(second.stdout).toContain('history: 1 open regression(s)');
      expect(openIssues()).toHaveLength(0);
      const third = await night({ SIM_SLOWDOWN: '1.15' });
      expect(third.stdout).toContain('history: 1 open regression(s)');
      expect(openIssues()).toHaveLength(1);
      const [issue] = openIssues();
      expect(issue!.title).toMatch(new RegExp(`^Performance regression in ${GATE} since `));
      expect(issue!.body).toContain(`<!-- neuron-perf-gate:regression:${GATE}@${firstBadRun} -->`);
      expect(issue!.body).toContain('qwen3-reranker');
      expect(third.summary).toContain(`/issues/${issue!.number})`);
      // Every night was stored: the push, the usual night, the 7 seeded and the 3 slower.
      expect(await stored()).toHaveLength(12);
    }, 300_000);

    /** Copies of the stored push record, dated the nights before it, written as another runner. */
    async function seedEarlierNights(nights: number): Promise<void> {
      const latest = (await stored()).find((r) => r.record.event === 'schedule');
      const copies = earlierNights(latest!.record, nights);
      const store = fleet.open();
      try {
        expect((await store.appendRecords(copies)).added).toHaveLength(nights);
      } finally {
        await store.close?.();
      }
    }

    /** The step failed in time, its error naming the store and what to check. */
    function expectUnreachable(result: ActionRun & { ms: number }, named: RegExp) {
      expect(result.code, result.stdout).not.toBe(0);
      expect(result.ms).toBeLessThan(UNREACHABLE_BOUND_MS);
      const failure = result.stdout.split('\n').find((line) => line.startsWith('::error::'));
      expect(failure, result.stdout).toBeDefined();
      expect(failure).toMatch(named);
      expect(failure).toMatch(/\bcheck\b/i);
      return failure!;
    }

    /** Stopped at its first read of the store: no benchmark ran, no second wait. */
    function expectStoppedBeforeRuns(result: ActionRun) {
      expect(result.stdout).not.toMatch(/ (finished in|failed: )/);
      expect(result.stdout).not.toMatch(/stored history could not be/);
    }

    async function timed(work: () => Promise<ActionRun>) {
      const started = performance.now();
      const result = await work();
      return { ...result, ms: performance.now() - started };
    }

    it('fails the step naming the store on a closed port, and loses nothing', async () => {
      const before = (await stored()).map((r) => r.path);
      const closed = await fleet.closedPort();
      const result = await timed(() =>
        run(push(), SHORT_LIMITS, { 'github-token': TOKEN, ...closed.inputs }),
      );
      expectUnreachable(result, closed.named);
      expectStoppedBeforeRuns(result);
      expect((await stored()).map((r) => r.path)).toEqual(before);
    }, 120_000);

    it('fails the step naming the store while it is down, and loses nothing', async () => {
      const before = (await stored()).map((r) => r.path);
      const restore = await fleet.outage();
      let result: ActionRun & { ms: number };
      try {
        result = await timed(() => run(push(), SHORT_LIMITS, { 'github-token': TOKEN }));
      } finally {
        await restore();
      }
      expectUnreachable(result, fleet.named);
      expectStoppedBeforeRuns(result);
      expect((await stored()).map((r) => r.path)).toEqual(before);
    }, 120_000);

    it.runIf(fleet.writeOutage)(
      'fails the step when the write cannot land, saying what was not stored',
      async () => {
        const before = (await stored()).map((r) => r.path);
        const restore = fleet.writeOutage!();
        let result: ActionRun & { ms: number };
        try {
          result = await timed(() => run(push(), SHORT_LIMITS, { 'github-token': TOKEN }));
        } finally {
          restore();
        }
        // Compared first (the reads answer), then the write is given up on, loudly.
        expect(result.outputs.verdict).toBe('pass');
        const failure = expectUnreachable(result, fleet.named);
        expect(failure).toMatch(/could not store 1 record\(s\)/);
        expect(failure).toMatch(/re-run the job/);
        expect((await stored()).map((r) => r.path)).toEqual(before);
      },
      120_000,
    );

    it('never shows the connection secret but in the mask command for the runner', () => {
      const secret = fleet.secret?.();
      expect(runs.length).toBeGreaterThan(0);
      if (secret === undefined) return;
      for (const result of runs) {
        // ::add-mask:: tells the runner to hide the value: the runner never shows that line.
        const stdout = result.stdout.replace(/^::add-mask::.*$/gm, '');
        for (const text of [stdout, result.stderr, result.summary]) {
          expect(text).not.toContain(secret);
        }
      }
    });
  },
);
