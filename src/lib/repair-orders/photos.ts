// Photos of checkpoints and measures as pages and islands show them (issue 32, decision 088).
import { t } from '#lib/i18n.ts';

/** The field the photo forms' messages stand beside. */
export const PHOTOS_FIELD = 'photos';

/** The page's key for a pick, a hidden field: the same pick sent again (its reply lost) is kept once. */
export const PHOTO_KEY_FIELD = 'cle';

/**
 * A photo post's own cap, in MB, below the multipart one (the largest bucket's): a post is read
 * whole in memory. With JavaScript one photo goes per post; without, this bounds the one post.
 */
export const MAX_PHOTO_POST_MB = 64;

const MB = 1024 * 1024;
/** A photo post's cap in bytes (the middleware's, the hint's): MAX_PHOTO_POST_MB, or one photo of the bucket's and its form if more. */
export const photoPostMaxBytes = (photoMaxBytes: number) => Math.max(MAX_PHOTO_POST_MB, Math.ceil(photoMaxBytes / MB) + 1) * MB;

/** How many photos one post takes: the server refuses more, the upload script says so first. */
export const MAX_PHOTOS_PER_POST = 20;

/** A photo as a grid shows it: links signed for the hour, to the full photo and its thumbnail. */
export type PhotoItem = { id: string; name: string; href: string; thumbnail: string };

/** The photo grid's words, from the catalogue (the island ships none). */
export const photoLabels = (maxMb: number, postMb = photoPostMaxBytes(maxMb * MB) / MB) => ({
  title: t('orderPhotos.title'),
  add: t('orderPhotos.pick'),
  hint: t('orderPhotos.hint', { mb: maxMb, max: MAX_PHOTOS_PER_POST, postMb }),
  send: t('orderPhotos.send'),
  remove: t('orderPhotos.remove'),
  open: t('orderPhotos.open'),
  // The script's to fill, photo by photo.
  sending: t('orderPhotos.sending', { index: '{{index}}', total: '{{total}}', percent: '{{percent}}' }),
  processing: t('orderPhotos.processing', { index: '{{index}}', total: '{{total}}' }),
  addedOne: t('orderPhotos.addedOne'),
  added: t('orderPhotos.added', { count: '{{count}}' }),
  noneAdded: t('orderPhotos.noneAdded', { reason: '{{reason}}' }),
  lost: t('orderPhotos.lost'),
  lostAfter: t('orderPhotos.lostAfter'),
  confirmTitle: t('orderPhotos.confirmTitle'),
  irreversible: t('confirm.irreversible'),
  confirmDelete: t('confirm.delete'),
  cancel: t('confirm.cancel'),
  refused: t('orderPhotos.refused'),
  tooBig: t('orderPhotos.tooBig', { mb: postMb }),
  tooMany: t('orderPhotos.tooMany', { max: MAX_PHOTOS_PER_POST }),
  // The name is the script's to fill, file by file.
  tooLarge: t('orderPhotos.tooLarge', { name: '{{name}}', mb: maxMb }),
});

/** Several refusals said as one sentence: «« a.txt » n'est pas une photo : … ; « b.jpg » est trop volumineuse… ». */
export const joinRefusals = (reasons: string[]) => reasons.map((r, i) => (i < reasons.length - 1 ? r.replace(/\.$/, '') : r)).join(' ; ');
