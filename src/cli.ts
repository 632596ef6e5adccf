// The CLI (bundled as dist/cli-bundle.js, started by the launcher dist/cli.js): the same gate
// as the action, publishing to files, stdout and the exit code.
import { runCli } from './cli/main.js';
import { exitOnTerminationSignals } from './signals.js';

exitOnTerminationSignals();

process.exitCode = await runCli(process.argv.slice(2), {
  cwd: process.cwd(),
  env: process.env,
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
});
