// The reusable validators of SPEC §5 as zod schemas with the exact French messages, and
// one schema per form of the shell, shared by the islands and the server.
import { z } from 'zod';
import { dayOf, workshopToday } from './format.ts';
import { t } from './i18n.ts';
import { choice, isoDay, isRealDay } from './page-query.ts';
import { passwordRules } from '#lib/auth/password.ts';

export const required = () =>
  z
    .string({ error: t('validation.required') })
    .trim()
    .min(1, t('validation.required'));
export const email = () =>
  required()
    .max(254, t('validation.email'))
    .pipe(z.email(t('validation.email')));
export const nonEmpty = <T>(item: z.ZodType<T>) => z.array(item).min(1, t('validation.required'));
/** A text the user may leave empty, at most `max` characters; the message says the limit. */
export const optionalText = (max: number) => z.string().trim().max(max, t('validation.maxLength', { max })).optional().default('');
/** The message of a list longer than `max`. */
export const maxItems = (max: number) => t('validation.maxItems', { max });

const numeric = (message: string) =>
  z.preprocess(
    (v) => (typeof v === 'string' ? (v.trim() === '' ? undefined : Number(v.replace(',', '.').replace(/\s/g, ''))) : v),
    z.number({ error: (issue) => (issue.input === undefined ? t('validation.required') : message) }).refine(Number.isFinite, message),
  );
export const number = () => numeric(t('validation.number'));
export const integer = () => numeric(t('validation.number')).refine(Number.isInteger, t('validation.integer'));
export const minNumber = (min: number) => numeric(t('validation.number')).refine((v) => v >= min, t('validation.min', { min }));
/** A four-digit year. */
export const year = () =>
  z
    .preprocess(
      (v) => (typeof v === 'string' ? v.trim() : v),
      z
        .string({ error: t('validation.required') })
        .min(1, t('validation.required'))
        .regex(/^\d{4}$/, t('validation.year')),
    )
    .transform(Number);

/** A date typed as DD/MM/YYYY (date fields) or YYYY-MM-DD (the API); kept as YYYY-MM-DD. */
export const isoDate = () =>
  z.preprocess(
    (v) => (v instanceof Date ? dayOf(v) : typeof v === 'string' ? isoDay(v) : v),
    z
      .string({ error: t('validation.required') })
      .min(1, t('validation.required'))
      .refine(isRealDay, t('validation.date')),
  );

/** A day that has come (an order opened, a box come in or gone out): not after the workshop's today, in its time zone. */
export const pastDate = () => isoDate().refine((day) => !isRealDay(day) || day <= workshopToday(), t('validation.dateAfterToday'));

export const password = () =>
  passwordRules.reduce(
    (schema, rule) => schema.refine(rule.test, { message: rule.message, abort: false }),
    z
      .string({ error: t('validation.required') })
      .min(1, t('validation.required'))
      .max(256, t('validation.maxLength', { max: 256 })),
  );

/** A checkbox posted by a form ('on') or sent as a boolean by an island. */
const accepted = () => z.preprocess((v) => v === true || v === 'on' || v === 'true', z.literal(true, { error: t('validation.termsRequired') }));

/** The password typed again: never trimmed (a password is what was typed), never empty. */
const confirmation = () => z.string({ error: t('validation.required') }).min(1, t('validation.required'));
const withConfirmation = <T extends z.ZodObject<{ password: z.ZodType<string>; confirmation: z.ZodType<string> }>>(schema: T) =>
  schema.refine((v) => v.password === v.confirmation, {
    path: ['confirmation'],
    message: t('validation.passwordsDiffer'),
    // Also when another field failed: the form shows every problem at once; an empty
    // confirmation says «Champ obligatoire» only.
    when: (payload) => {
      const value = payload.value as { password?: unknown; confirmation?: unknown };
      return typeof value?.password === 'string' && typeof value?.confirmation === 'string' && value.confirmation !== '';
    },
  });

// A target kept whole (never cut: a cut path is another page); `safeRedirect` refuses the long ones.
const target = () => z.string().nullable().catch(null);
/** `/sign-in?view=forgot-password&redirectTo=`: hasura-auth's names; the target is checked by `safeRedirect`. */
export const signInPageSchema = z
  .object({
    view: choice(['forgot-password'] as const),
    redirectTo: target(),
    // An e-mail sign-in link of a user with TOTP lands here with its MFA ticket (decision 030).
    mfaTicket: z
      .string()
      .regex(/^mfaTotp:[0-9a-f-]{36}$/i)
      .nullable()
      .catch(null),
  })
  .transform((q) => ({ forgot: q.view === 'forgot-password', redirectTo: q.redirectTo, mfaTicket: q.mfaTicket }));

export const signInSchema = z.object({ email: email(), password: z.string({ error: t('validation.required') }).min(1, t('validation.required')) });
export const forgotPasswordSchema = z.object({ email: email() });
/** A personal access token: a name to know it by, a lifetime, and the step-up code when one is asked. */
export const personalAccessTokenSchema = z.object({
  name: z
    .string({ error: t('validation.required') })
    .trim()
    .min(1, t('validation.required'))
    .max(64, t('validation.maxLength', { max: 64 })),
  days: z.enum(['30', '90', '365'], { error: t('validation.required') }).transform(Number),
  code: z.string().trim().max(32).optional(),
});
/** A code of the authenticator app, to activate it. */
export const totpCodeSchema = z.object({
  code: z
    .string({ error: t('validation.required') })
    .transform((code) => code.replace(/\s/g, ''))
    .pipe(
      z
        .string()
        .min(1, t('validation.required'))
        .regex(/^\d{6}$/, t('security.codeFormat')),
    ),
});
/** A code of the app or a recovery code, to confirm a change of the second factor. */
export const secondFactorSchema = z.object({
  code: z
    .string({ error: t('validation.required') })
    .trim()
    .min(1, t('validation.required'))
    .max(32, t('security.codeWrong')),
});
/** The sign-in's second step: the ticket of the password step and a code of the app (or a recovery code). */
export const signInCodeSchema = z.object({
  ticket: z.string().max(128),
  otp: z
    .string({ error: t('validation.required') })
    .trim()
    .min(1, t('validation.required'))
    .max(32, t('security.codeWrong')),
});
// The current password proves it is the user (issue 14); the server checks it.
export const updatePasswordSchema = withConfirmation(
  z.strictObject({
    currentPassword: z
      .string({ error: t('validation.required') })
      .min(1, t('validation.required'))
      .max(256, t('validation.maxLength', { max: 256 })),
    password: password(),
    confirmation: confirmation(),
  }),
);
export const setPasswordSchema = withConfirmation(z.object({ password: password(), confirmation: confirmation(), terms: accepted() }));
export const resetPasswordSchema = withConfirmation(z.object({ password: password(), confirmation: confirmation() }));

export type FieldErrors = Partial<Record<string, string>>;

/**
 * Every rule a field breaks, in one sentence ("abc" breaks four password rules: all four are
 * said); a field left empty says only that.
 */
export function joinMessages(messages: readonly string[]): string {
  const distinct = [...new Set(messages)];
  if (distinct.includes(t('validation.required'))) return t('validation.required');
  return distinct.map((m, i) => (i === 0 ? m : m.charAt(0).toLocaleLowerCase('fr') + m.slice(1))).join(', ');
}

/** The message of each field, as forms show them. */
export function fieldErrors(error: z.ZodError): FieldErrors {
  const byField = new Map<string, string[]>();
  for (const issue of error.issues) {
    const key = String(issue.path[0] ?? '');
    byField.set(key, [...(byField.get(key) ?? []), issue.message]);
  }
  return Object.fromEntries([...byField].map(([key, messages]) => [key, joinMessages(messages)]));
}

/** The longest text a schema takes (its `.max`), through the optional, default, preprocess and transform wrappers; none for other types. */
function longest(schema: z.core.$ZodType): number | undefined {
  const def = schema._zod.def as { type: string; innerType?: z.core.$ZodType; in?: z.core.$ZodType; out?: z.core.$ZodType };
  if (def.type === 'string') return (schema as z.ZodString).maxLength ?? undefined;
  if (def.innerType) return longest(def.innerType);
  if (def.type === 'pipe') return longest(def.in!) ?? longest(def.out!);
  return undefined;
}

/**
 * Each text field's `maxlength`, read from the form's one schema: the browser stops the typing
 * where the schema would refuse, so a long text is never learnt too long only after posting, nor
 * cut when shown again (walk31 F5).
 */
export function maxLengths(schema: z.core.$ZodType): Record<string, number> {
  const shape = (schema._zod.def as { shape?: Record<string, z.core.$ZodType> }).shape ?? {};
  return Object.fromEntries(
    Object.entries(shape).flatMap(([name, field]) => {
      const max = longest(field);
      return max === undefined ? [] : [[name, max]];
    }),
  );
}
