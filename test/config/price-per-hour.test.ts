// `price-per-hour` in the config file: one price or one per instance type, and an error
// naming the file, line, field, the value found and what is allowed for anything else.
import { describe, expect, it } from 'vitest';

import { resolveGateConfig } from '../../src/config/load.js';
import { rejection, useWorkspaces } from './workspace.js';

const makeWorkspace = useWorkspaces();
const FILE = '.github/perf-gate.yml';
const BENCHMARKS = 'benchmarks:\n  - name: a\n    command: ./bench.sh\n';

async function configOf(yaml: string) {
  const workspace = await makeWorkspace({ [FILE]: yaml });
  return resolveGateConfig({}, { workspace });
}

async function errorOf(yaml: string): Promise<string> {
  const workspace = await makeWorkspace({ [FILE]: yaml });
  const error = await rejection(resolveGateConfig({}, { workspace }));
  expect(error.kind).toBe('config');
  return error.message;
}

describe('price-per-hour', () => {
  it('is absent by default, so the built-in table prices the runner', async () => {
    expect((await configOf(BENCHMARKS)).pricePerHour).toBeUndefined();
  });

  it('takes one price for any runner, or one per instance type', async () => {
    expect((await configOf(`price-per-hour: 0.45\n${BENCHMARKS}`)).pricePerHour).toBe(0.45);
    const map = await configOf(
      `price-per-hour: { inf2.xlarge: 0.45, trn2.48xlarge: 30, inf2.2xlarge: 1 }\n${BENCHMARKS}`,
    );
    // A type the table does not know is taken: the report warns about it (derive/prices.ts).
    expect(map.pricePerHour).toEqual({
      'inf2.xlarge': 0.45,
      'trn2.48xlarge': 30,
      'inf2.2xlarge': 1,
    });
  });

  it('refuses a negative price, a string and zero, naming the line and what is allowed', async () => {
    expect(await errorOf(`price-per-hour: -0.45\n${BENCHMARKS}`)).toBe(
      `${FILE}:1:17: price-per-hour: found -0.45; allowed: a price in USD per instance-hour above 0, ` +
        'such as 0.45, or a mapping of instance type to such a price, such as { inf2.xlarge: 0.45, inf2.48xlarge: 7.8 }',
    );
    expect(await errorOf(`price-per-hour: "$0.45"\n${BENCHMARKS}`)).toContain(
      'price-per-hour: found "$0.45"; allowed: a price in USD per instance-hour above 0',
    );
    expect(await errorOf(`price-per-hour: 0\n${BENCHMARKS}`)).toContain(
      'price-per-hour: found 0; allowed',
    );
    expect(await errorOf(`price-per-hour: {}\n${BENCHMARKS}`)).toContain(
      'price-per-hour: found a mapping; allowed: a price in USD',
    );
  });

  it('names the instance type whose price is wrong, and a key that is no instance type', async () => {
    const message = await errorOf(
      `price-per-hour:\n  inf2.xlarge: -1\n  INF2 XL: 0.5\n  trn1.2xlarge: cheap\n${BENCHMARKS}`,
    );
    expect(message.split('\n')).toEqual([
      `${FILE}:2:16: price-per-hour["inf2.xlarge"]: found -1; allowed: a price in USD per instance-hour above 0, such as 0.45`,
      `${FILE}:3:12: price-per-hour["INF2 XL"]: found "INF2 XL"; allowed: an EC2 instance type such as inf2.xlarge or trn1.32xlarge`,
      `${FILE}:4:17: price-per-hour["trn1.2xlarge"]: found "cheap"; allowed: a price in USD per instance-hour above 0, such as 0.45`,
    ]);
  });

  it('is a gate-wide setting: refused in a benchmark entry', async () => {
    expect(await errorOf(`${BENCHMARKS}    price-per-hour: 0.45\n`)).toContain(
      'unknown key "price-per-hour" (a gate-wide setting: give it at the top level of the file)',
    );
  });
});
