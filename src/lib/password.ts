// Password policy of SPEC §5, one definition for the forms and the auth service.
import { z } from 'zod';

export const PASSWORD_MIN_LENGTH = 8;

export const passwordRules = [
  { id: 'length', test: (v: string) => v.length >= PASSWORD_MIN_LENGTH, message: `Minimum ${PASSWORD_MIN_LENGTH} caractères` },
  { id: 'uppercase', test: (v: string) => /\p{Lu}/u.test(v), message: 'Au moins une majuscule' },
  { id: 'digit', test: (v: string) => /\d/.test(v), message: 'Au moins un chiffre' },
  { id: 'special', test: (v: string) => /[^\p{L}\p{N}\s]/u.test(v), message: 'Au moins un caractère spécial' },
] as const;

/** Number of satisfied rules, for the four-segment strength bar. */
export function passwordStrength(value: string): number {
  return passwordRules.filter((rule) => rule.test(value)).length;
}

export const passwordSchema = passwordRules.reduce(
  (schema, rule) => schema.refine(rule.test, { message: rule.message, abort: false }),
  z.string({ error: 'Champ obligatoire' }).min(1, 'Champ obligatoire').max(256, 'Maximum 256 caractères'),
);
