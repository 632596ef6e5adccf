// Many S3 reads at once, but not too many: a few dozen open connections are what S3 and
// the runner's network handle well; thousands at once would only queue and time out.

export const READ_CONCURRENCY = 16;

/** `work` on each item, at most `limit` at a time; results in the items' order. */
export async function mapBounded<T, R>(
  items: readonly T[],
  work: (item: T) => Promise<R>,
  limit = READ_CONCURRENCY,
): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await work(items[index] as T);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}
