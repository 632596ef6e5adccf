import { mkdir, writeFile } from 'node:fs/promises';
import { delimiter, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { summarizeProfile } from '../../src/profile/summarize.js';
import { SIMULATOR_BIN } from '../support/bundled.js';
import { tempDir } from '../support/offline-result.js';
import { runner } from '../support/tools.js';

const env = { PATH: `${SIMULATOR_BIN}${delimiter}${process.env.PATH ?? ''}` };

describe('summarizeProfile', () => {
  it('names the likely causes when the run left no NTFF at all', async () => {
    const dir = await tempDir();
    const summary = await summarizeProfile(dir, { runner, env });
    expect(summary.status).toBe('not-measured');
    expect(summary.note).toMatch(/no NTFF file.*before the Neuron runtime started/);
  });

  it('names the likely causes when every NTFF is empty', async () => {
    const dir = await tempDir();
    const session = join(dir, 'i-0abc_pid_7');
    await mkdir(session);
    await writeFile(join(session, '1_instid_0_vnc_0.ntff'), '');
    await writeFile(join(session, 'neff_1.neff'), 'x');
    const summary = await summarizeProfile(dir, { runner, env });
    expect(summary.status).toBe('not-measured');
    expect(summary.note).toMatch(
      /every NTFF file is empty: device profiling was off.*ran out of memory/,
    );
  });

  it('says so when no profiler CLI can be found, or profiler-path is wrong', async () => {
    const dir = await tempDir();
    const session = join(dir, 'i-0abc_pid_7');
    await mkdir(session);
    await writeFile(join(session, '1_instid_0_vnc_0.ntff'), 'not empty');
    await writeFile(join(session, 'neff_1.neff'), 'x');
    const none = await summarizeProfile(dir, { runner, env: { PATH: '/nonexistent' } });
    expect(none.note).toMatch(/no profiler CLI found.*set profiler-path/);
    const wrong = await summarizeProfile(dir, {
      runner,
      env,
      profilerPath: '/nonexistent/neuron-explorer',
    });
    expect(wrong.note).toContain(
      'profiler-path /nonexistent/neuron-explorer is not an executable file',
    );
  });

  it('keeps the profiler error as a warning when a call fails', async () => {
    const dir = await tempDir();
    const session = join(dir, 'i-0abc_pid_7');
    await mkdir(session);
    await writeFile(join(session, '1_instid_0_vnc_0.ntff'), 'not a simulated NTFF');
    await writeFile(join(session, 'neff_1.neff'), 'not a NEFF');
    const summary = await summarizeProfile(dir, { runner, env });
    expect(summary.status).toBe('failed');
    expect(summary.warnings?.[0]).toMatch(
      /the profiler failed on .*1_instid_0_vnc_0\.ntff: exit code 1: .+/,
    );
  });
});
