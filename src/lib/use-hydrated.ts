import { startTransition, useEffect, useState } from 'react';

/** False in the server HTML, true once the island runs: buttons stay inert until they work. */
export function useHydrated(): boolean {
  const [hydrated, setHydrated] = useState(false);
  // A transition: the whole island renders again, in slices that leave the page responsive
  // (issue 17: one long task less on /users).
  useEffect(() => startTransition(() => setHydrated(true)), []);
  return hydrated;
}
