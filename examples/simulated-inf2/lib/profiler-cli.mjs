// The simulated profile viewer behind both `neuron-explorer` (current name) and
// `neuron-profile` (the older CLI): `view --output-format summary-json` (to stdout) and
// `view --output-format parquet --output-file DIR` (the profile tables, lib/profile-tables.mjs)
// are simulated, on one NEFF + NTFF pair (-n/-s) or a whole session folder (-d). Every log
// line goes to stderr. `neuron-profile` (SIM_PROFILER_TABLES=0 too) knows only summary-json,
// as SDKs before Neuron Explorer did. Exit status: 0 done, 1 the files could not be summarized
// (empty NTFF, not a profile, SIM_PROFILER_FAIL), 2 bad command line or knob.
import { basename } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { ToolError, UsageError } from './errors.mjs';
import { readProfilerKnobs } from './knobs.mjs';
import { isDirectory, isFile, readPair, readSessionDir } from './profile-reader.mjs';
import { formatSummaryJson, graphKey, summarizeGraph } from './profile-summary.mjs';
import { writeProfileTables } from './profile-tables.mjs';
import { SIMULATED_VERSIONS } from './versions.mjs';

/** Formats the real tools know; summary-json and parquet are simulated. */
const KNOWN_FORMATS = ['summary-json', 'summary-text', 'json', 'perfetto', 'parquet'];
const OTHER_COMMANDS = ['capture', 'inspect', 'list-devices', 'compare'];

export function usage(program) {
  return (
    `usage: ${program} [-h] [--version] <command> ...\n` +
    `       ${program} view -n NEFF -s NTFF --output-format summary-json\n` +
    `       ${program} view -d SESSION_DIR --output-format summary-json\n` +
    `       ${program} view -n NEFF -s NTFF --output-format parquet --output-file DIR\n` +
    '(simulated: "view" with --output-format summary-json or parquet)'
  );
}

function takeValue(args, i, flag) {
  const arg = args[i];
  if (arg.startsWith('--') && arg.includes('=')) return [arg.slice(arg.indexOf('=') + 1), i];
  const value = args[i + 1];
  if (value === undefined || (value.startsWith('-') && value.length > 1)) {
    throw new UsageError(`argument ${flag}: expected one argument`);
  }
  return [value, i + 1];
}

/** The options of `view`; throws UsageError for anything it does not accept. */
function parseView(args) {
  const options = { command: 'view', neff: undefined, ntff: undefined, dir: undefined };
  options.outputFile = undefined;
  let format;
  for (let i = 0; i < args.length; i += 1) {
    const arg = args[i];
    const flag = arg.startsWith('--') ? arg.split('=')[0] : arg;
    let value;
    if (flag === '-h' || flag === '--help') return { command: 'help' };
    if (flag === '-n') [options.neff, i] = takeValue(args, i, '-n');
    else if (flag === '-s') [options.ntff, i] = takeValue(args, i, '-s');
    else if (flag === '-d') [options.dir, i] = takeValue(args, i, '-d');
    else if (flag === '--output-file') [options.outputFile, i] = takeValue(args, i, flag);
    else if (flag === '--output-format') {
      [value, i] = takeValue(args, i, '--output-format');
      format = value;
    } else throw new UsageError(`unrecognized arguments: ${arg}`);
  }
  if (format === undefined) {
    throw new UsageError('--output-format is required (the simulator prints summary-json)');
  }
  if (!KNOWN_FORMATS.includes(format)) {
    throw new UsageError(
      `argument --output-format: invalid choice: '${format}' (choose from ${KNOWN_FORMATS.join(', ')})`,
    );
  }
  if (format !== 'summary-json' && format !== 'parquet') {
    throw new UsageError(`--output-format ${format} is not simulated: use summary-json or parquet`);
  }
  if (format === 'parquet' && options.outputFile === undefined) {
    throw new UsageError('--output-format parquet needs --output-file DIR');
  }
  options.format = format;
  if (options.dir !== undefined && (options.neff !== undefined || options.ntff !== undefined)) {
    throw new UsageError('-d cannot be combined with -n/-s');
  }
  if (options.dir === undefined && (options.neff === undefined || options.ntff === undefined)) {
    throw new UsageError('give both -n NEFF and -s NTFF, or -d SESSION_DIR');
  }
  return options;
}

const VALUE_FLAGS = ['-n', '-s', '-d', '--output-format', '--output-file'];

/** The command line: { command: help|version|view, ... }. Flags may come before `view`. */
export function parseProfilerArgs(argv) {
  if (argv.includes('--version')) return { command: 'version' };
  // The command is the first word that is neither a flag nor a flag's value.
  const at = argv.findIndex((arg, i) => !arg.startsWith('-') && !VALUE_FLAGS.includes(argv[i - 1]));
  if (at < 0) {
    if (argv.includes('-h') || argv.includes('--help')) return { command: 'help' };
    throw new UsageError('a command is required');
  }
  const command = argv[at];
  if (command === 'view') return parseView([...argv.slice(0, at), ...argv.slice(at + 1)]);
  if (OTHER_COMMANDS.includes(command)) {
    throw new UsageError(`command '${command}' is not simulated (only view)`);
  }
  throw new UsageError(`invalid command: '${command}'`);
}

/** Paths of the command line must exist: a wrong one is a usage error (exit 2). */
function checkPaths(options) {
  if (options.dir !== undefined) {
    if (!isDirectory(options.dir)) throw new UsageError(`-d ${options.dir}: no such directory`);
    return;
  }
  if (!isFile(options.neff)) throw new UsageError(`-n ${options.neff}: no such file`);
  if (!isFile(options.ntff)) throw new UsageError(`-s ${options.ntff}: no such file`);
}

/**
 * `neuron-profile` (SDKs before Neuron Explorer) and SIM_PROFILER_TABLES=0 know no parquet
 * output: argparse's "invalid choice", exit 2, as a real older CLI answers.
 */
function refuseOlderTables(program, options, knobs) {
  if (options.format !== 'parquet') return;
  if (!program.endsWith('neuron-profile') && knobs.tables) return;
  const older = KNOWN_FORMATS.filter((f) => f !== 'parquet');
  throw new UsageError(
    `argument --output-format: invalid choice: 'parquet' (choose from ${older.join(', ')})`,
  );
}

const log = (message) => process.stderr.write(`INFO: ${message}\n`);

/** Runs one invocation; resolves to the exit status. Only the summary goes to stdout. */
export async function runProfiler(program, argv, env) {
  let options;
  try {
    options = parseProfilerArgs(argv);
    if (options.command === 'view') checkPaths(options);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    process.stderr.write(`${usage(program)}\n${program}: error: ${error.message}\n`);
    return error.exitCode;
  }
  if (options.command === 'help') {
    process.stdout.write(`${usage(program)}\n`);
    return 0;
  }
  if (options.command === 'version') {
    process.stdout.write(`${program} ${SIMULATED_VERSIONS.tools} (simulated)\n`);
    return 0;
  }

  let knobs;
  try {
    knobs = readProfilerKnobs(env); // a bad value: UsageError, exit 2
    refuseOlderTables(program, options, knobs);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    process.stderr.write(`${usage(program)}\n${program}: error: ${error.message}\n`);
    return error.exitCode;
  }
  if (knobs.delay > 0) await delay(knobs.delay * 1000);
  try {
    if (knobs.fail) {
      throw new ToolError(
        'failed to process the profile: NTFF decode error (simulated by SIM_PROFILER_FAIL)',
      );
    }
    let graphs;
    if (options.dir !== undefined) {
      log(`loading session directory ${options.dir}`);
      graphs = readSessionDir(options.dir);
    } else {
      log(`loading NEFF ${options.neff}`);
      log(`loading NTFF ${options.ntff}`);
      graphs = readPair(options.neff, options.ntff);
    }
    if (options.format === 'parquet') {
      const tables = writeProfileTables(
        options.outputFile,
        graphs.map((graph) => ({ ...graph, summary: summarizeGraph(graph, knobs) })),
        basename(options.dir ?? options.ntff),
        knobs.schema,
      );
      log(
        `tables ${tables.join(', ')} of ${graphs.length} graph(s) written to ${options.outputFile}`,
      );
      return 0;
    }
    const summaries = {};
    for (const graph of graphs) {
      const key = graphKey(graph.neff, graph.ntff.vnc);
      log(
        `${key}: graph ${graph.entry.graph} on NeuronCore ${graph.ntff.vnc ?? 0}, ` +
          `${graph.entry.executions ?? 1} execution(s), NEFF ${graph.neffPath}, NTFF ${graph.ntffPath}`,
      );
      summaries[key] = summarizeGraph(graph, knobs);
    }
    process.stdout.write(`${formatSummaryJson(summaries)}\n`);
    log(`summary of ${graphs.length} graph(s) written`);
    return 0;
  } catch (error) {
    if (!(error instanceof ToolError)) throw error;
    process.stderr.write(`ERROR: ${error.message}\n`);
    return error.exitCode;
  }
}
