// Run logs are redacted line by line before they are uploaded; a line longer than a
// string can hold (a benchmark printing 1 GB without a newline) must neither crash the
// gate nor let a token through.
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MAX_LOG_PIECE, redactLogFiles } from '../../src/publish/redact-logs.js';
import { tempDir } from '../support/offline-result.js';

const TOKEN = 'ghp_abcdefghijklmnopqrstuvwxyz0123456789';

describe('redactLogFiles', () => {
  it('redacts every line, keeps the others as they were, and leaves other files alone', async () => {
    const dir = await tempDir('perf-gate-redact-logs-');
    const log = join(dir, 'run-1.clean.log');
    const other = join(dir, 'result.json');
    await writeFile(log, `loading\r\nHF_TOKEN=${TOKEN} python bench.py\nsecret-value-123 done`);
    await writeFile(other, TOKEN);
    await redactLogFiles([log, other], ['secret-value-123']);
    expect(await readFile(log, 'utf8')).toBe('loading\nHF_TOKEN=*** python bench.py\n*** done\n');
    expect(await readFile(other, 'utf8')).toBe(TOKEN);
  });

  it('cuts a line longer than a piece at a space, so a token past the cut is still found', async () => {
    const dir = await tempDir('perf-gate-redact-logs-');
    const log = join(dir, 'run-1.clean.log');
    const words = 'word '.repeat(Math.ceil((MAX_LOG_PIECE * 2.5) / 5));
    await writeFile(log, `${words}${TOKEN} ${words}\nnext line\n`);
    await redactLogFiles([log], []);
    const text = await readFile(log, 'utf8');
    expect(text).not.toContain('ghp_');
    expect(text).toContain(' *** ');
    expect(text.endsWith('\nnext line\n')).toBe(true);
    expect(text.length).toBe(2 * words.length + ' *** '.length - 1 + '\nnext line\n'.length);
  });

  it('leaves out a piece without any space or newline, whole tokens and all', async () => {
    const dir = await tempDir('perf-gate-redact-logs-');
    const log = join(dir, 'run-1.clean.log');
    await writeFile(log, `${'x'.repeat(MAX_LOG_PIECE * 2 + 10)}/${TOKEN}\nafter\n`);
    await redactLogFiles([log], []);
    const text = await readFile(log, 'utf8');
    expect(text).not.toContain('ghp_');
    expect(text.match(/characters without a space or newline left out/g)).toHaveLength(2);
    expect(text.endsWith('\nafter\n')).toBe(true);
  });
});
