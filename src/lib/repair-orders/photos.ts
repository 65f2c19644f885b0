// Photos of checkpoints and measures as pages and islands show them (issue 32, decision 088).
import { t } from '#lib/i18n.ts';

/** The field the photo forms' messages stand beside. */
export const PHOTOS_FIELD = 'photos';

/** A photo as a grid shows it: links signed for the hour, to the full photo and its thumbnail. */
export type PhotoItem = { id: string; name: string; href: string; thumbnail: string };

/** The photo grid's words, from the catalogue (the island ships none). */
export const photoLabels = (maxMb: number) => ({
  title: t('orderPhotos.title'),
  add: t('orderPhotos.pick'),
  hint: t('orderPhotos.hint', { mb: maxMb }),
  send: t('orderPhotos.send'),
  remove: t('orderPhotos.remove'),
  open: t('orderPhotos.open'),
  sending: t('orderPhotos.sending'),
  processing: t('orderPhotos.processing'),
  lost: t('orderPhotos.lost'),
});
