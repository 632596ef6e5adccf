// A StrykerJS ignorer for `npm run mutate` (scripts/mutation-sample.mjs): keeps the run to the
// drawn mutants. A drawn mutant that empties a block would bring every mutant inside the block
// into the run, so each syntax node that holds no drawn location is ignored, with all inside it.
// The drawn mutants' files and locations come from the file MUTATION_SAMPLE names.
import { readFileSync } from 'node:fs';
import { PluginKind, declareValuePlugin } from '@stryker-mutator/api/plugin';

const drawn = JSON.parse(readFileSync(process.env.MUTATION_SAMPLE ?? '', 'utf8'));

const before = (a, b) => a.line < b.line || (a.line === b.line && a.column <= b.column);
const holds = (outer, inner) => before(outer.start, inner.start) && before(inner.end, outer.end);

export const strykerPlugins = [
  declareValuePlugin(PluginKind.Ignore, 'drawn-sample', {
    shouldIgnore(path) {
      const loc = path.node.loc;
      // Stryker's parser leaves the file's name out of locations: then a node at a location
      // drawn in another file runs too (and is not counted).
      const inFile = ({ file }) => !loc?.filename || loc.filename.endsWith(file);
      if (!loc || drawn.some((m) => inFile(m) && holds(loc, m))) return undefined;
      return 'not in the drawn sample';
    },
  }),
];
