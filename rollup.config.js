// Two self-contained ESM bundles: the action (dist/index.js) and the CLI (dist/cli.js).
import commonjs from '@rollup/plugin-commonjs';
import json from '@rollup/plugin-json';
import { nodeResolve } from '@rollup/plugin-node-resolve';
import typescript from '@rollup/plugin-typescript';
import { chmodSync } from 'node:fs';

// Dependencies use `this` at module top level, import each other in circles and place
// PURE annotations where rollup cannot use them; all three are harmless here.
const QUIET_WARNINGS = new Set(['THIS_IS_UNDEFINED', 'CIRCULAR_DEPENDENCY', 'INVALID_ANNOTATION']);

const outDir = process.env.PERF_GATE_BUNDLE_DIR ?? 'dist';

/** Makes the written file executable, so that `./dist/cli.js` and npm's bin link run it. */
const executable = {
  name: 'executable',
  writeBundle(options) {
    chmodSync(options.file, 0o755);
  },
};

function bundle(input, file, banner) {
  return {
    input,
    output: {
      file: `${outDir}/${file}`,
      format: 'es',
      sourcemap: false,
      inlineDynamicImports: true,
      banner,
    },
    plugins: [
      typescript({
        tsconfig: './tsconfig.json',
        include: ['src/**/*.ts'],
        noEmit: false,
        outDir: undefined,
      }),
      nodeResolve({ preferBuiltins: true, exportConditions: ['node'] }),
      commonjs(),
      json(),
      ...(banner ? [executable] : []),
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
  bundle('src/cli.ts', 'cli.js', '#!/usr/bin/env node'),
];
