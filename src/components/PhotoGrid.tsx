// A checkpoint's or a measure's photos (issue 32, decision 088): a grid of thumbnails, each a link
// to the full photo, and while the order is open for who may add them, the camera's form and a
// delete link per photo, which opens the page asking first (SPEC: a deletion always asks). Plain
// forms that post without JavaScript; with it, PhotoUpload.astro sends the photos with their
// progress. Drawn on the server: by OrderProcedureTab (markup the checkpoints island injects) and
// by the measure page.
import { PHOTO_KEY_FIELD, type PhotoItem } from '#lib/repair-orders/photos.ts';

export type PhotoLabels = {
  title: string;
  add: string;
  hint: string;
  send: string;
  remove: string;
  /** 'Photo {{index}} : {{name}}, ouvrir en grand' */
  open: string;
  /** What the upload script says, photo by photo ({{index}}, {{total}}, {{percent}}); then while the server makes it; then a lost network. */
  sending: string;
  processing: string;
  lost: string;
  /** Said after what was added when the page to show them cannot be reached. */
  lostAfter: string;
  /** The script's summary: what was added ({{count}}), or that none was ({{reason}}). */
  addedOne: string;
  added: string;
  noneAdded: string;
  /** The deletion's question, with {{name}}; then the catalogue's confirm words. */
  confirmTitle: string;
  irreversible: string;
  confirmDelete: string;
  cancel: string;
  /** The upload script's refusals: a post refused by the server, too big a post, too many photos, too big a photo ({{name}}). */
  refused: string;
  tooBig: string;
  tooMany: string;
  tooLarge: string;
};

type Props = {
  /** Names the input and its messages: unique on the page. */
  id: string;
  photos: PhotoItem[];
  labels: PhotoLabels;
  /** Where the photos post; null: read only (a closed order, a role that may not). */
  addAction: string | null;
  /** Where a photo's delete posts. */
  removeAction: (photoId: string) => string;
  /** The page asking to delete a photo (a link, so it works without JavaScript), and where its cancel leads. */
  confirmHref: (photoId: string) => string;
  cancelHref: string;
  /** The photo whose deletion is being asked, if any. */
  confirming?: string | null | undefined;
  /** What the upload script checks before sending: how many photos at most, and each one's bytes. */
  maxCount: number;
  maxBytes: number;
  /** A refused post's message, beside the field. */
  error?: string | null | undefined;
  /** The title's level: under a checkpoint's h3 by default, a section of its own on the measure page. */
  heading?: 'h2' | 'h4';
};

export default function PhotoGrid({
  id,
  photos,
  labels,
  addAction,
  removeAction,
  confirmHref,
  cancelHref,
  confirming,
  maxCount,
  maxBytes,
  error,
  heading: Heading = 'h4',
}: Props) {
  // A refusal is said even once the form is gone (the order closed meanwhile).
  if (!photos.length && !addAction && !error) return null;
  const asked = addAction ? photos.find((p) => p.id === confirming) : undefined;
  return (
    // Under a checkpoint's answer, a rule parts them; the measure page's card needs none.
    <div className={Heading === 'h4' ? 'flex flex-col gap-2 border-t border-line pt-3' : 'flex flex-col gap-2'}>
      <Heading className="text-sm font-semibold">
        {labels.title}
        {photos.length > 0 && ` (${photos.length})`}
      </Heading>
      {asked && (
        // ConfirmDelete's form, drawn here: the island's markup holds no Astro component.
        <form method="post" action={removeAction(asked.id)} className="alert-error flex flex-col gap-2">
          <p className="font-semibold">{labels.confirmTitle.replace('{{name}}', asked.name)}</p>
          <p>{labels.irreversible}</p>
          <div className="flex gap-2">
            <button type="submit" className="btn bg-danger text-white">
              {labels.confirmDelete}
            </button>
            <a href={cancelHref} className="btn btn-secondary">
              {labels.cancel}
            </a>
          </div>
        </form>
      )}
      {error && (
        <p id={`photos-${id}-erreur`} className="text-sm font-semibold text-danger" role="alert">
          {error}
        </p>
      )}
      {photos.length > 0 && (
        <ul className="grid grid-cols-2 gap-2 sm:grid-cols-4">
          {photos.map((photo, i) => (
            <li key={photo.id} id={`photo-${photo.id}`} className="flex flex-col gap-1">
              <a href={photo.href} className="block">
                <img
                  src={photo.thumbnail}
                  alt={labels.open.replace('{{index}}', String(i + 1)).replace('{{name}}', photo.name)}
                  loading="lazy"
                  decoding="async"
                  width="320"
                  height="200"
                  className="h-40 w-full rounded-[8px] border border-line object-contain"
                />
              </a>
              {addAction && (
                <a href={confirmHref(photo.id)} className="btn btn-secondary min-h-12 w-full text-sm">
                  {labels.remove}
                </a>
              )}
            </li>
          ))}
        </ul>
      )}
      {addAction && (
        <form
          method="post"
          encType="multipart/form-data"
          action={addAction}
          className="flex flex-col gap-2"
          data-photos=""
          data-sending={labels.sending}
          data-processing={labels.processing}
          data-lost={labels.lost}
          data-lost-after={labels.lostAfter}
          data-added-one={labels.addedOne}
          data-added={labels.added}
          data-none-added={labels.noneAdded}
          data-refused={labels.refused}
          data-too-big={labels.tooBig}
          data-too-many={labels.tooMany}
          data-too-large={labels.tooLarge}
          data-max-count={maxCount}
          data-max-bytes={maxBytes}
        >
          {/* A new key each time the form is drawn: the same pick sent again (its reply lost) is kept once. */}
          <input type="hidden" name={PHOTO_KEY_FIELD} value={crypto.randomUUID()} />
          <label htmlFor={`photos-${id}`} className="text-sm font-semibold">
            {labels.add}
          </label>
          <input
            id={`photos-${id}`}
            type="file"
            name="photos"
            accept="image/*"
            capture="environment"
            multiple
            required
            className="field-input min-h-12"
            aria-invalid={error ? 'true' : undefined}
            aria-describedby={`photos-${id}-aide${error ? ` photos-${id}-erreur` : ''}`}
          />
          <p id={`photos-${id}-aide`} className="text-sm text-muted">
            {labels.hint}
          </p>
          <progress max={100} value={0} hidden className="w-full" />
          {/* Announced as it changes; not a row's status (the checkpoint's answer has that role). */}
          <p aria-live="polite" className="text-sm font-semibold" data-photos-status="" />
          <div>
            <button type="submit" className="btn btn-primary min-h-12">
              {labels.send}
            </button>
          </div>
        </form>
      )}
    </div>
  );
}
