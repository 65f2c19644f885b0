// The one way a page handles a form post (issue 16): read what was typed, check it with the
// form's zod schema, save through the viewer's services, and on success redirect with a toast; on
// failure show again what was typed with each message beside its field, or one above the form.
// A service's refusal is read here and nowhere else (`formFailureOf`).
import { createHash } from 'node:crypto';
import type { AstroGlobal } from 'astro';
import { EncryptJWT, jwtDecrypt } from 'jose';
import type { z } from 'zod';
import { DomainError, TOLD_BY_KIND } from '#server/errors.ts';
import { databaseRefusal } from '#server/db/errors.ts';
import type { ApiErrorCode, ApiRefusal, RefusalReason } from '#lib/errors.ts';
import type { BucketId } from '#lib/storage/files.ts';
import { type MessageKey, t } from './i18n.ts';
import { fieldErrors, type FieldErrors } from './validation.ts';

export type FormValues = Record<string, string>;

/** What a refused post shows: the typed values, a message per field, one above the form. */
export type FormState<V = FormValues> = {
  values: V;
  errors: FieldErrors;
  formError: string | null;
  /** The service's stable name of its refusal, for a page that reacts to one ('stale': saved meanwhile). */
  reason?: RefusalReason | undefined;
};

export type FormFailure = {
  errors: FieldErrors;
  formError: string | null;
  /** The API's code ('conflict', 'validation'…) for a page that reacts to one; 'storage' for the file store. */
  code: ApiErrorCode | 'storage' | undefined;
  /** The API's stable name of the refusal, e.g. 'email-already-in-use'. */
  reason: RefusalReason | undefined;
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

// Whether a refusal's message is the user's to read, by the API's code; any other says `fallback`.
const TOLD: Record<ApiErrorCode, boolean> = {
  validation: true,
  conflict: true,
  'not-found': true,
  forbidden: true,
  unavailable: true,
  'invalid-jwt': false,
  internal: false,
  'cost-limit': false,
  timeout: false,
  'too-many-subscriptions': false,
  'too-many-requests': false,
  'too-large': false,
};

/** A refused save, in French: beside its field when it has one, above the form otherwise. */
export function formFailureOf(error: unknown, options: FailureOptions = {}): FormFailure {
  // A service called in process says what GraphQL would have answered (the one table, TOLD_BY_KIND); the
  // file store's own failures (space, outage) are the user's to read too, beside its field if any.
  if (error instanceof DomainError) {
    const told = TOLD_BY_KIND[error.kind](error) ?? { code: 'unavailable' as const, message: error.message, extensions: {} };
    const beside = options.fileField;
    if (beside) return { errors: { [beside]: told.message }, formError: null, code: 'storage', reason: error.reason, reasons: [] };
    return refusalFailure(
      { code: told.code, message: told.message, reason: error.reason, fields: error.details.fields, reasons: error.details.reasons },
      options,
    );
  }
  // What the database refused of the input (a NUL, a value out of its column's type, a duplicate, a
  // link gone) is the user's to fix, said as the API says it; any other failure is the server's.
  const refused = databaseRefusal(error);
  if (refused) return refusalFailure({ code: refused.kind === 'invalid' ? 'validation' : 'conflict', message: refused.message }, options);
  throw error;
}

/** A refusal, as a form shows it: beside its fields, or above the form in words the user can act on. */
function refusalFailure(refusal: ApiRefusal, options: FailureOptions): FormFailure {
  const fallback = options.fallback ?? t('errors.generic');
  const named = Object.entries(refusal.fields ?? {}).map(([path, message]) => {
    const name = path.replace(/^(object|_set|p)\./, '');
    return [options.rename?.[name] ?? name, message] as const;
  });
  const shown = named.filter(([name]) => !options.fields || options.fields.includes(name));
  const other = named.find(([name]) => !shown.some(([n]) => n === name))?.[1];
  const { code, message } = refusal;
  // The code comes from the wire: one the table does not hold is not told.
  const told = code && Object.hasOwn(TOLD, code) && TOLD[code] && message ? message : null;
  return {
    errors: Object.fromEntries(shown),
    formError: other ?? (shown.length ? null : (told ?? fallback)),
    code,
    reason: refusal.reason,
    reasons: refusal.reasons ?? [],
  };
}

/** What a form was filled with, posted back in its hidden `filled` field, as JSON read it; null when missing or not JSON. */
export function filledOf(form: FormData): unknown {
  try {
    return JSON.parse(String(form.get('filled') ?? '').slice(0, 40_000));
  } catch {
    return null;
  }
}

/** The values a form was filled with (`filledOf`); null when missing or not a form's. */
export function filledValuesOf(form: FormData): Record<string, string> | null {
  const filled = filledOf(form);
  if (!filled || typeof filled !== 'object' || Array.isArray(filled) || !Object.values(filled).every((v) => typeof v === 'string')) return null;
  return filled as Record<string, string>;
}

/** A typed text as it reads: line endings as the browser may send them, spaces around. */
export const textAsRead = (value: string) => value.replace(/\r\n?/g, '\n').trim();

/**
 * What a field both changed says beside it: the value now saved as the user reads it (`shown`:
 * the text, a choice's label, a person's name), so the user compares before saving again (walk13 F3).
 */
export function clashErrors<N extends string>(
  clashes: readonly N[],
  saved: Record<string, string>,
  shown: (name: N, value: string) => string,
): Record<string, string> {
  return Object.fromEntries(
    clashes.map((name) => {
      const read = shown(name, textAsRead(saved[name] ?? ''));
      return [name, read ? t('repairOrders.changedBothWas', { value: read }) : t('repairOrders.changedBothEmptied')];
    }),
  );
}

/**
 * What a posted form holds that the saved record does not, labelled as the form labels it (`labels`:
 * field → catalogue key, in the form's order) and read as `shown` reads it, each compared as
 * `canonical` reads it (as `mergeOverSaved` does): what an order closed meanwhile lists for the user to copy.
 */
export function unsavedFields(
  labels: Record<string, MessageKey>,
  values: { typed: Record<string, string>; filled?: Record<string, string>; saved: Record<string, string> },
  shown: (name: string, value: string) => string,
  canonical: (name: string, value: string) => string,
): { label: string; value: string }[] {
  const differs = (name: string, other: Record<string, string>) => canonical(name, values.typed[name] ?? '') !== canonical(name, other[name] ?? '');
  // With what the form was filled with: only what the user changed, not a colleague's change meanwhile.
  return Object.entries(labels)
    .filter(([name]) => differs(name, values.saved) && (!values.filled || differs(name, values.filled)))
    .map(([name, label]) => ({ label: t(label), value: shown(name, values.typed[name] ?? '') }));
}

/**
 * A form refused because its record was saved meanwhile (decision 077), merged as a careful
 * colleague would: a field left as the form was filled takes the value now saved, a field the
 * user changed keeps what they typed, and one both changed differently is a clash to check.
 */
export function mergeOverSaved<N extends string>(
  names: readonly N[],
  values: { typed: Record<string, string>; filled: Record<string, string>; saved: Record<string, string> },
  canonical: (name: N, value: string) => string,
): { values: Record<string, string>; clashes: N[] } {
  const merged = { ...values.typed };
  const clashes: N[] = [];
  for (const name of names) {
    const [mine, was, theirs] = [values.typed, values.filled, values.saved].map((v) => canonical(name, v[name] ?? ''));
    if (mine === was) merged[name] = values.saved[name] ?? '';
    else if (theirs !== was && theirs !== mine) clashes.push(name);
  }
  return { values: merged, clashes };
}

/** The values a form posted, each cut at `max` characters: a hostile post is not kept whole. */
export function formValues<const N extends string>(form: FormData, names: readonly N[], max = 2000): Record<N, string> {
  return Object.fromEntries(names.map((name) => [name, String(form.get(name) ?? '').slice(0, max)])) as Record<N, string>;
}

/** What one form of a page posts: the names of its fields, its one schema (STYLE.md), what `input` adds (a checkbox). */
export type FormSpec<S extends z.ZodType, N extends string> = {
  fields: readonly N[];
  schema: S;
  max?: number;
  input?: (typed: Record<N, string>, posted: FormData) => unknown;
};

/** A form read and checked: what was typed (cut at `max`), and either its checked data or a message per field. */
export type CheckedForm<S extends z.ZodType, N extends string> = { values: Record<N, string>; posted: FormData } & (
  | { data: z.output<S>; errors?: undefined }
  | { data?: undefined; errors: FieldErrors }
);

// The body of a request is read once: a helper that reads it again (a proof, a second form) gets the same.
const postedForms = new WeakMap<Request, Promise<FormData>>();
/** Posts too big to read, let through for their page to refuse (a photo form's over its cap, decision 088). */
const unreadPosts = new WeakSet<Request>();
/** Marks a post too big to read: its form reads as empty, its page says so (`isUnread`). */
export const leaveUnread = (request: Request) => void unreadPosts.add(request);
export const isUnread = (page: { request: Request }) => unreadPosts.has(page.request);
/**
 * What a post's form holds, the one read of a form body (decision 071): a body that is not a form
 * reads as an empty one, whose fields each form's schema then says are missing.
 */
export function postedForm(page: { request: Request }): Promise<FormData> {
  let posted = postedForms.get(page.request);
  if (!posted) postedForms.set(page.request, (posted = isUnread(page) ? Promise.resolve(new FormData()) : page.request.formData().catch(() => new FormData())));
  return posted;
}

/** Checks what a form posted with its one schema: the fields it names, cut at `max` (a hostile post is not kept whole). */
export function checkForm<S extends z.ZodType, const N extends string>(posted: FormData, form: FormSpec<S, N>): CheckedForm<S, N> {
  const values = formValues(posted, form.fields, form.max);
  const parsed = form.schema.safeParse(form.input ? form.input(values, posted) : values);
  return parsed.success ? { values, posted, data: parsed.data } : { values, posted, errors: fieldErrors(parsed.error) };
}

/** Reads and checks a post's form (`postedForm`, `checkForm`): for a post whose outcome is more than a redirect (a sign-in's next step). */
export async function readForm<S extends z.ZodType, const N extends string>(page: { request: Request }, form: FormSpec<S, N>): Promise<CheckedForm<S, N>> {
  return checkForm(await postedForm(page), form);
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
  const read = await readForm(page, form);
  const { values } = read;
  page.response.status = 400;
  if (read.errors) return { values, errors: read.errors, formError: null };
  try {
    return await save(read.data);
  } catch (error) {
    const { errors, formError, reason } = formFailureOf(error, form);
    return { values, errors, formError, reason };
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

// A refused post answers 303 to the address that shows its form, whose GET shows it again
// (decision 039): the address bar never holds a POST nor an action, so a reload never posts twice. What to show travels in an
// encrypted, compressed cookie (JWE, dir + A256GCM, DEF, like the session's) for that page's path
// only, for the same user at the same address; nothing is kept in a process's memory, so any
// instance behind the proxy shows it. A reload shows it again (what was typed survives a reload)
// until a post of that page succeeds, the user opens another page (decision 064) or ten minutes pass.
const REFUSAL_COOKIE = 'atelier_refus';
/** Which path holds a refusal waiting to be shown, for every page to see (decision 064): leaving it drops it. */
const REFUSAL_PAGE_COOKIE = 'atelier_refus_page';
/** A cookie holds about 4 KB: a long refusal (a 2,000-character comment and more) takes up to three. */
const REFUSAL_PART = 3800;
const REFUSAL_PARTS = 3;
const REFUSAL_MAX_AGE = 600;

/** What a refusal needs of a request: a page's (`Astro`) or the middleware's context. */
type RefusalContext = Pick<AstroGlobal, 'request' | 'cookies' | 'locals' | 'redirect' | 'url'>;
type RefusalPage = RefusalContext & Pick<AstroGlobal, 'response'>;

const refusalKeys = new Map<string, Uint8Array>();
const refusalKey = (secret: string) => {
  let key = refusalKeys.get(secret);
  if (!key) refusalKeys.set(secret, (key = createHash('sha256').update(`form-refusal:${secret}`).digest()));
  return key;
};
const addressOf = (url: URL) => `${url.pathname}${url.search}`;
/** What a post's address names of the post itself (`?action=`, the record and version it acts on), never what a page shows. */
const POST_PARAMS = ['action', 'id', 'version'];
/** The address that shows a posted form: the post's own without its action, record and version. */
export function formAddressOf(url: URL): string {
  if (!POST_PARAMS.some((name) => url.searchParams.has(name))) return addressOf(url);
  const shown = new URL(url);
  for (const name of POST_PARAMS) shown.searchParams.delete(name);
  return addressOf(shown);
}
const refusalCookie = (page: RefusalContext, path: string) => ({
  httpOnly: true,
  sameSite: 'lax' as const,
  path,
  secure: page.locals.services.config.publicUrl.startsWith('https:'),
});
/** Ends what a refused post left to show on this page's path: each of its cookies that is there. */
const dropRefusal = (page: RefusalContext, cookie: string, path = page.url.pathname) => {
  for (let i = 0; i < REFUSAL_PARTS; i++) {
    if (page.cookies.get(`${cookie}${i}`) || path !== page.url.pathname) page.cookies.delete(`${cookie}${i}`, refusalCookie(page, path));
  }
  if (cookie === REFUSAL_COOKIE && page.cookies.get(REFUSAL_PAGE_COOKIE)) page.cookies.delete(REFUSAL_PAGE_COOKIE, refusalCookie(page, '/'));
};

/**
 * A page opened elsewhere than where a refused post waits to be shown drops it (decision 064):
 * the refusal is for the reload right after the post, not for the next visit («Annuler», another
 * page, signing out, then the form again). A detour that names the page as its way back
 * (`?retour=`: the proof's /profile/confirm) keeps it; requests other than pages (an island's
 * fetch, an image, a prefetch) leave it alone.
 */
export function leaveRefusal(page: RefusalContext): void {
  const waiting = page.cookies.get(REFUSAL_PAGE_COOKIE)?.value;
  if (!waiting || page.request.method !== 'GET' || page.url.pathname === waiting) return;
  const headers = page.request.headers;
  const dest = headers.get('sec-fetch-dest');
  if (dest ? dest !== 'document' : !headers.get('accept')?.includes('text/html')) return;
  if (headers.get('sec-purpose')?.includes('prefetch') || headers.get('purpose') === 'prefetch') return;
  const back = page.url.searchParams.get('retour');
  if (back && new URL(back, page.url).pathname === waiting) return;
  dropRefusal(page, REFUSAL_COOKIE, waiting);
}
/** The status a refusal carries (a conflict's 409), 400 otherwise. */
const statusOf = (state: object) => ('status' in state && typeof state.status === 'number' ? state.status : 400);

/**
 * Answers a refused post with a 303 carrying `state` to the address that shows its form: the
 * post's own without its action (`formAddressOf`), at `at` when the page names one: another
 * address (an anchor may follow), or only an anchor (`#…`, the form or its row on that address);
 * null when it is too long to carry (then render it in place).
 */
export async function redirectRefusal(page: RefusalContext, state: object, at?: string, cookie = REFUSAL_COOKIE): Promise<Response | null> {
  const target = new URL(at ?? '', new URL(formAddressOf(page.url), page.url));
  const sealed = await new EncryptJWT({ s: state })
    .setProtectedHeader({ alg: 'dir', enc: 'A256GCM', zip: 'DEF' })
    .setSubject(page.locals.user?.id ?? '')
    .setAudience(addressOf(target))
    .setIssuedAt()
    .setExpirationTime(`${REFUSAL_MAX_AGE}s`)
    .encrypt(refusalKey(page.locals.services.config.sessionSecret));
  if (sealed.length > REFUSAL_PART * REFUSAL_PARTS) return null;
  for (let i = 0; i < REFUSAL_PARTS; i++) {
    const part = sealed.slice(i * REFUSAL_PART, (i + 1) * REFUSAL_PART);
    if (part) page.cookies.set(`${cookie}${i}`, part, { ...refusalCookie(page, target.pathname), maxAge: REFUSAL_MAX_AGE });
    else page.cookies.delete(`${cookie}${i}`, refusalCookie(page, target.pathname));
  }
  if (cookie === REFUSAL_COOKIE) page.cookies.set(REFUSAL_PAGE_COOKIE, target.pathname, { ...refusalCookie(page, '/'), maxAge: REFUSAL_MAX_AGE });
  return page.redirect(`${addressOf(target)}${target.hash}`, 303);
}

/**
 * On a GET of the address a refused post moved to: what it carried (a reload shows it again);
 * null for none, another address's, another user's, an expired or a tampered one. The password
 * dialog's refusal carries only messages, under its own cookie (decision 046): shown `once`.
 */
export async function readRefusal<T>(page: RefusalContext, cookie = REFUSAL_COOKIE, { once = false } = {}): Promise<T | null> {
  if (page.request.method !== 'GET') return null;
  const parts = Array.from({ length: REFUSAL_PARTS }, (_, i) => page.cookies.get(`${cookie}${i}`)?.value ?? '');
  if (!parts[0]) return null;
  if (once) dropRefusal(page, cookie);
  try {
    const { payload } = await jwtDecrypt(parts.join(''), refusalKey(page.locals.services.config.sessionSecret), {
      keyManagementAlgorithms: ['dir'],
      contentEncryptionAlgorithms: ['A256GCM'],
      audience: addressOf(page.url),
      maxDecompressedLength: 1_000_000,
    });
    return payload.sub === (page.locals.user?.id ?? '') && payload.s && typeof payload.s === 'object' ? (payload.s as T) : null;
  } catch {
    return null;
  }
}

/**
 * A page's posts without JavaScript, the one way: on a post, `post` carries it out (a redirect
 * when it succeeds, what to show again when refused, which moves to the address showing the form:
 * the post's own without `?action=`, `id=`, `version=`, or `at`); on a GET of that address,
 * what was refused, until a post of the page succeeds. Null when there is nothing to show.
 * The refusal's status is the POST's (the 303 says it): the GET that shows the form again answers
 * 200; a refusal too long to carry, shown in place, answers its status (400, a conflict's 409).
 * `inPlace`: what a post answers that is no refusal to carry but a next step holding what no
 * cookie carries (the sign-in's code step and its ticket, recovery codes shown once): shown in
 * place with the status the post set, as before; what was refused earlier is then no longer to show.
 */
export async function postOrShowRefusal<F extends object>(
  page: RefusalPage,
  post: () => Promise<Response | F | null>,
  options: { at?: string | undefined; inPlace?: (result: F) => boolean } = {},
): Promise<Response | F | null> {
  if (page.request.method !== 'POST') return readRefusal<F>(page);
  const result = await post();
  // The service away (5xx, decision 036) is answered in place: there a reload is the retry it asks for.
  if (result === null || result instanceof Response || (page.response.status ?? 200) >= 500 || options.inPlace?.(result)) {
    // Done: what was refused on this page is no longer to show.
    dropRefusal(page, REFUSAL_COOKIE);
    return result;
  }
  const moved = await redirectRefusal(page, result, options.at);
  if (moved) return moved;
  page.response.status = statusOf(result);
  return result;
}
