import type { Logger } from '../log.js';
import { printable } from '../text/printable.js';

/** The CLI's log: progress on stderr, so stdout carries only the report. */
export class StderrLogger implements Logger {
  constructor(
    private readonly options: { showOutput: boolean },
    private readonly write: (text: string) => void = (text) => process.stderr.write(text),
  ) {}

  // The gate's own lines may quote commit subjects, records and files: escaped. The
  // benchmark's output (below) is passed as it is, colours and all.
  info(message: string): void {
    this.write(`${printable(message)}\n`);
  }
  warning(message: string): void {
    this.write(`warning: ${printable(message)}\n`);
  }
  startGroup(title: string): void {
    this.write(`▶ ${printable(title)}\n`);
  }
  endGroup(): void {}
  output(chunk: string): void {
    if (this.options.showOutput) this.write(chunk);
  }
}
