// Errors that carry what the user must do next, and the exit code they end the CLI with.

export const EXIT = {
  /** No regression: pass, improvement, unchanged, inconclusive or no-baseline. */
  ok: 0,
  regression: 1,
  /** Usage, config or input error: nothing was run, or nothing could be read. */
  usage: 2,
  /** A benchmark failed to run. */
  runFailed: 3,
} as const;

export type GateErrorKind = 'usage' | 'config' | 'input';

/**
 * A problem with what the user gave us (flags, config file, result file). The message
 * names the file and the field, what was found and what is allowed.
 */
export class GateError extends Error {
  readonly kind: GateErrorKind;
  readonly file?: string;

  constructor(kind: GateErrorKind, message: string, file?: string) {
    super(message);
    this.name = 'GateError';
    this.kind = kind;
    this.file = file;
  }
}

export function usageError(message: string): GateError {
  return new GateError('usage', message);
}

export function configError(file: string, message: string): GateError {
  return new GateError('config', `${file}: ${message}`, file);
}

export function inputError(file: string, message: string): GateError {
  return new GateError('input', `${file}: ${message}`, file);
}

export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
