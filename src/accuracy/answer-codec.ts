// The reference answers of a stored run, packed to fit beside its record: each position's
// top-k as token id (4 bytes) and log-probability in thousandths of a nat (2 bytes), the
// greedy token first, deflated and written as base64. The default prompt set (48 prompts
// × 32 tokens × top-5) takes about 50 KB. A thousandth of a nat moves a position's distance
// (1 − Bhattacharyya) by 2e-5 at most on the simulator's answers, against a margin of 0.01;
// and the answers are rounded before the stored run's own repeat is scored on them, so its
// A/A and a later run are scored on the same reference.

import { deflateRawSync, inflateRawSync } from 'node:zlib';
import type { ScoredPosition } from './agreement.js';

/**
 * A record keeps answers of at most this much text, beside its 64 KB of samples: the
 * default prompt set's 50 KB five times over.
 */
export const MAX_STORED_ANSWER_TEXT = 256 * 1024;

const ENTRY_BYTES = 6;
/** The smallest log-probability kept: about e^-65, nothing a top-k distance can see. */
const MAX_MILLI_NATS = 0xffff;
/** An inflated set larger than this is not a set of answers this gate wrote. */
const MAX_PACKED_BYTES = 64 * 1024 * 1024;

/** The answers as base64 text. Each position's greedy token must be among its top-k. */
export function encodeAnswers(answers: readonly (readonly ScoredPosition[])[]): string {
  const positions = answers.flat();
  const entries = positions.reduce((sum, p) => sum + p.top.size, 0);
  const packed = Buffer.alloc(positions.length + entries * ENTRY_BYTES);
  let at = 0;
  for (const position of positions) {
    const greedy = position.top.get(position.token);
    if (greedy === undefined) throw new Error(`token ${position.token} is not in its own top-k`);
    if (position.top.size > 0xff) throw new Error(`a top-k of ${position.top.size} entries`);
    at = packed.writeUInt8(position.top.size, at);
    at = writeEntry(packed, at, position.token, greedy);
    for (const [token, logprob] of position.top) {
      if (token !== position.token) at = writeEntry(packed, at, token, logprob);
    }
  }
  return deflateRawSync(packed, { level: 9 }).toString('base64');
}

function writeEntry(packed: Buffer, at: number, token: number, logprob: number): number {
  if (!Number.isInteger(token) || token < 0 || token > 0xffffffff) {
    throw new Error(`token id ${token} is not a whole number from 0 to 2^32 − 1`);
  }
  at = packed.writeUInt32LE(token, at);
  return packed.writeUInt16LE(milliNats(logprob), at);
}

function milliNats(logprob: number): number {
  if (!(logprob <= 0)) throw new Error(`log-probability ${logprob} is not a number at most 0`);
  return Math.min(MAX_MILLI_NATS, Math.round(-logprob * 1000));
}

/**
 * The answers of `prompts` prompts of `maxTokens` positions each, back from their text;
 * throws, saying what is wrong, on text this gate did not write.
 */
export function decodeAnswers(
  text: string,
  shape: { prompts: number; maxTokens: number; topK: number },
): ScoredPosition[][] {
  const packed = inflated(text);
  const answers: ScoredPosition[][] = [];
  let at = 0;
  for (let prompt = 0; prompt < shape.prompts; prompt += 1) {
    const answer: ScoredPosition[] = [];
    for (let position = 0; position < shape.maxTokens; position += 1) {
      const read = readPosition(packed, at, shape.topK);
      answer.push(read.position);
      at = read.at;
    }
    answers.push(answer);
  }
  if (at !== packed.length) {
    throw new Error(`${packed.length - at} bytes more than ${shape.prompts} answers hold`);
  }
  return answers;
}

function inflated(text: string): Buffer {
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(text)) throw new Error('the answers are not base64 text');
  try {
    return inflateRawSync(Buffer.from(text, 'base64'), { maxOutputLength: MAX_PACKED_BYTES });
  } catch (error) {
    throw new Error(`the answers do not inflate (${(error as Error).message})`, { cause: error });
  }
}

function readPosition(
  packed: Buffer,
  at: number,
  topK: number,
): { position: ScoredPosition; at: number } {
  if (at >= packed.length) throw new Error('the answers end early');
  const size = packed.readUInt8(at);
  // vLLM gives the sampled token beside the top-k: k + 1 entries at most.
  if (size < 1 || size > topK + 1) {
    throw new Error(`a position with ${size} log-probabilities, where top-${topK} was asked for`);
  }
  at += 1;
  if (at + size * ENTRY_BYTES > packed.length) throw new Error('the answers end early');
  const top = new Map<number, number>();
  for (let i = 0; i < size; i += 1) {
    const token = packed.readUInt32LE(at);
    top.set(token, logprobOf(packed.readUInt16LE(at + 4)));
    at += ENTRY_BYTES;
  }
  if (top.size !== size) throw new Error('a position names one token twice');
  return { position: { token: packed.readUInt32LE(at - size * ENTRY_BYTES), top }, at };
}

/** The answers as a stored run keeps them: log-probabilities to a thousandth of a nat. */
export function roundedAnswers(
  answers: readonly (readonly ScoredPosition[])[],
): ScoredPosition[][] {
  return answers.map((answer) =>
    answer.map((position) => ({
      token: position.token,
      top: new Map([...position.top].map(([token, lp]) => [token, roundedLogprob(lp)])),
    })),
  );
}

function roundedLogprob(logprob: number): number {
  return logprobOf(milliNats(logprob));
}

/** The log-probability of thousandths of a nat (0, not −0, for none). */
function logprobOf(milliNats: number): number {
  return milliNats === 0 ? 0 : -milliNats / 1000;
}
