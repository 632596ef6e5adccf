// One writer of `bench:fleet` (fleet.ts): a runner that stores one night of its results.
// Builds its records, opens the store the way the gate does, says "ready", waits for the
// word on stdin so every writer starts at once, stores, and prints one JSON line.

import { createInterface } from 'node:readline';
import { openRecordBackend, type StoreSpec } from '../src/baseline/open-backend.js';
import type { BaselineRecord } from '../src/baseline/record.js';
import { errorMessage } from '../src/errors.js';
import { recordsOfNight } from './history-sim.js';

export interface WriterTask {
  store: StoreSpec;
  writer: number;
  gateKey: string;
  /** Plain benchmarks, 5 series each. */
  benchmarks: number;
  /** Per-request latencies kept per run. */
  requests: number;
}

export interface WriterOutcome {
  writer: number;
  ok: boolean;
  added: number;
  attempts: number;
  ms: number;
  error?: string;
}

/** The night of one runner: its own run id, so no two writers name a record alike. */
export function recordsOfWriter(task: WriterTask): BaselineRecord[] {
  const night = recordsOfNight(
    { nights: 1, benchmarks: task.benchmarks, requests: task.requests, gateKey: task.gateKey },
    0,
  );
  return night.map((record) => ({ ...record, runId: `fleet-${task.writer}` }));
}

async function main(): Promise<void> {
  const task = JSON.parse(process.env.FLEET_TASK ?? '') as WriterTask;
  const records = recordsOfWriter(task);
  const backend = await openRecordBackend(task.store);
  process.stdout.write('ready\n');
  await new Promise<void>((go) =>
    createInterface({ input: process.stdin }).once('line', () => go()),
  );
  const started = performance.now();
  let outcome: WriterOutcome;
  try {
    const stored = await backend.appendRecords(records, { keep: Number.MAX_SAFE_INTEGER });
    const ms = performance.now() - started;
    outcome = {
      writer: task.writer,
      ok: true,
      added: stored.added.length,
      attempts: stored.attempts,
      ms,
    };
  } catch (error) {
    const ms = performance.now() - started;
    outcome = {
      writer: task.writer,
      ok: false,
      added: 0,
      attempts: 0,
      ms,
      error: errorMessage(error),
    };
  }
  await backend.close?.();
  // Exit only once the line is out: an exit with a pipe write pending can drop it.
  process.stdout.write(`${JSON.stringify(outcome)}\n`, () => process.exit(0));
}

if (process.env.FLEET_TASK) void main();
