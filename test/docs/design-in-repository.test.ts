// The design lives in the repository (docs/development.md, Architecture): no file of the
// code, the scripts, the tests, the benches, the example or the docs points a reader at a
// design or reference page the repository does not hold (the fixtures are the repository's
// copies). The names are built here so that this file does not hold them either.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '..', '..');
const FOLDERS = ['src', 'scripts', 'test', 'docs', 'bench', 'examples'];
const OUTSIDE_PAGE = ['DESIGN', 'md'].join('.');
const OUTSIDE_PAGES = [OUTSIDE_PAGE, ['domain', 'md'].join('.'), ['shared', 'reference'].join('/')];
const PICTURES = /\.(png|jpe?g|gif|webp)$/i;

function filesUnder(folder: string): string[] {
  return readdirSync(join(ROOT, folder), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && !PICTURES.test(entry.name))
    .map((entry) => relative(ROOT, join(entry.parentPath, entry.name)));
}

/** The files that name the outside page, each with its first line that does. */
function citingFiles(files: readonly string[], read: (file: string) => string): string[] {
  return files.flatMap((file) => {
    const line = read(file)
      .split('\n')
      .findIndex((text) => OUTSIDE_PAGES.some((page) => text.includes(page)));
    return line < 0 ? [] : [`${file}:${line + 1}`];
  });
}

describe('the design lives in the repository', () => {
  const files = FOLDERS.flatMap(filesUnder);

  it('reads the files of src/, scripts/, test/ and docs/', () => {
    expect(files).toContain('src/action/gate.ts');
    expect(files).toContain('scripts/house.mjs');
    expect(files).toContain('docs/development.md');
    expect(files).toContain('test/docs/design-in-repository.test.ts');
  });

  it('finds a file that names the outside design page', () => {
    const texts: Record<string, string> = {
      'src/a.ts': `// phase by phase (${OUTSIDE_PAGE})`,
      'src/b.ts': '// phase by phase (docs/development.md, Architecture)',
      'bench/c.ts': `// the shape of ${OUTSIDE_PAGES[2]}/formats/x.json`,
    };
    expect(citingFiles(Object.keys(texts), (file) => texts[file]!)).toEqual([
      'src/a.ts:1',
      'bench/c.ts:1',
    ]);
  });

  it('has no file that names it: the architecture is docs/development.md#architecture', () => {
    const read = (file: string) => readFileSync(join(ROOT, file), 'utf8');
    expect(citingFiles(files, read)).toEqual([]);
  });

  it('keeps the architecture in docs/development.md', () => {
    const page = readFileSync(join(ROOT, 'docs', 'development.md'), 'utf8');
    for (const heading of [
      '## Architecture',
      '### Stages',
      '### Data model',
      '### Trust boundaries',
      '### What the outside parts are tested against',
    ])
      expect(page).toContain(`\n${heading}\n`);
  });
});
