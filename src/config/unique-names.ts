// Benchmark names must be unique: results, baselines and comments are keyed by them.
// Checked on the raw data rather than in the zod schema, because zod skips refinements
// once a field has failed, and every problem should be reported in one go.

export interface DuplicateName {
  name: string;
  /** Index in `benchmarks` of the entry that repeats the name. */
  index: number;
  /** Index of the first entry with that name. */
  firstIndex: number;
}

export const UNIQUE_NAME_ALLOWED = 'allowed: a name no other benchmark has';

export function findDuplicateNames(data: unknown): DuplicateName[] {
  const benchmarks = isRecord(data) ? data['benchmarks'] : undefined;
  if (!Array.isArray(benchmarks)) return [];
  const firstIndex = new Map<string, number>();
  const duplicates: DuplicateName[] = [];
  benchmarks.forEach((entry: unknown, index) => {
    const raw = isRecord(entry) ? entry['name'] : undefined;
    // Compared as the schema stores them: trimmed.
    const name = typeof raw === 'string' ? raw.trim() : '';
    if (name === '') return;
    const first = firstIndex.get(name);
    if (first === undefined) firstIndex.set(name, index);
    else duplicates.push({ name, index, firstIndex: first });
  });
  return duplicates;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
