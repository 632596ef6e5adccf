// `import text from 'some/file.js?raw'`: the file's text as a string, read at bundle time.
// The dashboard page embeds its charting library and its browser script this way, so the
// page is one self-contained file and nothing is fetched when it is viewed. (Vitest reads
// `?raw` imports the same way on its own; vitest.config.ts lets it read CSS too.)
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, resolve } from 'node:path';

const RAW = '?raw';

export function rawText() {
  return {
    name: 'raw-text',
    resolveId(source, importer) {
      if (!source.endsWith(RAW) || !importer) return null;
      const path = source.slice(0, -RAW.length);
      // Resolved here, not by other plugins: they would treat a script as a module.
      const file = path.startsWith('.')
        ? resolve(dirname(importer), path)
        : createRequire(importer).resolve(path);
      return `${file}${RAW}`;
    },
    load(id) {
      if (!id.endsWith(RAW)) return null;
      const text = readFileSync(id.slice(0, -RAW.length), 'utf8');
      return { code: `export default ${JSON.stringify(text)};`, moduleSideEffects: false };
    },
  };
}
