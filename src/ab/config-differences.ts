// What the two sides' configs set differently for the benchmarks they share: two stacks
// side by side (`--base-config`/`--head-config`: NxD Inference's serving path against the
// vLLM Neuron plugin, two vLLM versions) differ in their servers and commands on purpose,
// and the reader should see how before reading the figures. Two commits' configs too.

import type { BenchmarkSpec, GateConfig } from '../config/types.js';
import type { AbConfigDifference } from '../model.js';

/** Longest value shown; the config files have the rest. */
const MAX_VALUE = 200;

export function configDifferences(
  pairs: readonly { base: BenchmarkSpec; head: BenchmarkSpec }[],
  configs: { base: GateConfig; head: GateConfig },
): AbConfigDifference[] {
  const differences: AbConfigDifference[] = [];
  const add = (benchmark: string, setting: string, base: unknown, head: unknown) => {
    const [a, b] = [shown(base), shown(head)];
    if (a !== b) differences.push({ benchmark, setting, base: a, head: b });
  };
  add('', 'setup', configs.base.setup, configs.head.setup);
  for (const { base, head } of pairs) {
    add(base.name, 'command', base.command, head.command);
    add(base.name, 'format', base.format, head.format);
    add(base.name, 'runs', base.runs, head.runs);
    add(base.name, 'server.command', base.server?.command, head.server?.command);
    for (const name of union(base.env, head.env))
      add(base.name, `env.${name}`, base.env[name], head.env[name]);
    const baseServer = base.server?.env ?? {};
    const headServer = head.server?.env ?? {};
    for (const name of union(baseServer, headServer)) {
      add(base.name, `server.env.${name}`, baseServer[name], headServer[name]);
    }
  }
  return differences;
}

function union(a: Record<string, string>, b: Record<string, string>): string[] {
  return [...new Set([...Object.keys(a), ...Object.keys(b)])].sort();
}

function shown(value: unknown): string {
  if (value === undefined) return '(unset)';
  const text = Array.isArray(value) ? value.join(' ') : String(value);
  return text.length > MAX_VALUE ? `${text.slice(0, MAX_VALUE - 1)}…` : text;
}
