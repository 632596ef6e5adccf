// The last lines of a process's output, kept in bounded memory for error messages.

/** Longer lines are cut here; a benchmark may print megabytes without a newline. */
export const DEFAULT_MAX_LINE_LENGTH = 2_000;

/**
 * A ring buffer of the last `capacity` lines of a stream of text chunks. Chunks may split
 * lines anywhere (even between the CR and LF of a CRLF). A carriage return that is not
 * followed by a line feed starts the line over, as progress bars (tqdm) mean it, so the
 * tail shows the last state of a bar rather than every update. Memory stays about
 * `capacity × maxLineLength` characters, however much output goes through.
 */
export class LineTail {
  readonly capacity: number;
  readonly maxLineLength: number;
  private readonly ring: string[] = [];
  /** Slot of the next complete line. */
  private next = 0;
  private count = 0;
  /** The line being received, at most maxLineLength characters. */
  private current = '';
  /** Characters of the current line dropped beyond maxLineLength. */
  private cut = 0;
  /** The last chunk ended in CR: the next chunk says whether it was CRLF. */
  private pendingCarriageReturn = false;

  constructor(capacity: number, maxLineLength = DEFAULT_MAX_LINE_LENGTH) {
    if (!Number.isInteger(capacity) || capacity < 0) {
      throw new RangeError(`tail capacity must be a whole number ≥ 0, got ${capacity}`);
    }
    if (!Number.isInteger(maxLineLength) || maxLineLength < 1) {
      throw new RangeError(`maximum line length must be a whole number ≥ 1, got ${maxLineLength}`);
    }
    this.capacity = capacity;
    this.maxLineLength = maxLineLength;
  }

  push(chunk: string): void {
    if (chunk.length === 0) return;
    let start = 0;
    let added = 0;
    if (this.pendingCarriageReturn) {
      this.pendingCarriageReturn = false;
      if (chunk.startsWith('\n')) {
        this.endLine();
        added++;
        start = 1;
      } else {
        this.restartLine();
      }
    }
    const breaks = /\r\n|\r|\n/g;
    breaks.lastIndex = start;
    for (let match = breaks.exec(chunk); match !== null; match = breaks.exec(chunk)) {
      this.append(chunk, start, match.index);
      start = match.index + match[0].length;
      if (match[0] !== '\r') {
        this.endLine();
        added++;
      } else if (start === chunk.length) {
        this.pendingCarriageReturn = true;
      } else {
        this.restartLine();
      }
    }
    this.append(chunk, start, chunk.length);
    this.detachFromChunk(added);
  }

  /** The kept lines, oldest first; a final line without newline is included. */
  lines(): string[] {
    const lines: string[] = [];
    for (let i = 0; i < this.count; i++) {
      const line = this.ring[(this.next - this.count + i + this.capacity) % this.capacity];
      if (line !== undefined) lines.push(line);
    }
    if (this.capacity > 0 && (this.current.length > 0 || this.cut > 0)) {
      lines.push(this.formatCurrent());
      if (lines.length > this.capacity) lines.shift();
    }
    return lines;
  }

  private append(chunk: string, from: number, to: number): void {
    const room = this.maxLineLength - this.current.length;
    const length = to - from;
    if (length <= room) {
      if (length > 0) this.current += chunk.slice(from, to);
      return;
    }
    if (room > 0) this.current += chunk.slice(from, from + room);
    this.cut += length - room;
  }

  private endLine(): void {
    if (this.capacity > 0) {
      this.ring[this.next] = this.formatCurrent();
      this.next = (this.next + 1) % this.capacity;
      this.count = Math.min(this.count + 1, this.capacity);
    }
    this.restartLine();
  }

  private restartLine(): void {
    this.current = '';
    this.cut = 0;
  }

  private formatCurrent(): string {
    return this.cut > 0 ? `${this.current}… [${this.cut} more characters]` : this.current;
  }

  /**
   * V8 may keep a slice as a view into the whole chunk it came from; copy the lines that
   * survive this chunk so the tail does not pin up to `capacity` whole chunks.
   */
  private detachFromChunk(added: number): void {
    const survivors = Math.min(added, this.capacity);
    for (let k = 1; k <= survivors; k++) {
      const slot = (this.next - k + this.capacity) % this.capacity;
      this.ring[slot] = copyString(this.ring[slot] ?? '');
    }
    this.current = copyString(this.current);
  }
}

/** A flat copy that shares no memory with the string it came from. */
function copyString(text: string): string {
  return text.length === 0 ? text : (' ' + text).slice(1);
}
