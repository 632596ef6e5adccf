// The CLI run in-process as a user runs it from `cwd`, with nothing but PATH in its
// environment; what it printed, and its exit code.
import { runCli } from '../../src/cli/main.js';

export async function cli(argv: string[], cwd: string) {
  let stdout = '';
  let stderr = '';
  const code = await runCli(argv, {
    cwd,
    env: { PATH: process.env.PATH },
    stdout: (text) => (stdout += text),
    stderr: (text) => (stderr += text),
  });
  return { code, stdout, stderr };
}
