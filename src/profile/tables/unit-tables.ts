// The first way to read a profile: the profiler's tables (`view --output-format parquet`),
// one folder per unit. A unit whose tables cannot be made or read (an older profiler knows
// no parquet, a schema this gate does not know) is left for summary-json, with the reason
// said unless it is only an older profiler.

import { basename } from 'node:path';
import { firstLinkBelow } from '../../fs/no-links.js';
import {
  describeUnit,
  summarizeUnits,
  type SummarizeOptions,
  type UnitSummary,
} from '../profiler-cli.js';
import type { GraphSummary } from '../summary-json.js';
import type { ProfileUnit } from '../units.js';
import { graphsOfTables } from './graphs.js';
import type { UnitTables } from './profile-detail.js';
import { readProfileTables } from './profile-tables.js';

export interface TablesOfUnits {
  read: UnitTables[];
  graphs: GraphSummary[];
  /** Graphs without a total_time, as `key (unit)`. */
  untimed: string[];
  /** Indexes of the units to summarise with summary-json instead. */
  left: number[];
  /** Why a unit left has no tables, by its index (none for an older profiler). */
  reasons: Map<number, string>;
  /** Units whose call ran out of the profile's time: not tried again, their failure said. */
  failed: string[];
}

export async function tablesOfUnits(
  units: readonly ProfileUnit[],
  options: SummarizeOptions & { tablesDirOf: (index: number) => string; root?: string },
): Promise<TablesOfUnits> {
  const results = await summarizeUnits([...units], options);
  const out: TablesOfUnits = {
    read: [],
    graphs: [],
    untimed: [],
    left: [],
    reasons: new Map(),
    failed: [],
  };
  for (const [index, result] of results.entries()) {
    const where = describeUnit(result.unit);
    const dir = options.tablesDirOf(index);
    const problem = result.ok
      ? await readInto(out, result.unit, dir, options.root)
      : tablesRefusal(result);
    if (problem === undefined) continue;
    if (!result.ok && OUT_OF_TIME.test(result.error)) {
      // The one budget is spent: a summary-json call would not run either.
      out.failed.push(`the profiler failed on ${where}: ${result.error}`);
      continue;
    }
    out.left.push(index);
    if (problem !== OLDER_PROFILER) {
      out.reasons.set(
        index,
        `no profile tables for ${where} (${problem}); summary-json is read instead`,
      );
    }
  }
  return out;
}

const OLDER_PROFILER = 'older profiler';
/** What summarizeUnits says of a call stopped by, or never started for, the profile's budget. */
const OUT_OF_TIME = /^(stopped|not run): the profiler's .* ran out/;

/** An older profiler refuses parquet as argparse does (exit 2, "invalid choice"). */
function tablesRefusal(result: Extract<UnitSummary, { ok: false }>): string {
  return /invalid choice: 'parquet'|parquet is not/i.test(result.error)
    ? OLDER_PROFILER
    : result.error;
}

/** Reads one unit's tables into `out`; the reason when they cannot be read. */
async function readInto(
  out: TablesOfUnits,
  unit: ProfileUnit,
  dir: string,
  root: string | undefined,
): Promise<string | undefined> {
  const link = root === undefined ? undefined : await firstLinkBelow(root, dir);
  if (link !== undefined) return `${link} is a symbolic link; the gate does not read through it`;
  try {
    const tables = await readProfileTables(dir);
    const where = describeUnit(unit);
    const read = graphsOfTables(tables, unit.kind === 'pair' ? basename(unit.neff) : undefined);
    out.read.push({ where, tables });
    out.graphs.push(...read.graphs);
    out.untimed.push(...read.untimed.map((key) => `${key} (${where})`));
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
}
