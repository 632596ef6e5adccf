// A small zip reader for tests: finds the end-of-central-directory record, walks the
// central directory, and inflates each entry from its local header with node:zlib,
// checking its CRC-32 and sizes. Handles stored and deflated entries, data descriptors
// (the sizes come from the central directory) and zip64 sizes and offsets.
import { crc32, inflateRawSync } from 'node:zlib';

export interface ZipEntry {
  name: string;
  method: number;
  compressedSize: number;
  data: Buffer;
  isDirectory: boolean;
}

const EOCD = 0x06054b50;
const ZIP64_EOCD_LOCATOR = 0x07064b50;
const ZIP64_EOCD = 0x06064b50;
const CENTRAL = 0x02014b50;
const LOCAL = 0x04034b50;

export function readZip(zip: Buffer): ZipEntry[] {
  const eocd = findEocd(zip);
  let count = zip.readUInt16LE(eocd + 10);
  let cdOffset = zip.readUInt32LE(eocd + 16);
  const locator = eocd - 20;
  if (locator >= 0 && zip.readUInt32LE(locator) === ZIP64_EOCD_LOCATOR) {
    const zip64 = Number(zip.readBigUInt64LE(locator + 8));
    if (zip.readUInt32LE(zip64) !== ZIP64_EOCD) throw new Error('bad zip64 end record');
    count = Number(zip.readBigUInt64LE(zip64 + 32));
    cdOffset = Number(zip.readBigUInt64LE(zip64 + 48));
  }

  const entries: ZipEntry[] = [];
  let p = cdOffset;
  for (let i = 0; i < count; i++) {
    if (zip.readUInt32LE(p) !== CENTRAL) throw new Error(`bad central directory entry ${i}`);
    const method = zip.readUInt16LE(p + 10);
    const crc = zip.readUInt32LE(p + 16);
    let compressedSize = zip.readUInt32LE(p + 20);
    let size = zip.readUInt32LE(p + 24);
    const nameLength = zip.readUInt16LE(p + 28);
    const extraLength = zip.readUInt16LE(p + 30);
    const commentLength = zip.readUInt16LE(p + 32);
    let localOffset = zip.readUInt32LE(p + 42);
    const name = zip.toString('utf8', p + 46, p + 46 + nameLength);
    const extra = zip.subarray(p + 46 + nameLength, p + 46 + nameLength + extraLength);
    ({ size, compressedSize, localOffset } = applyZip64(extra, {
      size,
      compressedSize,
      localOffset,
    }));
    p += 46 + nameLength + extraLength + commentLength;

    if (zip.readUInt32LE(localOffset) !== LOCAL) throw new Error(`bad local header for ${name}`);
    const start =
      localOffset + 30 + zip.readUInt16LE(localOffset + 26) + zip.readUInt16LE(localOffset + 28);
    const raw = zip.subarray(start, start + compressedSize);
    let data: Buffer;
    if (method === 0) data = Buffer.from(raw);
    else if (method === 8) data = inflateRawSync(raw);
    else throw new Error(`${name}: unsupported compression method ${method}`);
    if (data.length !== size) throw new Error(`${name}: ${data.length} bytes, expected ${size}`);
    if (crc32(data) >>> 0 !== crc) throw new Error(`${name}: CRC-32 mismatch`);
    entries.push({ name, method, compressedSize, data, isDirectory: name.endsWith('/') });
  }
  return entries;
}

function findEocd(zip: Buffer): number {
  for (let i = zip.length - 22; i >= Math.max(0, zip.length - 22 - 0xffff); i--) {
    if (zip.readUInt32LE(i) === EOCD) return i;
  }
  throw new Error('not a zip: no end of central directory record');
}

function applyZip64(
  extra: Buffer,
  fields: { size: number; compressedSize: number; localOffset: number },
): { size: number; compressedSize: number; localOffset: number } {
  const out = { ...fields };
  for (let q = 0; q + 4 <= extra.length;) {
    const id = extra.readUInt16LE(q);
    const length = extra.readUInt16LE(q + 2);
    if (id === 0x0001) {
      let r = q + 4;
      const next = () => {
        const value = Number(extra.readBigUInt64LE(r));
        r += 8;
        return value;
      };
      if (out.size === 0xffffffff) out.size = next();
      if (out.compressedSize === 0xffffffff) out.compressedSize = next();
      if (out.localOffset === 0xffffffff) out.localOffset = next();
    }
    q += 4 + length;
  }
  return out;
}
