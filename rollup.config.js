// Two self-contained ESM bundles: the action (dist/index.js) and the CLI (dist/cli.js).
import commonjs from '@rollup/plugin-commonjs';
import json from '@rollup/plugin-json';
import { nodeResolve } from '@rollup/plugin-node-resolve';
import typescript from '@rollup/plugin-typescript';

const outDir = process.env.PERF_GATE_BUNDLE_DIR ?? 'dist';

function bundle(input, file, banner) {
  return {
    input,
    output: { file: `${outDir}/${file}`, format: 'es', sourcemap: false, inlineDynamicImports: true, banner },
    plugins: [
      typescript({ tsconfig: './tsconfig.json', include: ['src/**/*.ts'], noEmit: false, outDir: undefined }),
      nodeResolve({ preferBuiltins: true, exportConditions: ['node'] }),
      commonjs(),
      json(),
    ],
    onwarn(warning, warn) {
      // Dependencies use `this` at module top level and circular imports; both are harmless.
      if (warning.code === 'THIS_IS_UNDEFINED' || warning.code === 'CIRCULAR_DEPENDENCY') return;
      warn(warning);
    },
  };
}

export default [bundle('src/index.ts', 'index.js'), bundle('src/cli.ts', 'cli.js', '#!/usr/bin/env node')];
