// Where the gate writes what it is doing. The action logs through @actions/core, the CLI
// to stderr; stages only see this interface.

export interface Logger {
  info(message: string): void;
  warning(message: string): void;
  startGroup(title: string): void;
  endGroup(): void;
  /**
   * Raw output of a benchmark process, streamed as it arrives. It comes from user code,
   * so the sink must make sure it cannot act as workflow commands.
   */
  output(chunk: string): void;
}

/** A logger that keeps everything in memory; for tests and for quiet runs. */
export class MemoryLogger implements Logger {
  readonly lines: string[] = [];
  outputBytes = 0;

  info(message: string): void {
    this.lines.push(message);
  }
  warning(message: string): void {
    this.lines.push(`warning: ${message}`);
  }
  startGroup(title: string): void {
    this.lines.push(`group: ${title}`);
  }
  endGroup(): void {
    this.lines.push('endgroup');
  }
  output(chunk: string): void {
    this.outputBytes += Buffer.byteLength(chunk);
  }
}
