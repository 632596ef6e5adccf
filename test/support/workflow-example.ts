// The example workflows in examples/workflows/, read the way GitHub reads them: the tests
// that check the README against them and the end-to-end tests that run the bundled action
// with exactly the inputs an example gives it.
import { readFileSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { parse } from 'yaml';
import { ROOT } from './bundled.js';

export const EXAMPLES_DIR = join(ROOT, 'examples', 'workflows');

export interface WorkflowStep {
  name?: string;
  uses?: string;
  run?: string;
  with?: Record<string, unknown>;
  [key: string]: unknown;
}

export interface WorkflowJob {
  'runs-on'?: unknown;
  permissions?: unknown;
  strategy?: unknown;
  if?: string;
  steps?: WorkflowStep[];
  [key: string]: unknown;
}

export interface WorkflowExample {
  name: string;
  /** The `on:` key: a string, a list of event names, or event name → settings (null when bare). */
  on: unknown;
  /** Workflow-level `permissions:`, when given. */
  permissions?: unknown;
  jobs: Record<string, WorkflowJob>;
}

/** `pull-request.yml`, `examples/workflows/pull-request.yml` or an absolute path. */
export function examplePath(file: string): string {
  if (isAbsolute(file)) return file;
  if (file.includes('/')) return join(ROOT, file);
  return join(EXAMPLES_DIR, file);
}

/** Parses an example workflow; throws when it lacks a name, an `on:` or its jobs. */
export function loadWorkflowExample(file: string): WorkflowExample {
  const path = examplePath(file);
  // YAML 1.2's core schema, as GitHub reads workflows: `on` is a key, not the boolean true.
  const data: unknown = parse(readFileSync(path, 'utf8'), { schema: 'core' });
  if (!isObject(data)) throw new Error(`${path}: not a YAML mapping`);
  const { name, on, jobs, permissions } = data;
  if (typeof name !== 'string' || name === '') throw new Error(`${path}: no 'name:'`);
  if (on === undefined) throw new Error(`${path}: no 'on:'`);
  if (!isObject(jobs) || Object.keys(jobs).length === 0) throw new Error(`${path}: no 'jobs:'`);
  for (const [id, job] of Object.entries(jobs)) {
    if (!isObject(job)) throw new Error(`${path}: job '${id}' is not a mapping`);
  }
  return {
    name,
    on,
    ...(permissions !== undefined ? { permissions } : {}),
    jobs: jobs as Record<string, WorkflowJob>,
  };
}

/**
 * The `with:` of the step that uses neuron-perf-gate, values as the runner passes them
 * (strings; `${{ ... }}` expressions left as written). Without `jobId` the example must have
 * exactly one such step.
 */
export function gateStepInputs(file: string, jobId?: string): Record<string, string> {
  const example = loadWorkflowExample(file);
  const jobs = jobId === undefined ? Object.entries(example.jobs) : [[jobId, example.jobs[jobId]]];
  const found: { job: string; step: WorkflowStep }[] = [];
  for (const [id, job] of jobs as [string, WorkflowJob | undefined][]) {
    if (!job) throw new Error(`${file}: no job '${id}'`);
    for (const step of job.steps ?? []) {
      if (typeof step.uses === 'string' && step.uses.includes('neuron-perf-gate')) {
        found.push({ job: id, step });
      }
    }
  }
  if (found.length !== 1) {
    const where = jobId === undefined ? '' : ` in job '${jobId}'`;
    throw new Error(
      `${file}: expected one neuron-perf-gate step${where}, found ${found.length}` +
        (found.length > 1 ? ` (jobs ${found.map((f) => f.job).join(', ')}); name the job` : ''),
    );
  }
  const inputs: Record<string, string> = {};
  for (const [key, value] of Object.entries(found[0]!.step.with ?? {})) {
    inputs[key] = asInputString(value);
  }
  return inputs;
}

/** A `with:` value as the runner hands it to the action: every scalar becomes a string. */
function asInputString(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  throw new Error(`a with: value must be a scalar, found ${JSON.stringify(value)}`);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
