// Errors that end a simulated tool with a specific exit status, like the real tools do.

/** Bad command line or bad knob value: exit 2, as argparse and most CLIs do. */
export class UsageError extends Error {
  exitCode = 2;
}

/** The tool ran but could not do its job (bad or empty input file, simulated failure): exit 1. */
export class ToolError extends Error {
  exitCode = 1;
}

/** Print the error the way the real tool would and leave with its exit status. */
export function exitWithError(error, program) {
  if (error instanceof UsageError || error instanceof ToolError) {
    process.stderr.write(`${program}: error: ${error.message}\n`);
    process.exit(error.exitCode);
  }
  process.stderr.write(`${program}: internal error: ${error?.stack ?? error}\n`);
  process.exit(1);
}
