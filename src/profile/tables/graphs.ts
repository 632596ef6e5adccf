// The profile tables' Summary rows as the graphs the gate's figures are made of: the same
// fields and values as the summary-json (AWS: "--output-format summary-json maps to the
// data in the Summary.parquet table"), so one reading serves both.

import { basename } from 'node:path';
import { physicalCoresOfMetadata } from '../logical-core.js';
import { graphFromFigures, type SummaryRead } from '../summary-json.js';
import type { ProfileTables } from './profile-tables.js';

/** The graphs of one unit's Summary, keyed `name` (else the profile's name), `#n` when several. */
export function graphsOfTables(tables: ProfileTables, name?: string): SummaryRead {
  name ??= stringOr(tables.metadata.profile_name, basename(tables.dir));
  const read: SummaryRead = { graphs: [], untimed: [] };
  const physicalCores = physicalCoresOfMetadata(tables.metadata);
  tables.summary.forEach((row, index) => {
    const key = tables.summary.length === 1 ? name : `${name}#${index}`;
    const graph = graphFromFigures(key, row);
    if (graph) read.graphs.push(physicalCores ? { ...graph, physicalCores } : graph);
    else read.untimed.push(key);
  });
  return read;
}

function stringOr(value: unknown, fallback: string): string {
  return typeof value === 'string' && value.trim() !== '' ? value : fallback;
}
