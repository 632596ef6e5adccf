// ListObjectsV2 paging of the S3 test server against a plain reference: whatever the keys,
// prefix, delimiter and page size, the pages put together list each entry once, in S3's
// order (UTF-8 bytes), with each common prefix standing for all keys under it.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compareKeys, decodeToken, encodeToken, listPage, type ListMarker } from './listing.js';

function reference(keys: string[], prefix: string, delimiter: string | undefined): string[] {
  const byBytes = (a: string, b: string) => Buffer.compare(Buffer.from(a), Buffer.from(b));
  const entries = keys
    .filter((key) => key.startsWith(prefix))
    .sort(byBytes)
    .map((key) => {
      const at = delimiter ? key.indexOf(delimiter, prefix.length) : -1;
      return at >= 0 && delimiter ? key.slice(0, at + delimiter.length) : key;
    });
  return entries.filter((entry, index) => entry !== entries[index - 1]);
}

function allPages(keys: string[], prefix: string, delimiter: string | undefined, maxKeys: number) {
  const sorted = [...new Set(keys)].sort(compareKeys);
  const listed: string[] = [];
  let marker: ListMarker | undefined;
  for (let pages = 0; pages <= sorted.length + 1; pages++) {
    const page = listPage(sorted, { prefix, delimiter, maxKeys, marker });
    expect(page.keys.length + page.commonPrefixes.length).toBeLessThanOrEqual(maxKeys);
    // Within a page S3 gives keys and prefixes apart; in order they interleave.
    listed.push(...[...page.keys, ...page.commonPrefixes].sort(compareKeys));
    if (page.next === undefined) return listed;
    marker = decodeToken(encodeToken(page.next));
  }
  throw new Error('the listing did not end');
}

const keyCharacter = fc.constantFrom('a', 'b', '/', '-', 'é', '\uE000', '\u{1F600}');
const key = fc.array(keyCharacter, { minLength: 1, maxLength: 6 }).map((chars) => chars.join(''));

describe('ListObjectsV2 paging', () => {
  it('lists every entry once, in UTF-8 order, for any page size', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(key, { maxLength: 30 }),
        fc.constantFrom('', 'a', 'a/', 'b'),
        fc.constantFrom(undefined, '/', '-'),
        fc.integer({ min: 1, max: 5 }),
        (keys, prefix, delimiter, maxKeys) => {
          expect(allPages(keys, prefix, delimiter, maxKeys)).toEqual(
            reference(keys, prefix, delimiter),
          );
        },
      ),
      { numRuns: 300 },
    );
  });

  it('orders U+E000 before an astral character, as UTF-8 bytes do', () => {
    expect(compareKeys('\uE000', '\u{1F600}')).toBeLessThan(0);
    expect(compareKeys('a', 'b')).toBeLessThan(0);
  });

  it('takes only its own continuation tokens', () => {
    expect(decodeToken('not a token')).toBeUndefined();
    expect(decodeToken(encodeToken({ after: 'a/', isCommonPrefix: true }))).toEqual({
      after: 'a/',
      isCommonPrefix: true,
    });
  });
});
