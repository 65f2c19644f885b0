// Password policy of SPEC §5, one definition for the forms and the auth service.
import { z } from 'zod';
import { PASSWORD_MIN_LENGTH, passwordTests } from '#lib/auth/password-rules.ts';
import { t } from '#lib/i18n.ts';

export const passwordRules = [
  { id: 'length', test: passwordTests.length, message: t('validation.minLength', { min: PASSWORD_MIN_LENGTH }) },
  { id: 'uppercase', test: passwordTests.uppercase, message: t('validation.uppercase') },
  { id: 'digit', test: passwordTests.digit, message: t('validation.digit') },
  { id: 'special', test: passwordTests.special, message: t('validation.special') },
] as const;

export const passwordSchema = passwordRules.reduce(
  (schema, rule) => schema.refine(rule.test, { message: rule.message, abort: false }),
  z
    .string({ error: t('validation.required') })
    .min(1, t('validation.required'))
    .max(256, t('validation.maxLength', { max: 256 })),
);
