// Reading a JSON (or JSON Lines) result file in fixed-size chunks, without ever holding
// its text: a `vllm bench serve --save-detailed` file of 250 MB is mostly generated
// texts and inter-token latencies. The values of the top-level keys a caller names (the
// generated texts) are checked for syntax and dropped as they are read; everything else
// becomes the same JavaScript value JSON.parse would give, with NaN, Infinity and
// -Infinity read as null like parseJsonText does.
//
// Only the plain, valid case is handled here. For anything else (a syntax error, an
// unusual layout of several documents, a number longer than a chunk) the reader gives up
// and the caller reads the text the usual way (json.ts, json-lines.ts), which then
// accepts it or says exactly where and why it is broken. Reading the file twice happens
// only for files that are broken or odd, never for a valid result.

import { closeSync, openSync, readSync } from 'node:fs';
import type { JsonDocuments } from './json-lines.js';

const CHUNK_BYTES = 4 * 1024 * 1024;
/** The longest number or literal read; JSON.parse takes longer ones, the text path does. */
const MAX_TOKEN_BYTES = 512;

const TAB = 0x09;
const NEWLINE = 0x0a;
const RETURN = 0x0d;
const SPACE = 0x20;
const QUOTE = 0x22;
const COMMA = 0x2c;
const MINUS = 0x2d;
const DOT = 0x2e;
const ZERO = 0x30;
const NINE = 0x39;
const COLON = 0x3a;
const BACKSLASH = 0x5c;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;

/** 10^0 … 10^22: exact doubles, so m·10^k and m/10^k round correctly for m < 2^53. */
const POWERS_OF_TEN = Array.from({ length: 23 }, (_, k) => Number(`1e${k}`));
const LITERALS: [string, unknown][] = [
  ['true', true],
  ['false', false],
  ['null', null],
  ['NaN', null],
  ['Infinity', null],
  ['-Infinity', null],
];

/** Why the reader gave up; never shown to users (the text path names the problem). */
class NotPlain extends Error {}

/**
 * The documents of the file at `path` read in chunks, the values of `skipKeys` at the top
 * level of each left out; undefined when the file is not plainly valid JSON or JSON Lines
 * (or cannot be opened): read it as text then, for the exact result or error.
 */
export function readJsonDocumentsInChunks(
  path: string,
  skipKeys: ReadonlySet<string> = new Set(),
  chunkBytes = CHUNK_BYTES,
): JsonDocuments | undefined {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch {
    return undefined;
  }
  try {
    return new ChunkedJsonReader(fd, skipKeys, chunkBytes).documents();
  } catch {
    // NotPlain, or anything unexpected (a read error, nesting deeper than the stack):
    // the text path decides.
    return undefined;
  } finally {
    closeSync(fd);
  }
}

class ChunkedJsonReader {
  private buffer: Buffer;
  private pos = 0;
  private end = 0;
  private eof = false;
  /** 1-based line of `pos`; newlines only ever occur in whitespace in valid JSON. */
  private line = 1;

  constructor(
    private readonly fd: number,
    private readonly skipKeys: ReadonlySet<string>,
    chunkBytes: number,
  ) {
    this.buffer = Buffer.allocUnsafe(Math.max(2, chunkBytes));
  }

  documents(): JsonDocuments {
    this.skipByteOrderMark();
    const documents: unknown[] = [];
    const lines: number[] = [];
    let previousEnd = 0;
    for (;;) {
      this.skipWhitespace();
      if (!this.more()) break;
      const start = this.line;
      // Documents after the first: each on its own line, like JSON Lines.
      if (documents.length > 0 && start === previousEnd) throw new NotPlain();
      documents.push(this.value(0, true));
      lines.push(start);
      previousEnd = this.line;
    }
    if (documents.length === 0) throw new NotPlain();
    if (documents.length === 1) return { documents };
    // JSON Lines: every document on one line, the first one an object.
    const first = documents[0];
    const oneLineEach = lines.every((line, i) => i === 0 || line > lines[i - 1]!);
    if (!isPlainObject(first) || !oneLineEach || this.spansLines) throw new NotPlain();
    return { documents, lines };
  }

  /** Set when a document of several spread over more than one line. */
  private spansLines = false;

  // ── values ──────────────────────────────────────────────────────────────────────────

  private value(depth: number, keep: boolean): unknown {
    this.skipWhitespace();
    if (!this.more()) throw new NotPlain();
    const byte = this.buffer[this.pos]!;
    const startLine = this.line;
    let value: unknown;
    if (byte === OPEN_BRACE) value = this.object(depth, keep);
    else if (byte === OPEN_BRACKET) value = this.array(depth, keep);
    else if (byte === QUOTE) value = keep ? this.string() : this.skipString();
    else if (byte === MINUS || (byte >= ZERO && byte <= NINE)) value = this.numberOrLiteral();
    else value = this.literal();
    if (depth === 0 && this.line !== startLine) this.spansLines = true;
    return value;
  }

  private object(depth: number, keep: boolean): Record<string, unknown> | undefined {
    this.pos += 1;
    const object: Record<string, unknown> | undefined = keep ? {} : undefined;
    this.skipWhitespace();
    if (this.peek() === CLOSE_BRACE) {
      this.pos += 1;
      return object;
    }
    for (;;) {
      this.skipWhitespace();
      if (this.peek() !== QUOTE) throw new NotPlain();
      const key = this.string();
      this.skipWhitespace();
      if (this.peek() !== COLON) throw new NotPlain();
      this.pos += 1;
      const keepValue = keep && !(depth === 0 && this.skipKeys.has(key));
      const value = this.value(depth + 1, keepValue);
      if (object && keepValue) {
        // JSON.parse makes "__proto__" an own property; plain assignment would not.
        if (key === '__proto__') {
          Object.defineProperty(object, key, {
            value,
            enumerable: true,
            writable: true,
            configurable: true,
          });
        } else {
          object[key] = value;
        }
      }
      this.skipWhitespace();
      const next = this.peek();
      this.pos += 1;
      if (next === COMMA) continue;
      if (next === CLOSE_BRACE) return object;
      throw new NotPlain();
    }
  }

  private array(depth: number, keep: boolean): unknown[] | undefined {
    this.pos += 1;
    const array: unknown[] | undefined = keep ? [] : undefined;
    this.skipWhitespace();
    if (this.peek() === CLOSE_BRACKET) {
      this.pos += 1;
      return array;
    }
    for (;;) {
      const value = this.value(depth + 1, keep);
      if (array) array.push(value);
      this.skipWhitespace();
      const next = this.peek();
      this.pos += 1;
      if (next === COMMA) continue;
      if (next === CLOSE_BRACKET) return array;
      throw new NotPlain();
    }
  }

  /** A string kept: decoded like JSON.parse does, escapes and all. */
  private string(): string {
    for (;;) {
      const buffer = this.buffer;
      const end = this.end;
      let escaped = false;
      let i = this.pos + 1;
      for (; i < end; i += 1) {
        const byte = buffer[i]!;
        if (byte === QUOTE) break;
        if (byte === BACKSLASH) {
          escaped = true;
          i += 1; // the escaped character; JSON.parse checks the escape below
        } else if (byte < SPACE) {
          throw new NotPlain();
        }
      }
      if (i < end) {
        const start = this.pos;
        this.pos = i + 1;
        if (!escaped) return buffer.toString('utf8', start + 1, i);
        const parsed: unknown = JSON.parse(buffer.toString('utf8', start, i + 1));
        if (typeof parsed !== 'string') throw new NotPlain();
        return parsed;
      }
      // Not closed within the buffer: read more, keeping the string, and scan it again
      // (rare: only strings that cross a chunk boundary or are longer than one).
      if (!this.readMore(true)) throw new NotPlain();
    }
  }

  /** A string left out: checked byte by byte, never decoded or kept. */
  private skipString(): undefined {
    this.pos += 1;
    for (;;) {
      const buffer = this.buffer;
      const end = this.end;
      let i = this.pos;
      while (i < end) {
        const byte = buffer[i++]!;
        if (byte === QUOTE) {
          this.pos = i;
          return undefined;
        }
        if (byte === BACKSLASH) {
          this.pos = i;
          this.skipEscape();
          i = this.pos;
        } else if (byte < SPACE) {
          throw new NotPlain();
        }
      }
      this.pos = i;
      if (!this.readMore(false)) throw new NotPlain();
    }
  }

  /** The character after a backslash: one of "\/bfnrt, or u and four hex digits. */
  private skipEscape(): void {
    const next = this.nextByte();
    if ('"\\/bfnrt'.includes(String.fromCharCode(next))) return;
    if (next !== 0x75) throw new NotPlain();
    for (let k = 0; k < 4; k += 1) {
      const hex = this.nextByte();
      const isHex =
        (hex >= ZERO && hex <= NINE) ||
        (hex >= 0x41 && hex <= 0x46) ||
        (hex >= 0x61 && hex <= 0x66);
      if (!isHex) throw new NotPlain();
    }
  }

  private numberOrLiteral(): unknown {
    this.ensure(MAX_TOKEN_BYTES);
    const buffer = this.buffer;
    const start = this.pos;
    const end = this.end;
    // The bytes past `end` are left over from earlier reads: never look at them.
    const at = (k: number) => (k < end ? buffer[k]! : -1);
    if (at(start) === MINUS && at(start + 1) === 0x49) return this.literal();
    let i = start;
    const negative = at(i) === MINUS;
    if (negative) i += 1;
    // The digits as an integer while it stays exact (below 2^53; leading zeros are not
    // digits); beyond that the number is converted from its text instead.
    let mantissa = 0;
    let exact = true;
    let fractionDigits = 0;
    const digit = (byte: number) => {
      if (!exact || (mantissa === 0 && byte === ZERO)) return;
      const next = mantissa * 10 + (byte - ZERO);
      if (next > Number.MAX_SAFE_INTEGER) exact = false;
      else mantissa = next;
    };
    // Integer part: 0, or a non-zero digit and more digits.
    if (at(i) === ZERO) {
      i += 1;
    } else if (at(i) > ZERO && at(i) <= NINE) {
      while (at(i) >= ZERO && at(i) <= NINE) digit(at(i++));
    } else {
      throw new NotPlain();
    }
    if (at(i) === DOT) {
      i += 1;
      const from = i;
      while (at(i) >= ZERO && at(i) <= NINE) digit(at(i++));
      if (i === from) throw new NotPlain();
      fractionDigits = i - from;
    }
    let exponent = 0;
    if (at(i) === 0x65 || at(i) === 0x45) {
      i += 1;
      let sign = 1;
      if (at(i) === MINUS || at(i) === 0x2b) {
        sign = at(i) === MINUS ? -1 : 1;
        i += 1;
      }
      const from = i;
      while (at(i) >= ZERO && at(i) <= NINE) {
        if (exponent < 100_000) exponent = exponent * 10 + (at(i) - ZERO);
        i += 1;
      }
      if (i === from) throw new NotPlain();
      exponent *= sign;
    }
    // A number that runs to the end of what could be read is longer than we take.
    if (i >= end && !this.eof) throw new NotPlain();
    this.pos = i;
    const scale = exponent - fractionDigits;
    let value: number;
    if (exact && scale >= 0 && scale <= 22) value = mantissa * POWERS_OF_TEN[scale]!;
    else if (exact && scale < 0 && scale >= -22) value = mantissa / POWERS_OF_TEN[-scale]!;
    else return Number(buffer.toString('latin1', start, i));
    return negative ? -value : value;
  }

  private literal(): unknown {
    this.ensure(MAX_TOKEN_BYTES);
    for (const [text, value] of LITERALS) {
      if (this.startsWith(text)) {
        this.pos += text.length;
        return value;
      }
    }
    throw new NotPlain();
  }

  private startsWith(text: string): boolean {
    if (this.end - this.pos < text.length) return false;
    for (let k = 0; k < text.length; k += 1) {
      if (this.buffer[this.pos + k] !== text.charCodeAt(k)) return false;
    }
    return true;
  }

  // ── bytes ───────────────────────────────────────────────────────────────────────────

  private skipByteOrderMark(): void {
    this.ensure(3);
    const b = this.buffer;
    if (this.end - this.pos >= 3 && b[0] === 0xef && b[1] === 0xbb && b[2] === 0xbf) this.pos = 3;
  }

  private skipWhitespace(): void {
    for (;;) {
      const buffer = this.buffer;
      const end = this.end;
      let i = this.pos;
      while (i < end) {
        const byte = buffer[i]!;
        if (byte === NEWLINE) this.line += 1;
        else if (byte !== SPACE && byte !== TAB && byte !== RETURN) break;
        i += 1;
      }
      this.pos = i;
      if (i < end || !this.readMore(false)) return;
    }
  }

  private more(): boolean {
    return this.pos < this.end || this.readMore(false);
  }

  private peek(): number {
    if (!this.more()) throw new NotPlain();
    return this.buffer[this.pos]!;
  }

  private nextByte(): number {
    const byte = this.peek();
    this.pos += 1;
    return byte;
  }

  /** At least `bytes` bytes from `pos` in the buffer, unless the file ends first. */
  private ensure(bytes: number): void {
    while (this.end - this.pos < bytes && this.readMore(true)) {
      // readMore moved the unread bytes to the front and appended what it read.
    }
  }

  /**
   * Reads the next chunk. With `keep`, the unread bytes from `pos` stay (moved to the
   * front, the buffer grown when they fill it); without, they are dropped. False at the
   * end of the file.
   */
  private readMore(keep: boolean): boolean {
    if (this.eof) return false;
    if (keep) {
      const unread = this.end - this.pos;
      if (unread >= this.buffer.length / 2) {
        const grown = Buffer.allocUnsafe(this.buffer.length * 2);
        this.buffer.copy(grown, 0, this.pos, this.end);
        this.buffer = grown;
      } else {
        this.buffer.copy(this.buffer, 0, this.pos, this.end);
      }
      this.end = unread;
    } else {
      this.end = 0;
    }
    this.pos = 0;
    const read = readSync(this.fd, this.buffer, this.end, this.buffer.length - this.end, null);
    if (read === 0) this.eof = true;
    this.end += read;
    return read > 0;
  }
}

function isPlainObject(value: unknown): boolean {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
