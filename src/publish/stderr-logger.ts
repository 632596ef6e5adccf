import type { Logger } from '../log.js';

/** The CLI's log: progress on stderr, so stdout carries only the report. */
export class StderrLogger implements Logger {
  constructor(
    private readonly options: { showOutput: boolean },
    private readonly write: (text: string) => void = (text) => process.stderr.write(text),
  ) {}

  info(message: string): void {
    this.write(`${message}\n`);
  }
  warning(message: string): void {
    this.write(`warning: ${message}\n`);
  }
  startGroup(title: string): void {
    this.write(`▶ ${title}\n`);
  }
  endGroup(): void {}
  output(chunk: string): void {
    if (this.options.showOutput) this.write(chunk);
  }
}
