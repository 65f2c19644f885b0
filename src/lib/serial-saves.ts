// Saves that must not overlap per key (a checkpoint's answer carries the version the previous
// save returned): one save at a time per key; a change made while one is on its way waits, and
// only the latest waiting change is sent next, since it supersedes those typed in between.
export type SerialSaves<K, V> = {
  /** Sends now, or after the save on its way; resolves when this value's save is done or superseded. */
  save(key: K, value: V): Promise<void>;
  /** A save of this key is on its way. */
  isSaving(key: K): boolean;
  /** Drops the waiting change (what it would have saved is no longer wanted). */
  forget(key: K): void;
};

export function serialSaves<K, V>(run: (key: K, value: V) => Promise<void>): SerialSaves<K, V> {
  const running = new Map<K, Promise<void>>();
  const waiting = new Map<K, V>();
  const start = (key: K, value: V): Promise<void> => {
    const done = run(key, value)
      .catch(() => undefined)
      .then(() => {
        running.delete(key);
        if (!waiting.has(key)) return;
        const next = waiting.get(key) as V;
        waiting.delete(key);
        return start(key, next);
      });
    running.set(key, done);
    return done;
  };
  return {
    save(key, value) {
      const current = running.get(key);
      if (!current) return start(key, value);
      waiting.set(key, value);
      return current;
    },
    isSaving: (key) => running.has(key),
    forget: (key) => void waiting.delete(key),
  };
}
