// The READMEs of examples/ name files of this repository by path (`bin/neuron-ls`,
// `lib/knobs.mjs`, `test/fixtures/...`): each one is there, relative to the README's folder
// or to the repository's root, so that no page sends a reader to a folder the repository
// does not have.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../support/bundled.js';

const READMES = readdirSync(join(ROOT, 'examples'), { withFileTypes: true })
  .filter(
    (entry) => entry.isDirectory() && existsSync(join(ROOT, 'examples', entry.name, 'README.md')),
  )
  .map((entry) => `examples/${entry.name}/README.md`);

/**
 * Backticked relative paths of a page: words of `/`-separated file-name characters. Paths
 * from `.` or `/` (the user's `.github/...`, the runner's `/dev/neuron0`) and patterns
 * (`i-…_pid_N/`, `<timestamp>`) are not files of the repository.
 */
function repositoryPaths(markdown: string): string[] {
  return [...markdown.matchAll(/`([A-Za-z0-9_][A-Za-z0-9_.-]*\/[A-Za-z0-9_./-]*)`/g)].map(
    (m) => m[1]!,
  );
}

describe('paths in the READMEs of examples/', () => {
  it('finds the READMEs, and paths in them', () => {
    expect(READMES).toContain('examples/simulated-inf2/README.md');
    const simulator = readFileSync(join(ROOT, 'examples/simulated-inf2/README.md'), 'utf8');
    const paths = repositoryPaths(simulator);
    expect(paths.length).toBeGreaterThan(5);
  });

  it.each(READMES)('%s names only paths that exist', (readme) => {
    const folder = join(ROOT, readme, '..');
    const missing = repositoryPaths(readFileSync(join(ROOT, readme), 'utf8')).filter(
      (path) => !existsSync(join(folder, path)) && !existsSync(join(ROOT, path)),
    );
    expect(missing).toEqual([]);
  });
});
