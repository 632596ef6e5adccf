// Reads the YAML config text into plain data, keeping the document so that later
// problems can point at a line and column.

import { isMap, isScalar, isSeq, LineCounter, parseDocument, visit } from 'yaml';
import type { Document, Node } from 'yaml';

import { errorMessage } from '../errors.js';
import type { Locate, Position } from './format-issues.js';
import { describeValue } from './problems.js';
import type { Problem } from './problems.js';

export type YamlResult =
  { ok: true; data: unknown; locate: Locate } | { ok: false; problems: Problem[] };

const EMPTY_FILE =
  'the file is empty; allowed: a mapping with a benchmarks list, e.g.\n' +
  '  benchmarks:\n' +
  '    - name: my-benchmark\n' +
  '      command: python bench.py --output-file "$PERF_GATE_OUTPUT"';

/** Clearer words for the parser messages that speak to programmers. */
const FRIENDLIER: Record<string, string> = {
  MULTIPLE_DOCS: 'the file holds more than one YAML document (a second ---); the gate reads one',
  DUPLICATE_KEY: 'this key is already given above in the same mapping; give each key once',
};

/** Nesting a parser cannot follow (it runs out of stack): thousands of `[` or `{`. */
const TOO_DEEP =
  'the YAML nests lists or mappings too deep to read (thousands of levels); a gate config needs a few (benchmarks, an entry, its env or thresholds): remove the nesting';
const TOO_MANY_ALIASES =
  'the YAML expands aliases (*name) into more values than a config can hold (an alias bomb); write the values out instead of aliasing aliases';

function isStackOverflow(error: unknown): boolean {
  return error instanceof RangeError || /call stack/i.test(errorMessage(error));
}

/** `where` is how problems name the file (its path relative to the workspace). */
export function parseYamlConfig(text: string, where: string): YamlResult {
  const lineCounter = new LineCounter();
  let doc: Document;
  try {
    doc = parseDocument(text, { lineCounter, prettyErrors: false, uniqueKeys: true });
  } catch (error) {
    if (!isStackOverflow(error)) throw error;
    return { ok: false, problems: [{ where, path: '', message: TOO_DEEP }] };
  }
  if (doc.errors.some((error) => isStackOverflow(error))) {
    const { line, col } = lineCounter.linePos(doc.errors[0]!.pos[0]);
    return { ok: false, problems: [{ where, line, column: col, path: '', message: TOO_DEEP }] };
  }
  if (doc.errors.length > 0) {
    const lines = text.split(/\r?\n/);
    return {
      ok: false,
      problems: doc.errors.map((error) => {
        const { line, col } = lineCounter.linePos(error.pos[0]);
        const source = lines[line - 1]?.trim() ?? '';
        const near = source === '' ? '' : ` (line: ${describeValue(source)})`;
        const reason = FRIENDLIER[error.code] ?? error.message;
        return {
          where,
          line,
          column: col,
          path: '',
          message: `YAML syntax error: ${reason}${near}`,
        };
      }),
    };
  }
  if (doc.contents === null) {
    return { ok: false, problems: [{ where, path: '', message: EMPTY_FILE }] };
  }

  const prototypeKeys = prototypeKeyProblems(doc, lineCounter, where);
  if (prototypeKeys.length > 0) return { ok: false, problems: prototypeKeys };

  keepEnvValuesVerbatim(doc);
  let data: unknown;
  try {
    data = doc.toJS();
  } catch (error) {
    // Alias bombs (too many aliases) and nesting too deep to copy get here; the text parsed.
    const message = isStackOverflow(error)
      ? TOO_DEEP
      : /alias/i.test(errorMessage(error))
        ? TOO_MANY_ALIASES
        : `cannot read the YAML: ${errorMessage(error)}`;
    return { ok: false, problems: [{ where, path: '', message }] };
  }
  return { ok: true, data, locate: locator(doc, lineCounter) };
}

/**
 * A `__proto__` key would be read as the object's prototype and dropped without a word
 * (an `env:` variable, a threshold): refused, with where it is.
 */
function prototypeKeyProblems(doc: Document, lineCounter: LineCounter, where: string) {
  const problems: { where: string; line: number; column: number; path: string; message: string }[] =
    [];
  visit(doc, {
    Pair(_, pair) {
      if (!isScalar(pair.key) || pair.key.value !== '__proto__') return;
      const { line, col } = lineCounter.linePos(pair.key.range?.[0] ?? 0);
      problems.push({
        where,
        line,
        column: col,
        path: '',
        message:
          "the key `__proto__` cannot be used: JavaScript would take it for the object's prototype and drop it. Rename it (an environment variable of that name cannot be set here).",
      });
    },
  });
  return problems;
}

/**
 * Environment values are handed to a shell as text, so `1.0` must stay "1.0" and `007`
 * stay "007" rather than pass through a number. Swaps those scalars for their source.
 */
function keepEnvValuesVerbatim(doc: Document): void {
  const envMaps: unknown[] = [doc.get('env', true)];
  const benchmarks = doc.get('benchmarks', true);
  if (isSeq(benchmarks)) {
    for (const entry of benchmarks.items) if (isMap(entry)) envMaps.push(entry.get('env', true));
  }
  for (const env of envMaps) {
    if (!isMap(env)) continue;
    for (const pair of env.items) {
      const value = pair.value;
      if (!isScalar(value) || value.source === undefined) continue;
      if (typeof value.value === 'number' || typeof value.value === 'boolean') {
        value.value = value.source;
      }
    }
  }
}

function locator(doc: Document, lineCounter: LineCounter): Locate {
  const positionOf = (node: Node | null | undefined): Position | undefined => {
    if (!node?.range) return undefined;
    const { line, col } = lineCounter.linePos(node.range[0]);
    return { line, column: col };
  };
  return (path, options = {}) => {
    // Walk as far as the file goes; a missing field points at the mapping that lacks it.
    let node: unknown = doc.contents;
    let found = positionOf(doc.contents);
    for (const [index, segment] of path.entries()) {
      const last = index === path.length - 1;
      if (isMap(node)) {
        const pair = node.items.find(
          (item) => isScalar(item.key) && String(item.key.value) === String(segment),
        );
        if (!pair) break;
        const keyNode = isScalar(pair.key) ? pair.key : undefined;
        const valueNode = pair.value as Node | null;
        const valuePosition =
          isScalar(valueNode) && valueNode.value === null ? undefined : positionOf(valueNode);
        if (last && options.key) return positionOf(keyNode) ?? found;
        found = valuePosition ?? positionOf(keyNode) ?? found;
        node = valueNode;
      } else if (isSeq(node) && typeof segment === 'number') {
        node = node.items[segment];
        found = positionOf(node as Node | undefined) ?? found;
      } else {
        break;
      }
    }
    return found;
  };
}
