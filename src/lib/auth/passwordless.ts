// The forms of the passwordless sign-in pages (decision 030): their schemas and the phone number
// as a French workshop types it (the API reads it the same way). Refusals: errors.server.ts.
import { z } from 'zod';
import { t } from '#lib/i18n.ts';
import { email, required } from '#lib/validation.ts';

/** E.164, as the auth API takes it. */
/** A phone number as SMS providers take it (E.164): the one rule of the pages and the API. */
export const E164 = /^\+[1-9]\d{6,14}$/;

/**
 * "06 12 34 56 78", "06.12.34.56.78", "0033 6 12…" and "+33 6 12…" all give "+33612345678";
 * a national number is French. Anything else comes back without its spaces, for E164 to judge.
 */
export function normalizePhone(input: string): string {
  const compact = input.replace(/[\s.\-()/]/g, '');
  if (/^0[1-9]\d{8}$/.test(compact)) return `+33${compact.slice(1)}`;
  if (compact.startsWith('00')) return `+${compact.slice(2)}`;
  return compact;
}

const phoneNumber = () =>
  required()
    .max(32, t('passwordless.invalidPhone'))
    .transform(normalizePhone)
    .pipe(z.string().regex(E164, t('passwordless.invalidPhone')));
const code = () =>
  required()
    .transform((v) => v.replace(/\s/g, ''))
    .pipe(z.string().regex(/^\d{6}$/, t('passwordless.codeFormat')));

export const emailLinkSchema = z.object({ email: email() });
export const emailCodeRequestSchema = z.object({ email: email() });
export const emailCodeSchema = z.object({ email: email(), code: code() });
export const smsRequestSchema = z.object({ phoneNumber: phoneNumber() });
export const smsCodeSchema = z.object({ phoneNumber: phoneNumber(), code: code() });
