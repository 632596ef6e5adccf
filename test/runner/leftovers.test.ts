import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  describeLeftovers,
  findLeftovers,
  holdNamespace,
  namespaceOf,
  releaseNamespace,
  type RunIdentity,
} from '../../src/runner/leftovers.js';
import { until } from '../support/poll.js';

describe('describeLeftovers', () => {
  it('names each process, which had left the group, and which could not be stopped', () => {
    expect(
      describeLeftovers([
        { pid: 41, command: 'sleep 1000', escaped: false },
        { pid: 42, command: 'vllm serve', escaped: true },
        { pid: 43, command: 'stuck-in-driver', escaped: true, survived: true },
      ]),
    ).toBe(
      '3 processes: 41 `sleep 1000`, 42 `vllm serve` (had left its process group: setsid), ' +
        '43 `stuck-in-driver` (had left its process group: setsid) (NOT stopped: still running after SIGKILL)',
    );
  });
});

/** A process in a PID namespace of its own (bubblewrap), and its namespace. */
async function sandboxed() {
  const child = spawn(
    'bwrap',
    ['--unshare-pid', '--die-with-parent', '--dev-bind', '/', '/', 'sleep', '1000'],
    { stdio: 'ignore' },
  );
  let inner: number | undefined;
  const found = await until(() => {
    inner = childrenOf(child.pid!).find((pid) => namespaceOf(pid) !== namespaceOf('self'));
    return inner !== undefined;
  });
  if (!found) throw new Error('bwrap made no PID namespace');
  return { child, inner: inner!, namespace: namespaceOf(inner!)! };
}

function childrenOf(parent: number): number[] {
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .map(Number)
    .filter((pid) => {
      try {
        return (
          /^PPid:\s*(\d+)$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ===
          String(parent)
        );
      } catch {
        return false;
      }
    });
}

describe("a sandboxed run's namespace", () => {
  it('is matched only while held, so its number, once freed and given to another sandbox, never is', async () => {
    const first = await sandboxed();
    const fd = holdNamespace(first.namespace);
    expect(fd).toBeDefined();
    const run: RunIdentity = {
      pgid: -1,
      marker: 'not-a-marker-of-any-process',
      own: { pids: [], namespacePids: [] },
      namespace: first.namespace,
      namespaceFd: fd!,
    };
    expect(findLeftovers(run).map((p) => p.pid)).toContain(first.inner);
    first.child.kill('SIGKILL');
    expect(await until(() => namespaceOf(first.inner) === undefined)).toBe(true);
    // Held, the number is not handed out again (freed, the kernel gives the lowest free one).
    const second = await sandboxed();
    try {
      expect(second.namespace).not.toBe(first.namespace);
      expect(findLeftovers(run)).toEqual([]);
      releaseNamespace(run);
      expect(run.namespace).toBeUndefined();
      expect(findLeftovers(run)).toEqual([]);
    } finally {
      second.child.kill('SIGKILL');
    }
  }, 60_000);

  it('is not held when no process is left in it', () => {
    expect(holdNamespace('pid:[1]')).toBeUndefined();
    expect(holdNamespace('not a namespace')).toBeUndefined();
  });
});
