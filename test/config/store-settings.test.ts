// The s3 and postgres stores' settings: from the inputs and the file, with defaults, and a
// clear error naming what a chosen store lacks.

import { describe, expect, it } from 'vitest';
import { resolveGateConfig } from '../../src/config/load.js';
import { useWorkspaces } from './workspace.js';

const makeWorkspace = useWorkspaces();
const FILE = '.github/perf-gate.yml';
const BENCHMARKS = 'benchmarks:\n  - name: b\n    command: ./bench.sh\n';

describe('the s3 store', () => {
  it('takes the bucket from the inputs, with the perf-gate prefix and no region by default', async () => {
    const workspace = await makeWorkspace();
    const config = await resolveGateConfig(
      { command: './bench.sh', 'baseline-store': 'S3', 'baseline-s3-bucket': 'fleet-perf' },
      { workspace },
    );
    expect(config.baselineStore).toBe('s3');
    expect(config.baselineS3).toEqual({ bucket: 'fleet-perf', prefix: 'perf-gate' });
    expect(config.baselinePostgresUrl).toBeUndefined();
  });

  it('takes every key from the config file, over the inputs', async () => {
    const workspace = await makeWorkspace({
      [FILE]: `baseline-store: s3\nbaseline-s3-bucket: from-file\nbaseline-s3-prefix: team/perf\nbaseline-s3-region: eu-west-1\nbaseline-s3-endpoint: http://127.0.0.1:9000\n${BENCHMARKS}`,
    });
    const config = await resolveGateConfig(
      { 'baseline-s3-bucket': 'from-input', 'baseline-s3-region': 'us-east-1' },
      { workspace },
    );
    expect(config.baselineS3).toEqual({
      bucket: 'from-file',
      prefix: 'team/perf',
      region: 'eu-west-1',
      endpoint: 'http://127.0.0.1:9000',
    });
  });

  it('names the missing bucket, and a bad bucket, prefix or endpoint', async () => {
    const workspace = await makeWorkspace();
    await expect(
      resolveGateConfig({ command: './bench.sh', 'baseline-store': 's3' }, { workspace }),
    ).rejects.toThrow(/baseline-store 's3' needs baseline-s3-bucket/);
    const bad = resolveGateConfig(
      {
        command: './bench.sh',
        'baseline-store': 's3',
        'baseline-s3-bucket': 'Bad_Bucket',
        'baseline-s3-prefix': '/abs/../x',
        'baseline-s3-endpoint': 'ftp://x',
      },
      { workspace },
    );
    await expect(bad).rejects.toThrow(/action input 'baseline-s3-bucket'.*S3 bucket name/);
    await expect(bad).rejects.toThrow(/action input 'baseline-s3-prefix'.*key prefix/);
    await expect(bad).rejects.toThrow(
      /action input 'baseline-s3-endpoint'.*http:\/\/ or https:\/\//,
    );
    await expect(
      resolveGateConfig(
        {
          command: './bench.sh',
          'baseline-store': 's3',
          'baseline-s3-bucket': 'b'.repeat(64),
          'baseline-s3-region': 'us east 1',
          'baseline-s3-endpoint': 'https://AKIAKEY:secret@minio.internal',
        },
        { workspace },
      ),
    ).rejects.toThrow(
      /baseline-s3-bucket'[^]*baseline-s3-region'[^]*baseline-s3-endpoint'.*without a user or password/,
    );
  });
});

describe('the postgres store', () => {
  it('takes the connection string from the input only', async () => {
    const workspace = await makeWorkspace();
    const url = 'postgres://gate:s3cret-pass@db.internal:5432/perf';
    const config = await resolveGateConfig(
      { command: './bench.sh', 'baseline-store': 'postgres', 'baseline-postgres-url': url },
      { workspace },
    );
    expect(config.baselinePostgresUrl).toBe(url);
    expect(config.baselineS3).toBeUndefined();
  });

  it('names the missing secret and where to give it, and never quotes a bad one', async () => {
    const workspace = await makeWorkspace();
    await expect(
      resolveGateConfig({ command: './bench.sh', 'baseline-store': 'postgres' }, { workspace }),
    ).rejects.toThrow(
      /needs a connection string: give the input baseline-postgres-url: \$\{\{ secrets\.PERF_GATE_POSTGRES_URL \}\} \(or set the environment variable PERF_GATE_POSTGRES_URL/,
    );
    let message = '';
    try {
      await resolveGateConfig(
        {
          command: './bench.sh',
          'baseline-store': 'postgres',
          'baseline-postgres-url': 'mysql://gate:hunter2-pass@db/perf',
        },
        { workspace },
      );
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toMatch(
      /action input 'baseline-postgres-url'.*not a PostgreSQL connection string/,
    );
    expect(message).not.toContain('hunter2');
  });

  it('is not a key of the config file: a secret does not belong in the repository', async () => {
    const workspace = await makeWorkspace({
      [FILE]: `baseline-store: postgres\nbaseline-postgres-url: postgres://u:p@h/d\n${BENCHMARKS}`,
    });
    await expect(resolveGateConfig({}, { workspace })).rejects.toThrow(
      /unknown key "baseline-postgres-url" \(a secret, never a key of a file in the repository: give the action input/,
    );
  });
});
