// The record store contract against the S3 store and the project's own S3 test server
// (preconditions as S3 documents them, SigV4 checked, faults injected by the server).

import { gateFolder } from '../../../src/baseline/record-paths.js';
import { BUCKET, PREFIX, startHarness } from '../s3/support.js';
import { at, sampleRecord } from '../git/support.js';
import { describeRecordBackendContract, FOREIGN_GATE } from './record-backend-contract.js';

describeRecordBackendContract('S3 (test server)', async () => {
  const harness = await startHarness();
  return {
    backend: harness.store(),
    reopen: () => Promise.resolve(harness.store()),
    cleanup: () => harness.close(),
    writesBlind: true,
    // Another gate's batch, copied byte for byte under this gate's folder.
    plantForeign: async (gateKey) => {
      const other = harness.store();
      await other.appendRecords([sampleRecord('qwen', 77, at(77), { gateKey: FOREIGN_GATE })]);
      const [key] = harness.keys(`${PREFIX}/${gateFolder(FOREIGN_GATE)}/runs/`);
      const body = harness.s3.object(BUCKET, key!)!;
      const planted = key!.replace(`/${gateFolder(FOREIGN_GATE)}/`, `/${gateFolder(gateKey)}/`);
      await harness.put(planted, body.toString('utf8'));
      return planted;
    },
    faults: {
      'write-dropped': () => {
        harness.s3.fault({ method: 'PUT', key: /\/runs\// }, { kind: 'drop' });
        return Promise.resolve();
      },
      'read-dropped': () => {
        harness.s3.fault({ method: 'GET', key: /\/runs\// }, { kind: 'drop' });
        return Promise.resolve();
      },
    },
  };
});
