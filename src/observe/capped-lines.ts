// A file of lines read with every line bounded: a line longer than the cap is skipped as
// it streams past, never held, so memory stays within the cap whatever a tool wrote (a
// 300 MB neuron-monitor "line" without a newline grew the gate's memory to 2.3x the line).

import { createReadStream } from 'node:fs';

export interface CappedLines {
  /** The file's text, each skipped line left empty (line numbers stay as in the file). */
  text: string;
  /** 1-based numbers of the lines longer than the cap. */
  skipped: number[];
}

/** The file's lines up to `maxLineBytes` each; a missing or unreadable file reads as empty. */
export async function readCappedLines(path: string, maxLineBytes: number): Promise<CappedLines> {
  const kept: Buffer[] = [];
  const skipped: number[] = [];
  let line: Buffer[] = [];
  let lineBytes = 0;
  let lineNumber = 1;
  const take = (part: Buffer): void => {
    lineBytes += part.length;
    if (lineBytes <= maxLineBytes) line.push(part);
    else line = []; // too long: what came of it goes, and what comes is not kept
  };
  const endLine = (newline: boolean): void => {
    if (lineBytes > maxLineBytes) skipped.push(lineNumber);
    else kept.push(...line);
    if (newline) kept.push(Buffer.from('\n'));
    line = [];
    lineBytes = 0;
    lineNumber += 1;
  };
  try {
    for await (const chunk of createReadStream(path) as AsyncIterable<Buffer>) {
      let start = 0;
      for (let end = chunk.indexOf(10); end >= 0; end = chunk.indexOf(10, start)) {
        take(chunk.subarray(start, end));
        endLine(true);
        start = end + 1;
      }
      if (start < chunk.length) take(chunk.subarray(start));
    }
  } catch {
    return { text: '', skipped: [] };
  }
  if (lineBytes > 0) endLine(false);
  return { text: Buffer.concat(kept).toString('utf8'), skipped };
}
