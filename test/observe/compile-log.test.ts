// The compile-cache log parser on logs in the shapes the Neuron tools print
// (test/fixtures/compile-cache/README.md), cut off and garbled ones included.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseCompileLog } from '../../src/observe/compile-log.js';
import { ROOT } from '../support/bundled.js';

const fixture = (name: string) =>
  parseCompileLog(
    readFileSync(join(ROOT, 'test', 'fixtures', 'compile-cache', name), 'utf8'),
    name,
  );

describe('parseCompileLog', () => {
  it('counts the graphs a cold vllm-neuron start compiled and its compile time', () => {
    const log = fixture('vllm-neuron-cold.log');
    expect(log).toEqual({ cached: [], compiled: 2, compileSeconds: [156.4], warnings: [] });
  });

  it('names the cache entries a warm start loaded its NEFFs from', () => {
    const log = fixture('vllm-neuron-warm.log');
    expect(log.cached).toEqual([
      'neuronxcc-2.21.18209.0+043b1bf7/MODULE_b100285780ea94e4e6ea+2c2d707e',
      'neuronxcc-2.21.18209.0+043b1bf7/MODULE_16389337710168549518+e30acd3a',
    ]);
    expect(log.compiled).toBe(0);
    expect(log.compileSeconds).toEqual([0.92]);
    expect(log.warnings).toEqual([]);
  });

  it("reads the older SDKs' NCC_WRAPPER tag and USER_neuroncc layout", () => {
    const log = fixture('torch-neuronx-2022.log');
    expect(log.compiled).toBe(1);
    expect(log.cached).toEqual(['USER_neuroncc-2.0.0.48+e5fcdf753/MODULE_8742523875190354238']);
    expect(log.warnings).toEqual([]);
  });

  it('warns, naming the line, of a cut-off cache line and counts the rest', () => {
    const log = fixture('truncated.log');
    expect(log.cached).toEqual([
      'neuronxcc-2.21.18209.0+043b1bf7/MODULE_b100285780ea94e4e6ea+2c2d707e',
    ]);
    expect(log.warnings).toHaveLength(2);
    expect(log.warnings[0]).toMatch(/^truncated\.log:3: a "Using a cached neff" line names no/);
    expect(log.warnings[1]).toMatch(
      /^truncated\.log:4: .*without a number of seconds \(cut off\?\)/,
    );
    expect(log.compileSeconds).toEqual([]);
  });

  it('warns of unreadable values without counting them', () => {
    const log = fixture('garbled.log');
    expect(log.compiled).toBe(1);
    expect(log.compileSeconds).toEqual([]);
    expect(log.cached).toEqual([]);
    expect(log.warnings.map((w) => w.split(':')[1])).toEqual(['2', '3', '4', '5']);
    expect(log.warnings[0]).toContain('("nan")');
  });

  it('reads CRLF logs and says nothing of a log without compile lines', () => {
    const text = readFileSync(
      join(ROOT, 'test', 'fixtures', 'compile-cache', 'vllm-neuron-warm.log'),
      'utf8',
    ).replace(/\n/g, '\r\n');
    expect(parseCompileLog(text, 'crlf.log').cached).toHaveLength(2);
    expect(parseCompileLog('Processing query 1/10\n', 'plain.log')).toEqual({
      cached: [],
      compiled: 0,
      compileSeconds: [],
      warnings: [],
    });
  });
});
