// The shell commands of a Markdown page, as a reader would type them: each fenced sh/bash
// block, its `\` continuations joined, its comments dropped, split into commands at `&&`,
// `||`, `;`, `&` and `|`, each command split into words the way bash quotes them. Enough of
// bash for the docs' commands; not a shell.

export interface ShellCommand {
  /** The words after the leading `NAME=value` assignments, quotes removed. */
  words: string[];
  /** The leading `NAME=value` assignments. */
  assignments: Record<string, string>;
  /** Paths written with `>` or `>>`. */
  writes: string[];
  /** The line of the page where the command starts (1-based). */
  line: number;
  /** The command as the page writes it, continuations joined. */
  text: string;
}

export interface ShellBlock {
  /** The line of the page where the block's first command is. */
  line: number;
  commands: ShellCommand[];
  /** The block as the page writes it (indent removed), to run as it is. */
  text: string;
}

const SHELL_FENCE = /^(\s*)(`{3,})(sh|bash|shell|console)\s*$/;

/** The fenced sh/bash blocks of a page (also indented ones, in list items). */
export function shellBlocks(markdown: string): ShellBlock[] {
  const lines = markdown.split('\n');
  const blocks: ShellBlock[] = [];
  for (let at = 0; at < lines.length; at += 1) {
    const fence = SHELL_FENCE.exec(lines[at]!);
    if (!fence) continue;
    const indent = fence[1]!.length;
    const end = lines.findIndex((line, i) => i > at && line.trim() === fence[2]);
    if (end < 0) throw new Error(`line ${at + 1}: the sh block never ends`);
    const body = lines.slice(at + 1, end).map((line) => line.slice(indent));
    blocks.push({ line: at + 2, commands: commandsOf(body, at + 2), text: body.join('\n') });
    at = end;
  }
  return blocks;
}

/** The commands of a block's lines; `firstLine` is the page's line of the first one. */
export function commandsOf(lines: string[], firstLine = 1): ShellCommand[] {
  const commands: ShellCommand[] = [];
  let text = '';
  let start = firstLine;
  lines.forEach((line, index) => {
    if (text === '') start = firstLine + index;
    const continued = /\\$/.test(line) && !/(^|\s)#/.test(stripQuoted(line));
    text += continued ? `${line.slice(0, -1)} ` : line;
    if (continued) return;
    commands.push(...splitCommands(text, start));
    text = '';
  });
  if (text !== '') commands.push(...splitCommands(text, start));
  return commands;
}

/** The line with its quoted parts blanked, to find `#` and operators outside quotes. */
function stripQuoted(line: string): string {
  return line.replace(/'[^']*'|"(?:\\.|[^"\\])*"/g, (quoted) => ' '.repeat(quoted.length));
}

/** Splits one logical line into its commands, dropping a trailing comment. */
function splitCommands(text: string, line: number): ShellCommand[] {
  const tokens = tokenize(text);
  const commands: ShellCommand[] = [];
  let current: string[] = [];
  let raw = '';
  const finish = () => {
    if (current.length > 0) commands.push(toCommand(current, line, raw.trim()));
    current = [];
    raw = '';
  };
  for (const token of tokens) {
    if (token.operator && ['&&', '||', ';', '|', '&'].includes(token.text)) finish();
    else {
      current.push(token.operator ? `\u0000${token.text}` : token.text);
      raw += ` ${token.raw}`;
    }
  }
  finish();
  return commands;
}

interface Token {
  text: string;
  raw: string;
  operator: boolean;
}

/** bash's words and operators: quotes removed, `#` at a word's start ends the line. */
function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  let at = 0;
  while (at < text.length) {
    const c = text[at]!;
    if (/\s/.test(c)) {
      at += 1;
      continue;
    }
    if (c === '#') break;
    // `2>&1` before `&`, which alone ends a command as `;` does (it runs in the background).
    const operator = /^(\d*>&\d+|&&|\|\||>>|[;|>&])/.exec(text.slice(at));
    if (operator) {
      tokens.push({ text: operator[1]!, raw: operator[1]!, operator: true });
      at += operator[1]!.length;
      continue;
    }
    let word = '';
    const from = at;
    while (at < text.length && !/[\s;|&>]/.test(text[at]!)) {
      const ch = text[at]!;
      if (ch === "'") {
        const close = text.indexOf("'", at + 1);
        if (close < 0) throw new Error(`unclosed ' in: ${text}`);
        word += text.slice(at + 1, close);
        at = close + 1;
      } else if (ch === '"') {
        let i = at + 1;
        while (i < text.length && text[i] !== '"') {
          if (text[i] === '\\' && i + 1 < text.length) i += 1;
          word += text[i];
          i += 1;
        }
        if (i >= text.length) throw new Error(`unclosed " in: ${text}`);
        at = i + 1;
      } else if (ch === '\\' && at + 1 < text.length) {
        word += text[at + 1];
        at += 2;
      } else {
        word += ch;
        at += 1;
      }
    }
    tokens.push({ text: word, raw: text.slice(from, at), operator: false });
  }
  return tokens;
}

function toCommand(tokens: string[], line: number, text: string): ShellCommand {
  const assignments: Record<string, string> = {};
  const writes: string[] = [];
  const words: string[] = [];
  for (let i = 0; i < tokens.length; i += 1) {
    const token = tokens[i]!;
    if (token.startsWith('\u0000') && token.includes('>&')) continue;
    if (token === '\u0000>' || token === '\u0000>>') {
      const target = tokens[i + 1];
      if (target !== undefined) writes.push(target);
      i += 1;
      continue;
    }
    const assignment = /^([A-Za-z_][A-Za-z0-9_]*)=(.*)$/s.exec(token);
    if (words.length === 0 && assignment) assignments[assignment[1]!] = assignment[2]!;
    else words.push(token);
  }
  return { words, assignments, writes, line, text };
}
