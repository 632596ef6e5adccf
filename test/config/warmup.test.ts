import { describe, expect, it } from 'vitest';
import { warmupSchema } from '../../src/config/warmup-schema.js';
import { benchmarkEntrySchema } from '../../src/config/schema.js';

function problem(value: unknown): string {
  const parsed = benchmarkEntrySchema.safeParse({ name: 'b', command: 'true', warmup: value });
  if (parsed.success) throw new Error('accepted');
  return parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('\n');
}

describe('warmup:', () => {
  it('takes requests or seconds', () => {
    expect(warmupSchema.parse({ requests: 10 })).toEqual({ requests: 10 });
    expect(warmupSchema.parse({ seconds: 2.5 })).toEqual({ seconds: 2.5 });
  });

  it('names the field that is wrong', () => {
    expect(problem({ requests: 0 })).toMatch(/warmup\.requests: allowed: a whole number/);
    expect(problem({ requests: 2.5 })).toMatch(/warmup\.requests/);
    expect(problem({ seconds: -1 })).toMatch(/warmup\.seconds: allowed: a number of seconds/);
    expect(problem({ request: 3 })).toMatch(/request/);
    expect(problem({ requests: 3, seconds: 2 })).toMatch(/warmup: give one of requests or seconds/);
    expect(problem(10)).toMatch(/warmup: allowed: a mapping with one of requests or seconds/);
    expect(problem({})).toMatch(/warmup: allowed: a mapping/);
  });
});
