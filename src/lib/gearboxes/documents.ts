// Files of a technical dossier (SPEC §3): the model's documents by category (the document type
// enum), its reference curves, an outage's files and a measure's procedure files.
import { z } from 'zod';
import type { BucketId } from '#lib/storage/files.ts';
import { t } from '#lib/i18n.ts';
import { fr } from '#lib/i18n/fr.ts';
import { optionalText } from '#lib/validation.ts';

export const documentTypes = ['gearbox-technical-drawing', 'gearbox-scrapyard-file', 'gearbox-manufacturer-information', 'measure-procedure'] as const;
export type DocumentType = (typeof documentTypes)[number];
export const documentCategories = [...documentTypes, 'reference-curve', 'outage-file', 'measure-file'] as const;
export type DocumentCategory = (typeof documentCategories)[number];

export const documentCategoryLabels: Record<DocumentCategory, string> = fr.labels.documentCategory;

/** The storage bucket whose rules (SPEC §5) a category's files follow. */
export function bucketOf(category: DocumentCategory): BucketId {
  if (category === 'outage-file') return 'outage';
  if (category === 'measure-file' || category === 'measure-procedure') return 'measure';
  return 'documents';
}

export type GearboxDocument = {
  id: string;
  category: DocumentCategory;
  title: string;
  comment: string;
  outageId: string | null;
  measureId: string | null;
  /** An ISO string from the API, a Date from the service. */
  createdAt: string | Date;
  file: { id: string; name: string; mimeType: string; size: number };
};

/** What a form sends with the file; the file itself goes through the storage API first. */
export const documentSchema = z.object({
  category: z.enum(documentCategories, { error: t('validation.required') }),
  title: optionalText(160),
  comment: optionalText(1000),
});
export type DocumentInput = z.infer<typeof documentSchema>;

export const isImage = (mimeType: string) => mimeType === 'image/png' || mimeType === 'image/jpeg';
/** Opened in the browser; the rest downloads. */
export const opensInline = (mimeType: string) => isImage(mimeType) || mimeType === 'application/pdf';

/** The documents tab's sub-tabs (`&vue=`). */
export const documentViews = ['courbes', 'mesures', 'autres'] as const;
export type DocumentView = (typeof documentViews)[number];
