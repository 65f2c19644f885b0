// Password policy of SPEC §5, one definition for the forms and the auth service.
import { z } from 'zod';
import { t } from '#lib/i18n.ts';

export const PASSWORD_MIN_LENGTH = 8;

export const passwordRules = [
  { id: 'length', test: (v: string) => v.length >= PASSWORD_MIN_LENGTH, message: t('validation.minLength', { min: PASSWORD_MIN_LENGTH }) },
  { id: 'uppercase', test: (v: string) => /\p{Lu}/u.test(v), message: t('validation.uppercase') },
  { id: 'digit', test: (v: string) => /\d/.test(v), message: t('validation.digit') },
  { id: 'special', test: (v: string) => /[^\p{L}\p{N}\s]/u.test(v), message: t('validation.special') },
] as const;

export const passwordSchema = passwordRules.reduce(
  (schema, rule) => schema.refine(rule.test, { message: rule.message, abort: false }),
  z
    .string({ error: t('validation.required') })
    .min(1, t('validation.required'))
    .max(256, t('validation.maxLength', { max: 256 })),
);
