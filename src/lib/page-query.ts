// One schema per page for its URL query (issue 14): each field falls back to its default when
// the value is missing or invalid, so a hand-edited or hostile URL shows the page, never a 500.
import { z } from 'zod';
import { isUuid } from './ids.ts';

/** Reads `params` (first value of each name) with `schema`; never throws. */
export function readQuery<S extends z.ZodType>(schema: S, params: URLSearchParams): z.output<S> {
  return schema.parse(Object.fromEntries([...new Set(params.keys())].map((name) => [name, params.get(name)])));
}

/** A text of at most `max` characters ('' when absent). */
export const text = (max: number) =>
  z
    .string()
    .transform((v) => v.slice(0, max))
    .catch('');

/** One of `values`, else null. */
export const choice = <T extends string>(values: readonly T[]) => z.enum(values as [T, ...T[]]).nullable().catch(null);

/** A page number between 1 and 99,999, else 1. */
export const page = () => z.coerce.number().int().min(1).max(99_999).catch(1);

/** A record id (lower-cased), else null. */
export const recordId = () =>
  z
    .string()
    .refine(isUuid)
    .transform((v) => v.toLowerCase())
    .nullable()
    .catch(null);

/** A day that exists (2026-02-31 does not), between 1900 and 2999, else null. */
export const day = () =>
  z
    .string()
    .regex(/^\d{4}-\d{2}-\d{2}$/)
    .refine((v) => v >= '1900' && v < '3000' && new Date(`${v}T00:00:00Z`).toISOString().startsWith(v))
    .nullable()
    .catch(null);

/** An integer between `min` and `max`, else null. */
export const integer = (min: number, max: number) => z.coerce.number().int().min(min).max(max).nullable().catch(null);
