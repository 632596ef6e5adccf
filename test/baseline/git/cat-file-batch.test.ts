import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BatchParser } from '../../../src/baseline/git/cat-file-batch.js';

// Real `git cat-file --batch` output for two blobs (one with a newline and multi-byte
// text) and a missing id, cut into chunks at every byte.
const repo = mkdtempSync(join(tmpdir(), 'perf-gate-batch-'));
afterAll(() => rmSync(repo, { recursive: true, force: true }));
const git = (args: string[], input?: string): Buffer =>
  execFileSync('git', ['-C', repo, ...args], input === undefined ? {} : { input });
git(['init', '-q', '--bare']);
const contents = ['{"a":1}\n', '{"name":"µ-bench ✓","values":[1,2,3]}'];
const oids = contents.map((c) => git(['hash-object', '-w', '--stdin'], c).toString().trim());
const missing = '0123456789abcdef0123456789abcdef01234567';
const output = git(['cat-file', '--batch'], `${[oids[0], missing, oids[1]].join('\n')}\n`);

function parse(chunks: Buffer[]): [string, string | undefined][] {
  const seen: [string, string | undefined][] = [];
  const parser = new BatchParser((oid, text) => seen.push([oid, text]));
  for (const chunk of chunks) parser.push(chunk);
  parser.end();
  return seen;
}

describe('BatchParser', () => {
  const expected = [
    [oids[0], contents[0]],
    [missing, undefined],
    [oids[1], contents[1]],
  ];

  it('reads every object, whole or cut anywhere into two or byte by byte', () => {
    expect(parse([output])).toEqual(expected);
    for (let cut = 1; cut < output.length; cut += 1) {
      expect(parse([output.subarray(0, cut), output.subarray(cut)])).toEqual(expected);
    }
    expect(parse([...output].map((byte) => Buffer.from([byte])))).toEqual(expected);
  });

  it('says so when the output stops inside an object', () => {
    expect(() => parse([output.subarray(0, output.length - 3)])).toThrow(
      'stopped in the middle of an object',
    );
  });
});
