// A small zip writer for tests, the counterpart of the reader in test/publish/zip.ts: one
// local header and the data per entry, then the central directory and the end record.
// Entries are deflated with node:zlib (or stored), names are UTF-8 (flag bit 11), times are a
// fixed date so that the same files always give the same bytes. No zip64: test archives are
// small.
import { crc32, deflateRawSync } from 'node:zlib';

export type ZipCompression = 'deflate' | 'store';

const LOCAL = 0x04034b50;
const CENTRAL = 0x02014b50;
const EOCD = 0x06054b50;
const VERSION_NEEDED = 20;
const UTF8_NAMES = 0x0800;
const STORED = 0;
const DEFLATED = 8;
// 2024-01-01 00:00:00 in MS-DOS date and time fields.
const DOS_DATE = ((2024 - 1980) << 9) | (1 << 5) | 1;
const DOS_TIME = 0;

interface WrittenEntry {
  name: Buffer;
  method: number;
  crc: number;
  size: number;
  compressedSize: number;
  offset: number;
}

/**
 * A zip archive holding `files` (path → content). Names ending in `/` become directory
 * entries. `compression: 'store'` keeps every entry uncompressed; the default deflates.
 */
export function zipOf(
  files: Record<string, string | Buffer>,
  options: { compression?: ZipCompression } = {},
): Buffer {
  const chunks: Buffer[] = [];
  const entries: WrittenEntry[] = [];
  let offset = 0;

  for (const [path, content] of Object.entries(files)) {
    const name = Buffer.from(path, 'utf8');
    const data = typeof content === 'string' ? Buffer.from(content, 'utf8') : content;
    const deflate = options.compression !== 'store' && !path.endsWith('/');
    const packed = deflate ? deflateRawSync(data) : data;
    const entry: WrittenEntry = {
      name,
      method: deflate ? DEFLATED : STORED,
      crc: crc32(data) >>> 0,
      size: data.length,
      compressedSize: packed.length,
      offset,
    };
    const header = localHeader(entry);
    chunks.push(header, name, packed);
    offset += header.length + name.length + packed.length;
    entries.push(entry);
  }

  const directoryOffset = offset;
  for (const entry of entries) {
    const header = centralHeader(entry);
    chunks.push(header, entry.name);
    offset += header.length + entry.name.length;
  }
  chunks.push(endRecord(entries.length, offset - directoryOffset, directoryOffset));
  return Buffer.concat(chunks);
}

function localHeader(entry: WrittenEntry): Buffer {
  const header = Buffer.alloc(30);
  header.writeUInt32LE(LOCAL, 0);
  header.writeUInt16LE(VERSION_NEEDED, 4);
  header.writeUInt16LE(UTF8_NAMES, 6);
  header.writeUInt16LE(entry.method, 8);
  header.writeUInt16LE(DOS_TIME, 10);
  header.writeUInt16LE(DOS_DATE, 12);
  header.writeUInt32LE(entry.crc, 14);
  header.writeUInt32LE(entry.compressedSize, 18);
  header.writeUInt32LE(entry.size, 22);
  header.writeUInt16LE(entry.name.length, 26);
  header.writeUInt16LE(0, 28);
  return header;
}

function centralHeader(entry: WrittenEntry): Buffer {
  const header = Buffer.alloc(46);
  header.writeUInt32LE(CENTRAL, 0);
  header.writeUInt16LE(VERSION_NEEDED, 4); // version made by: MS-DOS attributes
  header.writeUInt16LE(VERSION_NEEDED, 6);
  header.writeUInt16LE(UTF8_NAMES, 8);
  header.writeUInt16LE(entry.method, 10);
  header.writeUInt16LE(DOS_TIME, 12);
  header.writeUInt16LE(DOS_DATE, 14);
  header.writeUInt32LE(entry.crc, 16);
  header.writeUInt32LE(entry.compressedSize, 20);
  header.writeUInt32LE(entry.size, 24);
  header.writeUInt16LE(entry.name.length, 28);
  // extra length, comment length, disk number, internal and external attributes: all 0
  header.writeUInt32LE(entry.offset, 42);
  return header;
}

function endRecord(count: number, directorySize: number, directoryOffset: number): Buffer {
  const record = Buffer.alloc(22);
  record.writeUInt32LE(EOCD, 0);
  record.writeUInt16LE(count, 8);
  record.writeUInt16LE(count, 10);
  record.writeUInt32LE(directorySize, 12);
  record.writeUInt32LE(directoryOffset, 16);
  return record;
}
