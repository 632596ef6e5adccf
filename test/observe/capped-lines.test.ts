import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readCappedLines } from '../../src/observe/capped-lines.js';
import { tempDir } from '../support/offline-result.js';

async function fileWith(text: string): Promise<string> {
  const path = join(await tempDir('perf-gate-capped-'), 'samples.jsonl');
  await writeFile(path, text);
  return path;
}

describe('readCappedLines', () => {
  it('keeps lines up to the cap and leaves longer ones empty, numbered as in the file', async () => {
    const path = await fileWith(`a\n${'x'.repeat(11)}\n${'b'.repeat(10)}\n${'y'.repeat(50)}`);
    expect(await readCappedLines(path, 10)).toEqual({
      text: `a\n\n${'b'.repeat(10)}\n`,
      skipped: [2, 4],
    });
  });

  it('skips a line longer than the read chunks (many chunks, no newline) and reads on', async () => {
    const long = 'z'.repeat(300 * 1024);
    const path = await fileWith(`{"ok":1}\n${long}\n{"ok":2}\n${long}`);
    expect(await readCappedLines(path, 1024)).toEqual({
      text: '{"ok":1}\n\n{"ok":2}\n',
      skipped: [2, 4],
    });
  });

  it('keeps a last line without a newline as it is (a report cut off), and UTF-8 whole', async () => {
    const path = await fileWith('é report\n{"cut":');
    expect(await readCappedLines(path, 100)).toEqual({
      text: 'é report\n{"cut":',
      skipped: [],
    });
  });

  it('reads a missing file as empty', async () => {
    expect(await readCappedLines('/nonexistent/perf-gate/samples', 10)).toEqual({
      text: '',
      skipped: [],
    });
  });
});
