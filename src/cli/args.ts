import { usageError } from '../errors.js';

export interface FlagSpec {
  /** Takes one value (`--out DIR`), several (`--current A B C`), or none (`--quiet`). */
  takes: 'one' | 'many' | 'none';
}

export interface ParsedArgs {
  command: string | undefined;
  flags: Map<string, string[]>;
}

/**
 * Parses `command --flag value --list a b c --switch`. A `many` flag takes every
 * following word up to the next flag, and may also be repeated. `--flag=value` works too.
 */
export function parseArgs(argv: string[], specs: Record<string, FlagSpec>): ParsedArgs {
  const flags = new Map<string, string[]>();
  let command: string | undefined;
  for (let i = 0; i < argv.length; i += 1) {
    const word = argv[i] ?? '';
    if (!word.startsWith('--')) {
      if (command !== undefined) throw usageError(`unexpected argument '${word}'; see --help`);
      command = word;
      continue;
    }
    const [name = '', inline] = splitInline(word.slice(2));
    const spec = specs[name];
    if (!spec) {
      const known = Object.keys(specs).map((flag) => `--${flag}`);
      throw usageError(`unknown option '--${name}'; known options: ${known.join(', ')}`);
    }
    const values = flags.get(name) ?? [];
    flags.set(name, values);
    if (spec.takes === 'none') {
      if (inline !== undefined) throw usageError(`option '--${name}' takes no value`);
      values.push('true');
      continue;
    }
    if (inline !== undefined) {
      values.push(inline);
      continue;
    }
    const taken = takeValues(argv, i + 1, spec.takes === 'many');
    if (taken.length === 0) throw usageError(`option '--${name}' needs a value`);
    values.push(...taken);
    i += taken.length;
  }
  return { command, flags };
}

function splitInline(flag: string): [string, string | undefined] {
  const equals = flag.indexOf('=');
  return equals === -1 ? [flag, undefined] : [flag.slice(0, equals), flag.slice(equals + 1)];
}

function takeValues(argv: string[], from: number, many: boolean): string[] {
  const values: string[] = [];
  for (let i = from; i < argv.length; i += 1) {
    const word = argv[i] ?? '';
    if (word.startsWith('--')) break;
    values.push(word);
    if (!many) break;
  }
  return values;
}

/** The single value of a flag given at most once. */
export function single(args: ParsedArgs, name: string): string | undefined {
  const values = args.flags.get(name);
  if (!values || values.length === 0) return undefined;
  if (values.length > 1) throw usageError(`option '--${name}' is given more than once`);
  return values[0];
}
