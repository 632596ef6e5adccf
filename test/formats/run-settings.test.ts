// Benchmark names from settings: the same workload gets the same name from one night's
// file to the next, whatever else the file holds (a warm-up line, one tag more).
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { aggregateRuns } from '../../src/formats/aggregate.js';
import { parseResultText } from '../../src/formats/index.js';
import { settingsOfName } from '../../src/formats/run-settings.js';
import { fixturePath } from './support.js';

const SWEEP = readFileSync(fixturePath('vllm-bench-serve/append-sweep-warmup.jsonl'), 'utf8');
const lines = SWEEP.split('\n').filter((line) => line.trim() !== '');

/** The benchmark names of a vllm bench serve JSONL text and how many runs each has. */
function namesOf(text: string): [string, number][] {
  const parsed = parseResultText(text, 'sweep.jsonl', 'auto');
  return aggregateRuns(
    parsed.runs.map((benchmarks) => ({ file: 'sweep.jsonl', benchmarks })),
    'serve',
  ).map((b) => [b.name, b.metrics.find((m) => m.id === 'ttft_p99')!.values.length]);
}

/** Each line of the sweep with `edit` applied to its JSON object. */
function edited(edit: (line: Record<string, unknown>) => Record<string, unknown>): string {
  return lines.map((line) => JSON.stringify(edit(JSON.parse(line)))).join('\n');
}

const NAMES: [string, number][] = [
  ['prompts=20,concurrency=16,chunksize=256,input_len=100,kvcache=cpu', 3],
  ['prompts=20,concurrency=16,chunksize=256,input_len=1000,kvcache=cpu', 3],
];

describe('a vllm bench serve sweep named by its settings', () => {
  it('names each input length by all its settings, the warm-up line no run of any', () => {
    expect(namesOf(SWEEP)).toEqual(NAMES);
  });

  it('gives the same names without the warm-up line', () => {
    expect(namesOf(lines.slice(1).join('\n'))).toEqual(NAMES);
  });

  it('gives the same names when the settings are written at their defaults', () => {
    const defaults = edited((line) => ({ ...line, request_rate: 'inf', burstiness: 1.0 }));
    expect(namesOf(defaults)).toEqual(NAMES);
  });

  it('names a tag every line has, so a tag that stops varying renames nothing', () => {
    // Tonight every line ran on the CPU backend; a night of cpu and disk names the same.
    const mixed = edited((line) =>
      line.type === 'warmup' ? line : { ...line, kvcache: line.iteration === '3' ? 'disk' : 'cpu' },
    );
    const names = namesOf(mixed).map(([name]) => name);
    expect(names).toContain(NAMES[0]![0]);
    expect(names).toContain(NAMES[0]![0].replace('kvcache=cpu', 'kvcache=disk'));
  });

  it('keeps the configured name for a file whose lines all share their settings', () => {
    const one = lines.slice(1, 4).join('\n');
    expect(namesOf(one)).toEqual([['serve', 3]]);
  });

  it('keeps warm-up lines when nothing else is in the file', () => {
    expect(namesOf(lines[0]!)).toEqual([['serve', 1]]);
  });

  it('names the model only when the lines differ in it', () => {
    const models = edited((line) =>
      line.input_len === '1000' ? { ...line, model_id: '/models/Qwen3-8B' } : line,
    );
    expect(namesOf(models).map(([name]) => name)).toEqual([
      `model=/models/DeepSeek-R1-0528,${NAMES[0]![0]}`,
      `model=/models/Qwen3-8B,${NAMES[1]![0]}`,
    ]);
  });
});

describe('settingsOfName', () => {
  it('reads a name written by settings, defaults and none left out', () => {
    expect(settingsOfName('rate=inf,concurrency=16,prompts=1000,kvcache=none')).toEqual({
      prefix: '',
      settings: new Map([['concurrency', '16']]),
    });
  });

  it('takes the prefix before the first setting, not a slash inside a value', () => {
    expect(settingsOfName('serve/model=/models/x,rate=4')).toEqual({
      prefix: 'serve',
      settings: new Map([
        ['model', '/models/x'],
        ['rate', '4'],
      ]),
    });
  });

  it('is undefined for a name that is not made of settings', () => {
    expect(settingsOfName('qwen3-reranker')).toBeUndefined();
    expect(settingsOfName('constant@1.5')).toBeUndefined();
  });
});
