/**
 * Group commit: items are written as they come, one write at a time, and the items that arrive while a write is in
 * flight go together in the next one. One item at a time costs one write, as it would alone; items that come faster
 * than they are written share a write (a round trip and a WAL flush) with no timer and no added wait.
 *
 * Each caller awaits its own item's write. When a write of several fails with an error of the items (not of the
 * database: `isTransient`), each is written again on its own, so that one bad item fails only its own caller.
 */
export interface GroupCommitOptions {
  /** The most items in one write. */
  maxItems: number;
  /** An error that would fail any write now (the database is unavailable): the batch fails without a retry. */
  isTransient: (error: unknown) => boolean;
}

interface Waiting<T> {
  item: T;
  resolve: () => void;
  reject: (error: unknown) => void;
}

export function groupCommit<T>(
  write: (items: T[]) => Promise<unknown>,
  options: GroupCommitOptions,
): (item: T) => Promise<void> {
  const waiting: Waiting<T>[] = [];
  let writing = false;

  const writeAlone = (entry: Waiting<T>) => write([entry.item]).then(entry.resolve, entry.reject);

  const run = async () => {
    writing = true;
    while (waiting.length > 0) {
      const batch = waiting.splice(0, options.maxItems);
      try {
        await write(batch.map((entry) => entry.item));
        for (const entry of batch) entry.resolve();
      } catch (error) {
        if (batch.length === 1 || options.isTransient(error)) {
          for (const entry of batch) entry.reject(error);
        } else {
          for (const entry of batch) await writeAlone(entry);
        }
      }
    }
    writing = false;
  };

  return (item) =>
    new Promise<void>((resolve, reject) => {
      waiting.push({ item, resolve, reject });
      if (!writing) void run();
    });
}
