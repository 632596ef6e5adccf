// The tests StrykerJS runs on each mutant (`npm run mutate`, stryker.config.json): the unit
// tests of the verdict and history rooms, never test/e2e. The rest of the quick tier reaches
// this code only through the pipeline and would make each mutant's run minutes long on 2
// cores. Not merged with vitest.config.ts: mergeConfig would append to its include list.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/compare/**/*.test.ts', 'test/stats/**/*.test.ts', 'test/history/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // No test here runs a bundle, so dist/ needs no snapshot.
    globalSetup: ['./test/support/debian-prerequisites.ts'],
  },
});
