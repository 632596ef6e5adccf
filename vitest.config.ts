import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    reporters: ['default', './test/support/closing-line-reporter.ts'],
    globalSetup: ['./test/support/debian-prerequisites.ts', './test/support/dist-snapshot.ts'],
    // CSS imported with ?raw (the dashboard page inlines its styles) is read as text, as
    // rollup.raw-text.js reads it for dist/; vitest would otherwise hand back ''.
    css: { include: [/\.css(\?raw)?$/] },
    // Off unless asked (`npm run coverage`): measures src/ as the test process loads it. The
    // bundles the e2e tier runs as child processes are not measured.
    coverage: {
      enabled: false,
      provider: 'v8',
      include: ['src/**'],
      reporter: ['text-summary', 'json-summary'],
      reportsDirectory: 'coverage',
      reportOnFailure: true,
    },
  },
});
