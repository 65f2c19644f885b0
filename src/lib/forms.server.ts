// The one way a page handles a form post (issue 16): read what was typed, check it with the
// form's zod schema, save through the API, and on success redirect with a toast; on failure
// show again what was typed with each message beside its field, or one above the form.
// API refusals are read here and nowhere else.
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { deflateRawSync, inflateRawSync } from 'node:zlib';
import type { AstroGlobal } from 'astro';
import { ClientError } from 'graphql-request';
import type { z } from 'zod';
import { DomainError } from '#server/errors.ts';
import type { BucketId } from '#lib/storage/files.ts';
import { t } from './i18n.ts';
import { fieldErrors, type FieldErrors } from './validation.ts';

export type FormValues = Record<string, string>;

/** What a refused post shows: the typed values, a message per field, one above the form. */
export type FormState<V = FormValues> = { values: V; errors: FieldErrors; formError: string | null };

export type FormFailure = {
  errors: FieldErrors;
  formError: string | null;
  /** The API's code ('conflict', 'validation'…) for a page that reacts to one; 'storage' for the file store. */
  code: string | undefined;
  /** The API's stable name of the refusal, e.g. 'email-already-in-use'. */
  reason: string | undefined;
  /** Why a deletion is refused, one line each. */
  reasons: string[];
};

export type FailureOptions = {
  /** What to say when the refusal is not the user's to fix (default: the generic error). */
  fallback?: string;
  /** The API's field names the form calls otherwise, e.g. { gearboxMeasureId: 'name' }. */
  rename?: Record<string, string>;
  /** The fields the form shows; a message for any other goes above the form (default: all). */
  fields?: readonly string[];
  /** The field beside which the file store's refusals show (format, size); above the form otherwise. */
  fileField?: string;
};

// Refusals whose message is the user's to read; any other says `fallback`.
const TOLD = new Set(['validation', 'conflict', 'not-found', 'forbidden', 'unavailable']);

/** A refused save, in French: beside its field when it has one, above the form otherwise. */
export function formFailureOf(error: unknown, options: FailureOptions = {}): FormFailure {
  const fallback = options.fallback ?? t('errors.generic');
  // The file store is called in process: its refusals (format, size, space) are the user's.
  if (error instanceof DomainError) {
    const beside = options.fileField;
    return { errors: beside ? { [beside]: error.message } : {}, formError: beside ? null : error.message, code: 'storage', reason: error.reason, reasons: [] };
  }
  if (!(error instanceof ClientError)) throw error;
  const first = error.response.errors?.[0];
  const extensions = (first?.extensions ?? {}) as { code?: string; reason?: string; fields?: Record<string, string>; reasons?: string[] };
  const named = Object.entries(extensions.fields ?? {}).map(([path, message]) => {
    const name = path.replace(/^(object|_set|p)\./, '');
    return [options.rename?.[name] ?? name, message] as const;
  });
  const shown = named.filter(([name]) => !options.fields || options.fields.includes(name));
  const other = named.find(([name]) => !shown.some(([n]) => n === name))?.[1];
  const code = extensions.code;
  const told = code && TOLD.has(code) && first?.message ? first.message : null;
  return {
    errors: Object.fromEntries(shown),
    formError: other ?? (shown.length ? null : (told ?? fallback)),
    code,
    reason: extensions.reason,
    reasons: extensions.reasons ?? [],
  };
}

/** The values a form posted, each cut at `max` characters: a hostile post is not kept whole. */
export function formValues<const N extends string>(form: FormData, names: readonly N[], max = 2000): Record<N, string> {
  return Object.fromEntries(names.map((name) => [name, String(form.get(name) ?? '').slice(0, max)])) as Record<N, string>;
}

/**
 * Posts one form: the values named by `fields` (with what `input` adds, e.g. a checkbox), checked
 * by `schema`, saved by `save`, which
 * answers the page's response (a redirect with a toast). A refusal sets a 400 and answers the
 * form to show again, with what the user typed.
 */
export async function submitForm<S extends z.ZodType, const N extends string>(
  page: Pick<AstroGlobal, 'request' | 'response'>,
  form: { fields: readonly N[]; schema: S; max?: number; input?: (typed: Record<N, string>, posted: FormData) => unknown } & FailureOptions,
  save: (data: z.output<S>) => Promise<Response>,
): Promise<Response | FormState<Record<N, string>>> {
  const posted = await page.request.formData().catch(() => new FormData());
  const values = formValues(posted, form.fields, form.max);
  const parsed = form.schema.safeParse(form.input ? form.input(values, posted) : values);
  page.response.status = 400;
  if (!parsed.success) return { values, errors: fieldErrors(parsed.error), formError: null };
  try {
    return await save(parsed.data);
  } catch (error) {
    const { errors, formError } = formFailureOf(error, form);
    return { values, errors, formError };
  }
}

/** Posts an action without fields (a deletion, a toggle): `save` answers the response; a refusal sets a 400 and answers its message. */
export async function submitAction(
  page: Pick<AstroGlobal, 'response'>,
  save: () => Promise<Response>,
  options: FailureOptions = {},
): Promise<Response | FormFailure> {
  try {
    return await save();
  } catch (error) {
    page.response.status = 400;
    return formFailureOf(error, options);
  }
}

/** Stores a posted file, then links it through the API (`link`); a refused link takes the file back. */
export async function storeAndLink(locals: App.Locals, bucketId: BucketId, file: File, link: (fileId: string) => Promise<unknown>): Promise<void> {
  let stored: { id: string } | null = null;
  try {
    stored = await locals.services.files.save({ bucketId, file, userId: locals.user!.id });
    await link(stored.id);
  } catch (error) {
    if (stored) await locals.services.files.remove(stored.id);
    throw error;
  }
}

/** A file input left empty, or not a file at all. */
export const isPostedFile = (value: FormDataEntryValue | null): value is File => value instanceof File && value.size > 0 && !!value.name;

// A refused post answers 303 to its own address, whose GET shows it again (decision 039): the
// address bar never holds a POST, so a reload never posts twice. What to show travels in an
// encrypted, compressed cookie for that page's path only, read once, for the same user; nothing
// is kept in a process's memory, so any instance behind the proxy shows it.
const REFUSAL_COOKIE = 'atelier_refus';
/** A cookie holds about 4 KB: a long refusal (a 2,000-character comment and more) takes up to three. */
const REFUSAL_PART = 3800;
const REFUSAL_PARTS = 3;
const REFUSAL_MAX_AGE = 120;

type RefusalPage = Pick<AstroGlobal, 'request' | 'cookies' | 'locals' | 'redirect' | 'url'>;

const refusalKeys = new Map<string, Buffer>();
const refusalKey = (secret: string) => {
  let key = refusalKeys.get(secret);
  if (!key) refusalKeys.set(secret, (key = createHash('sha256').update(`form-refusal:${secret}`).digest()));
  return key;
};
const ownAddress = (url: URL) => `${url.pathname}${url.search}`;
const refusalCookie = (page: RefusalPage, path = page.url.pathname) => ({
  httpOnly: true,
  sameSite: 'lax' as const,
  path,
  secure: page.locals.services.config.publicUrl.startsWith('https:'),
});

/**
 * Where a refusal is shown and under which cookie: by default the page's own address and form;
 * the profile menu's password dialog posts to /set-password and shows its refusal on the page it
 * was opened from (`to`), under its own cookie, beside that page's own refusals (decision 046).
 */
export type RefusalTarget = { to?: string; cookie?: string };

/** Answers a refused post with a 303 to its own address (or `to`), carrying `state`; null when it is too long to carry (then render it in place). */
export function redirectRefusal(page: RefusalPage, state: object, target: RefusalTarget = {}): Response | null {
  const to = target.to ?? ownAddress(page.url);
  const name = target.cookie ?? REFUSAL_COOKIE;
  const cookie = refusalCookie(page, new URL(to, page.url).pathname);
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', refusalKey(page.locals.services.config.sessionSecret), iv);
  const plain = deflateRawSync(Buffer.from(JSON.stringify({ u: page.locals.user?.id ?? '', p: to, s: state })));
  const sealed = Buffer.concat([iv, cipher.update(plain), cipher.final(), cipher.getAuthTag()]).toString('base64url');
  if (sealed.length > REFUSAL_PART * REFUSAL_PARTS) return null;
  for (let i = 0; i < REFUSAL_PARTS; i++) {
    const part = sealed.slice(i * REFUSAL_PART, (i + 1) * REFUSAL_PART);
    if (part) page.cookies.set(`${name}${i}`, part, { ...cookie, maxAge: REFUSAL_MAX_AGE });
    else page.cookies.delete(`${name}${i}`, cookie);
  }
  return page.redirect(to, 303);
}

/** On the GET after a refused post: what it carried, once; null for none, another page's, another user's, or a tampered one. */
export function takeRefusal<T>(page: RefusalPage, cookie = REFUSAL_COOKIE): T | null {
  if (page.request.method !== 'GET') return null;
  const parts = Array.from({ length: REFUSAL_PARTS }, (_, i) => page.cookies.get(`${cookie}${i}`)?.value ?? '');
  if (!parts[0]) return null;
  for (let i = 0; i < REFUSAL_PARTS; i++) if (parts[i]) page.cookies.delete(`${cookie}${i}`, refusalCookie(page));
  try {
    const sealed = Buffer.from(parts.join(''), 'base64url');
    const decipher = createDecipheriv('aes-256-gcm', refusalKey(page.locals.services.config.sessionSecret), sealed.subarray(0, 12));
    decipher.setAuthTag(sealed.subarray(sealed.length - 16));
    const plain = Buffer.concat([decipher.update(sealed.subarray(12, sealed.length - 16)), decipher.final()]);
    const { u, p, s } = JSON.parse(inflateRawSync(plain, { maxOutputLength: 1_000_000 }).toString('utf8')) as { u: string; p: string; s: T };
    return u === (page.locals.user?.id ?? '') && p === ownAddress(page.url) ? s : null;
  } catch {
    return null;
  }
}

/**
 * A page's posts without JavaScript, the one way: on a post, `post` carries it out (a redirect
 * when it succeeds, what to show again when refused, which moves to the page's own address);
 * on the GET after a refusal, what was refused. Null when there is nothing to show.
 */
export async function postOrShowRefusal<F extends object>(page: RefusalPage, post: () => Promise<Response | F | null>): Promise<Response | F | null> {
  if (page.request.method !== 'POST') return takeRefusal<F>(page);
  const result = await post();
  if (result === null || result instanceof Response) return result;
  return redirectRefusal(page, result) ?? result;
}
