// The house keeps its shape: every import of src/ points to a lower floor, no files import
// each other in a circle, and docs/development.md shows the house as the code builds it.
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  houseRows,
  importCircles,
  readImportGraph,
  renderHouse,
  upwardImports,
  withHouseTable,
} from '../../scripts/house.mjs';

const made: string[] = [];
afterEach(async () => {
  for (const dir of made.splice(0)) await rm(dir, { recursive: true, force: true });
});

/** A src/ folder of the given files (path → content). */
async function houseOf(files: Record<string, string>): Promise<string> {
  const src = await mkdtemp(join(tmpdir(), 'perf-gate-house-'));
  made.push(src);
  for (const [path, text] of Object.entries(files)) {
    await mkdir(dirname(join(src, path)), { recursive: true });
    await writeFile(join(src, path), text);
  }
  return src;
}

describe('the import graph of src/', () => {
  const graph = readImportGraph('src');

  it('has no import from a lower floor to a higher one, and every room has a floor', () => {
    expect(upwardImports(graph)).toEqual([]);
  });

  it('has no circle of files', () => {
    expect(importCircles(graph)).toEqual([]);
  });

  it('sees the imports it is meant to judge (type-only, re-exports, dynamic)', () => {
    expect(graph.get('profile/figures.ts')).toContain('model.ts');
    expect(graph.get('config/types.ts')).toContain('model.ts');
    expect(graph.get('main.ts')?.length).toBeGreaterThan(0);
    expect(graph.get('model.ts')).toEqual([]);
  });

  it('is drawn in docs/development.md as it is (node scripts/house.mjs --write redraws it)', async () => {
    const doc = await readFile('docs/development.md', 'utf8');
    const drawn = withHouseTable(doc, renderHouse(graph));
    expect(houseRows(doc)).toEqual(houseRows(drawn));
    expect(houseRows(doc).length).toBeGreaterThan(30);
  });
});

describe('the house check', () => {
  it('names an import that climbs to a higher floor', async () => {
    const src = await houseOf({
      'stats/mean.ts': "import type { Report } from '../report/build.js';\nexport const m = 1;\n",
      'report/build.ts': 'export type Report = number;\n',
    });
    const problems = upwardImports(readImportGraph(src));
    expect(problems).toHaveLength(1);
    expect(problems[0]).toContain('stats/mean.ts imports report/build.ts');
  });

  it('names an import between two rooms of the same floor', async () => {
    const src = await houseOf({
      'history/a.ts': "export { x } from '../pipeline.js';\n",
      'pipeline.ts': 'export const x = 1;\n',
    });
    expect(upwardImports(readImportGraph(src))).toHaveLength(1);
  });

  it('names a room with no floor', async () => {
    const src = await houseOf({ 'someday/plan.ts': "import '../model.js';\n", 'model.ts': '' });
    expect(upwardImports(readImportGraph(src))[0]).toContain("room 'someday' has no floor");
  });

  it('finds a circle of files inside one room, dynamic imports included', async () => {
    const src = await houseOf({
      'report/a.ts': "import { b } from './b.js';\nexport const a = b;\n",
      'report/b.ts': "export const b = 1;\nexport const later = () => import('./c.js');\n",
      'report/c.ts': "import type { A } from './a.js';\n",
      'report/d.ts': "import { b } from './b.js';\n",
    });
    expect(importCircles(readImportGraph(src))).toEqual([
      ['report/a.ts', 'report/b.ts', 'report/c.ts'],
    ]);
  });

  it('reads imports around comments, and none in them', async () => {
    const src = await houseOf({
      'stats/a.ts': [
        'import {',
        "  escape, // the user's text",
        "} from '../report/escape.js';",
        "// import { later } from '../report/later.js';",
        "/** {import('../report/types.js').T} */",
        "const url = 'https://example.com'; // from '../report/x.js'",
        'export const load = () => import(`../report/lazy.js`);',
      ].join('\n'),
      'report/escape.ts': 'export const escape = 1;\n',
      'report/later.ts': '',
      'report/types.ts': '',
      'report/lazy.ts': '',
    });
    expect(readImportGraph(src).get('stats/a.ts')).toEqual(['report/escape.ts', 'report/lazy.ts']);
  });

  it('lets a room import the rooms below it', async () => {
    const src = await houseOf({
      'report/a.ts': "import { m } from '../stats/m.js';\nimport type { M } from '../model.js';\n",
      'stats/m.ts': "import type { M } from '../model.js';\nexport const m = 1;\n",
      'model.ts': 'export type M = 1;\n',
    });
    const graph = readImportGraph(src);
    expect(graph.get('report/a.ts')).toEqual(['model.ts', 'stats/m.ts']);
    expect(upwardImports(graph)).toEqual([]);
    expect(importCircles(graph)).toEqual([]);
  });
});
