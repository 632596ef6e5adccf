// Reading a benchmark's JSON result file, with errors that tell the user where the file
// is broken and what to do about it.

import { readFile } from 'node:fs/promises';
import { inputError, errorMessage, type GateError } from '../errors.js';
import { findJsonSyntaxError, type JsonSyntaxProblem } from './json-syntax-error.js';
import { replaceNonFiniteTokens } from './non-finite-tokens.js';

/**
 * Parses `text` (the content of `file`) as JSON. Bare NaN, Infinity and -Infinity outside
 * strings become null. Throws GateError('input') naming the file when it is empty or not
 * JSON, with line and column of the problem.
 */
export function parseJsonText(text: string, file: string): unknown {
  const body = text.startsWith('\uFEFF') ? text.slice(1) : text;
  if (!/\S/.test(body)) {
    throw inputError(
      file,
      'is empty: the benchmark wrote nothing. Check the run log for why it stopped before writing its result.',
    );
  }
  let parseError: SyntaxError;
  try {
    return JSON.parse(body);
  } catch (error) {
    if (!(error instanceof SyntaxError)) throw error;
    parseError = error;
  }
  // The fast path failed: the file may only be using Python's NaN/Infinity tokens.
  const lenient = replaceNonFiniteTokens(body);
  if (lenient.replaced > 0) {
    try {
      return JSON.parse(lenient.text);
    } catch (error) {
      if (!(error instanceof SyntaxError)) throw error;
    }
  }
  throw invalidJsonError(body, file, parseError);
}

/** Reads and parses a JSON file; see parseJsonText. */
export async function readJsonFile(path: string): Promise<unknown> {
  return parseJsonText(await readTextFile(path), path);
}

/** What a missing file means when nothing more is known: a path that is wrong. */
export const MISSING_FILE =
  'not found: there is no file at this path. Check the path and its spelling.';

/** What a missing result file of a benchmark run means: the benchmark did not write it. */
export const MISSING_RESULT_FILE =
  'not found: the benchmark did not write its result file. Check that it writes to this path ' +
  '(the PERF_GATE_OUTPUT variable holds it) and the run log for errors.';

/**
 * Reads a text file, turning the usual file-system failures into input errors. `missing`
 * says what a missing file means where it is read (a result the benchmark should have
 * written, a baseline the user named, ...).
 */
export async function readTextFile(path: string, missing: string = MISSING_FILE): Promise<string> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw inputError(path, missing);
    if (code === 'EISDIR') throw inputError(path, 'is a directory; expected a JSON result file.');
    if (code === 'EACCES') {
      throw inputError(path, 'cannot be read (permission denied); make it readable by the gate.');
    }
    throw inputError(path, `cannot be read: ${errorMessage(error)}`);
  }
}

function invalidJsonError(text: string, file: string, parseError: SyntaxError): GateError {
  const problem = findJsonSyntaxError(text);
  if (problem === undefined) {
    // Our scanner accepted what JSON.parse rejected; fall back to V8's own words.
    return inputError(file, `is not valid JSON: ${parseError.message}`);
  }
  const { line, column } = lineAndColumn(text, problem.offset);
  const where = `line ${line}, column ${column}`;
  const advice = problem.truncated
    ? 'The file stops early: the benchmark was probably killed or crashed while writing it; see the run log.'
    : 'Make the benchmark write only JSON to this file (no log lines or print output), ' +
      'or see the run log for why it wrote this.';
  return inputError(
    file,
    `is not valid JSON: ${problem.problem} at ${where}${nearText(text, problem)}. ${advice}`,
  );
}

/** 1-based line and column of `offset`, counting lines with indexOf to stay linear. */
function lineAndColumn(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (;;) {
    const newline = text.indexOf('\n', lineStart);
    if (newline === -1 || newline >= offset) break;
    line += 1;
    lineStart = newline + 1;
  }
  return { line, column: offset - lineStart + 1 };
}

/** A short excerpt before the problem, so the user recognises the place. */
function nearText(text: string, problem: JsonSyntaxProblem): string {
  const from = Math.max(0, problem.offset - 30);
  const excerpt = text.slice(from, problem.offset + 10).trim();
  return excerpt === '' ? '' : ` (near ${JSON.stringify(excerpt)})`;
}
