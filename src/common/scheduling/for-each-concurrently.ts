/**
 * Runs `work` on each of `items`, at most `concurrency` at once, each lane
 * taking the next item as its last one ends (a slow item holds one lane, not
 * the round), and starting none once `stopping` is aborted. An item whose
 * work fails is handed to `failed`; the others go on.
 */
export async function forEachConcurrently<T>(
  items: readonly T[],
  concurrency: number,
  stopping: AbortSignal,
  work: (item: T) => Promise<void>,
  failed: (item: T, error: unknown) => void,
): Promise<void> {
  const queue = [...items];
  const lane = async () => {
    for (let next = queue.shift(); next !== undefined && !stopping.aborted; next = queue.shift()) {
      const item = next;
      await work(item).catch((error: unknown) => failed(item, error));
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, queue.length) }, lane));
}
