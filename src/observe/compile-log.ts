// What the Neuron tools say in a run's log about compiling: pure, one log's text in.
//
// The shapes (read from published logs, not copied):
// - libneuronxla's cache wrapper, one line per graph found in the cache:
//   `2024-09-23 00:09:00.000437:  27  INFO ||NEURON_CC_WRAPPER||: Using a cached neff at
//   /var/tmp/neuron-compile-cache/neuronxcc-2.14.227.0+2d4f85be/MODULE_b100…+2c2d707e/model.neff.
//   Exiting with a successfully compiled graph.` (older SDKs tag it `||NCC_WRAPPER||`);
// - one line per graph it compiled: `… INFO ||NEURON_CC_WRAPPER||: Exiting with a
//   successfully compiled graph.` without the cached NEFF (the Neuron docs' "Neuron
//   Persistent Cache" page shows both);
// - NxD Inference (under vllm-neuron), once per model build: `INFO:Neuron:Finished
//   Compilation for all HLOs in 49.70 seconds` (neuronx_distributed's model builder;
//   older releases print it without the time).

export interface CompileLog {
  /** Cache entries (`neuronxcc-<version>/MODULE_<hash>`) the run loaded a NEFF from. */
  cached: string[];
  /** Graphs the wrapper says it compiled. */
  compiled: number;
  /** Seconds of each "Finished Compilation for all HLOs" line. */
  compileSeconds: number[];
  /** Lines that look like one of the above but cannot be read (cut off, garbled). */
  warnings: string[];
}

const WRAPPER = /\|\|N(?:EURON_)?CC_WRAPPER\|\|:\s*(.*)$/;
const CACHED =
  /^Using a cached neff at (\S+?)\.?(?:\s+Exiting with a successfully compiled graph\.?)?$/;
const COMPILED = /^Exiting with a successfully compiled graph\.?$/;
// neuronxcc-<version>/MODULE_<hash>/model.neff; older SDKs: USER_neuroncc-<version>/MODULE_<n>/…/x.neff.
const ENTRY = /((?:USER_)?neuronx?cc-[^/\s]+)\/(MODULE_[^/\s]+)\/(?:\S*\/)?[^/\s]*\.neff$/;
const FINISHED = /Finished Compilation for all(?: HLOs in (\S+) seconds)?/;
/** Older NxD Inference says it without a time: nothing to count, nothing wrong. */
const FINISHED_UNTIMED = /Finished Compilation for all HLOs\s*$/;

/** Parses one log; never throws: what it cannot read becomes a warning naming the line. */
export function parseCompileLog(text: string, name: string): CompileLog {
  const log: CompileLog = { cached: [], compiled: 0, compileSeconds: [], warnings: [] };
  const lines = text.split(/\r?\n/);
  for (const [index, line] of lines.entries()) {
    const where = `${name}:${index + 1}`;
    const wrapper = WRAPPER.exec(line)?.[1]?.trim();
    if (wrapper !== undefined) readWrapperLine(wrapper, where, log);
    const finished = FINISHED.exec(line);
    if (finished && !FINISHED_UNTIMED.test(line)) readFinishedLine(finished[1], where, log);
  }
  return log;
}

function readWrapperLine(message: string, where: string, log: CompileLog): void {
  if (COMPILED.test(message)) {
    log.compiled += 1;
    return;
  }
  if (!message.startsWith('Using a cached neff')) return;
  const path = CACHED.exec(message)?.[1];
  const entry = path === undefined ? null : ENTRY.exec(path);
  if (!entry) {
    log.warnings.push(
      `${where}: a "Using a cached neff" line names no neuronxcc-<version>/MODULE_<hash>/….neff ` +
        '(cut off?); that graph is not counted as loaded from the cache',
    );
    return;
  }
  log.cached.push(`${entry[1]}/${entry[2]}`);
}

function readFinishedLine(seconds: string | undefined, where: string, log: CompileLog): void {
  const value = seconds === undefined ? NaN : Number(seconds);
  if (Number.isFinite(value) && value >= 0) {
    log.compileSeconds.push(value);
    return;
  }
  log.warnings.push(
    `${where}: a "Finished Compilation for all HLOs" line without a number of seconds ` +
      `(${seconds === undefined ? 'cut off?' : `"${seconds.slice(0, 40)}"`}); its compile time is not counted`,
  );
}
