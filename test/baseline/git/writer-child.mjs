// One concurrent writer of the git-branch store tests, run as its own node process:
//   node writer-child.mjs '<json: repoDir, workDir, benchmark, writer, count, barrier>'
// Writes barrier/ready-<writer>, waits until barrier/go exists (so all writers start
// together, however long a busy host took to start each), appends `count` records one
// commit each, and prints {"attempts": [...]} on stdout.
import { existsSync, writeFileSync } from 'node:fs';
import { registerHooks } from 'node:module';
import { join } from 'node:path';

// Load the TypeScript sources directly (node strips the types): `./x.js` → `./x.ts`.
registerHooks({
  resolve(specifier, context, nextResolve) {
    try {
      return nextResolve(specifier, context);
    } catch (error) {
      if (specifier.endsWith('.js') && error?.code === 'ERR_MODULE_NOT_FOUND') {
        return nextResolve(specifier.replace(/\.js$/, '.ts'), context);
      }
      throw error;
    }
  },
});

const { GitBranchStore } = await import('../../../src/baseline/git/git-branch-store.ts');
const { sampleRecord } = await import('./support.ts');

const options = JSON.parse(process.argv[2] ?? '{}');
const store = new GitBranchStore({ repoDir: options.repoDir, workDir: options.workDir });
writeFileSync(join(options.barrier, `ready-${options.writer}`), '');
const giveUpAt = Date.now() + 60_000;
while (!existsSync(join(options.barrier, 'go')) && Date.now() < giveUpAt) {
  await new Promise((done) => setTimeout(done, 10));
}
const attempts = [];
for (let i = 0; i < options.count; i += 1) {
  const seed = options.writer * 100 + i;
  const record = sampleRecord(
    options.benchmark,
    seed,
    new Date(Date.UTC(2026, 0, 1) + seed * 1000),
    {
      runId: `w${options.writer}-${i}`,
    },
  );
  const result = await store.appendRecords([record]);
  attempts.push(result.attempts);
}
process.stdout.write(`${JSON.stringify({ attempts })}\n`);
