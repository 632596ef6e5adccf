import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { environHolds, processEnvironHolds } from '../../src/runner/environ-entry.js';

const environ = (...entries: string[]) => Buffer.from(entries.map((e) => `${e}\0`).join(''));

describe('environHolds', () => {
  it('finds a whole entry, first, in the middle or last', () => {
    expect(environHolds(environ('M=a', 'HOME=/'), 'M=a')).toBe(true);
    expect(environHolds(environ('HOME=/', 'M=a', 'PATH=/bin'), 'M=a')).toBe(true);
    expect(environHolds(environ('HOME=/', 'M=a'), 'M=a')).toBe(true);
  });

  it('finds a last entry without its closing NUL', () => {
    expect(environHolds(Buffer.from('HOME=/\0M=a'), 'M=a')).toBe(true);
  });

  it('refuses the tail of a longer name and the head of a longer value', () => {
    expect(environHolds(environ('XM=a'), 'M=a')).toBe(false);
    expect(environHolds(environ('M=ab'), 'M=a')).toBe(false);
    expect(environHolds(environ(), 'M=a')).toBe(false);
  });

  it('finds the entry behind a longer one that holds it first', () => {
    expect(environHolds(environ('XM=a', 'M=ab', 'M=a'), 'M=a')).toBe(true);
  });
});

describe('processEnvironHolds', () => {
  let proc: string;
  beforeEach(async () => {
    proc = await mkdtemp(join(tmpdir(), 'environ-entry-'));
    await mkdir(join(proc, '7'));
    await writeFile(join(proc, '7', 'environ'), environ('HOME=/', 'M=a'));
  });
  afterEach(async () => {
    await rm(proc, { recursive: true, force: true });
  });

  it("reads the process's environment", () => {
    expect(processEnvironHolds(7, 'M=a', proc)).toBe(true);
    expect(processEnvironHolds('7', 'M=b', proc)).toBe(false);
  });

  it('is false for a process whose environment cannot be read', () => {
    expect(processEnvironHolds(8, 'M=a', proc)).toBe(false);
  });
});
