import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { pyFloat } from '../../bench/vllm-detailed.js';
import { readJsonDocumentsInChunks } from '../../src/formats/json-stream.js';
import { tempDir } from '../support/offline-result.js';

const dir = await tempDir();
let count = 0;

/** `text` written to a file and read back in chunks of `chunk` bytes. */
function read(text: string | Buffer, chunk?: number, skip: string[] = []) {
  const path = join(dir, `f${(count += 1)}.json`);
  writeFileSync(path, text);
  return readJsonDocumentsInChunks(path, new Set(skip), chunk);
}

describe('reading JSON in chunks', () => {
  it('gives what JSON.parse gives, whatever the chunk size', () => {
    fc.assert(
      fc.property(
        fc.jsonValue({ maxDepth: 4 }),
        fc.constantFrom(2, 3, 7, 64, 4096),
        fc.boolean(),
        (value, chunk, pretty) => {
          const text = JSON.stringify(value, null, pretty ? 2 : undefined);
          expect(read(text, chunk)).toEqual({ documents: [JSON.parse(text)] });
        },
      ),
      { numRuns: 300 },
    );
  });

  it('reads every number to the same double as JSON.parse, as JS and Python write them', () => {
    fc.assert(
      fc.property(
        fc.array(fc.double({ noNaN: true, noDefaultInfinity: true }), { maxLength: 30 }),
        fc.constantFrom(3, 16, 4096),
        (values, chunk) => {
          for (const format of [String, pyFloat]) {
            const text = `[${values.map((v) => (Object.is(v, -0) ? '-0.0' : format(v))).join(', ')}]`;
            const [parsed] = read(text, chunk)!.documents as number[][];
            expect(parsed).toEqual(JSON.parse(text));
            parsed!.forEach((v, i) => expect(Object.is(v, JSON.parse(text)[i])).toBe(true));
          }
        },
      ),
      { numRuns: 200 },
    );
    const edges = '[1e400, -1e-400, 123456789012345678901234567890, 0.1e1, 5E-3, -0]';
    expect(read(edges)).toEqual({ documents: [JSON.parse(edges)] });
  });

  it('decodes strings like JSON.parse: escapes, surrogates, UTF-8 across chunk edges', () => {
    const value = {
      plain: 'naïve 東京 🙂',
      escaped: 'a"b\\c/d\b\f\n\r\t\u0001 \ud83d\ude42 \udc00',
      ['__proto__']: { own: true },
      '': '',
    };
    const text = JSON.stringify(value).replace('/d', '\\/d');
    for (const chunk of [2, 5, 4096]) {
      const documents = read(text, chunk)!.documents;
      expect(documents).toEqual([JSON.parse(text)]);
      expect(Object.keys(documents[0] as object)).toContain('__proto__');
    }
    expect(read(Buffer.from([0x22, 0xff, 0xfe, 0x22]))).toEqual({
      documents: [Buffer.from([0xff, 0xfe]).toString('utf8')],
    });
  });

  it('reads NaN, Infinity and -Infinity as null, and skips a byte order mark', () => {
    expect(read('\uFEFF{"a": NaN, "b": [Infinity, -Infinity, 1]}', 3)).toEqual({
      documents: [{ a: null, b: [null, null, 1] }],
    });
  });

  it('gives up on anything JSON.parse rejects, so the text path can say why', () => {
    const broken = [
      '',
      '  \n ',
      '01',
      '1.',
      '.5',
      '-',
      '--1',
      '1e',
      '1e+',
      '+1',
      '[1,]',
      '[,1]',
      '{"a":1,}',
      '{"a" 1}',
      "{'a': 1}",
      '{a: 1}',
      '[1 2]',
      '"\t"',
      '"a\nb"',
      '"\\x"',
      '"\\u12G4"',
      '"unterminated',
      '["a", "b"',
      '{"a": tru}',
      'nul',
      'Nan',
      '-infinity',
      '[1] x',
      '{"a": 1} {"b": 2}',
      '[1]\n[2]',
      '{"a":\n1}\n{"b": 2}',
    ];
    for (const text of broken) {
      for (const chunk of [3, 4096]) {
        expect(read(text, chunk), text).toBeUndefined();
        expect(read(`{"skip": ${text}, "b": 1}`, chunk, ['skip']), text).toBeUndefined();
      }
    }
  });

  it('reads JSON Lines, one document per line, blank lines between', () => {
    const text = '{"run": 1}\n\n  {"run": 2}\r\n[3]\n';
    for (const chunk of [2, 4096]) {
      expect(read(text, chunk)).toEqual({
        documents: [{ run: 1 }, { run: 2 }, [3]],
        lines: [1, 3, 4],
      });
    }
  });

  it('leaves out the named top-level keys, checked but not kept', () => {
    const texts = ['a\\n"b"', 'x'.repeat(10_000), 'é\\u00e9'];
    const text = JSON.stringify({
      generated_texts: texts,
      ttfts: [0.1, 0.2],
      nested: { generated_texts: ['kept'] },
    });
    for (const chunk of [2, 7, 4096]) {
      expect(read(text, chunk, ['generated_texts'])).toEqual({
        documents: [{ ttfts: [0.1, 0.2], nested: { generated_texts: ['kept'] } }],
      });
    }
  });
});
