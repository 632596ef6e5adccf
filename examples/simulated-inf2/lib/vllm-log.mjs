// Log lines in vLLM's format ("INFO 11-22 02:26:01 [file.py:123] message") and Neuron
// runtime errors in the runtime's format, so that logs in the gate's report look real.

const pad = (n, width = 2) => String(n).padStart(width, '0');
const MONTHS = 'Jan Feb Mar Apr May Jun Jul Aug Sep Oct Nov Dec'.split(' ');

/** "INFO 11-22 02:26:01 [source] message" on stdout. */
export function vllmLog(level, source, message, date = new Date()) {
  const stamp = `${pad(date.getMonth() + 1)}-${pad(date.getDate())} ${pad(date.getHours())}:${pad(
    date.getMinutes(),
  )}:${pad(date.getSeconds())}`;
  process.stdout.write(`${level} ${stamp} [${source}] ${message}\n`);
}

/** "2025-Nov-22 02:26:01.0123 4242:4242 ERROR  NRT:nrt_execute  message" on stderr. */
export function runtimeError(component, message, date = new Date()) {
  const stamp =
    `${date.getFullYear()}-${MONTHS[date.getMonth()]}-${pad(date.getDate())} ` +
    `${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}.` +
    `${pad(date.getMilliseconds(), 3)}0`;
  process.stderr.write(`${stamp} ${process.pid}:${process.pid} ERROR  ${component}  ${message}\n`);
}

/** A Python traceback ending in `exception`, as an uncaught error prints it. */
export function pythonTraceback(frames, exception) {
  const lines = ['Traceback (most recent call last):'];
  for (const [file, line, fn, code] of frames) {
    lines.push(`  File "${file}", line ${line}, in ${fn}`, `    ${code}`);
  }
  lines.push(exception);
  process.stderr.write(`${lines.join('\n')}\n`);
}

/**
 * "2024-09-23 00:09:00.000437:  27  INFO ||NEURON_CC_WRAPPER||: message" on stdout: the
 * format of libneuronxla's compile-cache lines (seen in vLLM-on-Neuron logs; the Neuron
 * docs' "Neuron Persistent Cache" page shows the older `||NCC_WRAPPER||` tag).
 */
export function neuronCacheLog(tag, message, date = new Date()) {
  const stamp =
    `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())} ` +
    `${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}.` +
    `${pad(date.getMilliseconds() * 1000, 6)}`;
  process.stdout.write(`${stamp}:  ${process.pid}  INFO ||${tag}||: ${message}\n`);
}
