// The container of every simulated profiler file (NTFF, NEFF, system-profile .pb):
//
//   line 1   "<MAGIC> <version>"   e.g. "SIMNTFF 1", "SIMNEFF 1", "SIMPB 1"
//   line 2   one JSON object: the header, everything a reader needs
//   rest     padding: seeded pseudo-random bytes, only to give the file a size
//
// Real NTFF/NEFF files are opaque binaries of tens of MB; the simulator's must stay a few
// KB yet still tell a simulated viewer what it would have found in them.
import { createRandom } from './prng.mjs';

export const FORMAT_VERSION = 1;

/** The bytes of a simulated file, padded to at least `minBytes`. */
export function encodeSimFile(magic, header, { minBytes = 0, paddingKey = magic } = {}) {
  const head = Buffer.from(`${magic} ${FORMAT_VERSION}\n${JSON.stringify(header)}\n`, 'utf8');
  if (head.length >= minBytes) return head;
  const padding = Buffer.alloc(Math.ceil((minBytes - head.length) / 4) * 4);
  const random = createRandom(`padding:${paddingKey}`);
  for (let i = 0; i < padding.length; i += 4) {
    padding.writeUInt32LE(Math.floor(random.uniform() * 4294967296), i);
  }
  return Buffer.concat([head, padding.subarray(0, minBytes - head.length)]);
}

/** The magic, version and header of a simulated file; throws when it is not one. */
export function decodeSimFile(bytes) {
  const firstBreak = bytes.indexOf(0x0a);
  const secondBreak = firstBreak < 0 ? -1 : bytes.indexOf(0x0a, firstBreak + 1);
  if (secondBreak < 0) throw new Error('not a simulated profiler file (no header lines)');
  const [magic, version] = bytes.subarray(0, firstBreak).toString('utf8').split(' ');
  if (!/^SIM[A-Z]+$/.test(magic ?? '') || !/^\d+$/.test(version ?? '')) {
    throw new Error('not a simulated profiler file (bad first line)');
  }
  const header = JSON.parse(bytes.subarray(firstBreak + 1, secondBreak).toString('utf8'));
  return { magic, version: Number(version), header };
}
