// The record store contract against the PostgreSQL store and a real server: one throwaway
// cluster for the file, a new database for each case. The store talks to the server
// through a loopback proxy that can cut its connection half way through a message: a write
// cut while its INSERT is being sent, a read cut while the rows come back (a connection
// ended by the server while a write holds a lock is tested in test/baseline/postgres/).

import { createHash } from 'node:crypto';
import { afterAll, expect } from 'vitest';
import { PostgresRecordStore } from '../../../src/baseline/postgres/postgres-record-store.js';
import { benchmarkFolder } from '../../../src/baseline/record-paths.js';
import { serializeRecord } from '../../../src/baseline/record-text.js';
import { startCuttingProxy } from '../../support/cutting-proxy.js';
import { startPostgres, type PostgresCluster } from '../../support/postgres.js';
import { at, sampleRecord } from '../git/support.js';
import { describeRecordBackendContract, FOREIGN_GATE } from './record-backend-contract.js';

let cluster: Promise<PostgresCluster> | undefined;
afterAll(async () => (await cluster)?.remove());

describeRecordBackendContract('PostgreSQL', async () => {
  const server = await (cluster ??= startPostgres());
  const direct = new URL(await server.createDatabase());
  const database = direct.pathname.slice(1);
  const proxy = await startCuttingProxy({ host: server.host, port: server.port });
  const url = Object.assign(new URL(direct), { port: String(proxy.port) }).toString();
  const open = () => new PostgresRecordStore({ connectionString: url, deadlineMs: 20_000 });
  const backend = open();
  /** Arms a cut, and checks after the case that the cut happened (else it tested nothing). */
  const cut = (direction: 'to-server' | 'to-client', marker: string) => async () => {
    proxy.arm(direction, marker);
    cutsExpected += 1;
  };
  let cutsExpected = 0;
  return {
    backend,
    reopen: () => Promise.resolve(open()),
    cleanup: async () => {
      await proxy.close();
      expect(proxy.cuts()).toBe(cutsExpected);
    },
    faults: {
      'write-dropped': cut('to-server', 'INSERT INTO perf_gate_records'),
      // The rows of a read carry the records' bodies, which name their benchmark.
      'read-dropped': cut('to-client', '"qwen"'),
    },
    // A row put in by hand: filed under this gate, holding another gate's record.
    plantForeign: async (gateKey) => {
      await backend.readRecords(gateKey); // the schema is there
      const record = sampleRecord('qwen', 77, at(77), { gateKey: FOREIGN_GATE });
      const body = serializeRecord(record);
      const path = `${benchmarkFolder(gateKey, 'qwen')}/20260101T000117Z-planted-1.json`;
      await server.query(
        database,
        `INSERT INTO perf_gate_records
           (path, gate_key, benchmark, created_at, commit_sha, run_id, sha256, body, summary)
         VALUES ($1, $2, 'qwen', $3, $4, $5, $6, $7, $8::jsonb)`,
        [
          path,
          gateKey,
          record.createdAt,
          record.commit,
          record.runId,
          createHash('sha256').update(body).digest('hex'),
          body,
          body,
        ],
      );
      return path;
    },
  };
});
