// Prometheus's text exposition format (version 0.0.4, as vLLM's /metrics serves it through
// prometheus_client; OpenMetrics' additions tolerated): one sample a line,
// `name{label="value",...} value [timestamp]`, `# HELP` and `# TYPE` lines naming a
// family, other comments ignored, an OpenMetrics exemplar (` # {...} value`) dropped.
// Values may be NaN, +Inf, -Inf. Pure; a line it cannot read is counted, never thrown on.

export interface PrometheusSample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export interface PrometheusText {
  samples: PrometheusSample[];
  /** Family name → its declared type (counter, gauge, histogram, summary, untyped…). */
  types: Record<string, string>;
  /** Lines that were neither a comment nor a sample. */
  unreadLines: number;
}

const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*/;

export function parsePrometheusText(text: string): PrometheusText {
  const samples: PrometheusSample[] = [];
  const types: Record<string, string> = {};
  let unreadLines = 0;
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (line === '') continue;
    if (line.startsWith('#')) {
      const type = /^#\s*TYPE\s+(\S+)\s+(\S+)/.exec(line);
      if (type) types[type[1]!] = type[2]!.toLowerCase();
      continue;
    }
    const sample = parseSample(line);
    if (sample) samples.push(sample);
    else unreadLines += 1;
  }
  return { samples, types, unreadLines };
}

function parseSample(line: string): PrometheusSample | undefined {
  const name = NAME.exec(line)?.[0];
  if (!name) return undefined;
  let rest = line.slice(name.length);
  let labels: Record<string, string> = {};
  if (rest.startsWith('{')) {
    const parsed = parseLabels(rest);
    if (!parsed) return undefined;
    labels = parsed.labels;
    rest = rest.slice(parsed.length);
  }
  // The value, then an optional timestamp; an exemplar after ` # ` is not the sample's.
  const [valueText] = rest.split(' # ')[0]!.trim().split(/\s+/);
  const value = parseValue(valueText ?? '');
  return value === undefined ? undefined : { name, labels, value };
}

/** `{a="x",b="y\"z"}` at the start of `text`: the labels and the characters they took. */
function parseLabels(text: string): { labels: Record<string, string>; length: number } | undefined {
  const labels: Record<string, string> = {};
  let at = 1;
  for (;;) {
    while (text[at] === ' ' || text[at] === ',') at += 1;
    if (text[at] === '}') return { labels, length: at + 1 };
    const name = /^[a-zA-Z_][a-zA-Z0-9_]*/.exec(text.slice(at))?.[0];
    if (!name) return undefined;
    at += name.length;
    while (text[at] === ' ') at += 1;
    if (text[at] !== '=' || text[at + 1] !== '"') return undefined;
    at += 2;
    let value = '';
    for (;;) {
      const char = text[at];
      if (char === undefined) return undefined;
      at += 1;
      if (char === '"') break;
      if (char === '\\') {
        const next = text[at];
        at += 1;
        value += next === 'n' ? '\n' : (next ?? '');
      } else value += char;
    }
    labels[name] = value;
  }
}

function parseValue(text: string): number | undefined {
  if (/^[+]?inf$/i.test(text)) return Number.POSITIVE_INFINITY;
  if (/^-inf$/i.test(text)) return Number.NEGATIVE_INFINITY;
  if (/^nan$/i.test(text)) return Number.NaN;
  if (!/^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(text)) return undefined;
  return Number(text);
}

/**
 * The sum of a metric's samples over every label set (a server with several engines
 * reports one series each); undefined when it has none.
 */
export function sampleSum(text: PrometheusText, name: string): number | undefined {
  const values = text.samples.filter((s) => s.name === name).map((s) => s.value);
  return values.length === 0 ? undefined : values.reduce((sum, value) => sum + value, 0);
}
