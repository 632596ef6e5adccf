// A vllm bench sweep summary (two runs per setting) end to end: the bundled action, ten
// earlier nights of it stored on a real data branch, then a build with every figure 15%
// worse on a noisy host (its two runs 20% apart), which must fail. Before the stored
// records lent the spread of their means to two current runs, every metric took Welch's
// interval at about 1 degree of freedom and was inconclusive: exit 0.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeRepos } from '../baseline/git/support.js';
import { pushPayload, runActionProcess } from '../support/action-run.js';
import { ROOT } from '../support/bundled.js';

const BENCH = join(ROOT, 'test', 'support', 'sweep-summary-bench.mjs');
const inputs = {
  name: 'sweep-max-num-seqs-32',
  command: `node ${JSON.stringify(BENCH)}`,
  format: 'auto',
  runs: '1',
  // One look: a whole sweep is too costly to re-run for confirmation, so the first look's
  // 2 runs decide (with confirmation runs the old code got there by taking 4 more).
  'confirm-runs': '0',
  profile: 'false',
  'upload-profiles': 'false',
  'github-token': '',
};

describe('a two-run sweep summary against ten stored nights', () => {
  it('fails a build with every figure 15% worse', async () => {
    const repos = await makeRepos();
    const sha = await repos.git.run(['rev-parse', 'HEAD']);
    const push = (night: number, env: Record<string, string>) =>
      runActionProcess({
        workspace: repos.checkout,
        label: `night-${night}`,
        inputs,
        event: { name: 'push', payload: pushPayload('main', sha), ref: 'refs/heads/main', sha },
        env: { GITHUB_RUN_ID: String(2000 + night), SWEEP_SEED: String(night), ...env },
      });
    for (let night = 1; night <= 10; night += 1) {
      const stored = await push(night, {});
      expect(stored.stderr).toBe('');
      expect(stored.code, stored.stdout).toBe(0);
    }
    const slower = await push(11, { SWEEP_FACTOR: '1.15', SWEEP_APART: '0.2' });
    expect(slower.outputs.verdict, slower.summary).toBe('regression');
    expect(slower.code).toBe(1);
    expect(slower.summary).toContain(
      '2 runs a side: the noise learned from the means of 10 stored records of 2 runs each',
    );
  }, 180_000);
});
