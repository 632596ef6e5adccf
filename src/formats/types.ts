import type { ParsedBenchmark } from '../model.js';

/** One result-file format: a shape test for auto-detection and a parser. Pure. */
export interface ResultFormat {
  id: string;
  /** One line for help texts and error messages. */
  description: string;
  /** True when `data` unambiguously has this format's shape. */
  detect(data: unknown): boolean;
  /** Throws GateError('input') naming `file` and the field when the data are not usable. */
  parse(data: unknown, file: string): ParsedBenchmark[];
}
