// Least privilege in every example workflow: a job that runs a pull request's code gets a
// token that writes nothing; what is posted on a pull request is posted by a job that runs
// none of its code; and no checkout leaves its token in .git/config.
import { readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  EXAMPLES_DIR,
  gateStepInputs,
  loadWorkflowExample,
  type WorkflowExample,
  type WorkflowJob,
} from '../support/workflow-example.js';

const EXAMPLES = readdirSync(EXAMPLES_DIR).filter((file) => file.endsWith('.yml'));
const PULL_REQUEST_EVENTS = ['pull_request', 'pull_request_target'];

/** The event names of `on:` (a string, a list or a mapping). */
function eventsOf(example: WorkflowExample): string[] {
  const on = example.on;
  if (typeof on === 'string') return [on];
  if (Array.isArray(on)) return on.map(String);
  return Object.keys(on as Record<string, unknown>);
}

/** Whether the job can run on a pull request event: the workflow has one, the job's `if` allows it. */
function runsPullRequests(example: WorkflowExample, job: WorkflowJob): boolean {
  if (!eventsOf(example).some((event) => PULL_REQUEST_EVENTS.includes(event))) return false;
  const condition = job.if ?? '';
  return !/github\.event_name\s*==\s*'(push|schedule|workflow_dispatch)'/.test(condition);
}

/** The job's permissions, or the workflow's; `write-all` and a missing block are everything. */
function permissionsOf(example: WorkflowExample, job: WorkflowJob): Record<string, string> | 'all' {
  const block = job.permissions ?? example.permissions;
  if (block === undefined || block === 'write-all') return 'all';
  if (block === 'read-all') return {};
  return block as Record<string, string>;
}

function checkouts(job: WorkflowJob) {
  return (job.steps ?? []).filter((step) => step.uses?.startsWith('actions/checkout'));
}

/**
 * Whether the job runs the gate on a record store outside A/B: its report names the baseline
 * branch's open regressions and links their issues (src/action/open-regressions.ts).
 */
function readsRecordStore(file: string, id: string, job: WorkflowJob): boolean {
  const usesGate = (job.steps ?? []).some((step) => step.uses?.includes('neuron-perf-gate'));
  if (!usesGate) return false;
  const inputs = gateStepInputs(file, id);
  const mode = inputs.mode ?? 'gate';
  return mode === 'gate' && inputs['baseline-store'] !== 'artifact' && !inputs['compare-with'];
}

describe.each(EXAMPLES)('examples/workflows/%s', (file) => {
  const example = loadWorkflowExample(file);

  it('names its permissions (none granted by default to the whole workflow)', () => {
    for (const [id, job] of Object.entries(example.jobs)) {
      expect(permissionsOf(example, job), `job ${id}`).not.toBe('all');
    }
  });

  it("gives a job that runs a pull request's code a token that writes nothing", () => {
    for (const [id, job] of Object.entries(example.jobs)) {
      if (!runsPullRequests(example, job) || checkouts(job).length === 0) continue;
      const permissions = permissionsOf(example, job) as Record<string, string>;
      const writes = Object.entries(permissions).filter(([, level]) => level === 'write');
      expect(writes, `job ${id}`).toEqual([]);
    }
  });

  it('publishes on a pull request only from a job that checks out nothing and only posts', () => {
    for (const [id, job] of Object.entries(example.jobs)) {
      if (!runsPullRequests(example, job)) continue;
      const permissions = permissionsOf(example, job) as Record<string, string>;
      if (!Object.values(permissions).includes('write')) continue;
      expect(checkouts(job), `job ${id}`).toEqual([]);
      expect(JSON.stringify(job['runs-on']), `job ${id}`).not.toMatch(/self-hosted/);
      expect(gateStepInputs(file, id).mode, `job ${id}`).toBe('comment');
    }
  });

  it('lets a gate that reads a record store read issues, to link its open regressions', () => {
    for (const [id, job] of Object.entries(example.jobs)) {
      if (!readsRecordStore(file, id, job)) continue;
      const permissions = permissionsOf(example, job) as Record<string, string>;
      expect(['read', 'write'], `job ${id}`).toContain(permissions.issues);
    }
  });

  it('checks out without leaving the token in .git/config', () => {
    for (const [id, job] of Object.entries(example.jobs)) {
      for (const step of checkouts(job)) {
        expect(step.with?.['persist-credentials'], `job ${id}`).toBe(false);
      }
    }
  });
});

it('reads every example (the rules above are not vacuous)', () => {
  expect(EXAMPLES.length).toBeGreaterThanOrEqual(5);
  const prJobs = EXAMPLES.flatMap((file) => {
    const example = loadWorkflowExample(file);
    return Object.values(example.jobs).filter(
      (job) => runsPullRequests(example, job) && checkouts(job).length > 0,
    );
  });
  expect(prJobs.length).toBeGreaterThanOrEqual(3);
});
