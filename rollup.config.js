// Two self-contained ESM bundles: the action (dist/index.js) and the CLI (dist/cli-bundle.js,
// started by its launcher dist/cli.js).
import commonjs from '@rollup/plugin-commonjs';
import json from '@rollup/plugin-json';
import { nodeResolve } from '@rollup/plugin-node-resolve';
import typescript from '@rollup/plugin-typescript';
import { chmodSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { rawText } from './rollup.raw-text.js';

// Dependencies use `this` at module top level, import each other in circles and place
// PURE annotations where rollup cannot use them; all three are harmless here.
const QUIET_WARNINGS = new Set(['THIS_IS_UNDEFINED', 'CIRCULAR_DEPENDENCY', 'INVALID_ANNOTATION']);

const outDir = process.env.PERF_GATE_BUNDLE_DIR ?? 'dist';

/**
 * Writes the CLI's launcher, dist/cli.js, next to the CLI bundle: an ES5 file that checks the
 * Node.js version before it loads the bundle (src/launcher/cli.js says why). It is what
 * `bin` and `./dist/cli.js` run, so it is made executable.
 */
const launcher = {
  name: 'launcher',
  generateBundle() {
    this.emitFile({
      type: 'asset',
      fileName: 'cli.js',
      source: readFileSync('src/launcher/cli.js', 'utf8'),
    });
  },
  writeBundle(options) {
    chmodSync(join(dirname(options.file), 'cli.js'), 0o755);
  },
};

function bundle(input, file, extraPlugins = []) {
  return {
    input,
    output: {
      file: `${outDir}/${file}`,
      format: 'es',
      sourcemap: false,
      inlineDynamicImports: true,
    },
    plugins: [
      rawText(),
      typescript({
        tsconfig: './tsconfig.json',
        include: ['src/**/*.ts'],
        noEmit: false,
        outDir: undefined,
      }),
      nodeResolve({ preferBuiltins: true, exportConditions: ['node'] }),
      commonjs(),
      json(),
      ...extraPlugins,
    ],
    onwarn(warning, warn) {
      if (QUIET_WARNINGS.has(warning.code)) return;
      // @azure/storage-blob tries `import('kerberos')` for proxy auth only, inside a try.
      if (warning.code === 'UNRESOLVED_IMPORT' && warning.exporter === 'kerberos') return;
      warn(warning);
    },
  };
}

export default [
  bundle('src/index.ts', 'index.js'),
  bundle('src/cli.ts', 'cli-bundle.js', [launcher]),
];
