import { randomBytes } from 'node:crypto';
import * as core from '@actions/core';
import type { Logger } from '../log.js';

/**
 * Logs to the Actions runner. Benchmark output is user code's output: while it streams,
 * workflow commands are switched off (`::stop-commands::`) so that a line such as
 * `::set-output` or `::add-mask` printed by a benchmark has no effect.
 */
export class ActionLogger implements Logger {
  private stopToken: string | undefined;
  private endsWithNewline = true;

  constructor(
    private readonly write: (text: string) => void = (text) => process.stdout.write(text),
  ) {}

  info(message: string): void {
    this.resumeCommands();
    core.info(message);
  }

  warning(message: string): void {
    this.resumeCommands();
    core.warning(message);
  }

  startGroup(title: string): void {
    this.resumeCommands();
    core.startGroup(title);
  }

  endGroup(): void {
    this.resumeCommands();
    core.endGroup();
  }

  output(chunk: string): void {
    if (chunk.length === 0) return;
    if (!this.stopToken) {
      this.stopToken = randomBytes(16).toString('hex');
      this.write(`::stop-commands::${this.stopToken}\n`);
    }
    this.write(chunk);
    this.endsWithNewline = chunk.endsWith('\n');
  }

  private resumeCommands(): void {
    if (!this.stopToken) return;
    this.write(`${this.endsWithNewline ? '' : '\n'}::${this.stopToken}::\n`);
    this.stopToken = undefined;
    this.endsWithNewline = true;
  }
}
