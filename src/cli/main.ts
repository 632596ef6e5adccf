import { EXIT, GateError, errorMessage } from '../errors.js';
import { TOOL_VERSION } from '../version.js';
import { AB_FLAGS, abCommand } from './ab-command.js';
import { parseArgs } from './args.js';
import { isBaselineCommand, runBaselineCli } from './baseline-command.js';
import { BISECT_FLAGS, bisectCommand } from './bisect-command.js';
import { CALIBRATE_FLAGS, calibrateCommand } from './calibrate-command.js';
import { COMPARE_FLAGS, compareCommand } from './compare-command.js';
import { dashboardCommand } from './dashboard-command.js';
import { HELP, commandHelp } from './help.js';
import { HISTORY_FLAGS, historyCommand } from './history-command.js';
import type { CliIo } from './io.js';
import { RUN_FLAGS, runCommand } from './run-command.js';

const GLOBAL_FLAGS = { help: { takes: 'none' }, version: { takes: 'none' } } as const;

/** Runs one CLI invocation and returns its exit code. */
export async function runCli(argv: string[], io: CliIo): Promise<number> {
  try {
    const command = argv.find((word) => !word.startsWith('--'));
    // `baseline` has subcommands and a help text of its own.
    if (isBaselineCommand(argv)) return await runBaselineCli(argv, io);
    if (argv.includes('--help') || argv.includes('-h') || command === 'help') {
      // `run --help` is the help of run; `help run` too.
      const topic = command === 'help' ? argv.filter((w) => !w.startsWith('-'))[1] : command;
      io.stdout(commandHelp(topic) ?? HELP);
      return EXIT.ok;
    }
    if (argv.includes('--version')) {
      io.stdout(`${TOOL_VERSION}\n`);
      return EXIT.ok;
    }
    switch (command) {
      case 'run':
        return await runCommand(parseArgs(argv, { ...GLOBAL_FLAGS, ...RUN_FLAGS }), io);
      case 'calibrate':
        return await calibrateCommand(parseArgs(argv, { ...GLOBAL_FLAGS, ...CALIBRATE_FLAGS }), io);
      case 'ab':
        return await abCommand(parseArgs(argv, { ...GLOBAL_FLAGS, ...AB_FLAGS }), io);
      case 'bisect':
        return await bisectCommand(parseArgs(argv, { ...GLOBAL_FLAGS, ...BISECT_FLAGS }), io);
      case 'dashboard':
        return await dashboardCommand(argv, io);
      case 'compare':
        return await compareCommand(parseArgs(argv, { ...GLOBAL_FLAGS, ...COMPARE_FLAGS }), io);
      case 'history':
        return await historyCommand(parseArgs(argv, { ...GLOBAL_FLAGS, ...HISTORY_FLAGS }), io);
      case undefined:
        io.stderr(`neuron-perf-gate: no command given\n\n${HELP}`);
        return EXIT.usage;
      default:
        io.stderr(
          `neuron-perf-gate: unknown command '${command}'; use run, compare, calibrate, history, bisect, ab, baseline or dashboard (see --help)\n`,
        );
        return EXIT.usage;
    }
  } catch (error) {
    if (error instanceof GateError) {
      io.stderr(`neuron-perf-gate: error: ${error.message}\n`);
      return EXIT.usage;
    }
    io.stderr(
      `neuron-perf-gate: internal error: ${error instanceof Error ? (error.stack ?? error.message) : errorMessage(error)}\n`,
    );
    return EXIT.usage;
  }
}
