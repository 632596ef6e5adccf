// Reads a few named files out of a zip held in memory. The zip is untrusted (an artifact a
// pull request's job uploaded), so nothing in it is used as a path: only entries whose
// name is exactly one of the names asked for are read, each within a size cap, and
// anything odd (encryption, an unknown compression method, sizes or offsets that point
// outside the archive, a name given twice) makes the whole archive unreadable.

import { crc32, inflateRawSync } from 'node:zlib';

export class UnzipError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UnzipError';
  }
}

export interface ExtractOptions {
  /** The entry names to read, compared byte for byte. */
  names: readonly string[];
  /** Largest uncompressed size of one entry. */
  maxEntryBytes: number;
}

export interface ExtractedZip {
  /** The requested entries that were present, by name. */
  files: Map<string, Buffer>;
  /** Names of the other entries (decoded as UTF-8), never read; see quoteEntryName. */
  ignored: string[];
}

const END_OF_CENTRAL_DIRECTORY = 0x06054b50;
const ZIP64_END_LOCATOR = 0x07064b50;
const ZIP64_END = 0x06064b50;
const CENTRAL_HEADER = 0x02014b50;
const LOCAL_HEADER = 0x04034b50;
const STORED = 0;
const DEFLATED = 8;
const FLAG_ENCRYPTED = 0x0001;
const FLAG_STRONG_ENCRYPTION = 0x0040;
const ZIP64_EXTRA_ID = 0x0001;
/** The zip format's marker for "the real value is in the zip64 extra field". */
const ZIP64_MARK_32 = 0xffffffff;
const ZIP64_MARK_16 = 0xffff;

/** Reads the entries named in `options.names` from `zip`; see ExtractedZip. */
export function extractNamedEntries(zip: Uint8Array, options: ExtractOptions): ExtractedZip {
  const buffer = Buffer.from(zip.buffer, zip.byteOffset, zip.byteLength);
  try {
    return extract(buffer, options);
  } catch (error) {
    if (error instanceof UnzipError) throw error;
    // A read past the end of the buffer: some length or offset in the archive is wrong.
    throw new UnzipError(`not a readable zip archive (${(error as Error).message})`);
  }
}

function extract(zip: Buffer, options: ExtractOptions): ExtractedZip {
  const wanted = new Map(options.names.map((name) => [name, Buffer.from(name, 'utf8')]));
  const { count, offset } = centralDirectory(zip);
  const files = new Map<string, Buffer>();
  const ignored: string[] = [];
  let p = offset;
  for (let i = 0; i < count; i++) {
    const entry = readCentralEntry(zip, p);
    p = entry.next;
    const name = [...wanted].find(([, bytes]) => bytes.equals(entry.nameBytes))?.[0];
    if (name === undefined) {
      ignored.push(entry.nameBytes.toString('utf8'));
      continue;
    }
    if (files.has(name)) throw new UnzipError(`the archive holds "${name}" more than once`);
    files.set(name, readEntryData(zip, entry, name, options.maxEntryBytes));
  }
  return { files, ignored };
}

interface CentralEntry {
  nameBytes: Buffer;
  flags: number;
  method: number;
  crc: number;
  compressedSize: number;
  size: number;
  localOffset: number;
  /** Where the next central directory entry starts. */
  next: number;
}

function centralDirectory(zip: Buffer): { count: number; offset: number } {
  const end = findEndRecord(zip);
  let count = zip.readUInt16LE(end + 10);
  let offset = zip.readUInt32LE(end + 16);
  const locator = end - 20;
  if (locator >= 0 && zip.readUInt32LE(locator) === ZIP64_END_LOCATOR) {
    const zip64End = safeNumber(zip.readBigUInt64LE(locator + 8));
    if (zip.readUInt32LE(zip64End) !== ZIP64_END) {
      throw new UnzipError('the zip64 end record is not where its locator says');
    }
    count = safeNumber(zip.readBigUInt64LE(zip64End + 32));
    offset = safeNumber(zip.readBigUInt64LE(zip64End + 48));
  } else if (count === ZIP64_MARK_16 || offset === ZIP64_MARK_32) {
    throw new UnzipError('the archive claims zip64 sizes but has no zip64 end record');
  }
  if (offset > zip.length) throw new UnzipError('the central directory starts past the end');
  return { count, offset };
}

/** The end record is the last 22 bytes, unless an archive comment (≤ 64 KiB) follows it. */
function findEndRecord(zip: Buffer): number {
  const lowest = Math.max(0, zip.length - 22 - 0xffff);
  for (let i = zip.length - 22; i >= lowest; i--) {
    if (zip.readUInt32LE(i) === END_OF_CENTRAL_DIRECTORY) return i;
  }
  throw new UnzipError('not a zip archive: it has no end of central directory record');
}

function readCentralEntry(zip: Buffer, p: number): CentralEntry {
  if (zip.readUInt32LE(p) !== CENTRAL_HEADER) {
    throw new UnzipError('the central directory is damaged');
  }
  const nameLength = zip.readUInt16LE(p + 28);
  const extraLength = zip.readUInt16LE(p + 30);
  const commentLength = zip.readUInt16LE(p + 32);
  const nameStart = p + 46;
  const extraStart = nameStart + nameLength;
  const next = extraStart + extraLength + commentLength;
  if (next > zip.length) throw new UnzipError('the central directory runs past the end');
  const sizes = applyZip64Extra(zip.subarray(extraStart, extraStart + extraLength), {
    size: zip.readUInt32LE(p + 24),
    compressedSize: zip.readUInt32LE(p + 20),
    localOffset: zip.readUInt32LE(p + 42),
  });
  return {
    nameBytes: zip.subarray(nameStart, extraStart),
    flags: zip.readUInt16LE(p + 8),
    method: zip.readUInt16LE(p + 10),
    crc: zip.readUInt32LE(p + 16),
    ...sizes,
    next,
  };
}

interface EntrySizes {
  size: number;
  compressedSize: number;
  localOffset: number;
}

/** Fields set to 0xffffffff take their value from the zip64 extra field, in this order. */
function applyZip64Extra(extra: Buffer, sizes: EntrySizes): EntrySizes {
  const out = { ...sizes };
  for (let q = 0; q + 4 <= extra.length;) {
    const id = extra.readUInt16LE(q);
    const length = extra.readUInt16LE(q + 2);
    if (id === ZIP64_EXTRA_ID) {
      let r = q + 4;
      for (const field of ['size', 'compressedSize', 'localOffset'] as const) {
        if (out[field] !== ZIP64_MARK_32) continue;
        out[field] = safeNumber(extra.readBigUInt64LE(r));
        r += 8;
      }
    }
    q += 4 + length;
  }
  return out;
}

function readEntryData(zip: Buffer, entry: CentralEntry, name: string, maxBytes: number): Buffer {
  if (entry.flags & (FLAG_ENCRYPTED | FLAG_STRONG_ENCRYPTION)) {
    throw new UnzipError(`"${name}" is encrypted`);
  }
  if (entry.method !== STORED && entry.method !== DEFLATED) {
    throw new UnzipError(
      `"${name}" uses compression method ${entry.method}; only stored and deflated entries are read`,
    );
  }
  if (entry.size > maxBytes) {
    throw new UnzipError(`"${name}" is ${entry.size} bytes, more than the ${maxBytes} allowed`);
  }
  const local = entry.localOffset;
  if (zip.readUInt32LE(local) !== LOCAL_HEADER) {
    throw new UnzipError(`the local header of "${name}" is not where the directory says`);
  }
  const start = local + 30 + zip.readUInt16LE(local + 26) + zip.readUInt16LE(local + 28);
  const end = start + entry.compressedSize;
  if (end > zip.length) throw new UnzipError(`"${name}" runs past the end of the archive`);
  const raw = zip.subarray(start, end);
  const data = entry.method === STORED ? Buffer.from(raw) : inflateCapped(raw, name, maxBytes);
  // The directory's size is only a claim; the inflated bytes must agree with it.
  if (data.length !== entry.size) {
    throw new UnzipError(`"${name}" has ${data.length} bytes, the directory says ${entry.size}`);
  }
  if (crc32(data) >>> 0 !== entry.crc) throw new UnzipError(`"${name}" fails its CRC-32 check`);
  return data;
}

/** Inflates at most `maxBytes` (+1 to notice more), whatever the archive claims. */
function inflateCapped(raw: Buffer, name: string, maxBytes: number): Buffer {
  try {
    return inflateRawSync(raw, { maxOutputLength: maxBytes + 1 });
  } catch (error) {
    if (error instanceof RangeError) {
      throw new UnzipError(`"${name}" inflates to more than the ${maxBytes} bytes allowed`);
    }
    throw new UnzipError(`"${name}" does not inflate: ${(error as Error).message}`);
  }
}

function safeNumber(value: bigint): number {
  if (value > BigInt(Number.MAX_SAFE_INTEGER)) throw new UnzipError('a zip64 field is too large');
  return Number(value);
}

/** An entry name for a message: quoted, control characters escaped, kept short. */
export function quoteEntryName(name: string): string {
  const short = name.length > 100 ? `${name.slice(0, 100)}…` : name;
  return JSON.stringify(short);
}
