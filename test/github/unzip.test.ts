import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { uploadProfileArtifact } from '../../src/publish/artifact.js';
import { extractNamedEntries, quoteEntryName, UnzipError } from '../../src/github/unzip.js';
import { ResultsService } from '../support/results-service.js';
import { zipOf } from '../support/zip-writer.js';

const NAMES = ['report.json', 'comment.md', 'pr.json'];
const MB = 1024 * 1024;

function extract(zip: Buffer, maxEntryBytes = MB) {
  return extractNamedEntries(zip, { names: NAMES, maxEntryBytes });
}

/** Offsets of the central directory header of each entry, in order. */
function centralHeaders(zip: Buffer): number[] {
  const offsets: number[] = [];
  for (let i = 0; i + 4 <= zip.length; i++) {
    if (zip.readUInt32LE(i) === 0x02014b50) offsets.push(i);
  }
  return offsets;
}

describe('extractNamedEntries', () => {
  it('reads deflated and stored entries byte for byte', () => {
    const report = JSON.stringify({ verdict: 'pass', pad: 'x'.repeat(10_000) });
    for (const compression of ['deflate', 'store'] as const) {
      const zip = zipOf(
        { 'report.json': report, 'comment.md': '## Perf\nno change\n', 'pr.json': '{}' },
        { compression },
      );
      const { files, ignored } = extract(zip);
      expect(files.get('report.json')?.toString('utf8')).toBe(report);
      expect(files.get('comment.md')?.toString('utf8')).toBe('## Perf\nno change\n');
      expect(files.get('pr.json')?.toString('utf8')).toBe('{}');
      expect(ignored).toEqual([]);
    }
  });

  it('never reads entries with other names, and lists them', () => {
    const zip = zipOf({
      '../report.json': 'evil',
      '/etc/report.json': 'evil',
      'sub/report.json': 'nested',
      'REPORT.JSON': 'other case',
      'comment.md': 'ok',
    });
    const { files, ignored } = extract(zip);
    expect([...files.keys()]).toEqual(['comment.md']);
    expect(ignored).toEqual([
      '../report.json',
      '/etc/report.json',
      'sub/report.json',
      'REPORT.JSON',
    ]);
  });

  it('quotes names for messages, escaping control characters', () => {
    expect(quoteEntryName('a\nb')).toBe('"a\\nb"');
    expect(quoteEntryName('x'.repeat(300)).length).toBeLessThan(110);
  });

  it('refuses an entry whose declared size is over the cap, before inflating it', () => {
    const zip = zipOf({ 'report.json': 'y'.repeat(2000) });
    expect(() => extract(zip, 1000)).toThrow(/"report.json" is 2000 bytes, more than the 1000/);
  });

  it('refuses an entry that inflates to more than the cap whatever its header says', () => {
    const zip = zipOf({ 'report.json': Buffer.alloc(50 * MB) });
    // Claim 10 bytes in the central directory: the inflated size gives the lie away.
    zip.writeUInt32LE(10, centralHeaders(zip)[0]! + 24);
    expect(() => extract(zip, MB)).toThrow(UnzipError);
    expect(() => extract(zip, MB)).toThrow(/inflates to more than/);
  });

  it('refuses an encrypted entry', () => {
    const zip = zipOf({ 'pr.json': '{}' });
    const central = centralHeaders(zip)[0]!;
    zip.writeUInt16LE(zip.readUInt16LE(central + 8) | 0x0001, central + 8);
    expect(() => extract(zip)).toThrow(/"pr.json" is encrypted/);
  });

  it('refuses a compression method other than stored and deflated', () => {
    const zip = zipOf({ 'pr.json': '{}' });
    zip.writeUInt16LE(12, centralHeaders(zip)[0]! + 10); // bzip2
    expect(() => extract(zip)).toThrow(/compression method 12/);
  });

  it('refuses a wanted name given twice', () => {
    const one = zipOf({ 'pr.json': '{"number":1}', 'pr.jsom': '{"number":2}' });
    // Rename the second entry, in both headers, to the first one's name.
    const patched = Buffer.from(one.toString('latin1').replaceAll('pr.jsom', 'pr.json'), 'latin1');
    expect(() => extract(patched)).toThrow(/"pr.json" more than once/);
  });

  it('refuses a corrupted entry (CRC-32)', () => {
    const zip = zipOf({ 'comment.md': 'hello world' }, { compression: 'store' });
    const at = zip.indexOf('hello world');
    zip.write('jello', at, 'latin1');
    expect(() => extract(zip)).toThrow(/CRC-32/);
  });

  it('refuses offsets that point outside the archive', () => {
    const zip = zipOf({ 'comment.md': 'hello' });
    zip.writeUInt32LE(0x7fffffff, centralHeaders(zip)[0]! + 42);
    expect(() => extract(zip)).toThrow(UnzipError);
  });

  it('says when the bytes are not a zip at all', () => {
    expect(() => extract(Buffer.from('<html>Not Found</html>'))).toThrow(/not a zip archive/);
    expect(() => extract(Buffer.alloc(0))).toThrow(UnzipError);
  });

  it('refuses an entry whose inflated size differs from the directory', () => {
    const zip = zipOf({ 'comment.md': 'hello' });
    zip.writeUInt32LE(4, centralHeaders(zip)[0]! + 24);
    expect(() => extract(zip)).toThrow(/"comment.md" has 5 bytes, the directory says 4/);
  });

  it('refuses bytes that are not a deflate stream', () => {
    const zip = zipOf(
      { 'comment.md': Buffer.from([0xff, 0xff, 0xff, 0xff]) },
      { compression: 'store' },
    );
    zip.writeUInt16LE(8, centralHeaders(zip)[0]! + 10);
    expect(() => extract(zip)).toThrow(/"comment.md" does not inflate/);
  });

  it('reads the zip the real @actions/artifact client uploads', async () => {
    // The producer of stage 1's artifact: archiver, streaming, with data descriptors.
    const service = await ResultsService.start();
    const dir = await mkdtemp(join(tmpdir(), 'perf-gate-unzip-'));
    try {
      vi.stubEnv('ACTIONS_RUNTIME_TOKEN', service.runtimeToken);
      vi.stubEnv('ACTIONS_RESULTS_URL', `${service.url}/`);
      vi.stubEnv('GITHUB_SERVER_URL', undefined);
      for (const name of ['HTTP_PROXY', 'HTTPS_PROXY', 'http_proxy', 'https_proxy']) {
        vi.stubEnv(name, undefined);
      }
      const contents: Record<string, string> = {
        'report.json': JSON.stringify({ verdict: 'regression', note: 'é'.repeat(5000) }),
        'comment.md': '### neuron-perf-gate\n\n| metric | change |\n',
        'pr.json': '{"number":12}',
      };
      for (const [name, text] of Object.entries(contents)) await writeFile(join(dir, name), text);
      const outcome = await uploadProfileArtifact({
        name: 'perf-gate-report',
        files: NAMES.map((name) => join(dir, name)),
        rootDirectory: dir,
        retentionDays: 1,
        compressionLevel: 6,
      });
      expect(outcome.ok).toBe(true);
      const blob = service.artifacts.get('perf-gate-report')?.blob;
      expect(blob).toBeDefined();
      const { files, ignored } = extract(blob!);
      expect(ignored).toEqual([]);
      for (const [name, text] of Object.entries(contents)) {
        expect(files.get(name)?.toString('utf8')).toBe(text);
      }
    } finally {
      vi.unstubAllEnvs();
      await service.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
