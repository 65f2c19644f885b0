// The check results of a measure or a checkpoint (SPEC §3), and the one the bounds propose.
// No catalogue here: the measure page's script imports it to keep its "automatic" label live.

export const checkResults = ['ok', 'nok', 'not_mesurable', 'high_tolerance', 'low_tolerance'] as const;
export type CheckResult = (typeof checkResults)[number];

/** How far outside the bounds a value still counts as a tolerance, as a share of the range. */
export const TOLERANCE = 0.05;
// Decimal values such as 4.55 - 4.5 come out a hair above 0.05 in binary.
const EPSILON = 1e-9;

/**
 * The result the bounds propose for a value: inside → ok; just outside (5 % of max − min, or of
 * the bound itself when the range is a single value or one-sided) → a tolerance; further → nok.
 * Nothing to propose without a value or without any bound.
 */
export function proposeCheckResult(value: number | null | undefined, min: number | null | undefined, max: number | null | undefined): CheckResult | null {
  if (value === null || value === undefined || !Number.isFinite(value)) return null;
  const low = min ?? null;
  const high = max ?? null;
  if (low === null && high === null) return null;
  const range = low !== null && high !== null && high > low ? high - low : null;
  if (high !== null && value > high) {
    const span = range ?? Math.abs(high);
    return value - high <= span * TOLERANCE + EPSILON ? 'high_tolerance' : 'nok';
  }
  if (low !== null && value < low) {
    const span = range ?? Math.abs(low);
    return low - value <= span * TOLERANCE + EPSILON ? 'low_tolerance' : 'nok';
  }
  return 'ok';
}
