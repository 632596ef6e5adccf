// `neuron-perf-gate dashboard --missing-after N`, in process on a folder of records: the
// page lists model-b, which stopped after night 14 while model-a ran on to night 19, once
// the gate ran N days without it; 0 lists nothing; a bad N is a usage error. The command's
// time is given (CliIo.now), never the clock's.
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FolderRecordStore } from '../../src/baseline/folder-store.js';
import { runCli } from '../../src/cli/main.js';
import type { PageData } from '../../src/dashboard/page-data.js';
import { NIGHT0, nightRecords } from '../history/night-records.js';

const LAST_NIGHT = 19;

async function folderOfNights(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'perf-gate-dashboard-cli-'));
  const store = new FolderRecordStore(dir);
  for (let night = 0; night <= LAST_NIGHT; night += 1) {
    const benchmarks = night <= 14 ? ['model-a', 'model-b'] : ['model-a'];
    for (const record of nightRecords({ benchmarks, nights: LAST_NIGHT + 1 }, night)) {
      await store.writeRecord(record);
    }
  }
  return dir;
}

async function dashboard(dir: string, extra: string[]) {
  let stderr = '';
  const code = await runCli(['dashboard', '--dir', '.', '--out', 'site', ...extra], {
    cwd: dir,
    env: { PATH: process.env.PATH },
    stdout: () => {},
    stderr: (text) => (stderr += text),
    now: () => new Date(NIGHT0 + LAST_NIGHT * 86_400_000 + 3_600_000),
  });
  return { code, stderr };
}

async function missingOnPage(dir: string): Promise<string[]> {
  const html = await readFile(join(dir, 'site', 'index.html'), 'utf8');
  const json = /<script type="application\/json" id="dashboard-data">(.*?)<\/script>/s.exec(
    html,
  )![1]!;
  const data = JSON.parse(json) as PageData;
  return data.missing.map(([index, nights]) => `${data.series[index]!.id}: ${nights}`);
}

describe('neuron-perf-gate dashboard --missing-after', () => {
  it('lists the series that stopped reporting, from N nights on, and none at 0', async () => {
    const dir = await folderOfNights();
    const id = (metric: string) =>
      `nightly · model-b · ${metric} · inf2.xlarge/2 cores/config cafe123: 5`;
    expect(await dashboard(dir, ['--missing-after', '5'])).toMatchObject({ code: 0 });
    expect((await missingOnPage(dir)).sort()).toEqual([id('latency_p50'), id('throughput')]);
    expect(await dashboard(dir, ['--missing-after', '6'])).toMatchObject({ code: 0 });
    expect(await missingOnPage(dir)).toEqual([]);
    expect(await dashboard(dir, [])).toMatchObject({ code: 0 });
    expect(await missingOnPage(dir)).toHaveLength(2);
    expect(await dashboard(dir, ['--missing-after', '0'])).toMatchObject({ code: 0 });
    expect(await missingOnPage(dir)).toEqual([]);
  });

  it.each(['-1', 'three', '2.5', '400'])('refuses --missing-after %s', async (value) => {
    const dir = await folderOfNights();
    const result = await dashboard(dir, ['--missing-after', value]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      `--missing-after ${value}: allowed: an integer number of nights`,
    );
  });
});
