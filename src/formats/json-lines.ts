// Result files that hold several runs: tools like `vllm bench serve --append-result` add
// one JSON document per line (JSON Lines). A file is read as JSON Lines only when it is
// not one JSON document and its first non-blank line is a complete JSON object on its own.

import { GateError, inputError } from '../errors.js';
import { findJsonSyntaxError } from './json-syntax-error.js';
import { parseJsonText } from './json.js';
import { replaceNonFiniteTokens } from './non-finite-tokens.js';
import { isObject } from './fields.js';

export interface JsonDocuments {
  /** One JSON value per run: the whole file, or one per non-blank line. */
  documents: unknown[];
  /** 1-based line of each document for JSON Lines; undefined for a single document. */
  lines?: number[];
}

/** Parses `text` as one JSON document or, failing that, as JSON Lines. */
export function parseJsonDocuments(text: string, file: string): JsonDocuments {
  try {
    return { documents: [parseJsonText(text, file)] };
  } catch (error) {
    if (!(error instanceof GateError)) throw error;
    const lines = nonBlankLines(text);
    const first = lines[0];
    if (lines.length < 2 || first === undefined || !isObject(parseLenient(first.text))) {
      throw error;
    }
    return {
      documents: lines.map((line) => parseLine(line, file)),
      lines: lines.map((line) => line.number),
    };
  }
}

interface Line {
  number: number;
  text: string;
}

function nonBlankLines(text: string): Line[] {
  const body = text.startsWith('\uFEFF') ? text.slice(1) : text;
  const lines: Line[] = [];
  body.split('\n').forEach((raw, index) => {
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (/\S/.test(line)) lines.push({ number: index + 1, text: line });
  });
  return lines;
}

const NOT_JSON = Symbol('not JSON');

/** The value of `text`, reading NaN/Infinity as null like parseJsonText; NOT_JSON if invalid. */
function parseLenient(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    const lenient = replaceNonFiniteTokens(text);
    if (lenient.replaced === 0) return NOT_JSON;
    try {
      return JSON.parse(lenient.text);
    } catch {
      return NOT_JSON;
    }
  }
}

function parseLine(line: Line, file: string): unknown {
  const value = parseLenient(line.text);
  if (value !== NOT_JSON) return value;
  const problem = findJsonSyntaxError(line.text);
  const where = problem
    ? `${problem.problem} at line ${line.number}, column ${problem.offset + 1}`
    : `line ${line.number} cannot be parsed`;
  const advice = problem?.truncated
    ? 'The line stops early: the benchmark was probably killed while appending it; see the run log.'
    : 'Make the benchmark write only JSON to this file (no log lines or print output).';
  throw inputError(
    file,
    `is not valid JSON Lines (one JSON result per line, as --append-result writes): ${where}. ${advice}`,
  );
}
