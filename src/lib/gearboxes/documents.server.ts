// A page's file form: the posted file is stored (bucket rules of SPEC §5), then linked to the
// dossier by its service; when the link fails the stored file goes, so nothing half-written stays.
import type { DocumentOwner } from '#server/gearboxes/documents.ts';
import { bucketOf, documentSchema, type DocumentCategory, type GearboxDocument } from './documents.ts';
import { formFailureOf, isPostedFile, storeAndLink } from '#lib/forms.server.ts';
import { t } from '#lib/i18n.ts';
import { fileHref } from '#lib/storage/files.ts';
import { fieldErrors, type FieldErrors } from '#lib/validation.ts';

export type DocumentDraft = { values: Record<string, string>; errors: FieldErrors; formError?: string };

/** Reads the form; returns null when the file was linked, or what to show again. */
export async function postDocument(
  locals: App.Locals,
  form: FormData,
  owner: DocumentOwner,
  allowed: readonly DocumentCategory[],
): Promise<DocumentDraft | null> {
  const values = {
    category: String(form.get('category') ?? allowed[0]),
    title: String(form.get('title') ?? '').slice(0, 400),
    comment: String(form.get('comment') ?? '').slice(0, 2000),
  };
  const parsed = documentSchema.safeParse(values);
  const errors: FieldErrors = parsed.success ? {} : fieldErrors(parsed.error);
  if (parsed.success && !allowed.includes(parsed.data.category)) errors.category = t('validation.required');
  const file = form.get('file');
  if (!isPostedFile(file)) errors.file = t('documents.fileRequired');
  if (!parsed.success || Object.keys(errors).length || !isPostedFile(file)) return { values, errors };
  const { category, title, comment } = parsed.data;
  try {
    await storeAndLink(locals, bucketOf(category), file, (fileId) => locals.services.gearboxDocuments.insert(owner, fileId, { category, title, comment }));
    return null;
  } catch (error) {
    const failure = formFailureOf(error, {
      fallback: t('errors.fileImport', { file: file.name }),
      rename: { fileId: 'file' },
      fields: ['file'],
      fileField: 'file',
    });
    return { values, errors: failure.errors, formError: failure.formError ?? undefined };
  }
}

/**
 * Links a page shows: the file, signed when tapped (decision 095), and for an image its thumbnail,
 * signed for the hour as it loads with the page.
 */
export function linksOf(locals: App.Locals, document: Pick<GearboxDocument, 'file'>) {
  const { files } = locals.services;
  return { href: fileHref(document.file.id), thumbnail: files.signedPath(document.file.id, { width: 320 }) };
}
