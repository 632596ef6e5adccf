// The benchmark scripts (bench/*.ts), bundled like the action (rollup.config.js) into
// .tmp/bench/*.js and run with node: `npm run bench:accuracy`, `bench:accuracy-check`, `bench:compare`, `bench:profile`,
// `bench:baseline`, `bench:changepoints`, `bench:dashboard`, `bench:dashboard-history`, `bench:history`, `bench:large`, `bench:bisect`,
// `bench:one-value`, `bench:capacity`, `bench:few-runs`, `bench:serve-aa`, `bench:lent-t`, `bench:ab-capacity`,
// `bench:ab-startup`, `bench:fleet`, `bench:fleet-year`, `bench:opdiff`, `bench:agreement`, `bench:boundary-search`.
import commonjs from '@rollup/plugin-commonjs';
import json from '@rollup/plugin-json';
import { nodeResolve } from '@rollup/plugin-node-resolve';
import typescript from '@rollup/plugin-typescript';
import { rawText } from './rollup.raw-text.js';

// The same harmless warnings rollup.config.js quiets.
const QUIET_WARNINGS = new Set(['THIS_IS_UNDEFINED', 'CIRCULAR_DEPENDENCY', 'INVALID_ANNOTATION']);

const outDir = '.tmp/bench';

/** Entry points: bench/<name>.ts ─► .tmp/bench/<name>.js */
const BENCHES = [
  'accuracy',
  'accuracy-check',
  'compare-speed',
  'profile',
  'baseline',
  'changepoints',
  'dashboard',
  'dashboard-history',
  'history',
  'large',
  'bisect',
  'one-value',
  'capacity',
  'few-runs',
  'serve-aa',
  'lent-t-draws',
  'ab-capacity',
  'ab-startup',
  'fleet',
  'fleet-writer',
  'fleet-year',
  'opdiff',
  'agreement',
  'boundary-search',
];

function bundle(name) {
  return {
    input: `bench/${name}.ts`,
    output: {
      file: `${outDir}/${name}.js`,
      format: 'es',
      sourcemap: false,
      inlineDynamicImports: true,
    },
    // The dashboard bench drives Chromium; puppeteer-core is loaded from node_modules.
    external: ['puppeteer-core'],
    plugins: [
      rawText(),
      typescript({
        tsconfig: './tsconfig.json',
        include: [
          'src/**/*.ts',
          'bench/**/*.ts',
          'test/support/bisect-repo.ts',
          'test/support/ports.ts',
          'test/support/s3-server.ts',
          'test/support/postgres.ts',
          'test/support/s3/**/*.ts',
        ],
        noEmit: false,
        outDir: undefined,
      }),
      nodeResolve({ preferBuiltins: true, exportConditions: ['node'] }),
      commonjs(),
      json(),
    ],
    onwarn(warning, warn) {
      if (QUIET_WARNINGS.has(warning.code)) return;
      warn(warning);
    },
  };
}

/** `rollup -c rollup.bench.config.js --configOnly capacity` bundles that bench alone (or a comma list). */
export default (args) => {
  const only = args.configOnly;
  if (only === undefined) return BENCHES.map(bundle);
  // `--configOnly fleet,fleet-writer`: a bench and the child it spawns.
  const names = String(only).split(',');
  const unknown = names.filter((name) => !BENCHES.includes(name));
  if (unknown.length > 0)
    throw new Error(`--configOnly: no bench ${unknown.join(', ')}; one of ${BENCHES.join(', ')}`);
  return names.map(bundle);
};
