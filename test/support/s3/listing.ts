// ListObjectsV2's paging over a bucket's keys: prefix, delimiter (common prefixes count as
// one entry each), max-keys, start-after and an opaque continuation token.
// https://docs.aws.amazon.com/AmazonS3/latest/API/API_ListObjectsV2.html
//
// S3 lists keys in ascending UTF-8 binary order. JavaScript's `<` compares UTF-16 code
// units, which agrees with it except where a surrogate pair meets U+E000..U+FFFF, so only
// keys holding such characters are compared as UTF-8 bytes.

const NEEDS_BYTES = /[\uD800-\uFFFF]/;

export function compareKeys(a: string, b: string): number {
  if (NEEDS_BYTES.test(a) || NEEDS_BYTES.test(b)) {
    return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
  }
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Where a listing resumes: after this entry (a key, or a common prefix and all under it). */
export interface ListMarker {
  after: string;
  isCommonPrefix: boolean;
}

export function encodeToken(marker: ListMarker): string {
  return Buffer.from(JSON.stringify([marker.after, marker.isCommonPrefix])).toString('base64url');
}

/** The marker a token names, or undefined when it is not one of ours. */
export function decodeToken(token: string): ListMarker | undefined {
  try {
    const value: unknown = JSON.parse(Buffer.from(token, 'base64url').toString('utf8'));
    if (
      Array.isArray(value) &&
      value.length === 2 &&
      typeof value[0] === 'string' &&
      typeof value[1] === 'boolean'
    ) {
      return { after: value[0], isCommonPrefix: value[1] };
    }
  } catch {
    // not JSON: fall through
  }
  return undefined;
}

export interface ListQuery {
  prefix: string;
  delimiter?: string;
  maxKeys: number;
  marker?: ListMarker;
}

export interface ListPage {
  keys: string[];
  commonPrefixes: string[];
  /** Set when entries remain past this page. */
  next?: ListMarker;
}

/** The first index whose key is not below `bound` (keys sorted by compareKeys). */
function lowerBound(sortedKeys: readonly string[], bound: string): number {
  let low = 0;
  let high = sortedKeys.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (compareKeys(sortedKeys[middle] as string, bound) < 0) low = middle + 1;
    else high = middle;
  }
  return low;
}

/** The entry a key lists as: itself, or its common prefix under the delimiter. */
function entryOf(key: string, query: ListQuery): { name: string; isCommonPrefix: boolean } {
  if (query.delimiter) {
    const at = key.indexOf(query.delimiter, query.prefix.length);
    if (at >= 0) return { name: key.slice(0, at + query.delimiter.length), isCommonPrefix: true };
  }
  return { name: key, isCommonPrefix: false };
}

function isPastMarker(key: string, marker: ListMarker | undefined): boolean {
  if (marker === undefined) return true;
  if (compareKeys(key, marker.after) <= 0) return false;
  return !(marker.isCommonPrefix && key.startsWith(marker.after));
}

export function listPage(sortedKeys: readonly string[], query: ListQuery): ListPage {
  const page: ListPage = { keys: [], commonPrefixes: [] };
  if (query.maxKeys <= 0) return page;
  let last: ListMarker | undefined;
  const start = Math.max(
    lowerBound(sortedKeys, query.prefix),
    query.marker ? lowerBound(sortedKeys, query.marker.after) : 0,
  );
  for (let i = start; i < sortedKeys.length; i++) {
    const key = sortedKeys[i] as string;
    if (!key.startsWith(query.prefix)) break;
    if (!isPastMarker(key, query.marker)) continue;
    const entry = entryOf(key, query);
    if (entry.isCommonPrefix && last?.isCommonPrefix && last.after === entry.name) continue;
    if (page.keys.length + page.commonPrefixes.length === query.maxKeys) {
      page.next = last;
      break;
    }
    (entry.isCommonPrefix ? page.commonPrefixes : page.keys).push(entry.name);
    last = { after: entry.name, isCommonPrefix: entry.isCommonPrefix };
  }
  return page;
}
