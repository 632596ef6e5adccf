// The settings of the s3 and postgres baseline stores, merged (the file over the inputs,
// like every gate-wide setting) and checked against the store chosen: a store that
// lacks what it needs to open is named here, before any benchmark runs.

import { usageError } from '../errors.js';
import { DEFAULTS } from './defaults.js';
import type { BaselineS3Settings, BaselineStoreKind } from './types.js';

interface StoreFields {
  baselineS3Bucket?: string;
  baselineS3Prefix?: string;
  baselineS3Region?: string;
  baselineS3Endpoint?: string;
}

export interface StoreSettings {
  baselineS3?: BaselineS3Settings;
  baselinePostgresUrl?: string;
}

export function storeSettings(
  store: BaselineStoreKind,
  file: StoreFields,
  inputs: StoreFields & { baselinePostgresUrl?: string },
): StoreSettings {
  if (store === 's3') return { baselineS3: s3Settings(file, inputs) };
  if (store === 'postgres') {
    if (inputs.baselinePostgresUrl === undefined) {
      throw usageError(
        "baseline-store 'postgres' needs a connection string: give the input baseline-postgres-url: ${{ secrets.PERF_GATE_POSTGRES_URL }} (or set the environment variable PERF_GATE_POSTGRES_URL for the step); it is a secret, so the config file does not take it",
      );
    }
    return { baselinePostgresUrl: inputs.baselinePostgresUrl };
  }
  return {};
}

function s3Settings(file: StoreFields, inputs: StoreFields): BaselineS3Settings {
  const bucket = file.baselineS3Bucket ?? inputs.baselineS3Bucket;
  if (bucket === undefined) {
    throw usageError(
      "baseline-store 's3' needs baseline-s3-bucket: give the bucket's name as that action input or config file key (the bucket must exist; the gate writes under baseline-s3-prefix, default perf-gate)",
    );
  }
  const region = file.baselineS3Region ?? inputs.baselineS3Region;
  const endpoint = file.baselineS3Endpoint ?? inputs.baselineS3Endpoint;
  return {
    bucket,
    prefix: file.baselineS3Prefix ?? inputs.baselineS3Prefix ?? DEFAULTS.baselineS3Prefix,
    ...(region !== undefined ? { region } : {}),
    ...(endpoint !== undefined ? { endpoint } : {}),
  };
}
