// The CLI (bundled as dist/cli-bundle.js, started by the launcher dist/cli.js): the same gate
// as the action, publishing to files, stdout and the exit code.
import { runCli } from './cli/main.js';
import { exitOnTerminationSignals } from './signals.js';
import { printable } from './text/printable.js';

exitOnTerminationSignals();

process.exitCode = await runCli(process.argv.slice(2), {
  cwd: process.cwd(),
  env: process.env,
  // What stdout carries came from records, git and files: no escape sequence gets through.
  stdout: (text) => process.stdout.write(printable(text)),
  stderr: (text) => process.stderr.write(text),
});
