// Suggests the key a typo meant, so `timeout_minutes` points at `timeout-minutes`.

/** The allowed key a typo most likely meant: same up to case and `_`, or 2 edits away. */
export function closestKey(key: string, allowedKeys: readonly string[]): string | undefined {
  const normalized = key.toLowerCase().replace(/[_ ]/g, '-');
  const same = allowedKeys.find((candidate) => candidate === normalized);
  if (same !== undefined) return same;
  let best: { key: string; distance: number } | undefined;
  for (const candidate of allowedKeys) {
    const distance = editDistance(normalized, candidate);
    if (distance <= 2 && (best === undefined || distance < best.distance)) {
      best = { key: candidate, distance };
    }
  }
  return best?.key;
}

/** Levenshtein distance: insertions, deletions and substitutions. */
export function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitution = (previous[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1);
      current.push(Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, substitution));
    }
    previous = current;
  }
  return previous[b.length] ?? 0;
}
