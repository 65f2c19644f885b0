import { useEffect, useState } from 'react';

/** False in the server HTML, true once the island runs: buttons stay inert until they work. */
export function useHydrated(): boolean {
  const [hydrated, setHydrated] = useState(false);
  useEffect(() => setHydrated(true), []);
  return hydrated;
}
