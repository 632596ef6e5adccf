// Reads `git cat-file --batch` output as it streams, one object at a time.

/** Splits `cat-file --batch` output: `<oid> <type> <size>\n<content>\n` or `<oid> missing\n`. */
export class BatchParser {
  private chunks: Buffer[] = [];
  private length = 0;
  /** Bytes the next object needs in all, once its header is here (a large file). */
  private needed = 0;

  private readonly onBlob: (oid: string, text: string | undefined) => void;

  constructor(onBlob: (oid: string, text: string | undefined) => void) {
    this.onBlob = onBlob;
  }

  push(chunk: Buffer): void {
    this.chunks.push(chunk);
    this.length += chunk.length;
    if (this.length < this.needed) return;
    const buffer = this.chunks.length === 1 ? chunk : Buffer.concat(this.chunks, this.length);
    let offset = 0;
    this.needed = 0;
    for (;;) {
      const newline = buffer.indexOf(0x0a, offset);
      if (newline < 0) break;
      const header = buffer.toString('utf8', offset, newline).split(' ');
      if (header[1] === 'missing' || header.length < 3) {
        this.onBlob(header[0]!, undefined);
        offset = newline + 1;
        continue;
      }
      const end = newline + 1 + Number(header[2]);
      if (end >= buffer.length) {
        // The content and the newline after it are not all here yet.
        this.needed = end + 1 - offset;
        break;
      }
      this.onBlob(header[0]!, buffer.toString('utf8', newline + 1, end));
      offset = end + 1;
    }
    // A copy: a view would keep the whole chunk alive.
    const rest = Buffer.from(buffer.subarray(offset));
    this.chunks = rest.length > 0 ? [rest] : [];
    this.length = rest.length;
  }

  end(): void {
    if (this.length > 0) throw new Error('git cat-file --batch stopped in the middle of an object');
  }
}
