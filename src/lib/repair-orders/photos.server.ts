// The photo forms' page side (issue 32, decision 088): what a post holds, what a grid shows.
import { t } from '#lib/i18n.ts';
import { hasCode } from '#lib/errors.ts';
import type { FormFailure } from '#lib/forms.server.ts';
import { fileHref } from '#lib/storage/files.ts';
import { singular } from '#lib/plural.ts';
import { redirectWithToast, setFlash } from '#lib/auth/session.server.ts';
import { cleanName } from '#server/storage/store.ts';
import type { AstroCookies } from 'astro';
import { PHOTO_UPLOAD_HEADER, PHOTO_UPLOAD_LOCATION } from './photo-upload.ts';
import type { PhotoItem } from './photos.ts';
import { MAX_PHOTOS_PER_POST, PHOTO_KEY_FIELD, PHOTOS_FIELD, photoPostMaxBytes } from './photos.ts';

/** The files a photo form posted (an empty pick posts one nameless, empty file: the service says so). */
export const postedPhotos = (form: FormData) => form.getAll(PHOTOS_FIELD).filter((v): v is File => typeof v !== 'string');

export const addedMessage = (count: number) => (singular(count) ? t('orderPhotos.addedOne') : t('orderPhotos.added', { count }));

/** The page's key for the pick (PHOTO_KEY_FIELD), if it is one: anything else keys nothing. */
export const postedKey = (form: FormData) => {
  const key = String(form.get(PHOTO_KEY_FIELD) ?? '');
  return /^[\w.-]{8,120}$/.test(key) ? key : undefined;
};

type Page = { request: Request; cookies: AstroCookies; redirect: (path: string, status?: 303) => Response };

/**
 * The upload script's posts (its header) are answered without the page (decision 088): a 204 naming
 * the page to open. The header is how many photos the script's earlier posts of the same pick added,
 * for the toast's count, and `;last` on the pick's last post when none was refused: only that one
 * leaves the toast, for the page the script then opens (an earlier one's would wait for any page).
 */
const scripted = (page: Page) => page.request.headers.get(PHOTO_UPLOAD_HEADER);

/** The photos are added: the page at `href` with its toast, or, for the script, where to open it. */
export function photosAdded(page: Page, count: number, href: string): Response {
  const before = scripted(page);
  if (before === null) return redirectWithToast(page, addedMessage(count), href);
  const [earlier = '', last] = before.split(';');
  if (last === 'last')
    setFlash(page.cookies, { type: 'success', message: addedMessage(Math.min(Math.max(Number.parseInt(earlier, 10) || 0, 0), MAX_PHOTOS_PER_POST) + count) });
  return new Response(null, { status: 204, headers: { [PHOTO_UPLOAD_LOCATION]: href } });
}

/**
 * A refused photo post said to the script as text, naming the photo (its post carries one), with
 * no page and no refusal kept for the next page; null for a post without the script.
 */
export function photosRefused(page: Page, status: number, message: string, uploads: File[]): Response | null {
  if (scripted(page) === null) return null;
  // Only the photo's own fault (400) names it: a closed order or a checkpoint gone refuses any.
  const name = status === 400 && uploads.length === 1 ? cleanName(uploads[0]!.name) : '';
  const text = name && !message.includes(name) ? t('orderPhotos.refusedOne', { name, reason: message }) : message;
  return new Response(text, { status, headers: { 'content-type': 'text/plain; charset=utf-8', [PHOTO_UPLOAD_HEADER]: 'refused' } });
}

/** A form's post over the photo post cap, left unread (middleware): refused whole, said beside the field. */
export const tooBigMessage = (photoMaxBytes: number) => t('orderPhotos.tooBig', { mb: photoPostMaxBytes(photoMaxBytes) / 1024 / 1024 });

/**
 * A refused photo post's status and words, on the order's and the measure's pages: the photos' own
 * fault 400 (their names said), a role that may not 403, anything else (the order closed meanwhile)
 * 409 with `otherwise`. A target gone is the page's to say.
 */
export function photoRefusal(failure: FormFailure, otherwise: string): { status: number; message: string } {
  const said = failure.errors?.[PHOTOS_FIELD];
  if (said) return { status: 400, message: said };
  if (hasCode(failure, 'forbidden')) return { status: 403, message: t('refusals.forbidden') };
  return { status: 409, message: otherwise };
}

/** A post without the script refuses all it carried: said so (decision 088). */
export const noneAddedMessage = (reason: string) => t('orderPhotos.noneAdded', { reason });

/** A stored photo as a grid shows it: its thumbnail signed for the hour (cached), the full photo when tapped (decision 095). */
export const photoItemOf = (
  files: { signedPath: (id: string) => string },
  photo: { id: string; name: string; fileId: string; thumbnailId: string | null },
): PhotoItem => ({
  id: photo.id,
  name: photo.name,
  href: fileHref(photo.fileId),
  thumbnail: files.signedPath(photo.thumbnailId ?? photo.fileId),
});
