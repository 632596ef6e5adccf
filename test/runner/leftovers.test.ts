import { describe, expect, it } from 'vitest';
import { describeLeftovers } from '../../src/runner/leftovers.js';

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
