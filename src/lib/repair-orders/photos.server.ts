// The photo forms' page side (issue 32, decision 088): what a post holds, what a grid shows.
import { t } from '#lib/i18n.ts';
import { singular } from '#lib/plural.ts';
import type { PhotoItem } from './photos.ts';
import { PHOTOS_FIELD } from './photos.ts';

/** The files a photo form posted (an empty pick posts one nameless, empty file: the service says so). */
export const postedPhotos = (form: FormData) => form.getAll(PHOTOS_FIELD).filter((v): v is File => typeof v !== 'string');

export const addedMessage = (count: number) => (singular(count) ? t('orderPhotos.addedOne') : t('orderPhotos.added', { count }));

/** A stored photo as a grid shows it, its links signed for the hour (the browser's cache keeps them). */
export const photoItemOf = (
  files: { signedPath: (id: string) => string },
  photo: { id: string; name: string; fileId: string; thumbnailId: string | null },
): PhotoItem => ({
  id: photo.id,
  name: photo.name,
  href: files.signedPath(photo.fileId),
  thumbnail: files.signedPath(photo.thumbnailId ?? photo.fileId),
});
