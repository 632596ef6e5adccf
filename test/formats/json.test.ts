import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  MISSING_RESULT_FILE,
  parseJsonText,
  readJsonFile,
  readTextFile,
} from '../../src/formats/json.js';
import { findJsonSyntaxError } from '../../src/formats/json-syntax-error.js';
import { caughtGateError, expectInputError, fixturePath, rejectedGateError } from './support.js';

const FILE = 'results/run-1.json';

describe('parseJsonText', () => {
  it('parses plain JSON', () => {
    expect(parseJsonText('{"a": [1, 2.5, "x"], "b": null}', FILE)).toEqual({
      a: [1, 2.5, 'x'],
      b: null,
    });
  });

  it('reads bare NaN, Infinity and -Infinity as null, outside strings only', () => {
    const text =
      '{"a": "say \\"NaN\\" Infinity", "b": NaN, "c": [Infinity, -Infinity, -1], ' +
      '"NaN": "-Infinity", "d": "ends with a backslash \\\\", "e": NaN}';
    expect(parseJsonText(text, FILE)).toEqual({
      a: 'say "NaN" Infinity',
      b: null,
      c: [null, null, -1],
      NaN: '-Infinity',
      d: 'ends with a backslash \\',
      e: null,
    });
  });

  it('accepts a byte order mark', () => {
    expect(parseJsonText('\uFEFF{"a": 1}', FILE)).toEqual({ a: 1 });
  });

  it.each([
    ['an empty file', ''],
    ['only whitespace', ' \n\t\n'],
  ])('says the benchmark wrote nothing for %s', (_, text) => {
    const error = caughtGateError(() => parseJsonText(text, FILE));
    expectInputError(error, FILE, 'is empty: the benchmark wrote nothing');
  });

  it('points at the end of a truncated file and says it stopped early', () => {
    const error = caughtGateError(() => parseJsonText('{\n  "a": [1, 2,\n  3', FILE));
    expectInputError(
      error,
      FILE,
      'is not valid JSON',
      'the file ends before the JSON is complete',
      'line 3, column 4',
      'killed or crashed while writing it',
    );
  });

  it('points at a log line printed into the result file', () => {
    const error = caughtGateError(() => parseJsonText('Loading model...\n{"a": 1}', FILE));
    expectInputError(error, FILE, 'expected a value, found "L"', 'line 1, column 1', 'only JSON');
  });

  it.each([
    [
      'a missing comma',
      '{\n  "a": 1\n  "b": 2\n}',
      "expected ',' or '}', found",
      'line 3, column 3',
    ],
    ['a trailing comma', '{"a": [1, 2,]}', 'expected a value, found "]"', 'line 1, column 13'],
    ['text after the value', '{"a": 1}\nDone.', 'unexpected "D" after the end', 'line 2, column 1'],
    [
      'an unquoted key',
      '{\n a: 1}',
      'expected a property name in double quotes',
      'line 2, column 2',
    ],
    ['a bad escape', '{"a": "C:\\temp\\x"}', 'invalid escape in a string', 'line 1, column 15'],
    [
      'a raw newline in a string',
      '{"a": "one\ntwo"}',
      'raw control character',
      'line 1, column 11',
    ],
    ['a misspelt literal', '[true, flase]', 'expected a value, found "f"', 'line 1, column 8'],
  ])('locates %s', (_, text, problem, where) => {
    const error = caughtGateError(() => parseJsonText(text, FILE));
    expectInputError(error, FILE, 'is not valid JSON', problem, where);
  });

  it('still reports syntax errors in files that use NaN tokens', () => {
    const error = caughtGateError(() => parseJsonText('{"a": NaN,\n "b": [1 2]}', FILE));
    expectInputError(error, FILE, "expected ',' or ']'", 'line 2, column 10');
  });

  it('handles a large file with NaN tokens and long strings in one pass', () => {
    const count = 200_000;
    const items = Array.from({ length: count }, (_, i) =>
      i % 1000 === 0 ? 'NaN' : `{"t": ${i / 7}, "s": "x\\"NaN\\"${'y'.repeat(20)}"}`,
    );
    const text = `{"raw": [${items.join(', ')}]}`;
    expect(text.length).toBeGreaterThan(8_000_000);
    const parsed = parseJsonText(text, FILE) as { raw: unknown[] };
    expect(parsed.raw).toHaveLength(count);
    expect(parsed.raw[0]).toBeNull();
    expect(parsed.raw[1]).toEqual({ t: 1 / 7, s: `x"NaN"${'y'.repeat(20)}` });
  });

  it('reports deep nesting without overflowing the stack', () => {
    const text = '['.repeat(200_000);
    const error = caughtGateError(() => parseJsonText(text, FILE));
    expectInputError(error, FILE, 'the file ends before the JSON is complete');
  });
});

describe('findJsonSyntaxError agrees with JSON.parse', () => {
  // Seeded single-character edits of a valid document: each is valid or not for both, and
  // where V8 gives a position ours is close to it (we point at the start of a misspelt
  // literal like `nul-`, V8 at the character that differs).
  const base = JSON.stringify(
    { a: [1, -2.5e3, true, null], b: { c: 'x\\"y', d: [] }, e: 'text', f: 0.125 },
    null,
    1,
  );
  const alphabet = ['{', '}', '[', ']', ',', ':', '"', '\\', '1', '-', '.', 'e', ' ', 'x', '\n'];
  let state = 12345;
  const next = (limit: number) => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return state % limit;
  };
  const mutations = Array.from({ length: 600 }, () => {
    const at = next(base.length);
    const char = alphabet[next(alphabet.length)]!;
    const kind = next(3);
    if (kind === 0) return base.slice(0, at) + base.slice(at + 1);
    if (kind === 1) return base.slice(0, at) + char + base.slice(at);
    return base.slice(0, at) + char + base.slice(at + 1);
  });

  it('on 600 mutated documents', () => {
    let invalid = 0;
    for (const text of mutations) {
      let v8Position: number | undefined;
      let valid = true;
      try {
        JSON.parse(text);
      } catch (error) {
        valid = false;
        const match = /at position (\d+)/.exec((error as Error).message);
        v8Position = match ? Number(match[1]) : undefined;
      }
      const problem = findJsonSyntaxError(text);
      expect(problem === undefined, text).toBe(valid);
      if (!valid) invalid += 1;
      if (problem && v8Position !== undefined) {
        expect(Math.abs(problem.offset - v8Position), text).toBeLessThanOrEqual(4);
      }
    }
    // The mutations must exercise both outcomes for the comparison to mean something.
    expect(invalid).toBeGreaterThan(100);
    expect(invalid).toBeLessThan(mutations.length);
  });
});

describe('readJsonFile', () => {
  let directory: string;
  beforeAll(async () => {
    directory = await mkdtemp(join(tmpdir(), 'perf-gate-json-'));
  });
  afterAll(async () => {
    await rm(directory, { recursive: true, force: true });
  });

  it('reads a fixture', async () => {
    const path = fixturePath('offline-benchmark/reference.json');
    const expected: unknown = JSON.parse(await readFile(path, 'utf8'));
    await expect(readJsonFile(path)).resolves.toEqual(expected);
  });

  it('says a missing file is a wrong path, unless told what it means where it is read', async () => {
    const path = join(directory, 'never-written.json');
    const error = await rejectedGateError(readJsonFile(path));
    expectInputError(error, path, 'not found', 'Check the path');
    expect(error.message).not.toContain('benchmark');
    const result = await rejectedGateError(readTextFile(path, MISSING_RESULT_FILE));
    expectInputError(result, path, 'not found', 'did not write', 'PERF_GATE_OUTPUT');
  });

  it('rejects a directory', async () => {
    const error = await rejectedGateError(readJsonFile(directory));
    expectInputError(error, directory, 'is a directory');
  });

  it('names the file for an empty fixture', async () => {
    const path = fixturePath('broken/empty.json');
    expectInputError(await rejectedGateError(readJsonFile(path)), path, 'is empty');
  });

  it('names the file, line and column for a truncated fixture', async () => {
    const path = fixturePath('broken/truncated.json');
    const error = await rejectedGateError(readJsonFile(path));
    expectInputError(error, path, 'the file ends inside a string', 'line 23, column 28');
  });
});
