// How the gate tells that a server it started is ready: a GET of its readiness URL that
// answers 2xx (vLLM's /health), or a line of its output that matches (uvicorn's
// "Application startup complete").

import { request } from 'node:http';
import type { LinePattern } from '../text/line-pattern.js';

/** What one GET of the readiness URL got. */
export type ProbeResult =
  | { kind: 'answered'; status: number }
  /** Nothing listens there (ECONNREFUSED), or the connection failed otherwise. */
  | { kind: 'unreachable'; code: string };

/** One GET of `url` (loopback, http), bounded by `timeoutMs`; never throws. */
export function probeUrl(url: string, timeoutMs: number): Promise<ProbeResult> {
  return new Promise((resolve) => {
    let settled = false;
    const settle = (result: ProbeResult) => {
      if (settled) return;
      settled = true;
      resolve(result);
    };
    const get = request(url, { method: 'GET', agent: false, timeout: timeoutMs }, (response) => {
      response.resume();
      settle({ kind: 'answered', status: response.statusCode ?? 0 });
    });
    get.on('timeout', () => {
      settle({ kind: 'unreachable', code: `no answer within ${timeoutMs} ms` });
      get.destroy();
    });
    get.on('error', (error: NodeJS.ErrnoException) =>
      settle({ kind: 'unreachable', code: error.code ?? error.message }),
    );
    get.end();
  });
}

/**
 * 2xx only. A redirect (3xx) is not followed and not ready: vLLM's /health answers 200,
 * and a redirect most likely means ready-url names the wrong path.
 */
export function isReady(result: ProbeResult): boolean {
  return result.kind === 'answered' && result.status >= 200 && result.status < 300;
}

/** "answered HTTP 503", "refused the connection (ECONNREFUSED)", for messages. */
export function describeProbe(result: ProbeResult): string {
  if (result.kind === 'answered' && result.status >= 300 && result.status < 400) {
    return `answered HTTP ${result.status}, a redirect, which is not followed (is ready-url the server's health path?)`;
  }
  if (result.kind === 'answered') return `answered HTTP ${result.status}`;
  if (result.code === 'ECONNREFUSED') {
    return "refused the connection: nothing listens on that port (is it the server's --port?)";
  }
  return `could not be reached (${result.code})`;
}

/**
 * The most characters of one line the matcher holds and tests: a longer line is tested on
 * its first MAX_LINE_CHARS and the rest of it is skipped up to its end, so that a line of
 * 300 MB without a newline is neither held whole nor tested in pieces that look like lines.
 */
export const MAX_LINE_CHARS = 10_000;
const LINE_END = /\r\n|\r|\n/;

/**
 * Watches a stream of output chunks for a line matching `pattern` (compileLinePattern's:
 * linear in the line). Lines may be split anywhere between chunks; a line is tested once
 * it ends or grows past MAX_LINE_CHARS, so each chunk costs time linear in its length.
 */
export class LineMatcher {
  private partial = '';
  /** Inside a line longer than MAX_LINE_CHARS, whose start was tested. */
  private skipping = false;
  private found = false;
  private readonly waiting: (() => void)[] = [];

  constructor(private readonly pattern: LinePattern) {}

  push(chunk: string): void {
    if (this.found) return;
    const pieces = chunk.split(LINE_END);
    for (const [index, piece] of pieces.entries()) {
      if (this.found) return;
      this.extend(piece);
      if (index < pieces.length - 1) this.endLine();
    }
  }

  /** Resolves when a line has matched. */
  matched(): Promise<void> {
    if (this.found) return Promise.resolve();
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  private extend(piece: string): void {
    if (this.skipping) return;
    this.partial += piece.slice(0, MAX_LINE_CHARS + 1 - this.partial.length);
    if (this.partial.length <= MAX_LINE_CHARS) return;
    this.test(this.partial.slice(0, MAX_LINE_CHARS));
    this.partial = '';
    this.skipping = true;
  }

  private endLine(): void {
    if (!this.skipping) this.test(this.partial);
    this.partial = '';
    this.skipping = false;
  }

  private test(line: string): void {
    if (this.pattern.test(line)) this.match();
  }

  private match(): void {
    this.found = true;
    for (const resolve of this.waiting.splice(0)) resolve();
  }
}

/**
 * Time between two readiness probes, growing with the time waited: the startup time is
 * measured within about 5% (a minute's wait is read to 3 s), without probing a slow start
 * every few milliseconds.
 */
export function probeInterval(waitedMs: number): number {
  return Math.min(1_000, Math.max(50, waitedMs / 20));
}
